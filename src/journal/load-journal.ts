// The load run's side of the journal: a LoadObserver that appends the plan, each scenario's
// start and schedule, every shard's 1 s bucket (live histograms encoded by bucket-record.ts, as
// a worker thread encodes its own) and each finished scenario.
import type { LoadObserver } from '../load/observer.js';
import { encodeBucket } from './bucket-record.js';
import type { JournalWriter } from './writer.js';
import { LoadCompaction } from './compaction.js';

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
