// Service-level objectives a plan must meet, in one small grammar: a latency quantile of the
// jobs' end-to-end time or delayTime below a duration (`p99(e2e)<8s`, `p90(delay)<=1500ms`), or
// the share of jobs that met a cold start below a percentage (`cold(share)<5%`).
import { z } from 'zod';
import { parseDurationMs } from '../spec/grammar.js';
import type { SimulationFigures } from '../sim/types.js';

/** The quantiles one simulation measures (src/sim/types.ts LatencyQuantiles), by percentile. */
export const MEASURED_QUANTILES: ReadonlyMap<number, 'p50Ms' | 'p90Ms' | 'p95Ms' | 'p99Ms'> = new Map<number, 'p50Ms' | 'p90Ms' | 'p95Ms' | 'p99Ms'>([
  [50, 'p50Ms'],
  [90, 'p90Ms'],
  [95, 'p95Ms'],
  [99, 'p99Ms'],
]);

export const SLO_FORMS = 'p<N>(e2e)<duration, p<N>(delay)<duration or cold(share)<N%, e.g. p99(e2e)<8s, p90(delay)<=1500ms, cold(share)<5% (N of p<N>: 50, 90, 95 or 99; "<" or "<=")';

export type LatencyMetric = 'e2e' | 'delay';

export type Slo =
  | {
      readonly kind: 'latency';
      readonly metric: LatencyMetric;
      /** Percentile, e.g. 99. */
      readonly percentile: number;
      readonly thresholdMs: number;
      readonly inclusive: boolean;
      /** As written back canonically: `p99(e2e)<8s`. */
      readonly text: string;
    }
  | {
      readonly kind: 'cold-share';
      /** 0..1. */
      readonly maxShare: number;
      readonly inclusive: boolean;
      readonly text: string;
    };

const LATENCY = /^p(\d+(?:\.\d+)?)\s*\(\s*(e2e|delay)\s*\)\s*(<=|<)\s*(\S+)$/i;
const COLD = /^cold\s*\(\s*share\s*\)\s*(<=|<)\s*(\d+(?:\.\d+)?)\s*%$/i;

/** A duration written back short: 8000 -> "8s", 1500 -> "1500ms". */
function durationText(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** Parse one SLO; a string says what is wrong with it. */
export function parseSlo(input: string): Slo | string {
  const text = input.trim();
  const latency = LATENCY.exec(text);
  if (latency) {
    const [, pText = '', metricText = '', op = '<', durationPart = ''] = latency;
    const percentile = Number(pText);
    if (!MEASURED_QUANTILES.has(percentile)) return `"${text}": p${pText} is not measured by a simulation; use ${[...MEASURED_QUANTILES.keys()].map((p) => `p${p}`).join(', ')}`;
    const thresholdMs = parseDurationMs(durationPart);
    if (thresholdMs === undefined || thresholdMs <= 0) return `"${text}": "${durationPart}" is not a positive duration such as 500ms, 8s, 2m`;
    const metric = metricText.toLowerCase() as LatencyMetric;
    return { kind: 'latency', metric, percentile, thresholdMs, inclusive: op === '<=', text: `p${percentile}(${metric})${op}${durationText(thresholdMs)}` };
  }
  const cold = COLD.exec(text);
  if (cold) {
    const [, op = '<', pct = ''] = cold;
    const share = Number(pct) / 100;
    if (!(share > 0 && share <= 1)) return `"${text}": the share must be above 0% and at most 100%`;
    return { kind: 'cold-share', maxShare: share, inclusive: op === '<=', text: `cold(share)${op}${Number(pct)}%` };
  }
  return `"${text}" is not an SLO`;
}

/** One SLO as a flag value: validated, parsed. */
export const SloText = z.string().transform((text, ctx): Slo => {
  const parsed = parseSlo(text);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: `${parsed}; accepted: ${SLO_FORMS}` });
    return z.NEVER;
  }
  return parsed;
});

/** The SLOs of a plan: at least one, none repeated. */
export const SloList = z
  .array(SloText)
  .min(1, { error: `needs at least one SLO: ${SLO_FORMS}` })
  .refine((list) => new Set(list.map((s) => s.text)).size === list.length, { error: 'names the same SLO twice' });

/**
 * An SLO on a token metric for `qbench plan --llm` (`p99(ttft)<2s`, `p95(itl)<=60ms`): told apart
 * here by its metric, parsed in full by the LLM plan (src/load/llm/goodput.ts parseSlo).
 */
export interface LlmSloText {
  readonly kind: 'llm';
  readonly text: string;
  /** An e2e SLO the queue plan cannot judge (`p75(e2e)<8s`): why, for a plan without --llm. */
  readonly queueProblem?: string;
}

export const LLM_SLO_FORMS = 'with --llm: p<N>(ttft|itl|tpot|e2e)<duration, e.g. p99(ttft)<2s, p95(itl)<=60ms (N: 50, 75, 90, 95, 99 or 99.9)';

const LLM_SLO = /^p[0-9.]+\s*\(\s*(ttft|itl|tpot|e2e)\s*\)\s*(<=|<)/i;

/** One --slo of `qbench plan`: a queue SLO, or one on a token metric for --llm. */
export const PlanSloText = z.string().transform((input, ctx): Slo | LlmSloText => {
  const text = input.trim();
  const parsed = parseSlo(text);
  if (typeof parsed !== 'string') return parsed;
  const llm = LLM_SLO.exec(text);
  if (llm !== null) return { kind: 'llm', text, ...(llm[1]?.toLowerCase() === 'e2e' ? { queueProblem: parsed } : {}) };
  ctx.addIssue({ code: 'custom', message: `${parsed}; accepted: ${SLO_FORMS}; ${LLM_SLO_FORMS}` });
  return z.NEVER;
});

/** The --slo list of `qbench plan`: at least one, none repeated; queue and LLM SLOs are told apart when it runs. */
export const PlanSloList = z
  .array(PlanSloText)
  .min(1, { error: `needs at least one SLO: ${SLO_FORMS}; ${LLM_SLO_FORMS}` })
  .refine((list) => new Set(list.map((s) => s.text)).size === list.length, { error: 'names the same SLO twice' });

/**
 * The figure an SLO judges in one simulation: the latency quantile in ms, or the share of jobs
 * that met a cold start (0..1). null when no job completed (no latency to judge).
 */
export function sloFigure(slo: Slo, f: SimulationFigures): number | null {
  if (slo.kind === 'cold-share') return f.coldStartJobShare;
  const key = MEASURED_QUANTILES.get(slo.percentile);
  return key === undefined ? null : f[slo.metric][key];
}

/** The share of jobs a latency quantile leaves out: 0.01 for p99. */
export function tailShare(percentile: number): number {
  return (100 - percentile) / 100;
}

/** The value an SLO is judged against, in the figure's unit (ms or a share). */
export function sloThreshold(slo: Slo): number {
  return slo.kind === 'latency' ? slo.thresholdMs : slo.maxShare;
}

/** Does `figure` meet the SLO? A missing figure (no job completed) does not. */
export function meetsSlo(slo: Slo, figure: number | null): boolean {
  if (figure === null) return false;
  const limit = sloThreshold(slo);
  return slo.inclusive ? figure <= limit : figure < limit;
}
