import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cdf, Distribution, meanMs, normalCdf, normalQuantile, quantileMs, sampleMs, seededRng, streamSeed, type BaseDistribution } from '../../../src/deployment/index.js';

const msArb = fc.double({ min: 0, max: 600_000, noNaN: true });

/** Distributions with no atoms (cdf continuous and strictly increasing on its support). */
const continuousBase: fc.Arbitrary<BaseDistribution> = fc.oneof(
  fc.tuple(msArb, fc.double({ min: 1, max: 100_000, noNaN: true })).map(([a, w]) => ({ kind: 'uniform' as const, minMs: a, maxMs: a + w })),
  fc.tuple(fc.double({ min: 1, max: 300_000, noNaN: true }), fc.double({ min: 0.05, max: 2, noNaN: true })).map(([m, s]) => ({ kind: 'lognormal' as const, medianMs: m, sigma: s })),
  fc.array(fc.double({ min: 1, max: 50_000, noNaN: true }), { minLength: 1, maxLength: 8 }).chain((steps) =>
    fc.constant(steps).map((st) => {
      let ms = 0;
      const pts: [number, number][] = [[0, 0]];
      st.forEach((s, i) => {
        ms += s;
        pts.push([(i + 1) / st.length, ms]);
      });
      return { kind: 'empirical' as const, quantiles: pts };
    }),
  ),
);
const anyBase: fc.Arbitrary<BaseDistribution> = fc.oneof(continuousBase, msArb.map((ms) => ({ kind: 'constant' as const, ms })));
const mixtureOf = (b: fc.Arbitrary<BaseDistribution>): fc.Arbitrary<Distribution> =>
  fc.tuple(fc.double({ min: 0.01, max: 0.99, noNaN: true }), b, b).map(([p, first, second]) => ({ kind: 'mixture' as const, p, first, second }));
const continuousDist: fc.Arbitrary<Distribution> = fc.oneof(continuousBase, mixtureOf(continuousBase));
const anyDist: fc.Arbitrary<Distribution> = fc.oneof(anyBase, mixtureOf(anyBase));
const qArb = fc.double({ min: 0.001, max: 0.999, noNaN: true });

describe('distributions: quantile and cdf', () => {
  it('every generated distribution passes the schema', () => {
    fc.assert(fc.property(anyDist, (d) => {
      expect(Distribution.safeParse(d).error?.issues).toBeUndefined();
    }));
  });

  it('quantile is non-decreasing in q', () => {
    fc.assert(fc.property(anyDist, qArb, qArb, (d, a, b) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      expect(quantileMs(d, lo)).toBeLessThanOrEqual(quantileMs(d, hi) + 1e-6);
    }));
  });

  it('cdf inverts quantile on continuous distributions: cdf(quantile(q)) = q', () => {
    fc.assert(fc.property(continuousDist, qArb, (d, q) => {
      expect(Math.abs(cdf(d, quantileMs(d, q)) - q)).toBeLessThan(1e-5);
    }));
  });

  it('quantile is the generalised inverse of cdf on any distribution (atoms included)', () => {
    fc.assert(fc.property(anyDist, qArb, (d, q) => {
      const x = quantileMs(d, q);
      // The smallest x with cdf(x) >= q: cdf reaches q at x and not just below it.
      expect(cdf(d, x)).toBeGreaterThanOrEqual(q - 1e-6);
      expect(cdf(d, x - Math.max(0.01, x * 1e-6))).toBeLessThanOrEqual(q + 1e-6);
    }));
  });

  it('known values: constant, uniform, lognormal median and tails, empirical interpolation, mixture of constants', () => {
    expect(quantileMs({ kind: 'constant', ms: 250 }, 0.3)).toBe(250);
    expect(cdf({ kind: 'constant', ms: 250 }, 249.9)).toBe(0);
    expect(quantileMs({ kind: 'uniform', minMs: 100, maxMs: 300 }, 0.25)).toBe(150);
    const ln = { kind: 'lognormal', medianMs: 1000, sigma: 0.5 } as const;
    expect(quantileMs(ln, 0.5)).toBeCloseTo(1000, 6);
    // Φ⁻¹(0.975) = 1.959964
    expect(quantileMs(ln, 0.975)).toBeCloseTo(1000 * Math.exp(0.5 * 1.959964), 1);
    expect(cdf(ln, 1000)).toBeCloseTo(0.5, 7);
    const emp: Distribution = { kind: 'empirical', quantiles: [[0, 10], [0.5, 20], [1, 60]] };
    expect(quantileMs(emp, 0.75)).toBe(40);
    expect(cdf(emp, 40)).toBe(0.75);
    const mix = { kind: 'mixture', p: 0.3, first: { kind: 'constant', ms: 500 }, second: { kind: 'constant', ms: 40_000 } } as const;
    expect(quantileMs(mix, 0.29)).toBe(500);
    expect(quantileMs(mix, 0.31)).toBe(40_000);
    expect(meanMs(mix)).toBeCloseTo(0.3 * 500 + 0.7 * 40_000, 6);
  });

  it('normal quantile and cdf agree with each other and with tabled values', () => {
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
    for (const q of [1e-6, 0.01, 0.2, 0.7, 0.99, 1 - 1e-6]) expect(normalCdf(normalQuantile(q))).toBeCloseTo(q, 6);
  });
});

describe('distributions: seeded sampler', () => {
  it("samples' empirical CDF stays within the DKW bound of the CDF (2,000 samples, alpha 1e-6)", () => {
    const n = 2_000;
    const epsilon = Math.sqrt(Math.log(2 / 1e-6) / (2 * n));
    fc.assert(fc.property(anyDist, fc.integer(), (d, seed) => {
      const rng = seededRng(seed);
      const xs = Array.from({ length: n }, () => sampleMs(d, rng)).sort((a, b) => a - b);
      for (let k = 1; k < 20; k += 1) {
        const x = quantileMs(d, k / 20);
        let below = 0;
        while (below < n && (xs[below] as number) <= x) below += 1;
        expect(Math.abs(below / n - cdf(d, x))).toBeLessThan(epsilon);
      }
    }), { numRuns: 40 });
  });

  it('the same seed gives the same samples; another seed or stream gives others', () => {
    const d: Distribution = { kind: 'mixture', p: 0.4, first: { kind: 'lognormal', medianMs: 500, sigma: 0.3 }, second: { kind: 'uniform', minMs: 30_000, maxMs: 50_000 } };
    const draw = (seed: number) => {
      const rng = seededRng(seed);
      return Array.from({ length: 50 }, () => sampleMs(d, rng));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    expect(streamSeed(7, 'coldStart')).toBe(streamSeed(7, 'coldStart'));
    expect(new Set([streamSeed(7, 'coldStart'), streamSeed(7, 'execution'), streamSeed(8, 'coldStart')]).size).toBe(3);
  });

  it('every sample lies within the support', () => {
    fc.assert(fc.property(anyDist, fc.integer(), (d, seed) => {
      const rng = seededRng(seed);
      for (let i = 0; i < 50; i += 1) {
        const x = sampleMs(d, rng);
        expect(x).toBeGreaterThanOrEqual(quantileMs(d, 0) - 1e-6);
        expect(Number.isFinite(x)).toBe(true);
      }
    }));
  });
});

describe('distribution schema', () => {
  const bad = (d: unknown) => {
    const r = Distribution.safeParse(d);
    expect(r.success).toBe(false);
    return r.error?.issues.map((i) => i.message).join('; ') ?? '';
  };
  it('rejects malformed distributions with a message naming the field', () => {
    expect(bad({ kind: 'uniform', minMs: 5, maxMs: 1 })).toMatch(/minMs must not exceed/);
    expect(bad({ kind: 'empirical', quantiles: [[0.1, 1], [1, 2]] })).toMatch(/start at q=0/);
    expect(bad({ kind: 'empirical', quantiles: [[0, 5], [0.5, 3], [1, 9]] })).toMatch(/must not decrease/);
    expect(bad({ kind: 'lognormal', medianMs: 0, sigma: 1 })).toMatch(/medianMs must be > 0/);
    expect(bad({ kind: 'mixture', p: 0.5, first: { kind: 'constant', ms: 1 }, second: { kind: 'mixture', p: 0.5, first: { kind: 'constant', ms: 1 }, second: { kind: 'constant', ms: 1 } } })).not.toBe('');
    expect(bad({ kind: 'constant', ms: -1 })).toMatch(/ms must be >= 0/);
  });
});
