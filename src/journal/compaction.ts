// Keeping a long run's journal bounded: when the file passes its size cap, it is rewritten as
// one checkpoint and continues from there. The checkpoint holds every record but the 1 s
// buckets and heartbeats, then, for the scenario in progress, the buckets of its final seconds
// folded into one (exact: HDR histograms add losslessly) with their series points, then the
// buckets of the seconds not final yet as they were. What a rebuilt result needs is kept; the
// per-second histograms of final seconds are not (a result keeps only their percentiles).
import { Aggregator } from '../load/aggregate.js';
import type { LiveTotals } from '../load/observer.js';
import type { BucketWire } from '../load/wire.js';
import { encodeBucket } from './bucket-record.js';
import type { BucketRecord, JournalRecord } from './records.js';

interface InProgress {
  readonly scenario: string;
  readonly totals: LiveTotals;
  /** The final seconds' buckets, merged. */
  readonly folded: Aggregator;
  throughSec: number;
  /** Buckets of seconds not final yet, as the aggregator got them (live histograms in-process: folding them decodes nothing). */
  retained: { atMs: number; bucket: BucketWire }[];
}

export class LoadCompaction {
  private current: InProgress | undefined;

  start(scenario: string, totals: LiveTotals): void {
    this.current = { scenario, totals, folded: new Aggregator(1), throughSec: 0, retained: [] };
  }

  done(): void {
    this.current = undefined;
  }

  /** A bucket was journaled: keep it until its second is final, then fold it. */
  bucket(scenario: string, bucket: BucketWire, atMs: number): void {
    const c = this.current;
    if (!c || c.scenario !== scenario) return;
    c.retained.push({ atMs, bucket });
    const finalBefore = c.totals.lastInterval.tSec + 1;
    if (finalBefore <= c.throughSec) return;
    c.throughSec = finalBefore;
    const keep: InProgress['retained'] = [];
    for (const r of c.retained) {
      if (r.bucket.tSec < finalBefore) c.folded.seed(r.bucket, []);
      else keep.push(r);
    }
    c.retained = keep;
  }

  /** The records that stand for the scenario in progress's buckets: a checkpoint, then the retained buckets. */
  records(atMs: number): JournalRecord[] {
    const c = this.current;
    if (!c) return [];
    const f = c.folded;
    const totals: BucketWire = {
      shard: 0,
      tSec: Math.max(0, c.throughSec - 1),
      steps: Object.fromEntries([...f.steps].map(([name, t]) => [name, { ...t, byOutcome: Object.fromEntries(t.byOutcome) }])),
      trends: Object.fromEntries(f.trends),
      lateness: f.lateness,
      scheduled: f.scheduled,
      startedIterations: f.startedIterations,
      dropped: f.dropped,
      iterationsDone: f.iterationsDone,
      inFlight: 0,
      lastStartMs: f.lastStartMs,
    };
    const series = c.totals
      .series()
      .map((st) => ({ step: st.step, points: st.points.filter((p) => p.tSec < c.throughSec) }))
      .filter((st) => st.points.length > 0);
    const retained = c.retained.map((r): BucketRecord => ({ type: 'bucket', atMs: r.atMs, scenario: c.scenario, bucket: encodeBucket(r.bucket) }));
    return [{ type: 'checkpoint', atMs, scenario: c.scenario, throughSec: c.throughSec, totals: encodeBucket(totals), series }, ...retained];
  }
}
