// A load bucket as the journal writes it: every histogram as its compressed base64 text (a
// live in-process histogram is encoded here; a worker thread's arrive encoded). Used by the
// journaling observer (load-journal.ts) and by the checkpoint of a compaction (compaction.ts).
import { encodeHistogram } from '../load/histogram.js';
import type { BucketWire, HistogramWire } from '../load/wire.js';
import type { BucketRecord } from './records.js';

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
