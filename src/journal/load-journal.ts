// The load run's side of the journal: a LoadObserver that appends the plan, each scenario's
// start and schedule, every shard's 1 s bucket (live histograms encoded here, as a worker
// thread encodes its own) and each finished scenario.
import { encodeHistogram } from '../load/histogram.js';
import type { LoadObserver } from '../load/observer.js';
import type { BucketWire, HistogramWire } from '../load/wire.js';
import type { BucketRecord } from './records.js';
import type { JournalWriter } from './writer.js';
import { LoadCompaction } from './compaction.js';

const text = (h: HistogramWire): string => (typeof h === 'string' ? h : encodeHistogram(h).encoded);

/** A bucket with every histogram as its compressed base64 text. */
export function encodeBucket(b: BucketWire): BucketRecord['bucket'] {
  const steps: BucketRecord['bucket']['steps'] = {};
  for (const [name, s] of Object.entries(b.steps)) {
    const byOutcome: BucketRecord['bucket']['steps'][string]['byOutcome'] = {};
    for (const [cls, h] of Object.entries(s.byOutcome) as [keyof typeof s.byOutcome, HistogramWire][]) byOutcome[cls] = text(h);
    steps[name] = {
      counts: s.counts,
      statusCodes: s.statusCodes,
      started: s.started,
      latency: text(s.latency),
      service: text(s.service),
      byOutcome,
      ...(s.attempts ? { attempts: { ...s.attempts, attempts: text(s.attempts.attempts), endToEnd: text(s.attempts.endToEnd) } } : {}),
    };
  }
  const trends: Record<string, string> = {};
  for (const [name, h] of Object.entries(b.trends)) trends[name] = text(h);
  return {
    shard: b.shard,
    tSec: b.tSec,
    steps,
    trends,
    lateness: text(b.lateness),
    scheduled: b.scheduled,
    startedIterations: b.startedIterations,
    dropped: b.dropped,
    iterationsDone: b.iterationsDone,
    inFlight: b.inFlight,
    lastStartMs: b.lastStartMs,
  };
}

/** The load observer that journals; the writer rewrites the file from its checkpoint past its cap. */
export function loadJournal(w: JournalWriter): LoadObserver {
  const compaction = new LoadCompaction();
  w.onRewrite((atMs) => compaction.records(atMs));
  return {
    planned: (units) => w.append({ type: 'plan', atMs: Date.now(), section: 'load', units: [...units] }),
    scenarioStarted: (s, totals) => {
      compaction.start(s.name, totals);
      w.append({ type: 'scenario-start', atMs: Date.now(), ...s, ...(s.shard ? { shard: s.shard } : {}) });
    },
    scheduleStarted: (scenario, t0EpochMs) => w.append({ type: 'schedule', atMs: Date.now(), scenario, t0EpochMs }),
    bucket: (scenario, b) => {
      const atMs = Date.now();
      w.append({ type: 'bucket', atMs, scenario, bucket: encodeBucket(b) });
      compaction.bucket(scenario, b, atMs);
    },
    scenarioDone: (result) => {
      compaction.done();
      w.append({ type: 'scenario', atMs: Date.now(), result });
    },
  };
}
