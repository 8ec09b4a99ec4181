// What live metrics report, once a second and at a scenario's end: the run totals so far (the
// aggregator's, so the last snapshot equals the result exactly) as cumulative counters and
// cumulative latency histograms on fixed bucket bounds. Buckets, not quantiles: shards and
// threads add up bucket by bucket in PromQL (sum by (le)), quantiles of parts do not; the
// exact HDR percentiles stay in the result. The bounds step by 2^(1/4) (19%) from 0.25 ms to
// 65 s: a quantile read from them lies within its bucket.
import { bucketsOf, type Histogram } from '../result/histogram.js';
import { OUTCOME_CLASSES, type OutcomeClass } from '../result/model.js';
import type { LiveTotals } from '../load/observer.js';

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

export function takeSnapshot(scenario: string, startMs: number, totals: LiveTotals, atMs = Date.now()): Snapshot {
  const steps: StepSnapshot[] = [];
  for (const [step, t] of totals.steps) {
    const requests = Object.fromEntries(OUTCOME_CLASSES.map((c) => [c, t.counts[c]])) as Record<OutcomeClass, number>;
    steps.push({ step, requests, latency: histogramSnapshot(t.latency) });
  }
  return {
    scenario,
    startMs,
    atMs,
    steps,
    lateness: histogramSnapshot(totals.lateness),
    inFlight: totals.inFlight(),
    iterationsStarted: totals.startedIterations,
    iterationsDropped: totals.dropped,
  };
}

/** How many samples one snapshot is (what a dropped snapshot costs in the drop count). */
export function sampleCount(s: Snapshot): number {
  const histogram = LATENCY_BOUNDS_S.length + 3;
  return s.steps.length * (OUTCOME_CLASSES.length + histogram) + histogram + 3;
}
