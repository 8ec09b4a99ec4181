// Duration distributions of the timing model: quantile function, CDF and a seeded sampler.
// Sampling inverts the quantile function at one uniform draw (a mixture splits that draw), so
// every sample consumes exactly one number of its stream and a seed fixes the whole run.
import type { BaseDistribution, Distribution, EmpiricalDist } from './schema.js';
import type { Rng } from './random.js';

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239] as const;
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1] as const;
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783] as const;
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416] as const;
const P_LOW = 0.02425;

/** Standard normal quantile Φ⁻¹(q); -Infinity at 0, +Infinity at 1. */
export function normalQuantile(q: number): number {
  if (q <= 0) return -Infinity;
  if (q >= 1) return Infinity;
  if (q < P_LOW) {
    const r = Math.sqrt(-2 * Math.log(q));
    return (((((C[0] * r + C[1]) * r + C[2]) * r + C[3]) * r + C[4]) * r + C[5]) / ((((D[0] * r + D[1]) * r + D[2]) * r + D[3]) * r + 1);
  }
  if (q > 1 - P_LOW) return -normalQuantile(1 - q);
  const s = q - 0.5;
  const r = s * s;
  return ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * s) / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
}

/** Complementary error function (Numerical Recipes erfcc, fractional error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF Φ(x). */
export function normalCdf(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** The largest index i with pts[i][column] <= value (pts[0][column] <= value); binary search, tables may hold a hundred points. */
function lastAtMost(pts: readonly (readonly [number, number])[], column: 0 | 1, value: number): number {
  let lo = 0;
  let hi = pts.length - 1;
  if ((pts[hi] as readonly [number, number])[column] <= value) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((pts[mid] as readonly [number, number])[column] <= value) lo = mid;
    else hi = mid;
  }
  return lo;
}

function empiricalQuantile(d: EmpiricalDist, q: number): number {
  const pts = d.quantiles;
  const lo = lastAtMost(pts, 0, q);
  const hi = Math.min(lo + 1, pts.length - 1);
  const [q0, ms0] = pts[lo] as [number, number];
  const [q1, ms1] = pts[hi] as [number, number];
  if (q <= q0) return ms0;
  if (q >= q1) return ms1;
  return ms0 + ((q - q0) / (q1 - q0)) * (ms1 - ms0);
}

function empiricalCdf(d: EmpiricalDist, ms: number): number {
  const pts = d.quantiles;
  const first = pts[0] as [number, number];
  if (ms < first[1]) return 0;
  if ((pts[pts.length - 1] as [number, number])[1] <= ms) return 1;
  // The largest q whose quantile is <= ms (a flat run of equal ms counts to its end).
  const lo = lastAtMost(pts, 1, ms);
  const hi = lo + 1;
  const [q0, ms0] = pts[lo] as [number, number];
  const [q1, ms1] = pts[hi] as [number, number];
  return q0 + ((ms - ms0) / (ms1 - ms0)) * (q1 - q0);
}

function baseQuantile(d: BaseDistribution, q: number): number {
  switch (d.kind) {
    case 'constant':
      return d.ms;
    case 'uniform':
      return d.minMs + q * (d.maxMs - d.minMs);
    case 'lognormal':
      return d.sigma === 0 ? d.medianMs : d.medianMs * Math.exp(d.sigma * normalQuantile(q));
    case 'empirical':
      return empiricalQuantile(d, q);
  }
}

function baseCdf(d: BaseDistribution, ms: number): number {
  switch (d.kind) {
    case 'constant':
      return ms >= d.ms ? 1 : 0;
    case 'uniform':
      if (ms >= d.maxMs) return 1;
      if (ms < d.minMs) return 0;
      return (ms - d.minMs) / (d.maxMs - d.minMs);
    case 'lognormal':
      if (ms <= 0) return 0;
      if (d.sigma === 0) return ms >= d.medianMs ? 1 : 0;
      return normalCdf(Math.log(ms / d.medianMs) / d.sigma);
    case 'empirical':
      return empiricalCdf(d, ms);
  }
}

/** P(X <= ms). */
export function cdf(d: Distribution, ms: number): number {
  if (d.kind !== 'mixture') return baseCdf(d, ms);
  return d.p * baseCdf(d.first, ms) + (1 - d.p) * baseCdf(d.second, ms);
}

/**
 * The q-quantile in ms (q in [0, 1]): the smallest ms with cdf(ms) >= q. A mixture's lies
 * between its parts' quantiles at q, found by bisection there.
 */
export function quantileMs(d: Distribution, q: number): number {
  const qc = Math.min(1, Math.max(0, q));
  if (d.kind !== 'mixture') return baseQuantile(d, qc);
  if (d.p >= 1) return baseQuantile(d.first, qc);
  if (d.p <= 0) return baseQuantile(d.second, qc);
  const a = baseQuantile(d.first, qc);
  const b = baseQuantile(d.second, qc);
  let lo = Math.min(a, b);
  let hi = Math.max(a, b);
  if (hi === Infinity) return Infinity;
  if (cdf(d, lo) >= qc) return lo;
  // Relative precision: a fitted fast start may be a few ms wide.
  for (let i = 0; i < 200 && hi - lo > hi * 1e-12; i += 1) {
    const mid = (lo + hi) / 2;
    if (cdf(d, mid) >= qc) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** One sample in ms: the quantile at one uniform draw of `rng`. */
export function sampleMs(d: Distribution, rng: Rng): number {
  const u = rng.next();
  if (d.kind !== 'mixture') return baseQuantile(d, u);
  // The draw picks the part and, rescaled, the quantile within it: still one draw per sample.
  if (u < d.p) return baseQuantile(d.first, u / d.p);
  return baseQuantile(d.second, (u - d.p) / (1 - d.p));
}

/** The mean in ms (Infinity never: every kind here has a finite mean). */
export function meanMs(d: Distribution): number {
  switch (d.kind) {
    case 'constant':
      return d.ms;
    case 'uniform':
      return (d.minMs + d.maxMs) / 2;
    case 'lognormal':
      return d.medianMs * Math.exp((d.sigma * d.sigma) / 2);
    case 'empirical': {
      let sum = 0;
      for (let i = 1; i < d.quantiles.length; i += 1) {
        const [q0, ms0] = d.quantiles[i - 1] as [number, number];
        const [q1, ms1] = d.quantiles[i] as [number, number];
        sum += ((q1 - q0) * (ms0 + ms1)) / 2;
      }
      return sum;
    }
    case 'mixture':
      return d.p * meanMs(d.first) + (1 - d.p) * meanMs(d.second);
  }
}
