// The messages a shard (in-process or a worker thread) sends to the aggregator: one bucket
// per 1 s interval with HDR histograms (encoded across threads), so merging is lossless,
// and a final message with the shard's own health (event-loop delay).
import type { Histogram } from 'hdr-histogram-js';
import type { OutcomeClass, OutcomeCounts, Percentiles, Warmup } from '../result/model.js';

/** One step's counts and live histograms: a shard's 1 s bucket, and the run totals it merges into. */
export interface StepHistograms {
  counts: OutcomeCounts;
  statusCodes: Record<string, number>;
  started: number;
  latency: Histogram;
  service: Histogram;
  byOutcome: Map<OutcomeClass, Histogram>;
  attempts?: { attempts: Histogram; endToEnd: Histogram; gaveUp: number; maxAttempts: number; logical: number };
}

/**
 * A histogram in a bucket: encoded (compressed base64) when it crosses a thread, or the live
 * histogram itself from an in-process shard, which hands it over and starts a new one. The
 * encode/decode pair cost ~1 ms of the generator's thread each second (measured), a block
 * in which no iteration starts.
 */
export type HistogramWire = string | Histogram;

export interface StepBucketWire {
  counts: OutcomeCounts;
  statusCodes: Record<string, number>;
  /** Requests started in this interval. */
  started: number;
  latency: HistogramWire;
  service: HistogramWire;
  byOutcome: Partial<Record<OutcomeClass, HistogramWire>>;
  /** With on429 backoff: per logical request. */
  attempts?: { attempts: HistogramWire; endToEnd: HistogramWire; gaveUp: number; maxAttempts: number; logical: number };
}

export interface BucketWire {
  shard: number;
  /** Seconds since the scenario's start. */
  tSec: number;
  steps: Record<string, StepBucketWire>;
  trends: Record<string, HistogramWire>;
  /** Iteration send lateness (intended vs actual start). */
  lateness: HistogramWire;
  /** Iterations due in this interval, started, and dropped (in-flight cap reached). */
  scheduled: number;
  startedIterations: number;
  dropped: number;
  iterationsDone: number;
  inFlight: number;
  /** Actual start of the latest iteration started in this interval (hrNow ms; 0 if none). */
  lastStartMs: number;
}

/**
 * Where a shard's buckets go: the aggregator itself in-process, a poster in a worker thread.
 * An object with a method rather than a callback: the recorder's call to it then sees the
 * same target class in the warm-up and in the run (a different closure de-optimised the
 * recording path at the run's first 1 s boundary, measured).
 */
export interface BucketSink {
  add(bucket: BucketWire): void;
}

export interface ShardEndWire {
  shard: number;
  eventLoopDelayMs: Percentiles;
  warmup?: Warmup;
  /** Iterations scheduled in the run's window that were never due (run cut short). */
  aborted: boolean;
  error?: string;
  /** Starts already past when this shard joined a shared start late (in `dropped` too). */
  missedAtJoin?: number;
  /** How late it joined the shared start, ms (0 when on time). */
  joinedLateMs?: number;
}

export const emptyCounts = (): OutcomeCounts => ({ '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 });

export function outcomeOf(status: number | null): OutcomeClass {
  if (status === null) return 'network_error';
  if (status === 429) return '429';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 500) return '5xx';
  return '4xx';
}
