// What a load run tells those who watch it while it runs (the journal, live metrics): the
// scenarios it will run, each scenario's start and schedule, every shard's 1 s bucket as the
// aggregator receives it, and each finished scenario. Observers never change the run.
import type { LoadScenarioResult, ShardInfo, StepSeries } from '../result/model.js';
import type { Histogram } from './histogram.js';
import type { BucketWire, StepHistograms } from './wire.js';

/** A scenario as it starts: what a rebuilt result needs besides its buckets. */
export interface ScenarioStart {
  readonly name: string;
  readonly description: string;
  readonly executor: string;
  /** The validated scenario as run (the result's `config`). */
  readonly config: Record<string, unknown>;
  readonly startedAt: string;
  readonly plannedMs: number;
  /** Shards feeding the aggregator (worker threads; 1 in-process). */
  readonly threads: number;
  /** Set when this process runs one shard of a distributed schedule. */
  readonly shard?: Omit<ShardInfo, 'scheduleStartedAt' | 'missedAtJoin'> | undefined;
}

/** The run totals so far, read-only (the aggregator): live metrics sample them once a second. */
export interface LiveTotals {
  readonly steps: ReadonlyMap<string, Readonly<StepHistograms>>;
  readonly lateness: Histogram;
  readonly scheduled: number;
  readonly startedIterations: number;
  readonly dropped: number;
  inFlight(): number;
  /** The last second every shard has moved past (its series point is final). */
  readonly lastInterval: { readonly tSec: number };
  series(): StepSeries[];
}

export interface LoadObserver {
  /** The scenarios this run will run, in order (after every file was loaded and validated). */
  planned?(names: readonly string[]): void;
  scenarioStarted?(start: ScenarioStart, totals: LiveTotals): void;
  /** The schedule's time zero (epoch ms): bucket `tSec` counts from it. */
  scheduleStarted?(name: string, t0EpochMs: number): void;
  /** One shard's 1 s bucket (histograms live in-process, encoded from a thread; never mutated after). */
  bucket?(name: string, bucket: BucketWire): void;
  scenarioDone?(result: LoadScenarioResult): void;
}

/** Several observers as one; each is called in order. */
export function observeAll(list: readonly (LoadObserver | undefined)[]): LoadObserver | undefined {
  const all = list.filter((o): o is LoadObserver => o !== undefined);
  if (all.length === 0) return undefined;
  if (all.length === 1) return all[0];
  return {
    planned: (n) => all.forEach((o) => o.planned?.(n)),
    scenarioStarted: (s, t) => all.forEach((o) => o.scenarioStarted?.(s, t)),
    scheduleStarted: (n, t0) => all.forEach((o) => o.scheduleStarted?.(n, t0)),
    bucket: (n, b) => all.forEach((o) => o.bucket?.(n, b)),
    scenarioDone: (r) => all.forEach((o) => o.scenarioDone?.(r)),
  };
}
