// The load engine's latency histograms (src/load/histogram.ts): encode/decode round-trips,
// merging is lossless and order-free, and out-of-range values are clamped, not dropped.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistogram, decodeHistogram, encodeHistogram, mergeEncodedInto, percentilesOf, recordMs } from '../../../src/load/histogram.js';

const build = (values: number[]) => {
  const h = createHistogram();
  for (const v of values) recordMs(h, v);
  return h;
};

describe('latency histograms', () => {
  it('encode/decode round-trips every count', () => {
    const h = build([0.5, 1, 1, 2.5, 100, 9999]);
    const back = decodeHistogram(encodeHistogram(h));
    expect(back.totalCount).toBe(6);
    expect(percentilesOf(back)).toEqual(percentilesOf(h));
  });

  it('merge of encoded parts equals recording everything in one histogram (lossless, order-free)', () => {
    const ms = fc.array(fc.double({ min: 0.001, max: 60_000, noNaN: true }), { maxLength: 60 });
    fc.assert(
      fc.property(ms, ms, ms, (a, b, c) => {
        const whole = build([...a, ...b, ...c]);
        const left = createHistogram();
        for (const part of [a, b, c]) mergeEncodedInto(left, encodeHistogram(build(part)));
        const right = createHistogram();
        for (const part of [c, a, b]) mergeEncodedInto(right, encodeHistogram(build(part)));
        expect(percentilesOf(left)).toEqual(percentilesOf(whole));
        expect(percentilesOf(right)).toEqual(percentilesOf(whole));
        expect(encodeHistogram(left).encoded).toBe(encodeHistogram(whole).encoded);
      }),
      { numRuns: 30 },
    );
  });

  it('a live histogram (in-process bucket) merges exactly like its encoding (thread bucket)', () => {
    const part = build([0.2, 3, 3, 47.5, 1200]);
    const viaWire = build([1, 2]);
    const viaLive = build([1, 2]);
    mergeEncodedInto(viaWire, encodeHistogram(part).encoded);
    mergeEncodedInto(viaLive, part);
    expect(viaLive.totalCount).toBe(7);
    expect(percentilesOf(viaLive)).toEqual(percentilesOf(viaWire));
  });

  it('clamps out-of-range values instead of dropping them', () => {
    const h = build([-5, 0, 10 * 3_600_000]);
    expect(h.totalCount).toBe(3);
    expect(percentilesOf(h).max).toBeGreaterThanOrEqual(3_599_000);
  });
});
