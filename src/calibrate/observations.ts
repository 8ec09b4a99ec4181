// What the measurement phases record, in the target's own time (emulated ms on a scaled
// emulator, real ms on the service): one record per job, the /health timelines, idle-timeout
// samples and the streaming chunks. Fitting and inference read only these.
import type { HealthRecord, JobState } from '../spec/index.js';
import type { JobBody } from './target.js';

export const PHASES = ['warm', 'idle', 'cold', 'burst', 'stream'] as const;
export type PhaseName = (typeof PHASES)[number];

/** One input class: a --input file (or the default body) and the name its jobs are fitted under. */
export interface InputClass {
  readonly id: string;
  readonly body: JobBody;
}

/** What /health said just before a job was sent. */
export type PoolBefore = 'warm' | 'cold' | 'busy';

export interface JobSample {
  readonly phase: PhaseName;
  readonly classId: string;
  readonly status: JobState;
  /** Real ms since the calibration started. */
  readonly sentAtMs: number;
  readonly answeredAtMs: number;
  /** Client-observed end to end, target ms. */
  readonly e2eMs: number;
  readonly delayMs: number | undefined;
  readonly executionMs: number | undefined;
  /** warm: an idle worker was up; cold: no worker was up; busy: workers up, none idle. */
  readonly poolBefore: PoolBefore;
  /** The worker that ran it, when the record names one. */
  readonly workerId?: string | undefined;
  /**
   * A warm-phase job that found no idle worker when it reached the queue (its worker stopped
   * during the service's overhead, an idle timeout shorter than the overhead) and ran on a worker
   * /health showed starting during its wait: its delayTime holds that cold start, not a dispatch.
   */
  readonly metStart?: boolean | undefined;
  /** For a job that met a start: real ms since the calibration started at which /health first showed that worker ready. */
  readonly workerReadyAtMs?: number | undefined;
}

/**
 * The scaler's reaction to one cold batch, target ms: from the batch's earliest job joining the
 * queue (its start seen on /status less its delayTime) to /health first showing a new worker.
 * Both ends are known only within the poll spans they were seen in: the reaction lies within
 * `ms` ± `errorMs`.
 */
export interface ColdReaction {
  readonly ms: number;
  readonly errorMs: number;
}

/** One finished job of a batch as its record and answer place it, target ms since the calibration started. */
export interface JobSpan {
  /** Its end: the answer that showed it ended, less half a round trip (up to one poll late). */
  readonly endMs: number;
  readonly executionMs: number;
  readonly delayMs: number;
  /**
   * Where its end surely lies, target ms since the calibration started: between the /status poll
   * before the one that showed it ended and that one, narrowed to the span its start was seen in
   * plus its executionTime (its start is its end less that).
   */
  readonly endWithin?: { readonly fromMs: number; readonly toMs: number } | undefined;
}

/** Jobs sent at once with the workers up before them and once the scaler had answered them. */
export interface ScaleUp {
  readonly source: 'cold batch' | 'burst';
  readonly jobs: number;
  readonly workersBefore: number;
  readonly workersAfter: number;
  /** The batch's finished jobs, when each was read (a REQUEST_COUNT scaler counts those queued and in progress, not those sent). */
  readonly spans?: readonly JobSpan[] | undefined;
  /**
   * The most requests queued and in progress at once during the batch, from `spans`: at least
   * `low`, at most `high` (the answers' timing), likeliest `point`.
   * Absent: the jobs sent.
   */
  readonly peak?: { readonly low: number; readonly high: number; readonly point: number } | undefined;
}

export interface HealthPoint {
  /** Target ms since the phase started (the middle of the /health round trip). */
  readonly tMs: number;
  readonly idle: number;
  readonly running: number;
  readonly initializing: number;
  readonly throttled: number;
  readonly unhealthy: number;
  readonly inQueue: number;
  readonly inProgress: number;
}

export interface BurstObservation {
  readonly jobs: number;
  /** Workers up (any state) just before the burst. */
  readonly workersBefore: number;
  readonly timeline: readonly HealthPoint[];
  /** Target ms from the burst's send to the first /health showing more workers than before; undefined: none came. */
  readonly firstScaleUpMs: number | undefined;
  /** Workers up (any state) at that first scale-up. */
  readonly workersAtFirstScaleUp: number | undefined;
  /** The largest number of workers up at once. */
  readonly peakWorkers: number;
  /** Target ms from the send until the peak was first seen. */
  readonly peakAtMs: number;
  /** The most jobs in progress per running worker seen (jobs per worker). */
  readonly maxJobsPerRunningWorker: number;
  readonly throttledSeen: number;
}

export interface StreamSample {
  readonly classId: string;
  readonly job: JobSample;
  readonly chunks: number;
  /** Target ms from the send to the first chunk's arrival (a /stream answer that brought it). */
  readonly firstArrivalMs: number;
  /** Target ms from the first chunk's arrival to the last one's (both read by the same /stream polls). */
  readonly firstToLastArrivalMs: number;
  /** Target ms from the job's start (seen on /status) to its first chunk's arrival; undefined when the start was not seen first. */
  readonly startToFirstChunkMs: number | undefined;
  /** Output tokens per chunk (a number `tokens`, or the length of a `text` list, in each chunk's output), when the chunks say. */
  readonly tokensPerChunk: number | undefined;
}

/** A span between two polls, target ms. */
export interface TargetSpan {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Starts of one reading that began over several poll spans: where each began and where each was seen ready. */
export interface StaggeredStarts {
  readonly begins: readonly TargetSpan[];
  readonly readies: readonly TargetSpan[];
  /** Where their first-in, first-out durations sit in `workerStartsMs`. */
  readonly at: number;
}

export interface PhaseOutcome {
  readonly phase: PhaseName;
  readonly status: 'done' | 'partial' | 'skipped';
  readonly jobs: number;
  readonly realMs: number;
  /** Why it was cut short or skipped; for a phase --precision added, that first. */
  readonly reason?: string;
}

export interface Observations {
  /** Target ms per real ms (given: the service runs at 1). */
  readonly timeScale: number;
  /**
   * The floor of the real /health round trips (their 10th percentile over the whole run): the
   * network and HTTP part of every answer. A floor, not a mean: a busy client or host only adds.
   */
  rttRealMs: number;
  /** Real ms between /health and /status polls: how late a polled job's end may be read (absent: 0). */
  readonly pollRealMs?: number;
  /** The start-timing polls' gaps were uniform within ±this share of pollRealMs (absent: every gap pollRealMs). */
  readonly pollJitter?: number;
  readonly jobs: JobSample[];
  /** Target ms from a worker going idle (after a cold batch; else the last job's end) to its stop, seen on /health. */
  readonly idleTimeoutSamplesMs: number[];
  /**
   * Worker starts after an idle gap, target ms: from /health first showing a worker (starting)
   * to it no longer starting, both ends read on /health, so that a slow client or network moves
   * both alike (see StartTracker in phases.ts).
   */
  readonly workerStartsMs: number[];
  /**
   * The same starts by reading, where one reading saw several that began over more than one poll
   * span: each beginning and each ready span, target ms; `workerStartsMs` holds them paired first
   * in, first out, inferDeployment pairs them again by the fitted durations (pairStarts).
   */
  staggeredStarts?: StaggeredStarts[];
  /**
   * Worker starts watched where /health counts throttled workers (waiting for GPU capacity):
   * how many, how many were seen throttled, and each wait read to its end, target ms.
   */
  readonly throttle: { starts: number; throttled: number; readonly waitsMs: number[] };
  /** One per cold batch whose first new worker and jobs' starts were seen. */
  readonly coldReactions: ColdReaction[];
  /** Cold batches read to their end with no worker stopping (the burst is added from `burst`). */
  readonly scaleUps: ScaleUp[];
  /** Workers still up after the quiet wait (active workers); undefined: not measured. */
  restWorkers: number | undefined;
  burst: BurstObservation | undefined;
  /**
   * A burst the workers up took whole, no worker starting (active workers faster than the
   * scaler): a second, larger burst was sent and `burst` is that one.
   */
  absorbedBurst?: BurstObservation | undefined;
  /**
   * Real ms (the calibration's clock) at which a worker the burst started became ready after the
   * burst's last job had ended: it went idle then, not at that job's end; undefined: none did.
   */
  burstLateReadyMs?: number | undefined;
  /** The last burst's workers going idle and stopping, read on until the first idle gap's rest (IdleTracker). */
  burstIdle?: IdleReading | undefined;
  readonly streams: StreamSample[];
  /** Classes whose first streamed job brought no chunk. */
  readonly nonStreamingClasses: string[];
  readonly phases: PhaseOutcome[];
  readonly notes: string[];
}

/** Workers going idle and stopping, read off /health answers (IdleTracker). */
export interface IdleReading {
  /** One /health answer describing real instant `atMs`; `queueEmpty`: no job of ours waits to be handed out. */
  observe(h: HealthRecord, atMs: number, queueEmpty: boolean): void;
  /** Each stop's idle time, real ms. */
  samplesMs(): number[];
}
