// Starts that began over several poll spans, paired with the spans they were seen ready in. Which
// start became which ready worker is not seen: first in, first out keeps each duration's sum but
// not its kind where a fast start overtook a full one (the full reads short by the stagger, the
// fast long). Given a fit of the durations, each such reading is paired again the way the fit
// finds likeliest: the permutation of its ready spans with the highest likelihood, ready never
// before begun, first in, first out kept on a tie.
import { logAdd, normalLogPdf } from './fit.js';
import type { Distribution } from '../deployment/index.js';
import type { StaggeredStarts, TargetSpan } from './observations.js';

/** Readings with more starts than this keep first in, first out (8! orders is already 40,320). */
export const MAX_PAIRED = 7;

const mid = (s: TargetSpan): number => (s.fromMs + s.toMs) / 2;

/** Target ms from a beginning seen in span `b` to ready seen in span `r` (phases.ts spanGap); undefined when `r` ends before `b`. */
export function gapMs(b: TargetSpan, r: TargetSpan): number | undefined {
  if (r.toMs < b.toMs) return undefined;
  return r.toMs > b.toMs ? mid(r) - mid(b) : (b.toMs - b.fromMs) / 2;
}

/**
 * Log density of a reading under `dist` with the reading's own spread added (`noiseMs2`, its
 * variance): each log-normal part's log variance gains noise / median^2. Undefined for kinds
 * without a density to pair by (constant, empirical, uniform).
 */
export function readingLogDensity(dist: Distribution, noiseMs2: number): ((ms: number) => number) | undefined {
  const part = (median: number, sigma: number) => {
    const s = Math.sqrt(sigma * sigma + noiseMs2 / (median * median));
    const mu = Math.log(median);
    return (ms: number) => normalLogPdf(Math.log(Math.max(0.5, ms)), mu, s) - Math.log(Math.max(0.5, ms));
  };
  if (dist.kind === 'lognormal') return part(dist.medianMs, dist.sigma);
  if (dist.kind === 'mixture' && dist.first.kind === 'lognormal' && dist.second.kind === 'lognormal') {
    const a = part(dist.first.medianMs, dist.first.sigma);
    const b = part(dist.second.medianMs, dist.second.sigma);
    const p = dist.p;
    return (ms: number) => logAdd(Math.log(p) + a(ms), Math.log(1 - p) + b(ms));
  }
  return undefined;
}

/** The likeliest order of `g`'s ready spans under `logDensity` (first in, first out on a tie), as durations in begin order. */
export function likeliestPairing(g: StaggeredStarts, logDensity: (ms: number) => number): number[] | undefined {
  const n = g.begins.length;
  if (n !== g.readies.length || n > MAX_PAIRED) return undefined;
  const order = Array.from({ length: n }, (_, i) => i);
  let best: { score: number; order: number[] } | undefined;
  const score = (o: readonly number[]): number | undefined => {
    let total = 0;
    for (let i = 0; i < n; i += 1) {
      const d = gapMs(g.begins[i] as TargetSpan, g.readies[o[i] as number] as TargetSpan);
      if (d === undefined) return undefined;
      total += logDensity(d);
    }
    return total;
  };
  // Heap's algorithm over the orders; the identity first, so a tie keeps first in, first out.
  const consider = () => {
    const s = score(order);
    if (s !== undefined && (best === undefined || s > best.score + 1e-9)) best = { score: s, order: [...order] };
  };
  const c = new Array<number>(n).fill(0);
  consider();
  let i = 0;
  while (i < n) {
    if ((c[i] as number) < i) {
      const j = i % 2 === 0 ? 0 : (c[i] as number);
      [order[j], order[i]] = [order[i] as number, order[j] as number];
      consider();
      c[i] = (c[i] as number) + 1;
      i = 0;
    } else {
      c[i] = 0;
      i += 1;
    }
  }
  const chosen = best as { order: number[] } | undefined;
  if (chosen === undefined) return undefined;
  return chosen.order.map((r, k) => gapMs(g.begins[k] as TargetSpan, g.readies[r] as TargetSpan) as number);
}

/**
 * `starts` (first in, first out) with each staggered reading's durations paired again under
 * `dist`; unchanged where `dist` has no density or a reading has too many starts. Also the
 * count of readings whose pairing changed.
 */
export function repairStarts(starts: readonly number[], groups: readonly StaggeredStarts[], dist: Distribution, noiseMs2: number): { readonly starts: number[]; readonly changed: number } {
  const density = readingLogDensity(dist, noiseMs2);
  const out = [...starts];
  let changed = 0;
  if (density === undefined) return { starts: out, changed };
  for (const g of groups) {
    const paired = likeliestPairing(g, density);
    if (paired === undefined || g.at + paired.length > out.length) continue;
    if (paired.some((d, k) => Math.abs(d - (out[g.at + k] as number)) > 1e-6)) changed += 1;
    paired.forEach((d, k) => {
      out[g.at + k] = d;
    });
  }
  return { starts: out, changed };
}
