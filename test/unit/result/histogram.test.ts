// Histogram utilities: encode/decode round trip, and the property that merging is associative
// and lossless (shards merged give the same percentiles as one histogram over the union).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketsOf,
  createHistogram,
  decodeHistogram,
  encodeHistogram,
  histogramFromMs,
  mergeEncoded,
  mergeHistograms,
  percentileSpectrum,
  percentilesOf,
  recordMs,
} from '../../../src/result/histogram.js';
import { EncodedHistogram } from '../../../src/result/model.js';

const samplesArb = fc.array(fc.double({ min: 0, max: 120_000, noNaN: true }), { minLength: 0, maxLength: 200 });

describe('histogram utilities', () => {
  it('encodes into the model shape and decodes to the same distribution', () => {
    const h = histogramFromMs([1, 2, 3, 10.5, 250, 250, 9_000]);
    const e = encodeHistogram(h);
    expect(EncodedHistogram.parse(e)).toEqual(e);
    const d = decodeHistogram(e);
    expect(d.totalCount).toBe(7);
    expect(percentilesOf(d)).toEqual(percentilesOf(h));
    expect(percentilesOf(d).max).toBeCloseTo(9_000, -1);
    expect(percentilesOf(d).min).toBeCloseTo(1, 2);
  });

  it('gives zeros for an empty histogram', () => {
    expect(percentilesOf(createHistogram())).toMatchObject({ count: 0, p99: 0, max: 0 });
    expect(percentileSpectrum(createHistogram())).toEqual([]);
  });

  it('refuses a corrupt encoding with a clear error', () => {
    const bad = { ...encodeHistogram(histogramFromMs([1])), encoded: 'not-base64!!' };
    expect(() => decodeHistogram(bad, 'steps[0].latency')).toThrow(/steps\[0\]\.latency: cannot decode/);
  });

  it('merge is lossless: merging shards equals one histogram over the union of samples', () => {
    fc.assert(
      fc.property(fc.array(samplesArb, { minLength: 1, maxLength: 5 }), (shards) => {
        const whole = histogramFromMs(shards.flat());
        const merged = mergeEncoded(shards.map((s) => encodeHistogram(histogramFromMs(s))));
        const d = decodeHistogram(merged);
        expect(d.totalCount).toBe(whole.totalCount);
        expect(percentilesOf(d)).toEqual(percentilesOf(whole));
        expect(bucketsOf(d)).toEqual(bucketsOf(whole));
      }),
      { numRuns: 60 },
    );
  });

  it('merge is associative and commutative', () => {
    fc.assert(
      fc.property(samplesArb, samplesArb, samplesArb, (a, b, c) => {
        const [ha, hb, hc] = [a, b, c].map((s) => histogramFromMs(s)) as [ReturnType<typeof histogramFromMs>, ReturnType<typeof histogramFromMs>, ReturnType<typeof histogramFromMs>];
        const left = mergeHistograms([mergeHistograms([ha, hb]), hc]);
        const right = mergeHistograms([ha, mergeHistograms([hb, hc])]);
        const swapped = mergeHistograms([hc, hb, ha]);
        expect(bucketsOf(left)).toEqual(bucketsOf(right));
        expect(bucketsOf(left)).toEqual(bucketsOf(swapped));
      }),
      { numRuns: 60 },
    );
  });

  it('records with a count and keeps 3 significant digits', () => {
    const h = createHistogram();
    recordMs(h, 123.456, 10);
    expect(h.totalCount).toBe(10);
    expect(percentilesOf(h).p50).toBeGreaterThan(123.3);
    expect(percentilesOf(h).p50).toBeLessThan(123.6);
  });

  it('builds a percentile spectrum on the nines axis, increasing in both coordinates', () => {
    const h = histogramFromMs(Array.from({ length: 10_000 }, (_, i) => 1 + i / 10));
    const s = percentileSpectrum(h);
    expect(s[0]?.[0]).toBe(0);
    for (let i = 1; i < s.length; i++) {
      expect(s[i]![0]).toBeGreaterThan(s[i - 1]![0]);
      expect(s[i]![1]).toBeGreaterThanOrEqual(s[i - 1]![1]);
    }
    expect(s[s.length - 1]?.[0]).toBeCloseTo(4, 5);
    const p99 = s.find((p) => Math.abs(p[0] - 2) < 1e-3);
    expect(p99?.[1]).toBeCloseTo(percentilesOf(h).p99, 0);
  });
});
