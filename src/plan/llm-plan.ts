// Capacity of an LLM endpoint from its twin's engine: for steady traffic of one request shape and
// SLOs on token percentiles (`p99(ttft)<2s`, `p95(itl)<=60ms`, the grammar of src/load/llm), the
// fewest warm workers and the per-worker concurrency (worker-vllm's MAX_CONCURRENCY) whose
// simulation meets every SLO, with its cost per million output tokens. Each point is simulated on
// the virtual clock (src/sim/llm-simulate.ts) and judged by the same code that judges a load run.
import { configError, usageError } from '../errors.js';
import { endpointDeployment, type EmulatorConfig } from '../emulator/config.js';
import { goodput, parseSlo, percentileOf, type PercentileSlo, type PercentileVerdict, type Slo } from '../load/llm/goodput.js';
import { simulateLlm, type LlmTraffic } from '../sim/llm-simulate.js';
import { streamTokensPerSec, type LlmEngine } from '../deployment/index.js';

export interface LlmPlanOptions {
  readonly twin: EmulatorConfig;
  readonly endpointId?: string | undefined;
  readonly traffic: LlmTraffic;
  /** Percentile SLOs on ttft, itl, tpot or e2e. */
  readonly slos: readonly (Slo | string)[];
  /** Worker counts to choose from (default 1..8); a bisection tries a few of them per concurrency. */
  readonly workers?: readonly number[] | undefined;
  /** Per-worker concurrencies tried, ascending (default 1, 2, 4, 8, 16, 32, 64). */
  readonly concurrency?: readonly number[] | undefined;
  readonly seed?: number | undefined;
}

export interface LlmPlanPoint {
  readonly workers: number;
  readonly jobsPerWorker: number;
  readonly ttftP50Ms: number | undefined;
  readonly ttftP99Ms: number | undefined;
  readonly itlP50Ms: number | undefined;
  readonly itlP99Ms: number | undefined;
  /** Output tokens per second served to the measured requests. */
  readonly outputTokensPerSec: number;
  /** Measured requests that completed. */
  readonly completedShare: number;
  readonly verdicts: readonly PercentileVerdict[];
  /** Every SLO holds and every measured request completed. */
  readonly meets: boolean;
  /**
   * The offered output tokens per second exceed what the workers decode at most (not simulated: the
   * queue would grow without bound); the figures are then undefined or 0.
   */
  readonly overloaded: boolean;
  /** The workers kept up all hour, at the active price. */
  readonly costPerHourUsd: number;
  /** costPerHour / output tokens per hour x 1,000,000; undefined when nothing was served. */
  readonly costPerMillionOutputTokensUsd: number | undefined;
}

export interface LlmPlan {
  readonly endpointId: string;
  readonly gpuTypeId: string;
  readonly pricePerWorkerHourUsd: number;
  readonly points: readonly LlmPlanPoint[];
  /** Fewest workers meeting every SLO; of those, the highest concurrency (most room for bursts). */
  readonly choice: LlmPlanPoint | undefined;
  /** The answer in one line. */
  readonly answer: string;
}

const DEFAULT_WORKERS = [1, 2, 3, 4, 5, 6, 7, 8];
const DEFAULT_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64];

function percentileSlos(slos: readonly (Slo | string)[]): PercentileSlo[] {
  const parsed = slos.map((s) => (typeof s === 'string' ? parseSlo(s) : s));
  const perRequest = parsed.filter((s) => s.kind === 'per-request');
  if (perRequest.length > 0) throw usageError(`an LLM plan judges percentiles, as p99(ttft)<2s: ${perRequest.map((s) => `"${s.text}"`).join(', ')} name${perRequest.length === 1 ? 's' : ''} no percentile`);
  if (parsed.length === 0) throw usageError('an LLM plan needs at least one SLO, as p99(ttft)<2s or p95(itl)<=60ms');
  return parsed as PercentileSlo[];
}

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The most output tokens per second one worker decodes holding at most `cap` streams (prefill steps only lower it). */
export function peakDecodeTokensPerSec(e: LlmEngine, cap: number): number {
  let best = 0;
  for (let n = 1; n <= cap; n += 1) best = Math.max(best, n * streamTokensPerSec(e, n));
  return best;
}

function overloadedPoint(workers: number, jobsPerWorker: number, slos: readonly PercentileSlo[], costPerHourUsd: number): LlmPlanPoint {
  return {
    workers,
    jobsPerWorker,
    ttftP50Ms: undefined,
    ttftP99Ms: undefined,
    itlP50Ms: undefined,
    itlP99Ms: undefined,
    outputTokensPerSec: 0,
    completedShare: 0,
    verdicts: slos.map((slo) => ({ slo, valueMs: undefined, holds: false })),
    meets: false,
    overloaded: true,
    costPerHourUsd,
    costPerMillionOutputTokensUsd: undefined,
  };
}

/** The plan: for each concurrency, the fewest workers meeting every SLO (by bisection over the worker counts tried). */
export function planLlm(o: LlmPlanOptions): LlmPlan {
  const slos = percentileSlos(o.slos);
  const endpointId = o.endpointId ?? o.twin.endpoints[0];
  if (endpointId === undefined || !o.twin.endpoints.includes(endpointId)) throw configError(`the twin serves no endpoint "${String(endpointId)}"`);
  const d = endpointDeployment(o.twin, endpointId);
  if (d.price === undefined) throw configError(`the twin's GPU type "${d.gpuTypeId}" has no price: give deployments.${endpointId}.prices["${d.gpuTypeId}"]`);
  const pricePerWorkerHourUsd = d.price.activePerS * d.gpuCount * 3_600;
  const seed = o.seed ?? 1;
  const points: LlmPlanPoint[] = [];
  const engine = d.engine;
  if (engine === undefined) throw configError(`the twin's endpoint "${endpointId}" has no engine (deployments.${endpointId}.engine): an LLM plan needs one`);
  const offeredTokensPerSec = o.traffic.ratePerSec * o.traffic.outputTokens;
  const evaluate = (w: number, c: number): LlmPlanPoint => {
    if (offeredTokensPerSec > w * peakDecodeTokensPerSec(engine, c)) return overloadedPoint(w, c, slos, w * pricePerWorkerHourUsd);
    const sim = simulateLlm({ twin: o.twin, endpointId, workers: w, jobsPerWorker: c, traffic: o.traffic, seed });
    const g = goodput(sim.requests, slos, sim.measuredSpanMs);
    const ttft = sorted(sim.requests.flatMap((r) => (r.ttftMs === undefined ? [] : [r.ttftMs])));
    const itl = sorted(sim.requests.flatMap((r) => r.itlMs));
    const completedShare = sim.measured === 0 ? 1 : sim.requests.length / sim.measured;
    const costPerHourUsd = w * pricePerWorkerHourUsd;
    return {
      workers: w,
      jobsPerWorker: c,
      ttftP50Ms: percentileOf(ttft, 50),
      ttftP99Ms: percentileOf(ttft, 99),
      itlP50Ms: percentileOf(itl, 50),
      itlP99Ms: percentileOf(itl, 99),
      outputTokensPerSec: sim.outputTokensPerSec,
      completedShare,
      verdicts: g.percentiles,
      meets: g.percentilesHold && completedShare === 1,
      overloaded: false,
      costPerHourUsd,
      costPerMillionOutputTokensUsd: sim.outputTokensPerSec > 0 ? (costPerHourUsd / (sim.outputTokensPerSec * 3_600)) * 1_000_000 : undefined,
    };
  };
  const workers = [...(o.workers ?? DEFAULT_WORKERS)].sort((a, b) => a - b);
  for (const c of o.concurrency ?? DEFAULT_CONCURRENCY) {
    // More workers never serve the same arrivals worse: a bisection finds the fewest that meet
    // every SLO, trying the one below it too (the answer's proof that fewer do not).
    let lo = -1;
    let hi = workers.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const point = evaluate(workers[mid] as number, c);
      points.push(point);
      if (point.meets) hi = mid;
      else lo = mid;
    }
  }
  let choice: LlmPlanPoint | undefined;
  for (const p of points) if (p.meets && (choice === undefined || p.workers < choice.workers || (p.workers === choice.workers && p.jobsPerWorker > choice.jobsPerWorker))) choice = p;
  const t = o.traffic;
  const load = `${t.ratePerSec} requests/s of ${t.promptTokens} prompt + ${t.outputTokens} output tokens`;
  const answer =
    choice === undefined
      ? `no setting tried meets ${slos.map((s) => s.text).join(', ')} at ${load}: try more workers`
      : `${choice.workers} worker${choice.workers === 1 ? '' : 's'} of concurrency ${choice.jobsPerWorker} meet ${slos.map((s) => s.text).join(', ')} at ${load}: $${choice.costPerHourUsd.toFixed(2)}/h, $${choice.costPerMillionOutputTokensUsd?.toFixed(2) ?? '?'} per million output tokens`;
  return { endpointId, gpuTypeId: d.gpuTypeId, pricePerWorkerHourUsd, points, choice, answer };
}
