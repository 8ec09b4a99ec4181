// The deployment model of one endpoint: settings with the public service's meanings, the timing
// model's distributions and seeded sampler, the scaler, and the billing meter with its price table.
// Imports nothing but spec/; the emulator runs it on its clock (src/emulator/queue/deployment-model.ts).
export {
  ACCOUNT_WORKERS_CAP,
  BaseDistribution,
  ConstantDist,
  DeploymentSettings,
  Distribution,
  EmpiricalDist,
  ExecutionByClass,
  ExecutionTiming,
  GpuPrice,
  IDLE_TIMEOUT_S,
  LognormalDist,
  MixtureDist,
  SCALER_TYPES,
  SERVICE_DEFAULTS,
  TimingModel,
  UniformDist,
} from './schema.js';
export type { DeploymentSettingsInput, ScalerType, TimingModelInput } from './schema.js';
export { ENGINE_DEFAULT_JOBS_PER_WORKER, LlmEngine, StreamBatch, type LlmEngineInput } from './engine-schema.js';
export { approxPromptTokens, decodeStepMs, EngineSeq, evenShares, prefillStepMs, StreamBatcher, streamBatchSizes, streamGapMs, streamTokensPerSec, WorkerEngine, type EngineScheduling, type EngineStep } from './engine.js';
export { cdf, meanMs, normalCdf, normalQuantile, quantileMs, sampleMs } from './distributions.js';
export { seededRng, streamSeed, type Rng } from './random.js';
export { DEFAULT_GPU_TYPE_ID, DEFAULT_PRICES, PRICE_TABLE_DATE, PRICE_TABLE_SOURCE, priceOf } from './prices.js';
export { describeDeployment, QUEUE_DELAY_CHECK_MS, resolveDeployment } from './resolve.js';
export type { EndpointDeployment, PoolDefaults, ResolvedTiming, ScalerSettings } from './resolve.js';
export { startsOnArrival, startsOnChange, startsOnCheck, type ScalerView } from './scaler.js';
export { TimingSampler } from './timing.js';
export { BillingMeter, type BillingSnapshot, type MeteredState, type WorkerRole } from './billing.js';
