// The emulator's configuration: one zod schema with every default, validated once at the
// boundary (startEmulator, `qbench emulate` flags and config file) and frozen.
// Limit defaults come from src/spec (§2.2, §4.1, §8); the rest are emulator choices.
import { z } from 'zod';
import { configError } from '../errors.js';
import { RATE_LIMITS, DEFAULT_REQUESTS_PER_WORKER, RUN_PAYLOAD, RUNSYNC_PAYLOAD, STREAM_CHUNK, SECOND_MS, WORKER_PROTOCOL, EndpointId } from '../spec/index.js';
import type { RateLimitedOperation } from '../spec/index.js';
import { FAULT_NAMES, isFaultName, type FaultName } from './faults.js';
import { DEFAULT_PRICES, DeploymentSettings, priceOf, resolveDeployment, type EndpointDeployment } from '../deployment/index.js';

const OPERATIONS = Object.keys(RATE_LIMITS) as RateLimitedOperation[];

const nonNegInt = (what: string) => z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` }).nonnegative({ error: `${what} must be >= 0` });
const posInt = (what: string) => z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` }).positive({ error: `${what} must be > 0` });

export const RateOverride = z.strictObject({
  requestsPerWindow: posInt('requestsPerWindow').optional(),
  /** null: no concurrency cap. */
  concurrency: posInt('concurrency').nullable().optional(),
});
export type RateOverride = z.infer<typeof RateOverride>;

const RateOverrides = z.partialRecord(z.enum(OPERATIONS as [RateLimitedOperation, ...RateLimitedOperation[]]), RateOverride);

/** The emulator's own pool settings; each endpoint's default (deployments.<id> overrides them). */
export const WorkersConfig = z.strictObject({
  /** Workers kept up even when idle. */
  min: nonNegInt('workers.min').default(1),
  /** Upper bound of the pool; jobs queue when every worker is busy. */
  max: posInt('workers.max').default(5),
  /** Jobs one worker runs at once. */
  jobsPerWorker: posInt('workers.jobsPerWorker').default(1),
  /** Emulated ms from a worker's start until it takes jobs. */
  coldStartMs: nonNegInt('workers.coldStartMs').default(1 * SECOND_MS),
  /** Emulated ms an idle worker above `min` lives before it stops. */
  idleTimeoutMs: nonNegInt('workers.idleTimeoutMs').default(5 * SECOND_MS),
  /** Queued (non-lowPriority) jobs beyond the free slots that make the autoscaler start one more worker. */
  scaleUpQueueDepth: posInt('workers.scaleUpQueueDepth').default(1),
}).refine((w) => w.min <= w.max, { error: 'workers.min must not exceed workers.max', path: ['min'] });
export type WorkersConfig = z.infer<typeof WorkersConfig>;

export const LimitsConfig = z.strictObject({
  /** false switches every rate and concurrency limit off (payload caps stay). */
  enabled: z.boolean().default(true),
  /** §8 dynamic rule: requests per rate window per running worker (the spec gives no value). */
  requestsPerWorker: nonNegInt('limits.requestsPerWorker').default(DEFAULT_REQUESTS_PER_WORKER),
  /** Per-operation overrides of the §8 table. */
  rates: RateOverrides.default({}),
  /** §4.1/§8 payload caps in bytes (decimal MB reading by default). */
  runPayloadBytes: posInt('limits.runPayloadBytes').default(RUN_PAYLOAD.decimalBytes),
  runsyncPayloadBytes: posInt('limits.runsyncPayloadBytes').default(RUNSYNC_PAYLOAD.decimalBytes),
  /** §4.1/§8 largest serialized stream chunk, bytes. */
  streamChunkBytes: posInt('limits.streamChunkBytes').default(STREAM_CHUNK.decimalBytes),
});
export type LimitsConfig = z.infer<typeof LimitsConfig>;

export const EmulatorConfigSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535, { error: 'port must be 0..65535' }).default(0),
  apiKey: z.string({ error: 'apiKey is required' }).min(4, { error: 'apiKey must be at least 4 characters' }),
  endpoints: z.array(EndpointId).min(1).default(['demo']),
  /** Emulated ms per real ms for every lifecycle duration. */
  timeScale: z.number().positive({ error: 'timeScale must be > 0' }).max(100_000, { error: 'timeScale must be at most 100000' }).default(1),
  /** true: rate windows (10 s) run on the scaled clock too; false: real time. */
  scaleRateWindows: z.boolean().default(false),
  workers: WorkersConfig.default(WorkersConfig.parse({})),
  /**
   * Per endpoint: the deployment (workers, idle timeout, scaler, GPU, timing model, prices) with
   * the public service's meanings (src/deployment/schema.ts); what it leaves out comes
   * from `workers`.
   */
  deployments: z.record(EndpointId, DeploymentSettings).default({}),
  limits: LimitsConfig.default(LimitsConfig.parse({})),
  faults: z.array(z.string().refine(isFaultName, { error: `unknown fault; valid: ${FAULT_NAMES.join(', ')}` })).default([]),
  webhooks: z.strictObject({
    /** Deliveries in flight at once, all endpoints together. */
    maxConcurrent: posInt('webhooks.maxConcurrent').default(32),
    /** Deliveries waiting beyond this are dropped (and counted). */
    maxPending: posInt('webhooks.maxPending').default(100_000),
    /** Real ms one attempt may take before it counts as failed. */
    attemptTimeoutMs: posInt('webhooks.attemptTimeoutMs').default(10_000),
  }).default({ maxConcurrent: 32, maxPending: 100_000, attemptTimeoutMs: 10_000 }),
  stream: z.strictObject({
    /** Real ms a /stream call waits for a new chunk before answering with none. */
    longPollMs: nonNegInt('stream.longPollMs').default(1_000),
  }).default({ longPollMs: 1_000 }),
  llm: z.strictObject({
    /** KV-cache capacity of one worker in tokens (gpu_kv_cache_usage = tokens in use / this). */
    kvCacheTokens: posInt('llm.kvCacheTokens').default(65_536),
    /** Share of a worker's token rate lost per extra concurrent job (see queue/handlers/llm.ts). */
    contentionPerJob: z.number().min(0).max(10).default(0.5),
  }).default({ kvCacheTokens: 65_536, contentionPerJob: 0.5 }),
  /** Real ms limits on the HTTP side: slow bodies and headers are cut off. */
  http: z.strictObject({
    requestTimeoutMs: posInt('http.requestTimeoutMs').default(30_000),
    headersTimeoutMs: posInt('http.headersTimeoutMs').default(10_000),
    keepAliveTimeoutMs: posInt('http.keepAliveTimeoutMs').default(5_000),
    maxHeaderBytes: posInt('http.maxHeaderBytes').default(16_384),
  }).default({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000, maxHeaderBytes: 16_384 }),
  /** Accept real worker processes over the worker protocol (job-take, job-done, ...). */
  externalWorkers: z.boolean().default(false),
  /** With externalWorkers: simulated workers run too (a mixed pool); default: only when externalWorkers is off. */
  simulatedWorkers: z.boolean().optional(),
  /** Real ms between an external worker's pings (RUNPOD_PING_INTERVAL); silent for 3 of them it is lost. */
  workerPingIntervalMs: posInt('workerPingIntervalMs').max(WORKER_PROTOCOL.workerHttpTimeoutMs).default(WORKER_PROTOCOL.defaultPingIntervalMs),
  /** Real ms job-take waits for a job before 204: a tenth of the worker's own 90 s HTTP timeout. */
  workerTakeLongPollMs: nonNegInt('workerTakeLongPollMs').max(WORKER_PROTOCOL.workerHttpTimeoutMs / 2).default(WORKER_PROTOCOL.workerHttpTimeoutMs / 10),
  /**
   * Real ms job-stop is held open waiting for a stop for the calling worker before 204: the
   * official worker expects a long-poll (it sleeps 1 s after an immediate answer); kept well
   * under its 90 s HTTP timeout.
   */
  workerStopLongPollMs: nonNegInt('workerStopLongPollMs').max(WORKER_PROTOCOL.workerHttpTimeoutMs / 2).default(20_000),
  /** Endpoint -> serverless template id, for rolling releases (§4.2). */
  endpointTemplates: z.record(z.string(), z.string()).default({}),
});

export type EmulatorConfigInput = z.input<typeof EmulatorConfigSchema>;
export type EmulatorConfig = Readonly<z.output<typeof EmulatorConfigSchema>> & { readonly faults: readonly FaultName[] };

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** Validate `input`, apply defaults, freeze. Throws QB_ERR_CONFIG naming every problem at once. */
export function parseEmulatorConfig(input: unknown): EmulatorConfig {
  const r = EmulatorConfigSchema.safeParse(input);
  if (!r.success) throw configError(`invalid emulator configuration:\n${z.prettifyError(r.error)}`);
  const unknownEndpoints = Object.keys(r.data.endpointTemplates).filter((e) => !r.data.endpoints.includes(e));
  if (unknownEndpoints.length > 0) throw configError(`invalid emulator configuration: endpointTemplates names unknown endpoints: ${unknownEndpoints.join(', ')}`);
  if (new Set(r.data.endpoints).size !== r.data.endpoints.length) throw configError('invalid emulator configuration: endpoints repeats an id');
  const problems = deploymentProblems(r.data.endpoints, r.data.workers, r.data.deployments);
  if (problems.length > 0) throw configError(`invalid emulator configuration:\n${problems.map((p) => `✖ ${p}`).join('\n')}`);
  return deepFreeze(r.data);
}

/** What the deployments get wrong together with the rest of the config (every problem, not the first). */
function deploymentProblems(endpoints: readonly string[], workers: WorkersConfig, deployments: Record<string, DeploymentSettings>): string[] {
  const problems: string[] = [];
  for (const [id, d] of Object.entries(deployments)) {
    if (!endpoints.includes(id)) {
      problems.push(`deployments.${id}: no such endpoint; served: ${endpoints.join(', ')}`);
      continue;
    }
    const r = resolveDeployment(id, workers, d);
    if (r.workersMin > r.workersMax) problems.push(`deployments.${id}: workersMin (${r.workersMin}) exceeds workersMax (${r.workersMax}) (one of them from the workers section)`);
    if (priceOf(r.gpuTypeId, d.prices) === undefined) {
      problems.push(`deployments.${id}.gpuTypeId: "${r.gpuTypeId}" has no price; use one of ${Object.keys(DEFAULT_PRICES).join(', ')} or give deployments.${id}.prices["${r.gpuTypeId}"]`);
    }
  }
  return problems;
}

/** The deployment each endpoint runs: its deployments entry over the workers section. */
export function endpointDeployment(config: EmulatorConfig, endpointId: string): EndpointDeployment {
  return resolveDeployment(endpointId, config.workers, config.deployments[endpointId]);
}
