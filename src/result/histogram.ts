// HDR histogram utilities shared by the load engine (recording) and the reports (merge, compare,
// spectrum charts): one histogram configuration, encode/decode to the model's EncodedHistogram,
// lossless merge, and Percentiles (milliseconds) from a histogram of microseconds.
import hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { QbenchError } from '../errors.js';
import { HOUR_MS } from '../spec/index.js';
import type { EncodedHistogram, LatencySummary, Percentiles } from './model.js';

export type { Histogram } from 'hdr-histogram-js';

const US_PER_MS = 1_000;

/** The one configuration every qbench latency histogram uses (values in microseconds). */
export const HISTOGRAM_CONFIG = {
  lowestDiscernibleValue: 1,
  /** One hour in microseconds: longer than any request qbench waits for. */
  highestTrackableValue: HOUR_MS * US_PER_MS,
  numberOfSignificantValueDigits: 3,
} as const;

export interface HistogramOptions {
  lowestDiscernibleValue?: number;
  highestTrackableValue?: number;
  numberOfSignificantValueDigits?: 1 | 2 | 3 | 4 | 5;
}

/** A new, empty, auto-resizing histogram of microseconds (plain JS, no WebAssembly). */
export function createHistogram(options: HistogramOptions = {}): Histogram {
  const h = hdr.build({
    bitBucketSize: 32,
    autoResize: true,
    useWebAssembly: false,
    lowestDiscernibleValue: options.lowestDiscernibleValue ?? HISTOGRAM_CONFIG.lowestDiscernibleValue,
    highestTrackableValue: options.highestTrackableValue ?? HISTOGRAM_CONFIG.highestTrackableValue,
    numberOfSignificantValueDigits: options.numberOfSignificantValueDigits ?? HISTOGRAM_CONFIG.numberOfSignificantValueDigits,
  });
  return h;
}

/** Record a latency given in milliseconds (fractions kept to the microsecond; negatives clamp to 0). */
export function recordMs(h: Histogram, valueMs: number, count = 1): void {
  const us = Math.max(0, Math.round(valueMs * US_PER_MS));
  if (count === 1) h.recordValue(us);
  else if (count > 1) h.recordValueWithCount(us, count);
}

/** Build a histogram of microseconds from a list of millisecond values. */
export function histogramFromMs(valuesMs: Iterable<number>, options: HistogramOptions = {}): Histogram {
  const h = createHistogram(options);
  for (const v of valuesMs) recordMs(h, v);
  return h;
}

/** Encode for the result model (compressed base64, the HdrHistogram V2 wire format). */
export function encodeHistogram(h: Histogram): EncodedHistogram {
  return {
    unit: 'us',
    encoded: hdr.encodeIntoCompressedBase64(h),
    lowestDiscernibleValue: Math.max(1, Math.floor((h as unknown as { lowestDiscernibleValue?: number }).lowestDiscernibleValue ?? 1)),
    highestTrackableValue: Math.max(2, Math.floor(h.highestTrackableValue)),
    numberOfSignificantValueDigits: Math.min(5, Math.max(1, h.numberOfSignificantValueDigits)),
  };
}

/** Decode an encoded histogram; a corrupt one is a QB_ERR_CONFIG naming `where`. */
export function decodeHistogram(e: EncodedHistogram, where = 'histogram'): Histogram {
  try {
    const h = hdr.decodeFromCompressedBase64(e.encoded, 32, false);
    h.autoResize = true;
    return h;
  } catch (err) {
    throw new QbenchError('QB_ERR_CONFIG', `${where}: cannot decode the encoded HDR histogram (${err instanceof Error ? err.message : String(err)})`, { where });
  }
}

/** Merge histograms losslessly (HdrHistogram `add`): counts per bucket are summed. */
export function mergeHistograms(histograms: readonly Histogram[]): Histogram {
  const first = histograms[0];
  const out = createHistogram(
    first ? { numberOfSignificantValueDigits: clampDigits(first.numberOfSignificantValueDigits) } : {},
  );
  for (const h of histograms) out.add(h);
  return out;
}

/** Merge encoded histograms and encode the sum. */
export function mergeEncoded(encoded: readonly EncodedHistogram[], where = 'histogram'): EncodedHistogram {
  return encodeHistogram(mergeHistograms(encoded.map((e, i) => decodeHistogram(e, `${where}[${i}]`))));
}

function clampDigits(n: number): 1 | 2 | 3 | 4 | 5 {
  const d = Math.min(5, Math.max(1, Math.round(n)));
  return d as 1 | 2 | 3 | 4 | 5;
}

const round3 = (x: number): number => Math.round(x * 1_000) / 1_000;

/** Value at a percentile (0-100) in milliseconds; 0 for an empty histogram. */
export function valueAtPercentileMs(h: Histogram, percentile: number): number {
  if (h.totalCount === 0) return 0;
  return h.getValueAtPercentile(percentile) / US_PER_MS;
}

/** The model's Percentiles (milliseconds) from a histogram of microseconds. */
export function percentilesOf(h: Histogram): Percentiles {
  if (h.totalCount === 0) {
    return { count: 0, min: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  }
  const at = (p: number) => round3(valueAtPercentileMs(h, p));
  return {
    count: h.totalCount,
    min: at(0),
    mean: round3(h.mean / US_PER_MS),
    stddev: round3(h.stdDeviation / US_PER_MS),
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    // the bucket's highest equivalent value, as every percentile is (so a decoded copy agrees)
    max: at(100),
  };
}

/** Percentiles straight from an encoded histogram. */
export function percentilesOfEncoded(e: EncodedHistogram, where?: string): Percentiles {
  return percentilesOf(decodeHistogram(e, where));
}

/** A LatencySummary (percentiles + encoded histogram) for the model. */
export function summarize(h: Histogram): LatencySummary {
  return { percentiles: percentilesOf(h), histogram: encodeHistogram(h) };
}

/** Merge LatencySummaries losslessly: the histograms are merged and the percentiles recomputed. */
export function mergeSummaries(summaries: readonly LatencySummary[], where = 'latency'): LatencySummary {
  return summarize(mergeHistograms(summaries.map((s, i) => decodeHistogram(s.histogram, `${where}[${i}]`))));
}

/** One distinct recorded value (microseconds) and how many times it was recorded. */
export interface HistogramBucket {
  valueUs: number;
  count: number;
}

/** The recorded values of a histogram, ascending, each at its bucket's representative value. */
export function bucketsOf(h: Histogram): HistogramBucket[] {
  const js = h as unknown as {
    recordedValuesIterator?: {
      reset(): void;
      hasNext(): boolean;
      next(): { valueIteratedTo: number; countAtValueIteratedTo: number };
    };
  };
  const it = js.recordedValuesIterator;
  if (!it) throw new QbenchError('QB_ERR_INTERNAL', 'histogram implementation has no recorded-values iterator');
  it.reset();
  const out: HistogramBucket[] = [];
  while (it.hasNext()) {
    const v = it.next();
    if (v.countAtValueIteratedTo > 0) out.push({ valueUs: v.valueIteratedTo, count: v.countAtValueIteratedTo });
  }
  return out;
}

/** Percentile levels of the spectrum, evenly spaced on the nines axis (0, 0.05, ... maxNines nines). */
export function spectrumLevels(maxNines = 6, ninesStep = 0.05): number[] {
  const levels: number[] = [];
  const steps = Math.round(maxNines / ninesStep);
  for (let i = 0; i <= steps; i++) levels.push(100 * (1 - 10 ** -(i * ninesStep)));
  return levels;
}

/**
 * The percentile spectrum of a histogram: points [nines, ms] where nines = -log10(1 - p/100)
 * (0 at p0, 1 at p90, 2 at p99...), stopping at the level where the data runs out.
 */
export function percentileSpectrum(h: Histogram): Array<[number, number]> {
  const n = h.totalCount;
  if (n === 0) return [];
  const out: Array<[number, number]> = [];
  for (const p of spectrumLevels()) {
    // beyond 1/n of the tail there is no more information than the maximum
    if (1 - p / 100 < 1 / n) break;
    out.push([p === 0 ? 0 : round3(-Math.log10(1 - p / 100)), round3(valueAtPercentileMs(h, p))]);
  }
  const lastNines = round3(Math.log10(n));
  const last = out[out.length - 1];
  if (last && last[0] >= lastNines) last[1] = round3(valueAtPercentileMs(h, 100));
  else out.push([lastNines, round3(valueAtPercentileMs(h, 100))]);
  return out;
}
