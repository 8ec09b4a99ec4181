// The calibration plan and what it may cost, known before anything is sent: jobs per phase
// (their sum never above --max-jobs), the wall-clock limit, and worker-seconds at most (every
// worker the endpoint may run, up for the whole run and its idle timeout after), priced when
// the GPU type is known (DEPLOYMENT-FACTS.md: billing per worker-second, the flex price).
import { usageError } from '../errors.js';
import { priceOf, SERVICE_DEFAULTS } from '../deployment/index.js';
import { LLM_PROBE_DEFAULTS } from './llm-probe-defaults.js';

export interface PlanInput {
  readonly classes: number;
  /** Warm jobs per input class. */
  readonly warmJobs: number;
  readonly coldStarts: number;
  /** Cold-start jobs sent at once after each idle gap (each worker they start is a sample). */
  readonly coldBatch: number;
  readonly burstJobs: number;
  /** Streamed jobs per input class (the first tells whether the handler streams). */
  readonly streamJobs: number;
  readonly maxJobs: number;
  readonly maxDurationMs: number;
  /**
   * After the phases, spend what --max-jobs leaves on more warm jobs and cold batches until every
   * fitted median is known within ±this (95%) and every share within ±2x this in points
   * (precision-target.ts); absent: the plan's jobs only.
   */
  readonly precision?: number;
  /** Requests of the LLM probe (llm-probe.ts) over the OpenAI route; 0 or absent: no probe. */
  readonly llmRequests?: number;
  /** The LLM probe's prompt lengths and stream counts (LLM_PROBE_DEFAULTS when absent). */
  readonly llmProbe?: LlmProbeShape;
}

/** What the LLM probe measures: TTFT at these prompt lengths, the token gap at these stream counts. */
export interface LlmProbeShape {
  readonly promptLengths: readonly number[];
  readonly concurrency: readonly number[];
}

export interface CalibrationPlan extends PlanInput {
  readonly totalJobs: number;
}

/** The plan, or a usage error naming the flags when its jobs exceed --max-jobs. */
export function planCalibration(p: PlanInput): CalibrationPlan {
  const warm = p.warmJobs * p.classes;
  const stream = p.streamJobs * p.classes;
  const llm = p.llmRequests ?? 0;
  const totalJobs = warm + p.coldStarts + p.burstJobs + stream + llm;
  if (totalJobs > p.maxJobs) {
    throw usageError(
      `the plan needs ${totalJobs} jobs (warm ${p.warmJobs} x ${p.classes} class(es), cold starts ${p.coldStarts}, burst ${p.burstJobs}, stream ${p.streamJobs} x ${p.classes}${llm > 0 ? `, LLM probe ${llm} (--llm)` : ''}), over --max-jobs ${p.maxJobs}: raise --max-jobs or lower --warm-jobs, --cold-starts, --burst-jobs or --stream-jobs`,
    );
  }
  return { ...p, totalJobs };
}

/** A value calibration uses before it measures: given by the user, or the service's default. */
export interface Assumed<T> {
  readonly value: T;
  readonly source: 'given' | 'service default';
}

export interface CostInput {
  readonly workersMax: Assumed<number>;
  readonly idleTimeoutS: Assumed<number>;
  readonly gpuTypeId: string | undefined;
  readonly gpuCount: number;
  /** Flex price per GPU-second given on the command line (overrides the table). */
  readonly pricePerS: number | undefined;
}

/** The service may run up to 2 workers beyond workersMax during spikes (DEPLOYMENT-FACTS.md). */
export const SPIKE_WORKERS = 2;

export interface CostEstimate {
  readonly workerSecondsAtMost: number;
  /** Flex $ per GPU-second used, and where it came from. */
  readonly pricePerS: number | undefined;
  readonly priceSource: string | undefined;
  readonly dollarsAtMost: number | undefined;
  /** The assumptions behind the bound, in words. */
  readonly basis: string;
}

export function estimateCost(plan: CalibrationPlan, c: CostInput): CostEstimate {
  const workers = c.workersMax.value + SPIKE_WORKERS;
  const seconds = plan.maxDurationMs / 1000 + c.idleTimeoutS.value;
  const workerSecondsAtMost = Math.ceil(workers * seconds);
  const tablePrice = c.gpuTypeId === undefined ? undefined : priceOf(c.gpuTypeId);
  const pricePerS = c.pricePerS ?? tablePrice?.flexPerS;
  const priceSource = c.pricePerS !== undefined ? '--price-per-s' : tablePrice !== undefined ? `the price table (${c.gpuTypeId}, flex)` : undefined;
  return {
    workerSecondsAtMost,
    pricePerS,
    priceSource,
    dollarsAtMost: pricePerS === undefined ? undefined : workerSecondsAtMost * pricePerS * c.gpuCount,
    basis:
      `${workers} workers (workersMax ${c.workersMax.value}, ${c.workersMax.source}, + ${SPIKE_WORKERS} the service may add in spikes) ` +
      `up for the whole --max-duration and an idle timeout of ${c.idleTimeoutS.value} s (${c.idleTimeoutS.source}) after it`,
  };
}

export const DEFAULT_ASSUMPTIONS = { workersMax: SERVICE_DEFAULTS.workersMax, idleTimeoutS: SERVICE_DEFAULTS.idleTimeoutS } as const;

/** The plan and its cost as printed before anything is sent. */
export function formatPlan(target: string, plan: CalibrationPlan, cost: CostEstimate, gpuCount: number): string {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  const lines = [
    `calibration plan for ${target}:`,
    `  warm      ${plan.warmJobs} job(s) per input class x ${plan.classes}, one at a time`,
    plan.coldBatch > 1
      ? `  cold      ${plan.coldStarts} job(s), ${plan.coldBatch} at once after each idle gap (the workers stopped; ${Math.ceil(plan.coldStarts / plan.coldBatch)} gaps, more if a batch starts fewer workers): each worker they start is a sample`
      : `  cold      ${plan.coldStarts} job(s), each after the workers have stopped (an idle gap)`,
    `  burst     ${plan.burstJobs} job(s) at once, /health polled throughout; if the workers up take them all before the scaler acts, a second, larger burst from what the budget spares`,
    `  stream    up to ${plan.streamJobs} job(s) per input class (only when the handler streams)`,
    ...((plan.llmRequests ?? 0) > 0
      ? [`  llm       ${plan.llmRequests} request(s) over /openai/v1/completions (SSE): a warm-up, ${LLM_PROBE_DEFAULTS.contextTokens}-token requests at ${(plan.llmProbe?.promptLengths ?? LLM_PROBE_DEFAULTS.promptLengths).join(', ')} prompt tokens x ${LLM_PROBE_DEFAULTS.repeats}, then ${(plan.llmProbe?.concurrency ?? LLM_PROBE_DEFAULTS.concurrency).join(', ')} streams of ${LLM_PROBE_DEFAULTS.decodeTokens} tokens at once (hold the endpoint at one worker)`]
      : []),
    ...(plan.precision !== undefined
      ? [
          plan.maxJobs > plan.totalJobs
            ? `  precision then up to ${plan.maxJobs - plan.totalJobs} more job(s) (what --max-jobs leaves), warm and cold, until the medians are known within ±${(plan.precision * 100).toFixed(0)}% and the shares of fast and throttled starts within ±${(plan.precision * 200).toFixed(0)} points (95%)`
            : `  precision none: --max-jobs leaves no job beyond the plan for --precision (raise --max-jobs)`,
        ]
      : []),
    `  budget    ${plan.totalJobs} jobs planned, never more than ${plan.maxJobs} (--max-jobs, a second burst included), at most ${s(plan.maxDurationMs)} (--max-duration)`,
    `  cost      at most ${cost.workerSecondsAtMost} worker-seconds: ${cost.basis}`,
    cost.dollarsAtMost === undefined
      ? '            no price: name the GPU with --gpu-type (or --price-per-s) for a $ figure'
      : `            at most $${cost.dollarsAtMost.toFixed(2)} at $${cost.pricePerS} per GPU-second x ${gpuCount} GPU(s) (${cost.priceSource})`,
  ];
  return `${lines.join('\n')}\n`;
}
