// HdrHistogram recording for the load engine: fixed-size histograms (no resize on the hot
// path) in the one configuration of src/result/histogram.ts, clamped recording, and decoding
// into that configuration, so histograms merge losslessly. Encoding, percentiles
// and summaries are the report's, so a load result and a merged or compared one are computed
// by the same code.
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { HISTOGRAM_CONFIG, encodeHistogram, percentilesOf, summarize, valueAtPercentileMs } from '../result/histogram.js';
import type { EncodedHistogram } from '../result/model.js';

export type { Histogram } from 'hdr-histogram-js';
export { HISTOGRAM_CONFIG, encodeHistogram, percentilesOf, summarize };

const US_PER_MS = 1_000;

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

export function decodeHistogram(e: EncodedHistogram | string): Histogram {
  const text = typeof e === 'string' ? e : e.encoded;
  const decoded = hdr.decodeFromCompressedBase64(text, 32, false);
  // Decoded histograms carry the encoder's range; normalise into our configuration so
  // that `add` never has to resize.
  const h = createHistogram();
  h.add(decoded);
  return h;
}

/** Add an encoded (or live) histogram into `target` (lossless: counts per bucket are summed). */
export function mergeEncodedInto(target: Histogram, e: EncodedHistogram | string | Histogram): void {
  if (typeof e !== 'string' && !('encoded' in e)) {
    target.add(e);
    return;
  }
  const text = typeof e === 'string' ? e : e.encoded;
  target.add(hdr.decodeFromCompressedBase64(text, 32, false));
}

/** The value at `percentile` (0..100) in milliseconds, to the microsecond; 0 for an empty histogram. */
export function percentileMs(h: Histogram, percentile: number): number {
  return Math.round(valueAtPercentileMs(h, percentile) * US_PER_MS) / US_PER_MS;
}
