// Service-level objectives over LLM token metrics and the goodput they give: the requests per second
// that met every per-request SLO (`ttft<2s`), and whether each percentile SLO (`p99(itl)<=50ms`) holds
// over the run. The grammar is `[pNN(]metric[)] (<|<=) number unit`.
import { usageError } from '../../errors.js';
import type { RequestTokenMetrics } from './token-metrics.js';

export const SLO_METRICS = ['ttft', 'itl', 'tpot', 'e2e'] as const;
export type SloMetric = (typeof SLO_METRICS)[number];
export const SLO_PERCENTILES = ['p50', 'p75', 'p90', 'p95', 'p99', 'p99.9'] as const;
export type SloPercentile = (typeof SLO_PERCENTILES)[number];
export const SLO_UNITS = { us: 0.001, ms: 1, s: 1000 } as const;

interface SloBase {
  readonly text: string;
  readonly metric: SloMetric;
  readonly limitMs: number;
  /** `<=` when true, `<` when false. */
  readonly inclusive: boolean;
}

/** Every request must meet it by itself (for `itl`: every one of its inter-token gaps). */
export interface PerRequestSlo extends SloBase {
  readonly kind: 'per-request';
}

/** The run's percentile must meet it (`itl` pools every token's gap, the others take one value per request). */
export interface PercentileSlo extends SloBase {
  readonly kind: 'percentile';
  readonly percentile: SloPercentile;
}

export type Slo = PerRequestSlo | PercentileSlo;

const SLO_PATTERN = /^\s*(?:(p[0-9.]+)\s*\(\s*([a-z0-9_]+)\s*\)|([a-z0-9_]+))\s*(<=|<)\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i;

const allowed = `metrics ${SLO_METRICS.join(', ')}; percentiles ${SLO_PERCENTILES.join(', ')}; units ${Object.keys(SLO_UNITS).join(', ')}`;

/** Parse one SLO such as `p99(ttft)<2s`, `itl<=50ms` or `e2e < 30 s`; a bad one throws a usage error naming what is allowed. */
export function parseSlo(text: string): Slo {
  const m = SLO_PATTERN.exec(text);
  if (m === null) {
    throw usageError(`SLO "${text}" is not of the form [pNN(]metric[)] < number unit, e.g. p99(ttft)<2s or itl<=50ms (${allowed})`, { slo: text });
  }
  const [, pct, pctMetric, bareMetric, op, num, unitText] = m;
  const metric = (pctMetric ?? bareMetric ?? '').toLowerCase();
  if (!(SLO_METRICS as readonly string[]).includes(metric)) {
    throw usageError(`SLO "${text}": unknown metric "${metric}" (metrics: ${SLO_METRICS.join(', ')})`, { slo: text });
  }
  const unit = (unitText ?? '').toLowerCase();
  if (!(unit in SLO_UNITS)) {
    throw usageError(`SLO "${text}": ${unit === '' ? 'the limit needs a unit' : `unknown unit "${unit}"`} (units: ${Object.keys(SLO_UNITS).join(', ')})`, { slo: text });
  }
  const limitMs = Number(num) * SLO_UNITS[unit as keyof typeof SLO_UNITS];
  const base = { text: text.trim(), metric: metric as SloMetric, limitMs, inclusive: op === '<=' };
  if (pct === undefined) return { kind: 'per-request', ...base };
  const percentile = pct.toLowerCase();
  if (!(SLO_PERCENTILES as readonly string[]).includes(percentile)) {
    throw usageError(`SLO "${text}": unknown percentile "${pct}" (percentiles: ${SLO_PERCENTILES.join(', ')})`, { slo: text });
  }
  return { kind: 'percentile', ...base, percentile: percentile as SloPercentile };
}

const meets = (slo: Slo, valueMs: number): boolean => (slo.inclusive ? valueMs <= slo.limitMs : valueMs < slo.limitMs);

/**
 * Whether one request meets a per-request SLO. A request that produced no token fails every token
 * SLO; one with a single token has no TPOT and no inter-token gap, and so cannot break those two.
 */
export function requestMeets(slo: Slo, r: RequestTokenMetrics): boolean {
  switch (slo.metric) {
    case 'e2e':
      return meets(slo, r.e2eMs);
    case 'ttft':
      return r.ttftMs !== undefined && meets(slo, r.ttftMs);
    case 'tpot':
      if (r.ttftMs === undefined) return false;
      return r.tpotMs === undefined || meets(slo, r.tpotMs);
    case 'itl':
      return r.ttftMs !== undefined && r.itlMs.every((g) => meets(slo, g));
  }
}

/** Nearest-rank percentile of ascending values: the smallest value with at least p% of values at or below it. */
export function percentileOf(sortedAsc: readonly number[], p: number): number | undefined {
  if (sortedAsc.length === 0) return undefined;
  // In tenths of a percent the product is an exact integer, where (99.9 / 100) * 1000 is 999.0000000000001, whose ceiling is 1000.
  const rank = Math.max(1, Math.ceil((Math.round(p * 10) * sortedAsc.length) / 1000));
  return sortedAsc[Math.min(rank, sortedAsc.length) - 1];
}

function valuesOf(metric: SloMetric, requests: readonly RequestTokenMetrics[]): number[] {
  const out: number[] = [];
  for (const r of requests) {
    if (metric === 'itl') out.push(...r.itlMs);
    else {
      const v = metric === 'ttft' ? r.ttftMs : metric === 'tpot' ? r.tpotMs : r.e2eMs;
      if (v !== undefined) out.push(v);
    }
  }
  return out.sort((a, b) => a - b);
}

export interface PercentileVerdict {
  readonly slo: PercentileSlo;
  /** The run's percentile; undefined when no request gave the metric (then the SLO does not hold). */
  readonly valueMs: number | undefined;
  readonly holds: boolean;
}

export interface GoodputResult {
  readonly totalRequests: number;
  /** Requests that met every per-request SLO (all requests when there is none). */
  readonly goodRequests: number;
  readonly goodputPerSec: number;
  readonly requestsPerSec: number;
  readonly percentiles: readonly PercentileVerdict[];
  /** Every percentile SLO holds. */
  readonly percentilesHold: boolean;
}

/** Goodput over a run of `durationMs` and the verdict of each percentile SLO. */
export function goodput(requests: readonly RequestTokenMetrics[], slos: readonly (Slo | string)[], durationMs: number): GoodputResult {
  if (!(durationMs > 0)) throw usageError(`goodput needs a run duration above 0 ms (got ${durationMs})`);
  const parsed = slos.map((s) => (typeof s === 'string' ? parseSlo(s) : s));
  const perRequest = parsed.filter((s): s is PerRequestSlo => s.kind === 'per-request');
  const goodRequests = requests.filter((r) => perRequest.every((s) => requestMeets(s, r))).length;
  const percentiles = parsed
    .filter((s): s is PercentileSlo => s.kind === 'percentile')
    .map((slo): PercentileVerdict => {
      const valueMs = percentileOf(valuesOf(slo.metric, requests), Number(slo.percentile.slice(1)));
      return { slo, valueMs, holds: valueMs !== undefined && meets(slo, valueMs) };
    });
  return {
    totalRequests: requests.length,
    goodRequests,
    goodputPerSec: goodRequests / (durationMs / 1000),
    requestsPerSec: requests.length / (durationMs / 1000),
    percentiles,
    percentilesHold: percentiles.every((p) => p.holds),
  };
}
