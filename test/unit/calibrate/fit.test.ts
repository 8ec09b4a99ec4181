// The fitting math on synthetic samples drawn from known distributions with a fixed seed: the
// fits recover the parameters within their sampling error, the KS statistic is right on a case
// worked by hand, and the choice between log-normal, mixture and empirical follows the data.
import { describe, expect, it } from 'vitest';
import { empiricalOf, fitLognormal, fitLognormalMixture, fitSamples, goodnessOfFit, ksCritical05, ksStatistic, precisionOf, readingError, readingNoiseMs2, splitOutliers, spreadTies, t975 } from '../../../src/calibrate/fit.js';
import { cdf, quantileMs, sampleMs, seededRng, type Distribution } from '../../../src/deployment/index.js';
import { spanGap } from '../../../src/calibrate/phases.js';

function draw(d: Distribution, n: number, seed: number): number[] {
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => sampleMs(d, rng));
}

const COLD: Distribution = {
  kind: 'mixture',
  p: 0.3,
  first: { kind: 'lognormal', medianMs: 1_500, sigma: 0.2 },
  second: { kind: 'lognormal', medianMs: 30_000, sigma: 0.3 },
};

describe('KS statistic', () => {
  it('is the largest ECDF gap, worked by hand: samples 1, 2, 3 against uniform(0, 3) is 1/3', () => {
    const d: Distribution = { kind: 'uniform', minMs: 0, maxMs: 3 };
    expect(ksStatistic([3, 1, 2], (x) => cdf(d, x))).toBeCloseTo(1 / 3, 6);
  });

  it('counts ties once: four equal samples against their constant is 0, against a constant elsewhere is 1', () => {
    expect(ksStatistic([5, 5, 5, 5], (x) => cdf({ kind: 'constant', ms: 5 }, x))).toBe(0);
    expect(ksStatistic([5, 5, 5, 5], (x) => cdf({ kind: 'constant', ms: 9 }, x))).toBe(1);
  });

  it('has the tabulated 5% critical values (1.358/sqrt(n) for large n, 0.409 at n=10)', () => {
    expect(ksCritical05(10)).toBeCloseTo(0.41, 2);
    expect(ksCritical05(10_000)).toBeCloseTo(0.01358, 4);
  });
});

describe('log-normal fit', () => {
  it('recovers median and sigma within 4 standard errors (2,000 samples of median 6 s, sigma 0.5)', () => {
    const n = 2_000;
    const { dist } = fitLognormal(draw({ kind: 'lognormal', medianMs: 6_000, sigma: 0.5 }, n, 11));
    // se(ln median) = sigma/sqrt(n) = 0.011; se(sigma) = sigma/sqrt(2n) = 0.0079
    expect(Math.abs(Math.log(dist.medianMs / 6_000))).toBeLessThan(4 * 0.5 / Math.sqrt(n));
    expect(Math.abs(dist.sigma - 0.5)).toBeLessThan(4 * 0.5 / Math.sqrt(2 * n));
  });

  it('is kept by fitSamples for log-normal data, and passes its KS test', () => {
    const s = draw({ kind: 'lognormal', medianMs: 800, sigma: 0.3 }, 200, 3);
    const f = fitSamples(s, { mixture: true });
    expect(f.dist.kind).toBe('lognormal');
    expect(f.gof.accepted).toBe(true);
    expect(f.gof.n).toBe(200);
  });
});

describe('two-part mixture by EM', () => {
  it('recovers a bimodal cold start (30% fast at 1.5 s, 70% full at 30 s) from 1,000 samples', () => {
    const m = fitLognormalMixture(draw(COLD, 1_000, 5));
    expect(m).toBeDefined();
    const d = m!.dist;
    // se(p) = sqrt(p(1-p)/n) = 0.0145
    expect(Math.abs(d.p - 0.3)).toBeLessThan(0.06);
    expect(d.first.kind === 'lognormal' && Math.abs(Math.log(d.first.medianMs / 1_500))).toBeLessThan(0.05);
    expect(d.second.kind === 'lognormal' && Math.abs(Math.log(d.second.medianMs / 30_000))).toBeLessThan(0.05);
    expect(d.first.kind === 'lognormal' && Math.abs(d.first.sigma - 0.2)).toBeLessThan(0.04);
    expect(d.second.kind === 'lognormal' && Math.abs(d.second.sigma - 0.3)).toBeLessThan(0.04);
  });

  it('is chosen over one log-normal for bimodal data even from 12 samples, and passes its KS test', () => {
    const f = fitSamples(draw(COLD, 12, 8), { mixture: true });
    expect(f.dist.kind).toBe('mixture');
    expect(f.gof.accepted).toBe(true);
    const ln = f.candidates.find((c) => c.kind === 'lognormal');
    expect(ln?.bic).toBeGreaterThan(f.candidates.find((c) => c.kind === 'mixture')?.bic ?? Infinity);
  });

  it('is not tried unless asked', () => {
    expect(fitSamples(draw(COLD, 50, 8)).candidates.some((c) => c.kind === 'mixture')).toBe(false);
  });
});

describe('fallbacks', () => {
  it('a constant when every sample is equal', () => {
    const f = fitSamples([0, 0, 0]);
    expect(f.dist).toEqual({ kind: 'constant', ms: 0 });
    expect(f.gof.ks).toBe(0);
  });

  it('the empirical quantiles when no parametric fit passes (uniform data, 2,000 samples)', () => {
    const s = draw({ kind: 'uniform', minMs: 1_000, maxMs: 5_000 }, 2_000, 21);
    const f = fitSamples(s, { mixture: true });
    expect(f.dist.kind).toBe('empirical');
    expect(f.candidates.find((c) => c.kind === 'lognormal')?.gof.accepted).toBe(false);
    expect(f.why).toMatch(/over the 5% critical value/);
    // The empirical fit holds at most 101 points, from q=0 to q=1, and tracks the samples.
    if (f.dist.kind !== 'empirical') throw new Error('unreachable');
    expect(f.dist.quantiles.length).toBe(101);
    expect(f.dist.quantiles[0]).toEqual([0, Math.min(...s)]);
    expect(f.dist.quantiles.at(-1)).toEqual([1, Math.max(...s)]);
    expect(f.gof.ks).toBeLessThan(0.02);
  });

  it('empiricalOf keeps every point of a small sample, ascending', () => {
    expect(empiricalOf([30, 10, 20])).toEqual({ kind: 'empirical', quantiles: [[0, 10], [0.5, 20], [1, 30]] });
  });

  it('goodnessOfFit rejects a fit that is plainly wrong (median off by 2x on 100 samples)', () => {
    const s = draw({ kind: 'lognormal', medianMs: 1_000, sigma: 0.2 }, 100, 4);
    expect(goodnessOfFit(s, { kind: 'lognormal', medianMs: 2_000, sigma: 0.2 }).accepted).toBe(false);
    expect(goodnessOfFit(s, { kind: 'lognormal', medianMs: 1_000, sigma: 0.2 }).accepted).toBe(true);
  });
});

describe('far outliers', () => {
  it('a stall 50x the median is left out of a log-normal fit, and said', () => {
    const s = draw({ kind: 'lognormal', medianMs: 400, sigma: 0.3 }, 30, 9);
    const f = fitSamples([...s, 20_000]);
    expect(f.outliersMs).toEqual([20_000]);
    expect(f.dist.kind).toBe('lognormal');
    expect(f.gof.n).toBe(30);
    expect(f.why).toMatch(/1 far outlier\(s\) left out \(20000 ms/);
    expect(fitSamples([...s, 0]).outliersMs).toEqual([0]);
  });

  it('leaves every sample of clean log-normal or bimodal data in', () => {
    expect(splitOutliers(draw({ kind: 'lognormal', medianMs: 6_000, sigma: 0.5 }, 2_000, 12)).outliers).toEqual([]);
    expect(splitOutliers(draw(COLD, 500, 13)).outliers).toEqual([]);
  });

  it('does not judge fewer than 8 samples', () => {
    expect(splitOutliers([1, 1, 1, 1000]).outliers).toEqual([]);
  });
});

describe('the precision of a fit', () => {
  /** Share of `trials` seeded samples of `n` whose interval holds the truth. */
  function coverage(trials: number, inside: (seed: number) => boolean): number {
    let hits = 0;
    for (let s = 1; s <= trials; s += 1) if (inside(s)) hits += 1;
    return hits / trials;
  }

  // Binomial(400, 0.95) lies within 0.92..0.975 with probability over 99%. At n = 5 the bound above
  // is wider: with z and the n-divisor spread the same draws held only 86% (t is what brings it up).
  it.each([
    { n: 60, medianMs: 12_000, sigma: 0.35, high: 0.975 },
    { n: 5, medianMs: 500, sigma: 0.5, high: 0.985 },
  ])("a log-normal median's 95% interval holds the true median in about 95% of 400 draws of $n samples", ({ n, medianMs, sigma, high }) => {
    const truth: Distribution = { kind: 'lognormal', medianMs, sigma };
    const c = coverage(400, (seed) => {
      const xs = draw(truth, n, seed);
      const pr = precisionOf(fitLognormal(xs).dist, xs);
      return pr.medianLowMs <= medianMs && medianMs <= pr.medianHighMs;
    });
    expect(c).toBeGreaterThan(0.92);
    expect(c).toBeLessThan(high);
  });

  it("a mixture's fast share: Wilson's interval holds the true share in about 95% of 20-sample draws", () => {
    const truth = { kind: 'mixture', p: 0.6, first: { kind: 'lognormal', medianMs: 3_000, sigma: 0.2 }, second: { kind: 'lognormal', medianMs: 40_000, sigma: 0.15 } } as const;
    const c = coverage(400, (seed) => {
      const xs = draw(truth, 20, seed);
      const fast = xs.filter((x) => x < 11_000).length / xs.length;
      const pr = precisionOf({ ...truth, p: fast }, xs);
      return (pr.share?.low ?? 1) <= 0.6 && 0.6 <= (pr.share?.high ?? 0);
    });
    expect(c).toBeGreaterThan(0.92);
    expect(c).toBeLessThan(0.995);
  });

  it('the samples it asks for give the precision it promises, and one fewer does not: sigma 0.35 (1.96^2 0.35^2 / ln(1.05)^2 = 198 by the normal, a few more by t)', () => {
    for (const sigma of [0.05, 0.2, 0.35, 1]) {
      const d: Distribution = { kind: 'lognormal', medianMs: 1_000, sigma };
      const at = (n: number) => precisionOf(d, Array.from({ length: n }, () => 1_000));
      const need = at(10).samplesFor5Percent;
      expect(at(need).medianRelative, `sigma ${sigma}`).toBeLessThanOrEqual(0.05);
      if (need > 2) expect(at(need - 1).medianRelative, `sigma ${sigma}`).toBeGreaterThan(0.05);
    }
    const n35 = precisionOf({ kind: 'lognormal', medianMs: 1_000, sigma: 0.35 }, [1_000]).samplesFor5Percent;
    expect(n35).toBeGreaterThanOrEqual(198);
    expect(n35).toBeLessThanOrEqual(204);
  });

  it("Student's t quantile: 2.776 at 4 df, 2.228 at 10, 2.042 at 30, the normal's 1.96 far out", () => {
    // The tables' values; the expansion is within 0.3% of them.
    for (const [df, t] of [[3, 3.182], [4, 2.776], [10, 2.228], [30, 2.042], [100_000, 1.96]] as const) expect(Math.abs(t975(df) / t - 1), `df ${df}`).toBeLessThan(0.003);
  });

  it('a constant is exact; an empirical fit takes the order statistics around the median', () => {
    expect(precisionOf({ kind: 'constant', ms: 5 }, [5, 5, 5]).medianRelative).toBe(0);
    const xs = Array.from({ length: 100 }, (_, i) => 100 + i);
    const pr = precisionOf(empiricalOf(xs), xs);
    // n = 100: ranks floor(50 - 9.8) = 40 and ceil(51 + 9.8) = 61, symmetric about the median's rank 50.5.
    expect(pr.medianLowMs).toBe(139);
    expect(pr.medianHighMs).toBe(160);
    // The larger side, relative: 149.5 / 139 against 160 / 149.5.
    expect(pr.medianRelative).toBeCloseTo(149.5 / 139 - 1, 6);
  });
});

describe('samples read on a grid of poll spans', () => {
  it('all within one span of each other: a constant at their mean, whatever a mixture would make of the grid', () => {
    // A 510 ms cold start read on a 360 ms grid: half the readings 360, half 720.
    const grid = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 360 : 720));
    const fine = fitSamples(grid, { mixture: true, resolutionMs: 360 });
    expect(fine.dist).toEqual({ kind: 'constant', ms: 540 });
    expect(fitSamples(grid, { mixture: true }).dist.kind).not.toBe('constant');
  });

  it('two parts further apart than two spans are still two kinds of start', () => {
    const rng = seededRng(4);
    const truth: Distribution = { kind: 'mixture', p: 0.4, first: { kind: 'lognormal', medianMs: 1_500, sigma: 0.1 }, second: { kind: 'lognormal', medianMs: 25_000, sigma: 0.1 } };
    const samples = Array.from({ length: 60 }, () => Math.round(sampleMs(truth, rng) / 360) * 360);
    expect(fitSamples(samples, { mixture: true, resolutionMs: 360 }).dist.kind).toBe('mixture');
  });
});

describe('a mixture read on a grid', () => {
  // 75% fast starts at 500 ms and 25% full ones at 7.4 s, each read as the gap between the middles
  // of the 360 ms poll spans its two ends fell in (their phases uniform).
  const truth: Distribution = { kind: 'mixture', p: 0.75, first: { kind: 'lognormal', medianMs: 500, sigma: 0.15 }, second: { kind: 'lognormal', medianMs: 7_430, sigma: 0.1 } };
  const P = 360;
  const read = (seed: number, n: number) => {
    const rng = seededRng(seed);
    return Array.from({ length: n }, () => {
      const begin = rng.next() * P;
      const end = begin + sampleMs(truth, rng);
      return (Math.floor(end / P) - Math.floor(begin / P)) * P;
    });
  };

  it('ties spread evenly across their span, each value kept where it was alone', () => {
    expect(spreadTies([360, 360, 720, 1_000], 360)).toEqual([270, 450, 720, 1_000]);
    expect(spreadTies([10, 10], 360)).toEqual([1, 100]);
  });

  it('the full starts beside many fast ones are the second part, not far outliers; each part\'s median within 20% and the fast part\'s sigma within 0.15 of the truth\'s', () => {
    // 60 readings: about 15 full starts; medians of 45 and 15 samples with the polls' spread.
    for (const seed of [1, 2, 3, 4, 5]) {
      const f = fitSamples(read(seed, 60), { mixture: true, resolutionMs: P });
      expect(f.dist.kind, `seed ${seed}: ${f.why}`).toBe('mixture');
      if (f.dist.kind !== 'mixture' || f.dist.first.kind !== 'lognormal' || f.dist.second.kind !== 'lognormal') continue;
      expect(Math.abs(f.dist.p - 0.75), `seed ${seed}`).toBeLessThan(0.2);
      expect(Math.abs(f.dist.first.medianMs / 500 - 1), `seed ${seed}`).toBeLessThan(0.2);
      expect(Math.abs(f.dist.second.medianMs / 7_430 - 1), `seed ${seed}`).toBeLessThan(0.2);
      expect(Math.abs(f.dist.first.sigma - 0.15), `seed ${seed}`).toBeLessThan(0.15);
    }
  });

  it('one fast start among full ones read on the grid is kept, not a far outlier (a reading falls short by one span at most); a lone slow one is still left out', () => {
    // Eight full starts (10.3 s, sigma 0.1) read on a 360 ms grid and one fast start of 3.6 s.
    const rng = seededRng(9);
    const full = Array.from({ length: 8 }, () => Math.round(sampleMs({ kind: 'lognormal', medianMs: 10_300, sigma: 0.1 }, rng) / P) * P);
    const f = fitSamples([...full, 3_600], { mixture: true, resolutionMs: P });
    expect(f.outliersMs, f.why).toEqual([]);
    // Kept, it gives the twin fast starts: below 5 s at a chance of at least 2% (1 in 9 seen).
    expect(cdf(f.dist, 5_000), f.why).toBeGreaterThan(0.02);
    expect(fitSamples([...full, 60_000], { mixture: true, resolutionMs: P }).outliersMs).toEqual([60_000]);
    // Without a resolution (no bound on how short a reading falls) the lone fast one is left out as before.
    expect(fitSamples([...full, 3_600], { mixture: true }).outliersMs).toEqual([3_600]);
  });

  it('without a resolution the same readings lose the full starts as outliers or keep the polls\' spread', () => {
    const f = fitSamples(read(1, 60), { mixture: true });
    const fastSigma = f.dist.kind === 'mixture' && f.dist.first.kind === 'lognormal' ? f.dist.first.sigma : undefined;
    expect(f.outliersMs.length > 0 || f.dist.kind !== 'mixture' || (fastSigma ?? 0) > 0.3).toBe(true);
  });
});

describe('readings on polls whose gaps vary', () => {
  // Polls from a random phase with gaps of `fixed` plus a uniform share of `jitter`; a change at
  // t is placed at the middle of the span between the polls around it (as StartTracker reads).
  const reader = (seed: number, fixed: number, jitter: number) => {
    const rng = seededRng(seed);
    return (durationMs: number): number => {
      let before = -rng.next() * (fixed + jitter);
      let poll = before + fixed + jitter * rng.next();
      const begin = rng.next() * 10_000;
      while (poll < begin) [before, poll] = [poll, poll + fixed + jitter * rng.next()];
      const seenBegin = (before + poll) / 2;
      while (poll < begin + durationMs) [before, poll] = [poll, poll + fixed + jitter * rng.next()];
      return (before + poll) / 2 - seenBegin;
    };
  };

  it('the reading error\'s variance, each end at the middle of the span it fell in: a fixed grid\'s span^2 / 6, a jittered one\'s as drawn (4,000 readings: within 8%)', () => {
    expect(readingNoiseMs2(360, 0)).toBeCloseTo((360 * 360) / 6, 6);
    const read = reader(3, 240, 240);
    const errors = Array.from({ length: 4_000 }, () => read(5_000) - 5_000);
    const m = errors.reduce((a, x) => a + x, 0) / errors.length;
    const v = errors.reduce((a, x) => a + (x - m) ** 2, 0) / (errors.length - 1);
    expect(Math.abs(m)).toBeLessThan(10);
    expect(v / readingNoiseMs2(240, 240)).toBeGreaterThan(0.92);
    expect(v / readingNoiseMs2(240, 240)).toBeLessThan(1.08);
  });

  // As StartTracker reads a duration (spanGap): polls from a random phase, a stationary renewal
  // process by the time the start begins; the spans it began and became ready in.
  const trackerReader = (seed: number, fixed: number, jitter: number) => {
    const rng = seededRng(seed);
    const gap = () => fixed + jitter * rng.next();
    return (durationMs: number): number => {
      let before = -rng.next() * (fixed + jitter);
      let poll = before + gap();
      const begin = rng.next() * 10_000;
      while (poll < begin) [before, poll] = [poll, poll + gap()];
      const seen = { fromMs: before, toMs: poll };
      while (poll < begin + durationMs) [before, poll] = [poll, poll + gap()];
      return spanGap(seen, { fromMs: before, toMs: poll });
    };
  };

  it('readingError: over three of the longest gaps the ends are off apart (mean 0, readingNoiseMs2); shorter, a reading drawn as StartTracker reads it is long and spreads less, as drawn (8,000 readings each: within 4 standard errors)', () => {
    expect(readingError(210, 300, 3_000)).toEqual({ biasMs: 0, varianceMs2: readingNoiseMs2(210, 300) });
    const read = trackerReader(5, 210, 300);
    for (const d of [150, 300, 500, 900]) {
      const errors = Array.from({ length: 8_000 }, () => read(d) - d);
      const m = errors.reduce((a, x) => a + x, 0) / errors.length;
      const v = errors.reduce((a, x) => a + (x - m) ** 2, 0) / (errors.length - 1);
      const e = readingError(210, 300, d);
      expect(Math.abs(m - e.biasMs), `${d} ms: mean error ${m.toFixed(1)} drawn, ${e.biasMs.toFixed(1)} given`).toBeLessThan(4 * Math.sqrt(v / errors.length) + 2);
      expect(Math.abs(v / e.varianceMs2 - 1), `${d} ms: variance ${v.toFixed(0)} drawn, ${e.varianceMs2.toFixed(0)} given`).toBeLessThan(0.07);
    }
    // A 300 ms start reads about 45 ms long; a 500 ms one about right, with 9% less variance than far apart.
    expect(readingError(210, 300, 300).biasMs).toBeGreaterThan(30);
    expect(readingError(210, 300, 500).varianceMs2 / readingNoiseMs2(210, 300)).toBeLessThan(0.95);
  });

  it('short starts of their own spread, read on polls: the fit with readingError finds their median within 5% and, from about 1.4 mean gaps on, their sigma within 0.05 (400 readings each)', () => {
    // Under that the readings' spread is nearly all the polls' (a 300 ms start of sigma 0.1 adds
    // under 3% to a reading variance of about 9,000 ms^2, less than its standard error): only the median is placed.
    for (const [seed, median, sigma] of [[6, 300, 0.1], [7, 500, 0.15], [8, 800, 0.2]] as const) {
      const read = trackerReader(seed, 210, 300);
      const rng = seededRng(seed + 100);
      const readings = Array.from({ length: 400 }, () => read(median * Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next()))));
      const f = fitSamples(readings, { resolutionMs: 510, readingError: (ms) => readingError(210, 300, ms) });
      expect(f.dist.kind, f.why).toBe('lognormal');
      if (f.dist.kind !== 'lognormal') continue;
      expect(Math.abs(f.dist.medianMs / median - 1), `${median} ms: ${f.why}`).toBeLessThan(0.05);
      if (median >= 500) expect(Math.abs(f.dist.sigma - sigma), `${median} ms sigma ${sigma}: ${f.why}`).toBeLessThan(0.05);
    }
  });

  it('a start shorter than two polls keeps its mean: 300 readings of a constant 500 ms on 360 ms jittered polls fit a median within 5%', () => {
    const read = reader(4, 180, 360);
    const readings = Array.from({ length: 300 }, () => read(500));
    const f = fitSamples(readings, { mixture: true, resolutionMs: 360, readingNoiseMs2: readingNoiseMs2(180, 360) });
    // The log mean of such readings sits near 450: the fit keeps their arithmetic mean instead.
    const logMean = Math.exp(readings.reduce((a, x) => a + Math.log(x), 0) / readings.length);
    expect(logMean).toBeLessThan(480);
    expect(quantileMs(f.dist, 0.5) / 500, f.why).toBeGreaterThan(0.95);
    expect(quantileMs(f.dist, 0.5) / 500, f.why).toBeLessThan(1.05);
  });
});
