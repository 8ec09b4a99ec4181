// One endpoint's deployment as the emulator runs it: its settings (deployments.<id> in the
// emulator config) over the emulator's `workers` section, with the service's defaults where a
// deployment names a scaler but no value. Plain frozen data, read by the pool and the planner.
import type { DeploymentSettings, Distribution, GpuPrice, TimingModel } from './schema.js';
import { ENGINE_DEFAULT_JOBS_PER_WORKER, type LlmEngine } from './engine-schema.js';
import { SERVICE_DEFAULTS } from './schema.js';
import { DEFAULT_GPU_TYPE_ID, PRICE_TABLE_DATE, priceOf } from './prices.js';
import { streamSeed } from './random.js';

/** The emulator's own pool settings (its `workers` section): every endpoint's default. */
export interface PoolDefaults {
  readonly min: number;
  readonly max: number;
  readonly jobsPerWorker: number;
  readonly coldStartMs: number;
  readonly idleTimeoutMs: number;
  readonly scaleUpQueueDepth: number;
}

/** How often the QUEUE_DELAY scaler looks at the queue (the service says "a periodic check", not how often). */
export const QUEUE_DELAY_CHECK_MS = 1_000;

export type ScalerSettings =
  /** The emulator's own scaler: workers for the queued jobs beyond the free slots, once `depth` are waiting. */
  | { readonly type: 'QUEUE_DEPTH'; readonly depth: number }
  /** Every check, workers for the jobs that have waited more than delayMs and have no starting worker coming. */
  | { readonly type: 'QUEUE_DELAY'; readonly delayMs: number; readonly checkIntervalMs: number }
  /** ceil((inQueue + inProgress) / jobsPerWorkerTarget) workers. */
  | { readonly type: 'REQUEST_COUNT'; readonly jobsPerWorkerTarget: number };

/** The timing model with every part resolved: a cold start always (the workers section's constant by default). */
export interface ResolvedTiming extends Omit<TimingModel, 'coldStart'> {
  readonly coldStart: Distribution;
}

export interface EndpointDeployment {
  readonly workersMin: number;
  readonly workersMax: number;
  readonly jobsPerWorker: number;
  readonly idleTimeoutMs: number;
  readonly scaler: ScalerSettings;
  /** A job finding no free slot on a worker up or starting starts one at once (startsOnArrival); false: only the scaler starts workers. */
  readonly startOnArrival: boolean;
  readonly gpuTypeId: string;
  readonly gpuCount: number;
  /** undefined: the GPU type is in neither the default table nor the overrides (no cost shown). */
  readonly price: GpuPrice | undefined;
  /** Where the price comes from: the default table (with its date) or the deployment's override. */
  readonly priceSource: string;
  readonly seed: number;
  readonly timing: ResolvedTiming;
  /** The LLM engine of every worker; undefined: none. */
  readonly engine: LlmEngine | undefined;
}

function scalerOf(d: DeploymentSettings | undefined, defaults: PoolDefaults): ScalerSettings {
  if (d?.scalerType === undefined && d?.scalerValue === undefined) return { type: 'QUEUE_DEPTH', depth: defaults.scaleUpQueueDepth };
  const value = d.scalerValue ?? SERVICE_DEFAULTS.scalerValue;
  return (d.scalerType ?? SERVICE_DEFAULTS.scalerType) === 'REQUEST_COUNT'
    ? { type: 'REQUEST_COUNT', jobsPerWorkerTarget: value }
    : { type: 'QUEUE_DELAY', delayMs: value * 1_000, checkIntervalMs: QUEUE_DELAY_CHECK_MS };
}

/**
 * The emulator's `workers` section applies when a deployment names no scaler and no
 * startOnArrival: its queue-depth scaler at depth 1 starts a worker at once for each job beyond
 * the free slots, which is startOnArrival and no more (the scaler then finds nothing to start).
 */
function startOnArrivalOf(d: DeploymentSettings | undefined, defaults: PoolDefaults): boolean {
  if (d?.startOnArrival !== undefined) return d.startOnArrival;
  if (d?.scalerType !== undefined || d?.scalerValue !== undefined) return false;
  return defaults.scaleUpQueueDepth === 1;
}

/** `d` over `defaults`; the seed defaults to one derived from the endpoint id (reproducible, distinct per endpoint). */
export function resolveDeployment(endpointId: string, defaults: PoolDefaults, d: DeploymentSettings | undefined): EndpointDeployment {
  const gpuTypeId = d?.gpuTypeId ?? DEFAULT_GPU_TYPE_ID;
  const { coldStart, ...rest } = d?.timing ?? {};
  const constantStart: Distribution = { kind: 'constant', ms: defaults.coldStartMs };
  return Object.freeze({
    workersMin: d?.workersMin ?? defaults.min,
    workersMax: d?.workersMax ?? defaults.max,
    jobsPerWorker: d?.jobsPerWorker ?? (d?.engine === undefined ? defaults.jobsPerWorker : ENGINE_DEFAULT_JOBS_PER_WORKER),
    idleTimeoutMs: d?.idleTimeoutS === undefined ? defaults.idleTimeoutMs : d.idleTimeoutS * 1_000,
    scaler: scalerOf(d, defaults),
    startOnArrival: startOnArrivalOf(d, defaults),
    gpuTypeId,
    gpuCount: d?.gpuCount ?? SERVICE_DEFAULTS.gpuCount,
    price: priceOf(gpuTypeId, d?.prices),
    priceSource: d?.prices?.[gpuTypeId] === undefined ? `default price table of ${PRICE_TABLE_DATE}` : 'deployment prices override',
    seed: d?.seed ?? streamSeed(0, endpointId),
    timing: Object.freeze({ ...rest, coldStart: coldStart ?? constantStart }),
    engine: d?.engine,
  });
}

/** One line for a person: workers, idle timeout, scaler, GPU, seed. */
export function describeDeployment(d: EndpointDeployment): string {
  const s = d.scaler;
  const scaler =
    s.type === 'QUEUE_DELAY' ? `QUEUE_DELAY ${s.delayMs / 1_000} s` : s.type === 'REQUEST_COUNT' ? `REQUEST_COUNT ${s.jobsPerWorkerTarget} jobs/worker` : `queue depth ${s.depth}`;
  return `workers ${d.workersMin}..${d.workersMax} (${d.jobsPerWorker} job${d.jobsPerWorker === 1 ? '' : 's'} each), idle timeout ${d.idleTimeoutMs / 1_000} s, scaler ${scaler}${d.startOnArrival ? ', a worker started on arrival for a job that finds none free' : ''}, ${d.gpuCount}x ${d.gpuTypeId}, seed ${d.seed}${d.engine === undefined ? '' : `, engine ${d.engine.modelName} (${d.engine.decodeTokensPerSec} tok/s alone, +${d.engine.decodeContention} step time per extra stream, prefill ${d.engine.prefillTokensPerSec} tok/s + ${d.engine.prefillBaseMs} ms, ${d.engine.scheduler === 'prefill-first' ? 'prefill first' : `${d.engine.scheduler === 'chunked' ? 'chunked prefill' : 'parallel batches'} of ${d.engine.maxBatchedTokens} tokens a step`})`}`;
}
