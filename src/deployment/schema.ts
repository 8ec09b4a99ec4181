// The settings of one deployed endpoint as the public service documents them (workers, idle
// timeout, scaler, GPU; shared/spec/DEPLOYMENT-FACTS.md) plus the emulator's timing model: each
// duration a distribution in emulated ms. One zod schema, shared by the emulator config, the
// qbench config file and the file `qbench calibrate` writes.
import { z } from 'zod';
import { EXECUTION_TIMEOUT_MS } from '../spec/index.js';
import { LlmEngine } from './engine-schema.js';

/** A timing part lasts at most as long as the longest job the service runs (§2.1 executionTimeout). */
const MAX_PART_MS = EXECUTION_TIMEOUT_MS.max;

const msValue = (what: string) =>
  z.number({ error: `${what} must be a number of ms` }).nonnegative({ error: `${what} must be >= 0` }).max(MAX_PART_MS, { error: `${what} must be at most 7 days` });
const nonNegInt = (what: string) => z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` }).nonnegative({ error: `${what} must be >= 0` });
const posInt = (what: string) => z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` }).positive({ error: `${what} must be > 0` });
const probability = (what: string) => z.number({ error: `${what} must be a number` }).min(0, { error: `${what} must be in [0, 1]` }).max(1, { error: `${what} must be in [0, 1]` });

export const ConstantDist = z.strictObject({ kind: z.literal('constant'), ms: msValue('constant.ms') });

export const UniformDist = z
  .strictObject({ kind: z.literal('uniform'), minMs: msValue('uniform.minMs'), maxMs: msValue('uniform.maxMs') })
  .refine((d) => d.minMs <= d.maxMs, { error: 'uniform.minMs must not exceed uniform.maxMs', path: ['minMs'] });

/** ln(X) ~ N(ln(medianMs), sigma). */
export const LognormalDist = z.strictObject({
  kind: z.literal('lognormal'),
  medianMs: z.number({ error: 'lognormal.medianMs must be a number' }).positive({ error: 'lognormal.medianMs must be > 0' }).max(MAX_PART_MS),
  sigma: z.number({ error: 'lognormal.sigma must be a number' }).nonnegative({ error: 'lognormal.sigma must be >= 0' }).max(5, { error: 'lognormal.sigma must be at most 5' }),
});

/** Quantile points [q, ms], q ascending from 0 to 1, ms non-decreasing; linear between points. */
export const EmpiricalDist = z
  .strictObject({
    kind: z.literal('empirical'),
    quantiles: z.array(z.tuple([probability('empirical quantile q'), msValue('empirical quantile ms')])).min(2, { error: 'empirical.quantiles needs at least 2 points ([0, ms] and [1, ms])' }),
  })
  .superRefine((d, ctx) => {
    const qs = d.quantiles;
    if (qs[0]?.[0] !== 0 || qs[qs.length - 1]?.[0] !== 1) ctx.addIssue({ code: 'custom', message: 'empirical.quantiles must start at q=0 and end at q=1', path: ['quantiles'] });
    for (let i = 1; i < qs.length; i += 1) {
      const [q0, ms0] = qs[i - 1] as [number, number];
      const [q1, ms1] = qs[i] as [number, number];
      if (q1 <= q0) ctx.addIssue({ code: 'custom', message: `empirical.quantiles q must be strictly ascending (point ${i})`, path: ['quantiles', i] });
      if (ms1 < ms0) ctx.addIssue({ code: 'custom', message: `empirical.quantiles ms must not decrease (point ${i})`, path: ['quantiles', i] });
    }
  });

/** The distributions a mixture is made of (no nested mixtures). */
export const BaseDistribution = z.discriminatedUnion('kind', [ConstantDist, UniformDist, LognormalDist, EmpiricalDist]);

/** `first` with probability p, else `second`. */
export const MixtureDist = z.strictObject({
  kind: z.literal('mixture'),
  p: probability('mixture.p'),
  first: BaseDistribution,
  second: BaseDistribution,
});

/** A duration distribution in emulated ms. */
export const Distribution = z.discriminatedUnion('kind', [ConstantDist, UniformDist, LognormalDist, EmpiricalDist, MixtureDist]);

export type ConstantDist = z.infer<typeof ConstantDist>;
export type UniformDist = z.infer<typeof UniformDist>;
export type LognormalDist = z.infer<typeof LognormalDist>;
export type EmpiricalDist = z.infer<typeof EmpiricalDist>;
export type BaseDistribution = z.infer<typeof BaseDistribution>;
export type MixtureDist = z.infer<typeof MixtureDist>;
export type Distribution = z.infer<typeof Distribution>;

/** Execution time by input class: the value of `input[byInputField]` picks the distribution. */
export const ExecutionByClass = z.strictObject({
  byInputField: z.string().min(1, { error: 'execution.byInputField must name a field of the input' }),
  classes: z.record(z.string(), Distribution),
  default: Distribution,
});
export type ExecutionByClass = z.infer<typeof ExecutionByClass>;

export const ExecutionTiming = z.union([Distribution, ExecutionByClass]);
export type ExecutionTiming = z.infer<typeof ExecutionTiming>;

export const TimingModel = z.strictObject({
  /** From a worker's start signal to taking jobs; typically a mixture of a fast start (kept state) and a full start. */
  coldStart: Distribution.optional(),
  /** A starting worker waits for GPU capacity with this probability, for a sampled time, before its cold start. */
  throttle: z.strictObject({ probability: probability('throttle.probability'), duration: Distribution }).optional(),
  /** A job handed to an idle worker: from dispatch to the handler's start. */
  dispatch: Distribution.optional(),
  /** The handler's run time (the job's executionTime). */
  execution: ExecutionTiming.optional(),
  /** Streaming handlers: time to the first chunk, the gap between chunks, tokens in each chunk. */
  stream: z.strictObject({ firstChunk: Distribution, chunkGap: Distribution, tokensPerChunk: posInt('stream.tokensPerChunk').default(1) }).optional(),
  /** The service's own part of end-to-end latency: neither delayTime nor executionTime. */
  overhead: Distribution.optional(),
});
export type TimingModel = z.infer<typeof TimingModel>;
export type TimingModelInput = z.input<typeof TimingModel>;

/** Per-second prices of one GPU type, per GPU: flex (workers that scale) and active (workersMin). */
export const GpuPrice = z.strictObject({
  flexPerS: z.number().nonnegative({ error: 'flexPerS must be >= 0' }),
  activePerS: z.number().nonnegative({ error: 'activePerS must be >= 0' }),
});
export type GpuPrice = z.infer<typeof GpuPrice>;

export const SCALER_TYPES = ['QUEUE_DELAY', 'REQUEST_COUNT'] as const;
export type ScalerType = (typeof SCALER_TYPES)[number];

/**
 * One endpoint's deployment. Every field is optional: absent ones keep the emulator's own
 * behaviour (its `workers` section), so an emulator config without deployments runs as before.
 */
export const DeploymentSettings = z
  .strictObject({
    /** Active workers: kept up with no jobs, billed at the active price (service default 0). */
    workersMin: nonNegInt('workersMin').optional(),
    /** The most workers at once (service default 3). */
    workersMax: posInt('workersMax').optional(),
    /** Seconds a worker with no job stays up (and is billed) before it stops (service default 5, 1-3600). */
    idleTimeoutS: z.number({ error: 'idleTimeoutS must be a number' }).int({ error: 'idleTimeoutS must be a whole number of seconds' }).min(1, { error: 'idleTimeoutS must be 1..3600' }).max(3600, { error: 'idleTimeoutS must be 1..3600' }).optional(),
    /** QUEUE_DELAY (service default): a worker more when a job waited > scalerValue s. REQUEST_COUNT: ceil((inQueue+inProgress)/scalerValue) workers. */
    scalerType: z.enum(SCALER_TYPES, { error: `scalerType must be one of ${SCALER_TYPES.join(', ')}` }).optional(),
    /** Seconds (QUEUE_DELAY) or jobs per worker (REQUEST_COUNT); service default 4. */
    scalerValue: z.number({ error: 'scalerValue must be a number' }).int({ error: 'scalerValue must be a whole number' }).min(1, { error: 'scalerValue must be >= 1' }).optional(),
    /**
     * What a job that joins the queue and finds no free slot on a worker up or starting does:
     * true, a worker starts for it at once (within workersMax); false, it waits for the scaler's
     * rule (QUEUE_DELAY's periodic check). The service does not document it: `qbench calibrate`
     * measures it from jobs sent with no worker up. Absent: false when the deployment names a
     * scaler, else the emulator's `workers` section decides.
     */
    startOnArrival: z.boolean({ error: 'startOnArrival must be true or false' }).optional(),
    /** Jobs one worker runs at once (with an engine: worker-vllm's MAX_CONCURRENCY, 30 when absent). */
    jobsPerWorker: posInt('jobsPerWorker').optional(),
    /** The GPU type priced (a key of the price table). */
    gpuTypeId: z.string().min(1).optional(),
    /** GPUs per worker; the price is per GPU. */
    gpuCount: posInt('gpuCount').optional(),
    /** Seed of the timing model's generator: the same seed and traffic give the same timings. */
    seed: z.number({ error: 'seed must be a number' }).int({ error: 'seed must be a whole number' }).optional(),
    timing: TimingModel.optional(),
    /**
     * An LLM engine on every worker (engine-schema.ts): OpenAI-route jobs and vLLM-style native
     * inputs ({prompt | messages, sampling_params}) run on it with continuous batching; other
     * jobs keep the timing model or the mock-worker handler. Absent: no engine.
     */
    engine: LlmEngine.optional(),
    /** Overrides of the price table, by gpuTypeId. */
    prices: z.record(z.string(), GpuPrice).optional(),
  })
  .refine((d) => d.workersMin === undefined || d.workersMax === undefined || d.workersMin <= d.workersMax, { error: 'workersMin must not exceed workersMax', path: ['workersMin'] });
export type DeploymentSettings = z.infer<typeof DeploymentSettings>;
export type DeploymentSettingsInput = z.input<typeof DeploymentSettings>;

/** The public service's defaults for a new endpoint (DEPLOYMENT-FACTS.md): what a twin starts from before it measures. */
export const SERVICE_DEFAULTS: Readonly<{ workersMin: number; workersMax: number; idleTimeoutS: number; scalerType: ScalerType; scalerValue: number; jobsPerWorker: number; gpuCount: number }> = Object.freeze({
  workersMin: 0,
  workersMax: 3,
  idleTimeoutS: 5,
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  jobsPerWorker: 1,
  gpuCount: 1,
});

/**
 * The account-wide cap on the workers of all endpoints together (DEPLOYMENT-FACTS.md): 5 by
 * default, raised with the account's balance up to 60. A plan's default grid stops at it.
 */
export const ACCOUNT_WORKERS_CAP: Readonly<{ default: number; highest: number }> = Object.freeze({ default: 5, highest: 60 });

/** The idle timeout's documented range in seconds (DEPLOYMENT-FACTS.md). */
export const IDLE_TIMEOUT_S: Readonly<{ min: number; max: number }> = Object.freeze({ min: 1, max: 3600 });
