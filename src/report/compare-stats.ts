// The statistics of `qbench compare`, shared by the load-scenario and the LLM comparisons:
// percentiles read from HDR histograms with bootstrap intervals of their relative change, a
// proportion's change with a normal-approximation interval, a share's change as a rate, and
// the one rule that turns a change into a verdict (significant and worse than its margin).
import type { CompareMetric, MetricChange } from '../result/compare-model.js';
import { bucketsOf, type Histogram } from '../result/histogram.js';
import { beta, normal, type Rng } from './random.js';

/** Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0 || p >= 1) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/** The 1-based rank of the p-th percentile of n values: rounded up, ignoring floating-point dust (as HdrHistogram does). */
function rankOf(p: number, n: number): number {
  const x = (p / 100) * n;
  return Math.min(n, Math.max(1, Math.ceil(x - x * 1e-12)));
}

/** A histogram as an inverse CDF: value (ms) at a cumulative fraction u in [0, 1]. */
class Quantiles {
  private readonly values: Float64Array;
  private readonly cumulative: Float64Array;
  readonly count: number;

  constructor(h: Histogram) {
    const buckets = bucketsOf(h);
    this.values = new Float64Array(buckets.map((b) => b.valueUs / 1_000));
    this.cumulative = new Float64Array(buckets.length);
    let sum = 0;
    buckets.forEach((b, i) => {
      sum += b.count;
      this.cumulative[i] = sum;
    });
    this.count = sum;
  }

  /** The k-th smallest value (1-based rank). */
  atRank(rank: number): number {
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cumulative[mid] ?? 0) >= rank) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo] ?? 0;
  }

  at(u: number): number {
    return this.atRank(Math.min(this.count, Math.max(1, Math.ceil(u * this.count))));
  }

  /** The percentile of this sample, the way HdrHistogram's getValueAtPercentile computes it. */
  percentile(p: number): number {
    return this.atRank(rankOf(p, this.count));
  }

  /**
   * One bootstrap replicate of the p-th percentile. Resampling n values from the empirical
   * distribution and taking the k-th smallest is the same as mapping the k-th order statistic
   * of n uniforms, which is Beta(k, n - k + 1), through the inverse CDF: exact, and O(log n)
   * per replicate instead of O(n).
   */
  resamplePercentile(p: number, rng: Rng): number {
    const n = this.count;
    const k = rankOf(p, n);
    return this.at(beta(rng, k, n - k + 1));
  }

  mean(): number {
    let s = 0;
    let prev = 0;
    this.values.forEach((v, i) => {
      const c = (this.cumulative[i] ?? 0) - prev;
      prev = this.cumulative[i] ?? 0;
      s += v * c;
    });
    return this.count > 0 ? s / this.count : 0;
  }

  stddev(): number {
    const m = this.mean();
    let s = 0;
    let prev = 0;
    this.values.forEach((v, i) => {
      const c = (this.cumulative[i] ?? 0) - prev;
      prev = this.cumulative[i] ?? 0;
      s += (v - m) ** 2 * c;
    });
    return this.count > 1 ? Math.sqrt(s / (this.count - 1)) : 0;
  }
}

const quantileOf = (sorted: number[], q: number): number => {
  if (sorted.length === 0) return 0;
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] ?? 0) + ((sorted[hi] ?? 0) - (sorted[lo] ?? 0)) * (pos - lo);
};

export const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Percentile bootstrap interval of the relative change (percent) of one statistic. */
function bootstrapChange(iterations: number, level: number, draw: () => [number, number]): { lowPct: number; highPct: number } {
  const changes: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const [b, c] = draw();
    if (b > 0) changes.push((c / b - 1) * 100);
  }
  changes.sort((x, y) => x - y);
  const alpha = (1 - level) / 2;
  return { lowPct: round(quantileOf(changes, alpha)), highPct: round(quantileOf(changes, 1 - alpha)) };
}

export interface Ctx {
  margins: Partial<Record<CompareMetric, number>>;
  level: number;
  iterations: number;
  rng: Rng;
}

/** Which way is worse: up for latency and error rates, down for throughput, tokens/s and goodput. */
export type Worse = 'up' | 'down';

/** The verdict fields of a change: significant when its interval excludes 0, a regression when also worse than the margin. */
export function judge(changePct: number | null, ci: MetricChange['ci'], margin: number | null, worse: Worse): Pick<MetricChange, 'significant' | 'regression' | 'improvement'> {
  const up = ci !== null && ci.lowPct > 0;
  const down = ci !== null && ci.highPct < 0;
  const worseSignificant = worse === 'up' ? up : down;
  const worseBy = changePct === null ? null : worse === 'up' ? changePct : -changePct;
  return {
    significant: up || down,
    regression: worseSignificant && margin !== null && worseBy !== null && worseBy > margin,
    improvement: worse === 'up' ? down : up,
  };
}

/** Two values, the relative change (percent) between them and its interval, judged. */
function relativeChange(metric: CompareMetric, unit: MetricChange['unit'], base: number | null, cand: number | null, ci: MetricChange['ci'], margin: number | null, worse: Worse): MetricChange {
  const changePct = base !== null && cand !== null && base > 0 ? round((cand / base - 1) * 100) : null;
  return {
    metric,
    unit,
    baseline: base === null ? null : round(base),
    candidate: cand === null ? null : round(cand),
    changePct,
    ci,
    maxRegressionPct: margin,
    ...judge(changePct, ci, margin, worse),
  };
}

/**
 * Requests beyond a percentile that its bootstrap interval needs: with fewer, the resampled
 * percentile takes a handful of values (the slowest requests' ties) and its interval can
 * collapse to a point, so noise would read as a significant change.
 */
export const MIN_BEYOND = 5;

/** Requests a run needs so that MIN_BEYOND lie beyond `percentile` (p99: 500, p90: 50, p50: 10). */
export const requestsForPercentile = (percentile: number): number => Math.ceil((MIN_BEYOND * 100) / (100 - percentile) - 1e-9);

/** A percentile (or the mean) of a histogram of milliseconds. */
export type Statistic = { percentile: number } | 'mean';

/**
 * One statistic of two latency histograms: its values, relative change and bootstrap interval.
 * Percentiles are resampled exactly (order statistics, see Quantiles); the mean by its normal
 * approximation.
 */
export function histogramMetric(metric: CompareMetric, stat: Statistic, b: Histogram | undefined, c: Histogram | undefined, ctx: Ctx): MetricChange {
  const qb = b && b.totalCount > 0 ? new Quantiles(b) : undefined;
  const qc = c && c.totalCount > 0 ? new Quantiles(c) : undefined;
  const margin = ctx.margins[metric] ?? null;
  const valueOf = (q: Quantiles) => (stat === 'mean' ? q.mean() : q.percentile(stat.percentile));
  const base = qb ? valueOf(qb) : null;
  const cand = qc ? valueOf(qc) : null;
  let ci: MetricChange['ci'] = null;
  const need = stat === 'mean' ? 0 : requestsForPercentile(stat.percentile);
  if (qb && qc && Math.min(qb.count, qc.count) < need && stat !== 'mean') {
    return { ...relativeChange(metric, 'ms', base, cand, null, margin, 'up'), unjudged: `p${stat.percentile} needs ${need} requests in each run (${MIN_BEYOND} beyond it); these had ${qb.count} and ${qc.count}` };
  }
  if (qb && qc && base !== null && base > 0) {
    const draw: () => [number, number] =
      stat === 'mean'
        ? (() => {
            const [sb, sc] = [qb.stddev() / Math.sqrt(qb.count), qc.stddev() / Math.sqrt(qc.count)];
            const [mb, mc] = [qb.mean(), qc.mean()];
            return () => [mb + sb * normal(ctx.rng), mc + sc * normal(ctx.rng)];
          })()
        : () => [qb.resamplePercentile(stat.percentile, ctx.rng), qc.resamplePercentile(stat.percentile, ctx.rng)];
    ci = { ...bootstrapChange(ctx.iterations, ctx.level, draw), level: ctx.level };
  }
  return relativeChange(metric, 'ms', base, cand, ci, margin, 'up');
}

/** Change of a proportion (hits of n) in percentage points with a normal-approximation interval; worse is up. */
export function rateMetric(metric: CompareMetric, hb: number, nb: number, hc: number, nc: number, ctx: Ctx): MetricChange {
  const margin = ctx.margins[metric] ?? null;
  const pb = nb > 0 ? hb / nb : null;
  const pc = nc > 0 ? hc / nc : null;
  let ci: MetricChange['ci'] = null;
  let changePct: number | null = null;
  if (pb !== null && pc !== null) {
    changePct = round((pc - pb) * 100, 4);
    // add-one smoothing keeps the interval honest when a side saw zero errors
    const [sb, sc] = [(hb + 1) / (nb + 2), (hc + 1) / (nc + 2)];
    const se = Math.sqrt((sb * (1 - sb)) / nb + (sc * (1 - sc)) / nc) * 100;
    const z = normalQuantile(1 - (1 - ctx.level) / 2);
    ci = { lowPct: round(changePct - z * se, 4), highPct: round(changePct + z * se, 4), level: ctx.level };
  }
  return {
    metric,
    unit: 'ratio',
    baseline: pb === null ? null : round(pb, 6),
    candidate: pc === null ? null : round(pc, 6),
    changePct,
    ci,
    maxRegressionPct: margin,
    ...judge(changePct, ci, margin, 'up'),
  };
}

/** A rate measured once per run (requests/s, tokens/s): no distribution to resample; only an explicit margin judges its drop. */
export function onceMetric(metric: CompareMetric, b: number | null, c: number | null, ctx: Ctx): MetricChange {
  const margin = ctx.margins[metric] ?? null;
  const changePct = b !== null && c !== null && b > 0 ? round((c / b - 1) * 100) : null;
  const drop = changePct !== null && margin !== null && -changePct > margin;
  return {
    metric,
    unit: 'per_sec',
    baseline: b === null ? null : round(b),
    candidate: c === null ? null : round(c),
    changePct,
    ci: null,
    significant: drop,
    maxRegressionPct: margin,
    regression: drop,
    improvement: false,
  };
}

/** A run's share of requests that met a bar (good of n) and the rate its requests were sent at. */
export interface ShareOfRate {
  good: number;
  n: number;
  /** Requests per second the share applies to: good/n × this is the rate of good requests. */
  perSec: number;
}

/**
 * The relative change (percent) of a rate of good requests, share × rate, with an interval from
 * the share's sampling noise alone: each side's share is drawn from its Beta(good + 1, n - good + 1)
 * posterior and the rate is held as measured. Worse is down.
 */
export function shareRateMetric(metric: CompareMetric, b: ShareOfRate | null, c: ShareOfRate | null, ctx: Ctx): MetricChange {
  const margin = ctx.margins[metric] ?? null;
  const value = (x: ShareOfRate | null) => (x === null || x.n === 0 ? null : (x.good / x.n) * x.perSec);
  const base = value(b);
  const cand = value(c);
  let ci: MetricChange['ci'] = null;
  if (b !== null && c !== null && b.n > 0 && c.n > 0 && b.perSec > 0) {
    const draw = (x: ShareOfRate) => beta(ctx.rng, x.good + 1, x.n - x.good + 1) * x.perSec;
    ci = { ...bootstrapChange(ctx.iterations, ctx.level, () => [draw(b), draw(c)]), level: ctx.level };
  }
  return relativeChange(metric, 'per_sec', base, cand, ci, margin, 'down');
}
