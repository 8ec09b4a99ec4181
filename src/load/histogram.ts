// HdrHistogram helpers for the load engine: one configuration for every latency histogram
// (microsecond integers, 1 us to 1 h, 3 significant digits), lossless encode/decode/merge
// (issue 6 "histograms are merged losslessly"), and percentile summaries in milliseconds.
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import type { EncodedHistogram, LatencySummary, Percentiles } from '../report/model.js';

export type { Histogram } from 'hdr-histogram-js';

const US_PER_MS = 1_000;
export const HISTOGRAM_CONFIG = {
  lowestDiscernibleValue: 1,
  /** One hour in microseconds: anything slower is clamped (and counted, never dropped). */
  highestTrackableValue: 3_600_000_000,
  numberOfSignificantValueDigits: 3,
} as const;

export function createHistogram(): Histogram {
  return hdr.build({
    // 32-bit counts in plain JS: measured ~10x faster than 'packed' to record, encode and
    // merge (packed saves memory we do not need: a few histograms per step).
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: HISTOGRAM_CONFIG.lowestDiscernibleValue,
    highestTrackableValue: HISTOGRAM_CONFIG.highestTrackableValue,
    numberOfSignificantValueDigits: HISTOGRAM_CONFIG.numberOfSignificantValueDigits,
    useWebAssembly: false,
  });
}

/** Record a duration in milliseconds (fractional allowed); clamped into the trackable range. */
export function recordMs(h: Histogram, durationMs: number): void {
  const us = Math.round(durationMs * US_PER_MS);
  h.recordValue(Math.min(HISTOGRAM_CONFIG.highestTrackableValue, Math.max(HISTOGRAM_CONFIG.lowestDiscernibleValue, us)));
}

export function encodeHistogram(h: Histogram): EncodedHistogram {
  return {
    unit: 'us',
    encoded: hdr.encodeIntoCompressedBase64(h),
    lowestDiscernibleValue: HISTOGRAM_CONFIG.lowestDiscernibleValue,
    highestTrackableValue: HISTOGRAM_CONFIG.highestTrackableValue,
    numberOfSignificantValueDigits: HISTOGRAM_CONFIG.numberOfSignificantValueDigits,
  };
}

export function decodeHistogram(e: EncodedHistogram | string): Histogram {
  const text = typeof e === 'string' ? e : e.encoded;
  const decoded = hdr.decodeFromCompressedBase64(text, 32, false);
  // Decoded histograms carry the encoder's range; normalise into our configuration so
  // that `add` never has to resize.
  const h = createHistogram();
  h.add(decoded);
  return h;
}

/** Add an encoded histogram into `target` (lossless: counts per bucket are summed). */
export function mergeEncodedInto(target: Histogram, e: EncodedHistogram | string): void {
  const text = typeof e === 'string' ? e : e.encoded;
  target.add(hdr.decodeFromCompressedBase64(text, 32, false));
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

export function percentilesOf(h: Histogram): Percentiles {
  const n = h.totalCount;
  if (n === 0) return { count: 0, min: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  const ms = (us: number) => round3(us / US_PER_MS);
  return {
    count: n,
    // Bucket-equivalent extremes (percentile 0 and 100), not the exact recorded ones: a merged
    // histogram only knows buckets, and a summary must not depend on how it was assembled.
    min: ms(h.getValueAtPercentile(0)),
    mean: ms(h.mean),
    stddev: ms(h.stdDeviation),
    p50: ms(h.getValueAtPercentile(50)),
    p90: ms(h.getValueAtPercentile(90)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    p999: ms(h.getValueAtPercentile(99.9)),
    max: ms(h.getValueAtPercentile(100)),
  };
}

/** The value at `percentile` (0..100) in milliseconds; 0 for an empty histogram. */
export function percentileMs(h: Histogram, percentile: number): number {
  return h.totalCount === 0 ? 0 : round3(h.getValueAtPercentile(percentile) / US_PER_MS);
}

export function summarize(h: Histogram): LatencySummary {
  return { percentiles: percentilesOf(h), histogram: encodeHistogram(h) };
}
