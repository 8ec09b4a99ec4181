// What live metrics report, once a second and at a scenario's end: the run totals so far (the
// aggregator's, so the last snapshot equals the result exactly) as cumulative counters and
// cumulative latency histograms on fixed bucket bounds. Buckets, not quantiles: shards and
// threads add up bucket by bucket in PromQL (sum by (le)), quantiles of parts do not; the
// exact HDR percentiles stay in the result. The bounds step by 2^(1/4) (19%) from 0.25 ms to
// 65 s: a quantile read from them lies within its bucket.
import { createHistogram, type Histogram } from '../load/histogram.js';
import { OUTCOME_CLASSES, type OutcomeClass } from '../result/model.js';
import type { LiveTotals } from '../load/observer.js';
import { buffersOf, copyHistogram, type HistogramCopy } from './histogram-copy.js';

/** Upper bounds of the latency buckets, seconds (4 significant digits, so labels read plainly). */
export const LATENCY_BOUNDS_S: readonly number[] = Array.from({ length: 73 }, (_, i) => Number((2 ** ((i - 8) / 4) / 1000).toPrecision(4)));

export interface HistogramSnapshot {
  /** Samples at or below each bound of LATENCY_BOUNDS_S (cumulative, as Prometheus `le`). */
  readonly cumulative: readonly number[];
  readonly count: number;
  readonly sumS: number;
  readonly minS: number;
  readonly maxS: number;
}

export interface StepSnapshot {
  readonly step: string;
  readonly requests: Readonly<Record<OutcomeClass, number>>;
  readonly latency: HistogramSnapshot;
}

export interface Snapshot {
  readonly scenario: string;
  /** When the scenario started (the counters' start), epoch ms. */
  readonly startMs: number;
  readonly atMs: number;
  readonly steps: readonly StepSnapshot[];
  readonly lateness: HistogramSnapshot;
  readonly inFlight: number;
  readonly iterationsStarted: number;
  readonly iterationsDropped: number;
}

const US_PER_S = 1e6;

/** The bounds in microseconds, as compared with HDR values. */
const BOUNDS_US: readonly number[] = LATENCY_BOUNDS_S.map((b) => b * US_PER_S);

/** Per HDR index of the one histogram configuration: its fixed bound and its median equivalent value. */
interface IndexTables {
  /** The first bound at or above the index's highest equivalent value (BOUNDS_US.length: above all). */
  readonly bound: Uint8Array;
  readonly medianUs: Float64Array;
}
let tables: IndexTables | undefined;

function indexTables(): IndexTables {
  if (tables) return tables;
  const h = createHistogram() as unknown as { countsArrayLength: number; valueFromIndex(i: number): number; highestEquivalentValue(v: number): number; medianEquivalentValue(v: number): number };
  const bound = new Uint8Array(h.countsArrayLength);
  const medianUs = new Float64Array(h.countsArrayLength);
  let k = 0;
  for (let index = 0; index < h.countsArrayLength; index++) {
    const valueUs = h.highestEquivalentValue(h.valueFromIndex(index));
    while (k < BOUNDS_US.length && valueUs > (BOUNDS_US[k] ?? 0)) k++;
    bound[index] = k;
    medianUs[index] = h.medianEquivalentValue(valueUs);
  }
  tables = { bound, medianUs };
  return tables;
}

/**
 * A copied histogram of microseconds on the fixed bounds, in one pass over its counts with
 * per-index tables built once: a recorded value counts at its bucket's highest equivalent value,
 * and the sum is HDR's mean (median equivalent values, summed in index order) times the count,
 * exactly as HDR's recorded-values iteration gives them.
 */
export function copySnapshot(c: HistogramCopy): HistogramSnapshot {
  const { bound, medianUs } = indexTables();
  const perBound = new Array<number>(BOUNDS_US.length + 1).fill(0);
  const counts = c.counts;
  let totalValue = 0;
  for (let index = 0; index < counts.length; index++) {
    const n = counts[index] ?? 0;
    if (n === 0) continue;
    const k = bound[index] ?? BOUNDS_US.length;
    perBound[k] = (perBound[k] ?? 0) + n;
    totalValue += (medianUs[index] ?? 0) * n;
  }
  const cumulative = new Array<number>(BOUNDS_US.length);
  let below = 0;
  for (let k = 0; k < BOUNDS_US.length; k++) cumulative[k] = below += perBound[k] ?? 0;
  const count = c.totalCount;
  const mean = count > 0 ? totalValue / count : 0;
  return { cumulative, count, sumS: count > 0 ? (mean * count) / US_PER_S : 0, minS: count > 0 ? c.minNonZeroValue / US_PER_S : 0, maxS: count > 0 ? c.maxValue / US_PER_S : 0 };
}

/** A histogram of microseconds on the fixed bounds. */
export function histogramSnapshot(h: Histogram): HistogramSnapshot {
  return copySnapshot(copyHistogram(h));
}

/** One step's totals as copied on the generator's thread. */
export interface RawStepSnapshot {
  readonly step: string;
  readonly requests: Readonly<Record<OutcomeClass, number>>;
  readonly latency: HistogramCopy;
}

/** A snapshot before bucketing: plain numbers and histogram copies, cheap to take and to transfer. */
export interface RawSnapshot {
  readonly scenario: string;
  readonly startMs: number;
  readonly atMs: number;
  readonly steps: readonly RawStepSnapshot[];
  readonly lateness: HistogramCopy;
  readonly inFlight: number;
  readonly iterationsStarted: number;
  readonly iterationsDropped: number;
}

/** The run totals now, copied (on the generator's thread: no bucketing, no encoding). */
export function takeRawSnapshot(scenario: string, startMs: number, totals: LiveTotals, atMs = Date.now()): RawSnapshot {
  const steps: RawStepSnapshot[] = [];
  for (const [step, t] of totals.steps) {
    const requests = {} as Record<OutcomeClass, number>;
    for (const c of OUTCOME_CLASSES) requests[c] = t.counts[c];
    steps.push({ step, requests, latency: copyHistogram(t.latency) });
  }
  return {
    scenario,
    startMs,
    atMs,
    steps,
    lateness: copyHistogram(totals.lateness),
    inFlight: totals.inFlight(),
    iterationsStarted: totals.startedIterations,
    iterationsDropped: totals.dropped,
  };
}

/** The buffers a raw snapshot holds, for a transfer list. */
export function rawSnapshotBuffers(r: RawSnapshot): ArrayBuffer[] {
  return buffersOf([...r.steps.map((s) => s.latency), r.lateness]);
}

/** A raw snapshot on the fixed bounds (where the exporter runs). */
export function snapshotOf(r: RawSnapshot): Snapshot {
  return {
    scenario: r.scenario,
    startMs: r.startMs,
    atMs: r.atMs,
    steps: r.steps.map((s) => ({ step: s.step, requests: s.requests, latency: copySnapshot(s.latency) })),
    lateness: copySnapshot(r.lateness),
    inFlight: r.inFlight,
    iterationsStarted: r.iterationsStarted,
    iterationsDropped: r.iterationsDropped,
  };
}

/** The run totals now on the fixed bounds, in one step. */
export function takeSnapshot(scenario: string, startMs: number, totals: LiveTotals, atMs = Date.now()): Snapshot {
  return snapshotOf(takeRawSnapshot(scenario, startMs, totals, atMs));
}

/** How many samples one snapshot is (what a dropped snapshot costs in the drop count). */
export function sampleCount(s: { readonly steps: readonly unknown[] }): number {
  const histogram = LATENCY_BOUNDS_S.length + 3;
  return s.steps.length * (OUTCOME_CLASSES.length + histogram) + histogram + 3;
}
