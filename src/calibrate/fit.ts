// Fitting a timing part's samples (target ms) to a distribution of the deployment model:
// log-normal by maximum likelihood, a mixture of two log-normals by EM (cold starts: a fast
// start from kept state and a full start), a constant when every sample is equal, and the
// empirical quantiles when no parametric fit passes its goodness-of-fit test (Kolmogorov-Smirnov).
import { cdf, quantileMs, seededRng, type Distribution, type LognormalDist, type MixtureDist } from '../deployment/index.js';

/** Kolmogorov-Smirnov goodness of fit of one distribution to its samples. */
export interface GoodnessOfFit {
  /** The largest gap between the samples' CDF and the fitted CDF. */
  readonly ks: number;
  readonly n: number;
  /** The 5% critical value for n samples (Stephens' approximation). Conservative here: the parameters come from the same samples. */
  readonly critical05: number;
  readonly accepted: boolean;
}

export interface Candidate {
  readonly kind: Distribution['kind'];
  readonly dist: Distribution;
  readonly gof: GoodnessOfFit;
  /** Bayesian information criterion (lower is better); parametric fits only. */
  readonly bic?: number;
}

export interface Fit {
  readonly dist: Distribution;
  readonly gof: GoodnessOfFit;
  readonly candidates: readonly Candidate[];
  /** Why this candidate was kept, in words. */
  readonly why: string;
  /** Samples left out as far outliers (see splitOutliers); the fit and its KS are of the rest. */
  readonly outliersMs: readonly number[];
}

/** Durations are whole ms: a 0 means under 1 ms, taken as half of one for the logarithm. */
const FLOOR_MS = 0.5;
/** Log-space spreads below this are a constant in practice (and keep EM away from a spike). */
const MIN_SIGMA = 1e-3;
const MAX_SIGMA = 5;
/** Most points an empirical fallback keeps (the quantiles at each 1%). */
const MAX_EMPIRICAL_POINTS = 101;
/** How far beyond the largest sample a fit's tail may reach (see tailExcess). */
const TAIL_FACTOR = 2;

export function ksCritical05(n: number): number {
  const r = Math.sqrt(n);
  return 1.358 / (r + 0.12 + 0.11 / r);
}

/** The KS statistic of `samples` against `F`, with ties handled (the ECDF jumps once per distinct value). */
export function ksStatistic(samples: readonly number[], F: (ms: number) => number): number {
  const xs = [...samples].sort((a, b) => a - b);
  const n = xs.length;
  let d = 0;
  let i = 0;
  while (i < n) {
    const x = xs[i] as number;
    let j = i;
    while (j < n && xs[j] === x) j += 1;
    const below = i / n;
    const atOrBelow = j / n;
    // F just below x (a constant or empirical fit jumps at x).
    const fBelow = F(x - Math.max(1e-9, Math.abs(x) * 1e-12));
    d = Math.max(d, Math.abs(atOrBelow - F(x)), Math.abs(below - fBelow));
    i = j;
  }
  return d;
}

export function goodnessOfFit(samples: readonly number[], dist: Distribution): GoodnessOfFit {
  const n = samples.length;
  const ks = ksStatistic(samples, (ms) => cdf(dist, ms));
  const critical05 = ksCritical05(n);
  return { ks, n, critical05, accepted: ks <= critical05 };
}

/**
 * Goodness of fit of readings whose own steps (polls) are not to count against a smooth fit: the
 * KS distance from the readings' ECDF to the band between F(x - band) and F(x + band), 0 where
 * the ECDF lies inside it; with a band of 0 and no ties, the KS statistic.
 */
export function goodnessOfFitWithin(samples: readonly number[], dist: Distribution, bandMs: number): GoodnessOfFit {
  const xs = [...samples].sort((a, b) => a - b);
  const n = xs.length;
  let d = 0;
  for (let i = 0; i < n; i += 1) {
    const x = xs[i] as number;
    d = Math.max(d, (i + 1) / n - cdf(dist, x + bandMs), cdf(dist, x - bandMs) - i / n);
  }
  const critical05 = ksCritical05(n);
  return { ks: Math.max(0, d), n, critical05, accepted: d <= critical05 };
}

const logs = (samples: readonly number[]): number[] => samples.map((x) => Math.log(Math.max(FLOOR_MS, x)));
const mean = (v: readonly number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
const clampSigma = (s: number): number => Math.min(MAX_SIGMA, Math.max(MIN_SIGMA, s));

/** ln(e^a + e^b), without overflow. */
export function logAdd(a: number, b: number): number {
  const m = Math.max(a, b);
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

export function normalLogPdf(y: number, mu: number, sigma: number): number {
  const z = (y - mu) / sigma;
  return -0.5 * z * z - Math.log(sigma) - 0.5 * Math.log(2 * Math.PI);
}

/** Maximum-likelihood log-normal (the mean and spread of ln x) and its log-likelihood in log space. */
export function fitLognormal(samples: readonly number[]): { dist: LognormalDist; logLik: number } {
  const y = logs(samples);
  const mu = mean(y);
  const sigma = clampSigma(Math.sqrt(mean(y.map((v) => (v - mu) ** 2))));
  const logLik = y.reduce((a, v) => a + normalLogPdf(v, mu, sigma), 0);
  return { dist: { kind: 'lognormal', medianMs: Math.exp(mu), sigma }, logLik };
}

export interface MixtureFit {
  readonly dist: MixtureDist;
  readonly logLik: number;
  readonly iterations: number;
}

/**
 * A mixture of two log-normals by expectation-maximisation on ln x, started from the widest
 * gap between sorted values (where a fast and a full start separate). `first` is the faster
 * part and `p` its weight. Undefined when fewer than 4 samples or no gap to start from.
 */
export function fitLognormalMixture(samples: readonly number[], maxIterations = 500): MixtureFit | undefined {
  const y = logs(samples).sort((a, b) => a - b);
  const n = y.length;
  if (n < 4) return undefined;
  // The widest gap with at least two values on each side.
  let cut = -1;
  let widest = 0;
  for (let i = 1; i + 1 < n - 1; i += 1) {
    const gap = (y[i + 1] as number) - (y[i] as number);
    if (gap > widest) {
      widest = gap;
      cut = i + 1;
    }
  }
  if (cut < 0 || widest <= 0) return undefined;
  const side = (a: number[]) => {
    const mu = mean(a);
    return { mu, sigma: clampSigma(Math.sqrt(mean(a.map((v) => (v - mu) ** 2)))) };
  };
  let lo = side(y.slice(0, cut));
  let hi = side(y.slice(cut));
  let p = cut / n;
  let logLik = -Infinity;
  let iterations = 0;
  const r = new Array<number>(n).fill(0);
  for (; iterations < maxIterations; iterations += 1) {
    // E step: each value's responsibility of the fast part, in log space for stability.
    let ll = 0;
    for (let i = 0; i < n; i += 1) {
      const v = y[i] as number;
      const a = Math.log(p) + normalLogPdf(v, lo.mu, lo.sigma);
      const b = Math.log(1 - p) + normalLogPdf(v, hi.mu, hi.sigma);
      const total = logAdd(a, b);
      r[i] = Math.exp(a - total);
      ll += total;
    }
    // M step.
    const w = r.reduce((s, x) => s + x, 0);
    if (w < 1e-9 || n - w < 1e-9) return undefined;
    p = w / n;
    const muLo = r.reduce((s, x, i) => s + x * (y[i] as number), 0) / w;
    const muHi = r.reduce((s, x, i) => s + (1 - x) * (y[i] as number), 0) / (n - w);
    lo = { mu: muLo, sigma: clampSigma(Math.sqrt(r.reduce((s, x, i) => s + x * ((y[i] as number) - muLo) ** 2, 0) / w)) };
    hi = { mu: muHi, sigma: clampSigma(Math.sqrt(r.reduce((s, x, i) => s + (1 - x) * ((y[i] as number) - muHi) ** 2, 0) / (n - w))) };
    const done = Math.abs(ll - logLik) < 1e-9 * Math.max(1, Math.abs(ll));
    logLik = ll;
    if (done) break;
  }
  const [fast, full, pFast] = lo.mu <= hi.mu ? [lo, hi, p] : [hi, lo, 1 - p];
  // Two parts only when they are told apart (Ashman's D > 2) and each holds two samples or more.
  const separation = (Math.SQRT2 * Math.abs(full.mu - fast.mu)) / Math.sqrt(fast.sigma ** 2 + full.sigma ** 2);
  if (separation <= 2 || pFast * n < 2 || (1 - pFast) * n < 2) return undefined;
  return {
    dist: {
      kind: 'mixture',
      p: pFast,
      first: { kind: 'lognormal', medianMs: Math.exp(fast.mu), sigma: fast.sigma },
      second: { kind: 'lognormal', medianMs: Math.exp(full.mu), sigma: full.sigma },
    },
    logLik,
    iterations,
  };
}

/** The samples' own quantiles (at most 101 points, linear between them). */
export function empiricalOf(samples: readonly number[]): Distribution {
  const xs = [...samples].sort((a, b) => a - b);
  const n = xs.length;
  if (n === 1 || xs[0] === xs[n - 1]) return { kind: 'constant', ms: xs[0] as number };
  if (n <= MAX_EMPIRICAL_POINTS) return { kind: 'empirical', quantiles: xs.map((x, i) => [i / (n - 1), x] as [number, number]) };
  const points: [number, number][] = [];
  for (let k = 0; k < MAX_EMPIRICAL_POINTS; k += 1) {
    const q = k / (MAX_EMPIRICAL_POINTS - 1);
    const pos = q * (n - 1);
    const i = Math.floor(pos);
    const a = xs[i] as number;
    const b = xs[Math.min(n - 1, i + 1)] as number;
    points.push([q, a + (pos - i) * (b - a)]);
  }
  return { kind: 'empirical', quantiles: points };
}

/**
 * KS weighs the middle of a distribution; a fit can pass it with a tail far beyond every sample
 * (many near-zero samples make a log-normal very wide), and a twin's p99 would follow that
 * tail. The fit's quantile at 1 - 1/(2n), where the largest of n samples typically falls, must
 * stay within TAIL_FACTOR of the largest sample. Says why not, or undefined when it does.
 */
function tailExcess(samples: readonly number[], dist: Distribution): string | undefined {
  const n = samples.length;
  const max = Math.max(...samples);
  const q = 1 - 1 / (2 * n);
  const atQ = quantileMs(dist, q);
  return atQ > TAIL_FACTOR * Math.max(max, FLOOR_MS) ? `its ${(q * 100).toFixed(1)}% quantile (${Math.round(atQ)} ms) is over ${TAIL_FACTOR}x the largest sample (${Math.round(max)} ms)` : undefined;
}

export interface FitOptions {
  /** Try a two-part mixture (cold starts). */
  readonly mixture?: boolean;
  /**
   * How finely the samples were read, ms (a span between polls): samples that all lie within it
   * of each other are one value, their mean; two parts closer than twice it are not told apart.
   */
  readonly resolutionMs?: number;
  /**
   * The variance of a reading's error, ms^2 (readingNoiseMs2): what each part's spread loses.
   * Absent: resolutionMs^2 / 6, two ends each uniform within a fixed grid's span.
   */
  readonly readingNoiseMs2?: number;
  /**
   * A reading's error as a function of the duration read (readingError): its mean and variance.
   * Takes the place of readingNoiseMs2 where a duration spans few polls.
   */
  readonly readingError?: (durationMs: number) => ReadingError;
}

/** The mean and variance of a reading's error (reading less the duration), ms and ms^2. */
export interface ReadingError {
  readonly biasMs: number;
  readonly varianceMs2: number;
}

/** Readings drawn to place readingError's mean and variance (their standard errors about 1%). */
const READING_DRAWS = 20_000;

/**
 * The error of a duration `durationMs` read as StartTracker reads it: polls a stationary renewal
 * process with gaps of `fixedMs` plus a uniform share of `jitterMs` (firstPollAfterSend), each end
 * placed at the middle of the span it fell in, an end in the same span as the beginning read as
 * half that span. Over about three of the longest gaps the two ends fall in spans apart, each
 * off independently: mean 0 and the variance readingNoiseMs2. Shorter, they share spans: such a
 * reading is long on average (a 300 ms start on gaps of 210-510 ms reads 345 ms) and spreads less
 * (a 500 ms one by 9% less in variance); drawn here, from a fixed seed, so that a calibration
 * gives the same fit every time.
 */
export function readingError(fixedMs: number, jitterMs: number, durationMs: number): ReadingError {
  const longest = fixedMs + jitterMs;
  if (!(longest > 0)) return { biasMs: 0, varianceMs2: 0 };
  if (durationMs >= 3 * longest) return { biasMs: 0, varianceMs2: readingNoiseMs2(fixedMs, jitterMs) };
  const rng = seededRng(0x5eed);
  const gap = () => fixedMs + jitterMs * rng.next();
  let sum = 0;
  let sum2 = 0;
  for (let i = 0; i < READING_DRAWS; i += 1) {
    // Polls from well before the beginning (at 0): by then the renewal process is stationary.
    let before = -(10 + 10 * rng.next()) * longest;
    let poll = before;
    while (poll < 0) [before, poll] = [poll, poll + gap()];
    const seenFrom = before;
    const seenTo = poll;
    while (poll < durationMs) [before, poll] = [poll, poll + gap()];
    const read = poll > seenTo ? (before + poll) / 2 - (seenFrom + seenTo) / 2 : (seenTo - seenFrom) / 2;
    sum += read - durationMs;
    sum2 += (read - durationMs) ** 2;
  }
  const biasMs = sum / READING_DRAWS;
  return { biasMs, varianceMs2: Math.max(0, sum2 / READING_DRAWS - biasMs * biasMs) };
}

/**
 * The variance of a reading's error when each end of it is placed at the middle of the span
 * between the polls around it, the gaps between polls `fixedMs` plus a uniform share of
 * `jitterMs` (both ms): the span an instant falls in is a gap drawn by its length (E[X^3] / E[X]
 * for its square), the instant uniform within it, so each end is off by a variance of
 * E[X^3] / (12 E[X]), and the two ends independently. With no jitter, fixedMs^2 / 6.
 */
export function readingNoiseMs2(fixedMs: number, jitterMs: number): number {
  const a = fixedMs;
  const b = jitterMs;
  const m1 = a + b / 2;
  if (!(m1 > 0)) return 0;
  const m3 = a ** 3 + (3 * a * a * b) / 2 + a * b * b + b ** 3 / 4;
  return m3 / (6 * m1);
}

/**
 * Fit `samples` (at least one): a constant when all are equal; otherwise the parametric fit
 * with the lower BIC (log-normal, or the two-part mixture when asked), kept when its KS
 * statistic is within the 5% critical value, else the empirical quantiles.
 */
export function fitSamples(raw: readonly number[], o: FitOptions = {}): Fit {
  if (raw.length === 0) throw new RangeError('fitSamples needs at least one sample');
  const res = o.resolutionMs ?? 0;
  if (res > 0 && Math.max(...raw) - Math.min(...raw) <= res) {
    const dist: Distribution = { kind: 'constant', ms: raw.reduce((a, x) => a + x, 0) / raw.length };
    const gof = goodnessOfFit(raw, dist);
    return { dist, gof, candidates: [{ kind: 'constant', dist, gof }], why: `every sample within ${Math.round(res)} ms of each other, the span they were read in: a constant at their mean`, outliersMs: [] };
  }
  const samples = res > 0 ? spreadTies(raw, res) : raw;
  const split = splitOutliers(samples);
  // Where a mixture is fitted, two or more samples beyond one fence are a part of it (the full
  // starts beside many fast ones), not strays; and a reading falls short of what it read by one
  // span at most, so with the span known a sample below the low fence is a fast start, however
  // lone. Only a lone sample beyond the high fence (a stall of the client) is left out.
  const mid = split.kept.length > 0 ? [...split.kept].sort((a, b) => a - b)[split.kept.length >> 1] as number : 0;
  const keepSide = (high: boolean) => o.mixture === true && (split.outliers.filter((x) => x > mid === high).length >= 2 || (!high && res > 0));
  const back = split.outliers.filter((x) => keepSide(x > mid));
  const kept = back.length > 0 ? [...split.kept, ...back] : split.kept;
  const outliers = back.length > 0 ? split.outliers.filter((x) => !back.includes(x)) : split.outliers;
  // What spreading the ties added to each sample's square (its own variance beside the reading's).
  const spreadMs2 = new Map<number, number>();
  samples.forEach((x, i) => {
    if (x !== raw[i]) spreadMs2.set(x, (x - (raw[i] as number)) ** 2);
  });
  const error = o.readingError ?? ((): ReadingError => ({ biasMs: 0, varianceMs2: o.readingNoiseMs2 ?? (res * res) / 6 }));
  const fit = res > 0 ? tailChecked(withoutReadingNoise(fitKept(kept, o), kept, error, spreadMs2), kept) : fitKept(kept, o);
  if (outliers.length === 0) return fit;
  return { ...fit, outliersMs: outliers, why: `${fit.why}; ${outliers.length} far outlier(s) left out (${outliers.map((x) => Math.round(x)).join(', ')} ms: beyond ${FENCE_IQR} IQR of ln x from the quartiles)` };
}

/** A parametric fit whose tail runs far past the samples gives way to their empirical quantiles (as fitKept does). */
function tailChecked(fit: Fit, samples: readonly number[]): Fit {
  if (fit.dist.kind !== 'lognormal' && fit.dist.kind !== 'mixture') return fit;
  const tail = tailExcess(samples, fit.dist);
  if (tail === undefined) return fit;
  const empirical = empiricalOf(samples);
  return { ...fit, dist: empirical, gof: goodnessOfFit(samples, empirical), why: `empirical quantiles: the fit (${fit.dist.kind}, less the polls' spread) passes KS (${fit.gof.ks.toFixed(3)}) but ${tail}` };
}

/**
 * Samples read on a grid (each the middle of a poll span `resolutionMs` wide) tie: k equal ones
 * stand for k values somewhere in that span, so they are spread evenly across it (at its
 * k quantiles' middles). A fit then sees the spread the reading hid instead of steps that no
 * continuous distribution passes a KS test on. Values stay above 1 ms.
 */
export function spreadTies(samples: readonly number[], resolutionMs: number): number[] {
  const counts = new Map<number, number>();
  for (const x of samples) counts.set(x, (counts.get(x) ?? 0) + 1);
  const seen = new Map<number, number>();
  return samples.map((x) => {
    const k = counts.get(x) as number;
    if (k < 2) return x;
    const i = seen.get(x) ?? 0;
    seen.set(x, i + 1);
    return Math.max(1, x - resolutionMs / 2 + (resolutionMs * (i + 0.5)) / k);
  });
}

/**
 * A fit to readings taken on polls holds the reading's own error (`error`, by the duration read:
 * readingError, or a constant variance with mean 0), and ties spread across their span add what
 * spreading them moved each (`spreadMs2`). Each log-normal part (floored at a sigma of 0.02) is
 * matched to the mean and variance of its readings less that error, so the twin draws the
 * deployment's durations and spread, not the polls'.
 */
function withoutReadingNoise(fit: Fit, samples: readonly number[], error: (durationMs: number) => ReadingError, spreadMs2: ReadonlyMap<number, number>): Fit {
  // A part's readings have the mean of its durations plus the error's mean at that duration (0
  // over a few polls; a short start reads long), and their variance plus the error's and the
  // spread's: where that is large beside the part, a log-normal of the mean and variance left (a
  // 500 ms start read as 360 or 720 has a log mean near 470 and a mean of 500).
  const matched = (d: LognormalDist, weights: readonly number[]): LognormalDist => {
    const w = weights.reduce((a, x) => a + x, 0);
    if (!(w > 1)) return d;
    const readMean = weights.reduce((a, x, i) => a + x * (samples[i] as number), 0) / w;
    const v = (weights.reduce((a, x, i) => a + x * ((samples[i] as number) - readMean) ** 2, 0) / w) * (w / (w - 1));
    const spread = weights.reduce((a, x, i) => a + x * (spreadMs2.get(samples[i] as number) ?? 0), 0) / w;
    // The duration whose readings average readMean (the error's mean shrinks as the duration grows).
    let m = readMean;
    for (let k = 0; k < 8; k += 1) m = Math.max(1, readMean - error(m).biasMs);
    if (!(m > 0)) return d;
    const noise = error(m).varianceMs2 + spread;
    // A reading moves by (1 + the error's mean's slope) per ms of duration: under a poll or so
    // that is well below 1 (longer starts share fewer spans), and the readings hold the part's
    // variance times its square.
    const h = Math.max(1, 0.1 * m);
    const slope = Math.min(1, Math.max(0.25, 1 + (error(m + h).biasMs - error(Math.max(1, m - h)).biasMs) / (m + h - Math.max(1, m - h))));
    // Where the polls' spread is small beside the part (under a tenth of its mean), the log-normal
    // fitted to the readings keeps its shape and loses that spread from its log variance (its log
    // mean is then off by under 0.5%).
    if (noise / (m * m) < 0.01 && Math.abs(m - readMean) < 0.005 * m && slope > 0.99) return { ...d, sigma: Math.max(0.02, Math.sqrt(Math.max(0, d.sigma ** 2 - noise / d.medianMs ** 2))) };
    const sigma = Math.max(0.02, Math.sqrt(Math.log(1 + Math.max(0, v - noise) / (slope * slope) / (m * m))));
    return { kind: 'lognormal', medianMs: m / Math.exp((sigma * sigma) / 2), sigma };
  };
  const d = fit.dist;
  if (d.kind === 'lognormal') return { ...fit, dist: matched(d, samples.map(() => 1)), why: `${fit.why}; the mean and variance of the readings less the polls' (sigma ${d.sigma.toFixed(3)} read)` };
  if (d.kind === 'mixture' && d.first.kind === 'lognormal' && d.second.kind === 'lognormal') {
    // Each reading weighted by its chance of being of each part under the fit read.
    const first = d.first;
    const second = d.second;
    const fastShare = samples.map((x) => {
      const y = Math.log(Math.max(FLOOR_MS, x));
      const a = Math.log(d.p) + normalLogPdf(y, Math.log(first.medianMs), first.sigma);
      const b = Math.log(1 - d.p) + normalLogPdf(y, Math.log(second.medianMs), second.sigma);
      return 1 / (1 + Math.exp(b - a));
    });
    return {
      ...fit,
      dist: { ...d, first: matched(first, fastShare), second: matched(second, fastShare.map((r) => 1 - r)) },
      why: `${fit.why}; each part at the mean and variance of its readings less the polls' (sigma ${first.sigma.toFixed(3)} and ${second.sigma.toFixed(3)} read)`,
    };
  }
  return fit;
}

/** Far-out fence on ln x (Tukey): only with enough samples to place the quartiles. */
const FENCE_IQR = 3;
const FENCE_MIN_SAMPLES = 8;

/**
 * Split off the far outliers beyond Q1 - 3 IQR and Q3 + 3 IQR of ln x (Tukey's far-out fences on
 * the log scale: for log-normal data beyond 4.7 sigma, about one in a million). A stall of the
 * client or the network (or, on a scaled emulator, of the host) yields a value far above; a
 * change that fell between two polls, one far below. Fitted, they would hand the twin tails the
 * deployment does not have. The report lists what was left out.
 */
export function splitOutliers(samples: readonly number[]): { kept: number[]; outliers: number[] } {
  if (samples.length < FENCE_MIN_SAMPLES) return { kept: [...samples], outliers: [] };
  const y = logs(samples).sort((a, b) => a - b);
  const at = (q: number) => {
    const pos = q * (y.length - 1);
    const i = Math.floor(pos);
    return (y[i] as number) + (pos - i) * ((y[Math.min(y.length - 1, i + 1)] as number) - (y[i] as number));
  };
  const q1 = at(0.25);
  const q3 = at(0.75);
  const high = q3 + FENCE_IQR * (q3 - q1);
  const low = q1 - FENCE_IQR * (q3 - q1);
  const kept: number[] = [];
  const outliers: number[] = [];
  for (const x of samples) {
    const v = Math.log(Math.max(FLOOR_MS, x));
    (v > high || v < low ? outliers : kept).push(x);
  }
  return { kept, outliers };
}

function fitKept(samples: readonly number[], o: FitOptions): Fit {
  const n = samples.length;
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  if (min === max) {
    const dist: Distribution = { kind: 'constant', ms: min };
    const gof = goodnessOfFit(samples, dist);
    return { dist, gof, candidates: [{ kind: 'constant', dist, gof }], why: 'every sample is equal', outliersMs: [] };
  }
  const res = o.resolutionMs ?? 0;
  // Readings on polls are judged within half a poll's span of the fit (goodnessOfFitWithin): the
  // steps the polls put in them are not held against a smooth fit.
  const gofOf = (d: Distribution) => (res > 0 ? goodnessOfFitWithin(samples, d, res / 2) : goodnessOfFit(samples, d));
  const ln = fitLognormal(samples);
  const candidates: Candidate[] = [{ kind: 'lognormal', dist: ln.dist, gof: gofOf(ln.dist), bic: 2 * Math.log(n) - 2 * ln.logLik }];
  const mixed = o.mixture === true ? fitLognormalMixture(samples) : undefined;
  // Parts whose medians lie within two read spans of each other are the reading's grid, not two kinds of start.
  const mix = mixed !== undefined && mixed.dist.kind === 'mixture' && mixed.dist.second.kind === 'lognormal' && mixed.dist.first.kind === 'lognormal' && mixed.dist.second.medianMs - mixed.dist.first.medianMs <= 2 * res ? undefined : mixed;
  if (mix) candidates.push({ kind: 'mixture', dist: mix.dist, gof: gofOf(mix.dist), bic: 5 * Math.log(n) - 2 * mix.logLik });
  const best = candidates.reduce((a, b) => ((b.bic ?? Infinity) < (a.bic ?? Infinity) ? b : a));
  const empirical = empiricalOf(samples);
  const empiricalCandidate: Candidate = { kind: empirical.kind, dist: empirical, gof: goodnessOfFit(samples, empirical) };
  // Readings on polls: the tail is judged on the fit less the polls' spread (fitSamples).
  const tail = res > 0 ? undefined : tailExcess(samples, best.dist);
  if (best.gof.accepted && tail !== undefined) {
    return {
      dist: empirical,
      gof: empiricalCandidate.gof,
      candidates: [...candidates, empiricalCandidate],
      why: `empirical quantiles: the best parametric fit (${best.kind}) passes KS (${best.gof.ks.toFixed(3)}) but ${tail}`,
      outliersMs: [],
    };
  }
  if (best.gof.accepted) {
    const other = candidates.length > 1 ? ` (BIC ${best.bic?.toFixed(1)} against ${candidates.filter((c) => c !== best).map((c) => `${c.kind} ${c.bic?.toFixed(1)}`).join(', ')})` : '';
    return { dist: best.dist, gof: best.gof, candidates: [...candidates, empiricalCandidate], why: `${best.kind}: lowest BIC${other}, KS ${best.gof.ks.toFixed(3)} within the 5% critical value ${best.gof.critical05.toFixed(3)}`, outliersMs: [] };
  }
  return {
    dist: empirical,
    gof: empiricalCandidate.gof,
    candidates: [...candidates, empiricalCandidate],
    why: `empirical quantiles: the best parametric fit (${best.kind}) has KS ${best.gof.ks.toFixed(3)} over the 5% critical value ${best.gof.critical05.toFixed(3)}`,
    outliersMs: [],
  };
}

/**
 * How precisely a fit's samples place it: a 95% interval of its median (of each part's median and
 * of the fast part's share for a mixture), and the samples that would place a median within ±5%
 * at the spread seen. A twin inherits these errors, and a queue near capacity multiplies them
 * (a service time 2% long can lengthen queue waits by 10% or more), so the calibration report
 * prints them beside each fit.
 */
export interface Precision {
  /** 95% interval of the median, target ms. */
  readonly medianLowMs: number;
  readonly medianHighMs: number;
  /** The interval's larger side relative to the median: the median is known to ±this. */
  readonly medianRelative: number;
  /** Samples (of this part) for a median known to ±5% at this spread. */
  readonly samplesFor5Percent: number;
  /** Mixtures: the fast part's share, its 95% interval (Wilson), and the samples for ±0.1. */
  readonly share?: { readonly p: number; readonly low: number; readonly high: number; readonly samplesForTenPoints: number };
  /** How the interval was taken, in words. */
  readonly method: string;
}

/** The standard normal's 97.5% quantile: a two-sided 95% interval is ± this many standard errors. */
export const Z95 = 1.959964;
/** ln(1.05): a median within ±5%. */
const LN_FIVE_PERCENT = Math.log(1.05);

/**
 * The fewest samples whose interval of the median (t(n-1) sigma / sqrt(n-1) in ln x, as
 * lognormalInterval takes it) is within ±5%: from the normal's count up.
 */
function forFivePercent(sigma: number): number {
  if (!(sigma > 0)) return 1;
  let n = Math.max(2, Math.ceil(((Z95 * sigma) / LN_FIVE_PERCENT) ** 2));
  while ((t975(n - 1) * sigma) / Math.sqrt(n - 1) > LN_FIVE_PERCENT) n += 1;
  return n;
}

/** Wilson's 95% interval of a share `p` of `n` draws. */
export function wilson95(p: number, n: number): { low: number; high: number } {
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Student's t quantile at 97.5% for `df` degrees of freedom (Cornish-Fisher expansion about the
 * normal's, within 0.3% of the tables from 4 on: 2.769 for 2.776 at 4; the tables' own values at 1 to 3).
 */
export function t975(df: number): number {
  if (df <= 1) return 12.706;
  if (df === 2) return 4.303;
  if (df === 3) return 3.182;
  const z = Z95;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3);
}

/**
 * A log-normal median from `n` samples with (maximum-likelihood) log spread `sigma`:
 * exp(mu ± t(n-1) s / sqrt n), s the spread with n - 1 in the divisor.
 */
function lognormalInterval(medianMs: number, sigma: number, n: number): Pick<Precision, 'medianLowMs' | 'medianHighMs' | 'medianRelative'> {
  const m = Math.max(2, n);
  const half = (t975(m - 1) * sigma * Math.sqrt(m / (m - 1))) / Math.sqrt(m);
  return { medianLowMs: medianMs * Math.exp(-half), medianHighMs: medianMs * Math.exp(half), medianRelative: Math.exp(half) - 1 };
}

/**
 * The precision of `dist` fitted to `samples` (the samples it was fitted to, outliers left out).
 * Log-normal: Student's t interval of mean ln x. Mixture: the share by Wilson's interval,
 * each part's median by its own expected count; the median reported is the slower part's when it
 * holds the larger share, else the faster's (the part a queue's figures hang on most). Empirical:
 * the order statistics around the median (a distribution-free interval). Constant: exact.
 */
export function precisionOf(dist: Distribution, samples: readonly number[]): Precision {
  const n = samples.length;
  const y = logs(samples);
  const m = mean(y);
  const sdLog = n > 1 ? Math.sqrt(y.reduce((a, v) => a + (v - m) ** 2, 0) / (n - 1)) : 0;
  switch (dist.kind) {
    case 'constant':
      return { medianLowMs: dist.ms, medianHighMs: dist.ms, medianRelative: 0, samplesFor5Percent: 1, method: 'every sample equal' };
    case 'lognormal':
      return { ...lognormalInterval(dist.medianMs, dist.sigma, n), samplesFor5Percent: forFivePercent(dist.sigma), method: `median exp(mean ln x ± t(${n - 1}) s / sqrt(${n}))` };
    case 'mixture': {
      const { low, high } = wilson95(dist.p, n);
      const nFast = Math.max(1, dist.p * n);
      const nFull = Math.max(1, (1 - dist.p) * n);
      const [part, count, label] = dist.p >= 0.5 ? [dist.first, nFast, 'fast'] : [dist.second, nFull, 'full'];
      const sigmaOf = (d: Distribution) => (d.kind === 'lognormal' ? d.sigma : sdLog);
      const medianOf = (d: Distribution) => quantileMs(d, 0.5);
      const sigma = sigmaOf(part);
      // Samples for ±0.1 on the share at its own p (Wald): z^2 p (1 - p) / 0.01.
      const samplesForTenPoints = Math.max(1, Math.ceil((Z95 * Z95 * dist.p * (1 - dist.p)) / 0.01));
      // Both parts' medians at ±5%: the rarer part needs its count, so the whole needs count / share.
      const need = Math.max(forFivePercent(sigmaOf(dist.first)) / Math.max(dist.p, 1e-9), forFivePercent(sigmaOf(dist.second)) / Math.max(1 - dist.p, 1e-9));
      return {
        ...lognormalInterval(medianOf(part), sigma, count),
        samplesFor5Percent: Math.ceil(need),
        share: { p: dist.p, low, high, samplesForTenPoints },
        method: `the ${label} part's median from its ~${Math.round(count)} samples; its share by Wilson's interval on ${n} (as if each sample's part were known: narrower than it is where the parts overlap)`,
      };
    }
    case 'empirical':
    case 'uniform': {
      const xs = [...samples].sort((a, b) => a - b);
      const median = quantileMs(dist, 0.5);
      if (n < 2) return { medianLowMs: median, medianHighMs: median, medianRelative: Infinity, samplesFor5Percent: forFivePercent(sdLog), method: 'one sample' };
      // The order statistics of ranks floor(n/2 - z sqrt(n)/2) and ceil(1 + n/2 + z sqrt(n)/2) (1-based), clamped to the sample.
      const half = (Z95 * Math.sqrt(n)) / 2;
      const lo = xs[Math.max(0, Math.floor(n / 2 - half) - 1)] as number;
      const hi = xs[Math.min(n - 1, Math.ceil(1 + n / 2 + half) - 1)] as number;
      const rel = median > 0 ? Math.max(median / Math.max(lo, FLOOR_MS), hi / median) - 1 : Infinity;
      // A sample median varies pi/2 times as much as a mean of ln x: that many more samples.
      const method = n <= 5 ? `the range of ${n} samples (below 95% for so few)` : `order statistics around the median of ${n} samples`;
      return { medianLowMs: lo, medianHighMs: hi, medianRelative: rel, samplesFor5Percent: Math.ceil((forFivePercent(sdLog) * Math.PI) / 2), method };
    }
  }
}
