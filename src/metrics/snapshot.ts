// What live metrics report, once a second and at a scenario's end: the run totals so far (the
// aggregator's, so the last snapshot equals the result exactly) as cumulative counters and
// cumulative latency histograms on fixed bucket bounds. Buckets, not quantiles: shards and
// threads add up bucket by bucket in PromQL (sum by (le)), quantiles of parts do not; the
// exact HDR percentiles stay in the result. The bounds step by 2^(1/4) (19%) from 0.25 ms to
// 65 s: a quantile read from them lies within its bucket.
import { bucketsOf, type Histogram } from '../result/histogram.js';
import { OUTCOME_CLASSES, type OutcomeClass } from '../result/model.js';
import type { LiveTotals } from '../load/observer.js';
import { buffersOf, copyHistogram, restoreHistogram, type HistogramCopy } from './histogram-copy.js';

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

/** A histogram of microseconds on the fixed bounds (a recorded value counts at its bucket's highest equivalent value). */
export function histogramSnapshot(h: Histogram): HistogramSnapshot {
  const cumulative = new Array<number>(LATENCY_BOUNDS_S.length).fill(0);
  let i = 0;
  let below = 0;
  for (const b of bucketsOf(h)) {
    while (i < LATENCY_BOUNDS_S.length && b.valueUs > (LATENCY_BOUNDS_S[i] ?? 0) * US_PER_S) cumulative[i++] = below;
    below += b.count;
  }
  while (i < LATENCY_BOUNDS_S.length) cumulative[i++] = below;
  const count = h.totalCount;
  return { cumulative, count, sumS: count > 0 ? (h.mean * count) / US_PER_S : 0, minS: count > 0 ? h.minNonZeroValue / US_PER_S : 0, maxS: count > 0 ? h.maxValue / US_PER_S : 0 };
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
    steps: r.steps.map((s) => ({ step: s.step, requests: s.requests, latency: histogramSnapshot(restoreHistogram(s.latency)) })),
    lateness: histogramSnapshot(restoreHistogram(r.lateness)),
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
