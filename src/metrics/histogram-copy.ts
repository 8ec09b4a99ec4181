// A histogram's counts copied for another thread: what the generator's thread spends on a live
// snapshot is one typed-array copy per histogram (its counts up to the highest recorded value),
// transferred to the exporter thread, which buckets it (src/metrics/snapshot.ts copySnapshot).
import type { Histogram } from '../load/histogram.js';
import { internalError } from '../errors.js';

export interface HistogramCopy {
  /** Counts per HDR index, from index 0 up to the highest recorded value's index. */
  readonly counts: Uint32Array;
  readonly totalCount: number;
  /** HDR's internal tracking values (highest and lowest non-zero equivalent values). */
  readonly maxValue: number;
  readonly minNonZeroValue: number;
}

/** The fields of hdr-histogram-js's typed-array histograms a copy reads. */
interface CountsInternals {
  _counts: Uint32Array;
  maxValue: number;
  minNonZeroValue: number;
  readonly totalCount: number;
  countsArrayIndex(value: number): number;
}

function internals(h: Histogram): CountsInternals {
  const js = h as unknown as Partial<CountsInternals>;
  if (!(js._counts instanceof Uint32Array) || typeof js.countsArrayIndex !== 'function') {
    throw internalError('histogram implementation is not a 32-bit typed-array histogram');
  }
  return js as CountsInternals;
}

/** Copy `h`'s counts (a slice of its counts array: no iteration over buckets). */
export function copyHistogram(h: Histogram): HistogramCopy {
  const js = internals(h);
  const end = js.totalCount > 0 ? Math.min(js._counts.length, js.countsArrayIndex(js.maxValue) + 1) : 0;
  return { counts: js._counts.slice(0, end), totalCount: js.totalCount, maxValue: js.maxValue, minNonZeroValue: js.minNonZeroValue };
}

/** The buffers of copies, for a transfer list. */
export function buffersOf(copies: readonly HistogramCopy[]): ArrayBuffer[] {
  return copies.map((c) => c.counts.buffer as ArrayBuffer);
}
