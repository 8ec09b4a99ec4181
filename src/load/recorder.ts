// The shard-side recorder: per step and per outcome class, corrected latency (from the
// intended start) and service time (from the actual send) into HDR histograms, collected
// per 1 s interval and handed off as encoded buckets. Memory is one interval's histograms.
import { createHistogram, encodeHistogram, recordMs, type Histogram } from './histogram.js';
import { emptyCounts, outcomeOf, type BucketSink, type BucketWire, type HistogramWire, type StepBucketWire, type StepHistograms } from './wire.js';


export interface RequestRecord {
  readonly metric: string;
  /** When this request should have started (ms, hrNow base). */
  readonly intendedMs: number;
  readonly sentMs: number;
  readonly endMs: number;
  readonly status: number | null;
}

// The timeOrigin getter is measurably slow on the hot path (a few % of CPU at 3,000 req/s).
const TIME_ORIGIN_MS = performance.timeOrigin;

// Status-code keys, made once per code rather than once per request.
const STATUS_KEYS: string[] = [];
const statusKey = (status: number): string => (STATUS_KEYS[status] ??= String(status));

/** Absolute high-resolution time in ms, comparable across worker threads. */
export function hrNowMs(): number {
  return TIME_ORIGIN_MS + performance.now();
}

/** Record attempt counts in a histogram whose "ms" reading is the count itself. */
export function recordCount(h: Histogram, n: number): void {
  recordMs(h, n);
}

export class ShardRecorder {
  private tSec = 0;
  private steps = new Map<string, StepHistograms>();
  private trends = new Map<string, Histogram>();
  private lateness = createHistogram();
  private scheduled = 0;
  private startedIterations = 0;
  private dropped = 0;
  private iterationsDone = 0;
  private lastStartMs = 0;
  inFlight = 0;
  /** Starts already past when a late shard joined its shared start (also counted as dropped). */
  missedAtJoin = 0;

  constructor(
    private readonly shard: number,
    private readonly t0Ms: number,
    private readonly sink: BucketSink,
    /** Encode histograms (a worker thread's buckets); false hands the live ones over. */
    private readonly encode = true,
  ) {}

  private wire(h: Histogram): HistogramWire {
    return this.encode ? encodeHistogram(h).encoded : h;
  }

  private secOf(ms: number): number {
    return Math.max(0, Math.floor((ms - this.t0Ms) / 1000));
  }

  /** Flush the current bucket when `nowMs` has moved into a later second (or always, at the end). */
  roll(nowMs: number, force = false): void {
    const sec = this.secOf(nowMs);
    if (sec > this.tSec || force) {
      this.sink.add(this.toWire());
      this.reset(Math.max(sec, this.tSec + (force ? 0 : 1)));
    }
  }

  private step(metric: string): StepHistograms {
    let b = this.steps.get(metric);
    if (!b) {
      b = { counts: emptyCounts(), statusCodes: {}, started: 0, latency: createHistogram(), service: createHistogram(), byOutcome: new Map() };
      this.steps.set(metric, b);
    }
    return b;
  }

  requestStarted(metric: string, nowMs: number): void {
    this.roll(nowMs);
    this.step(metric).started++;
  }

  request(r: RequestRecord): void {
    this.roll(r.endMs);
    const b = this.step(r.metric);
    const cls = outcomeOf(r.status);
    b.counts[cls]++;
    const code = r.status === null ? 'network_error' : statusKey(r.status);
    b.statusCodes[code] = (b.statusCodes[code] ?? 0) + 1;
    const corrected = r.endMs - r.intendedMs;
    recordMs(b.latency, corrected);
    recordMs(b.service, r.endMs - r.sentMs);
    let h = b.byOutcome.get(cls);
    if (!h) {
      h = createHistogram();
      b.byOutcome.set(cls, h);
    }
    recordMs(h, corrected);
  }

  /** A logical request under the backoff policy ended after `attempts` attempts. */
  logicalRequest(metric: string, attempts: number, endToEndMs: number, gaveUp: boolean, nowMs: number): void {
    this.roll(nowMs);
    const b = this.step(metric);
    b.attempts ??= { attempts: createHistogram(), endToEnd: createHistogram(), gaveUp: 0, maxAttempts: 0, logical: 0 };
    recordCount(b.attempts.attempts, attempts);
    recordMs(b.attempts.endToEnd, endToEndMs);
    b.attempts.maxAttempts = Math.max(b.attempts.maxAttempts, attempts);
    b.attempts.logical++;
    if (gaveUp) b.attempts.gaveUp++;
  }

  trend(metric: string, valueMs: number, nowMs: number): void {
    this.roll(nowMs);
    let h = this.trends.get(metric);
    if (!h) {
      h = createHistogram();
      this.trends.set(metric, h);
    }
    recordMs(h, valueMs);
  }

  iterationScheduled(intendedMs: number, nowMs: number, started: boolean): void {
    this.roll(nowMs);
    this.scheduled++;
    if (started) {
      this.startedIterations++;
      this.lastStartMs = nowMs;
      recordMs(this.lateness, Math.max(0, nowMs - intendedMs));
    } else {
      this.dropped++;
    }
  }

  /** Closed-loop iterations have no schedule: counted as started, no lateness. */
  iterationStartedUnscheduled(nowMs: number): void {
    this.roll(nowMs);
    this.scheduled++;
    this.startedIterations++;
    this.lastStartMs = nowMs;
  }

  iterationDone(nowMs: number): void {
    this.roll(nowMs);
    this.iterationsDone++;
  }

  private toWire(): BucketWire {
    const steps: Record<string, StepBucketWire> = {};
    for (const [name, b] of this.steps) {
      const byOutcome: StepBucketWire['byOutcome'] = {};
      for (const [cls, h] of b.byOutcome) byOutcome[cls] = this.wire(h);
      steps[name] = {
        counts: b.counts,
        statusCodes: b.statusCodes,
        started: b.started,
        latency: this.wire(b.latency),
        service: this.wire(b.service),
        byOutcome,
        ...(b.attempts
          ? {
              attempts: {
                attempts: this.wire(b.attempts.attempts),
                endToEnd: this.wire(b.attempts.endToEnd),
                gaveUp: b.attempts.gaveUp,
                maxAttempts: b.attempts.maxAttempts,
                logical: b.attempts.logical,
              },
            }
          : {}),
      };
    }
    const trends: Record<string, HistogramWire> = {};
    for (const [name, h] of this.trends) trends[name] = this.wire(h);
    return {
      shard: this.shard,
      tSec: this.tSec,
      steps,
      trends,
      lateness: this.wire(this.lateness),
      scheduled: this.scheduled,
      startedIterations: this.startedIterations,
      dropped: this.dropped,
      iterationsDone: this.iterationsDone,
      inFlight: this.inFlight,
      lastStartMs: this.lastStartMs,
    };
  }

  private reset(tSec: number): void {
    this.tSec = tSec;
    this.steps = new Map();
    this.trends = new Map();
    this.lateness = createHistogram();
    this.scheduled = 0;
    this.startedIterations = 0;
    this.dropped = 0;
    this.iterationsDone = 0;
    this.lastStartMs = 0;
  }
}
