// The main-thread side of recording: merges the shards' 1 s buckets losslessly into run
// totals (per step, per outcome class, attempts, trends, send lateness) and into the 1 s
// time series. An interval becomes a series point (and its histograms are dropped) once
// every shard has moved past it, so memory stays constant however long the run.
import type { IntervalPoint, OutcomeClass, StepSeries } from '../result/model.js';
import { OUTCOME_CLASSES } from '../result/model.js';
import { createHistogram, mergeEncodedInto, percentileMs, type Histogram } from './histogram.js';
import { emptyCounts, type BucketWire, type StepHistograms } from './wire.js';

/** The run totals of one step (the same record as a shard's bucket). */
export type StepTotals = StepHistograms;

interface PendingInterval {
  steps: Map<string, { counts: ReturnType<typeof emptyCounts>; started: number; latency: Histogram; service: Histogram }>;
}

export class Aggregator {
  readonly steps = new Map<string, StepTotals>();
  readonly trends = new Map<string, Histogram>();
  readonly lateness = createHistogram();
  scheduled = 0;
  startedIterations = 0;
  dropped = 0;
  iterationsDone = 0;
  /** Actual start of the last iteration, all shards (hrNow ms). */
  lastStartMs = 0;
  private readonly inFlightByShard = new Map<number, number>();
  private readonly lastSecByShard = new Map<number, number>();
  private readonly pending = new Map<number, PendingInterval>();
  private readonly points = new Map<string, IntervalPoint[]>();
  /** The last completed interval's numbers, for the progress line. */
  lastInterval: { tSec: number; startedPerSec: number } = { tSec: -1, startedPerSec: 0 };
  private readonly startedBySec = new Map<number, number>();

  constructor(
    private readonly shardCount: number,
    /** Sees every bucket as it arrives (the journal, live metrics). */
    private readonly onBucket?: (b: BucketWire) => void,
  ) {}

  private stepTotals(name: string): StepTotals {
    let t = this.steps.get(name);
    if (!t) {
      t = { counts: emptyCounts(), statusCodes: {}, started: 0, latency: createHistogram(), service: createHistogram(), byOutcome: new Map() };
      this.steps.set(name, t);
    }
    return t;
  }

  add(b: BucketWire): void {
    this.onBucket?.(b);
    this.addTotals(b);
    this.inFlightByShard.set(b.shard, b.inFlight);
    this.startedBySec.set(b.tSec, (this.startedBySec.get(b.tSec) ?? 0) + b.startedIterations);
    let pending = this.pending.get(b.tSec);
    if (!pending) {
      pending = { steps: new Map() };
      this.pending.set(b.tSec, pending);
    }
    for (const [name, s] of Object.entries(b.steps)) {
      let ps = pending.steps.get(name);
      if (!ps) {
        ps = { counts: emptyCounts(), started: 0, latency: createHistogram(), service: createHistogram() };
        pending.steps.set(name, ps);
      }
      for (const cls of OUTCOME_CLASSES) ps.counts[cls] += s.counts[cls];
      ps.started += s.started;
      mergeEncodedInto(ps.latency, s.latency);
      mergeEncodedInto(ps.service, s.service);
    }
    this.lastSecByShard.set(b.shard, Math.max(this.lastSecByShard.get(b.shard) ?? -1, b.tSec));
    this.finalizeUpTo(this.completeBefore());
  }

  /**
   * Start from a journal checkpoint (src/journal/compaction.ts): `totals` holds the seconds
   * before it merged into one bucket, `series` their points. Nothing becomes pending.
   */
  seed(totals: BucketWire, series: readonly StepSeries[]): void {
    this.addTotals(totals);
    for (const st of series) this.points.set(st.step, [...(this.points.get(st.step) ?? []), ...st.points]);
  }

  /** A bucket into the run totals (counts summed, histograms merged losslessly). */
  private addTotals(b: BucketWire): void {
    this.scheduled += b.scheduled;
    this.startedIterations += b.startedIterations;
    this.dropped += b.dropped;
    this.iterationsDone += b.iterationsDone;
    this.lastStartMs = Math.max(this.lastStartMs, b.lastStartMs);
    mergeEncodedInto(this.lateness, b.lateness);
    for (const [name, s] of Object.entries(b.steps)) {
      const t = this.stepTotals(name);
      for (const cls of OUTCOME_CLASSES) t.counts[cls] += s.counts[cls];
      for (const [code, n] of Object.entries(s.statusCodes)) t.statusCodes[code] = (t.statusCodes[code] ?? 0) + n;
      t.started += s.started;
      mergeEncodedInto(t.latency, s.latency);
      mergeEncodedInto(t.service, s.service);
      for (const [cls, enc] of Object.entries(s.byOutcome) as [OutcomeClass, string][]) {
        let h = t.byOutcome.get(cls);
        if (!h) {
          h = createHistogram();
          t.byOutcome.set(cls, h);
        }
        mergeEncodedInto(h, enc);
      }
      if (s.attempts) {
        t.attempts ??= { attempts: createHistogram(), endToEnd: createHistogram(), gaveUp: 0, maxAttempts: 0, logical: 0 };
        mergeEncodedInto(t.attempts.attempts, s.attempts.attempts);
        mergeEncodedInto(t.attempts.endToEnd, s.attempts.endToEnd);
        t.attempts.gaveUp += s.attempts.gaveUp;
        t.attempts.logical += s.attempts.logical;
        t.attempts.maxAttempts = Math.max(t.attempts.maxAttempts, s.attempts.maxAttempts);
      }
    }
    for (const [name, enc] of Object.entries(b.trends)) {
      let h = this.trends.get(name);
      if (!h) {
        h = createHistogram();
        this.trends.set(name, h);
      }
      mergeEncodedInto(h, enc);
    }
  }

  /** Intervals below this second can no longer receive data from any shard. */
  private completeBefore(): number {
    if (this.lastSecByShard.size < this.shardCount) return 0;
    return Math.min(...this.lastSecByShard.values());
  }

  private finalizeUpTo(sec: number): void {
    for (const tSec of [...this.pending.keys()].sort((a, b) => a - b)) {
      if (tSec >= sec) break;
      this.finalize(tSec);
    }
  }

  private finalize(tSec: number): void {
    const pending = this.pending.get(tSec);
    if (!pending) return;
    this.pending.delete(tSec);
    for (const [name, ps] of pending.steps) {
      let arr = this.points.get(name);
      if (!arr) {
        arr = [];
        this.points.set(name, arr);
      }
      arr.push({
        tSec,
        counts: ps.counts,
        p50Ms: percentileMs(ps.latency, 50),
        p90Ms: percentileMs(ps.latency, 90),
        p99Ms: percentileMs(ps.latency, 99),
        maxMs: percentileMs(ps.latency, 100),
        serviceP99Ms: percentileMs(ps.service, 99),
        offeredPerSec: ps.started,
        goodputPerSec: ps.counts['2xx'],
      });
    }
    const started = this.startedBySec.get(tSec) ?? 0;
    this.startedBySec.delete(tSec);
    this.lastInterval = { tSec, startedPerSec: started };
  }

  /** Close every open interval (the run is over). */
  finish(): void {
    this.finalizeUpTo(Number.POSITIVE_INFINITY);
  }

  inFlight(): number {
    let n = 0;
    for (const v of this.inFlightByShard.values()) n += v;
    return n;
  }

  series(): StepSeries[] {
    return [...this.points.entries()].map(([step, points]) => ({ step, points: [...points].sort((a, b) => a.tSec - b.tSec) }));
  }
}
