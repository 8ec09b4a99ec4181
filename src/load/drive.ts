// The schedule itself: the open-loop scheduler that starts each iteration at its
// intended time and never waits for answers (bounded in-flight, dropped iterations counted),
// the closed-loop executors (constant-concurrency, iterations) and the graceful stop. One
// shard drives its share of the real schedule with it, and its warm-up drives a rehearsal
// against a local sink with the same code (src/load/warmup.ts).
import { setMaxListeners } from 'node:events';
import { schedule, type RateSegment } from './arrivals.js';
import type { LoadTarget } from './context.js';
import type { TargetHttp } from './http.js';
import { backoffFor, noAnswerBackoffMs, runIteration, sleep, type IterationEnv } from './iteration.js';
import { hrNowMs, type ShardRecorder } from './recorder.js';
import type { Scenario } from './scenario.js';

/** The rate profile of an arrival-rate scenario. */
export function segmentsOf(s: Scenario): RateSegment[] {
  if (s.executor === 'constant-arrival-rate') return [{ durationMs: s.durationMs, fromRatePerSec: s.ratePerSec, toRatePerSec: s.ratePerSec }];
  if (s.executor === 'ramping-arrival-rate') {
    let from = s.startRatePerSec;
    return s.stages.map((st) => {
      const seg = { durationMs: st.durationMs, fromRatePerSec: from, toRatePerSec: st.targetRatePerSec };
      from = st.targetRatePerSec;
      return seg;
    });
  }
  return [];
}

/** This shard's share of a global count (exact: shares sum to the total). */
export function shareOf(total: number, shardIndex: number, shardCount: number): number {
  return Math.floor(total / shardCount) + (shardIndex < total % shardCount ? 1 : 0);
}

export interface DriveOptions {
  readonly scenario: Scenario;
  readonly target: LoadTarget;
  readonly http: TargetHttp;
  readonly recorder: ShardRecorder;
  readonly shardIndex: number;
  readonly shardCount: number;
  /** The schedule's start (hrNow base). */
  readonly t0Ms: number;
  readonly state: unknown;
  readonly signal: AbortSignal;
  /**
   * A shard that joined a shared start late: its starts intended before this instant (hrNow
   * base) are counted as dropped (recorder.missedAtJoin), never started in a bunch.
   */
  readonly dropBeforeMs?: number | undefined;
}

/**
 * Drive this shard's share of the scenario from t0 to the end of its graceful stop, rolling
 * the recorder's 1 s buckets as it goes; resolves with the first iteration error, if any.
 */
export async function drive(o: DriveOptions): Promise<string | undefined> {
  const { scenario: s, recorder, t0Ms } = o;
  // A plain Error: the engine sends a max-throughput scenario to its own engine, never here.
  if (s.executor === 'max-throughput') throw new Error('max-throughput runs through its own engine (src/load/max-throughput.ts), not a shard');
  // Our own controller: the graceful stop aborts in-flight iterations without aborting the caller.
  const inner = new AbortController();
  // Every waiting request and poll pause listens on this one signal.
  setMaxListeners(0, inner.signal);
  const halt = { aborted: false };
  inner.signal.addEventListener('abort', () => (halt.aborted = true), { once: true });
  const onOuterAbort = () => inner.abort(o.signal.reason);
  o.signal.addEventListener('abort', onOuterAbort, { once: true });
  let requestBudget = shareOf(s.maxRequests, o.shardIndex, o.shardCount);
  const env: IterationEnv = {
    scenario: s,
    target: o.target,
    http: o.http,
    recorder,
    state: o.state,
    shard: o.shardIndex,
    scheduleStartMs: t0Ms,
    signal: inner.signal,
    halt,
    backoff: backoffFor(s),
    takeRequestBudget: () => requestBudget-- > 0,
    unanswered: { streak: 0 },
  };
  const ticker = setInterval(() => recorder.roll(hrNowMs()), 250);
  let error: string | undefined;
  await waitUntil(t0Ms, o.signal);
  try {
    // In-flight open-loop iterations: a count, and a waiter for the graceful stop (no
    // per-iteration Set entry or promise chain).
    let inFlightCount = 0;
    let onDrained: (() => void) | undefined;
    const iterationEnded = () => {
      recorder.inFlight--;
      recorder.iterationDone(hrNowMs());
      if (--inFlightCount === 0 && onDrained) onDrained();
    };
    const iterationFailed = (e: unknown) => {
      error ??= e instanceof Error ? e.message : String(e);
      iterationEnded();
    };
    const launch = (index: number, intendedMs: number) => {
      recorder.inFlight++;
      inFlightCount++;
      runIteration(env, index, intendedMs).then(iterationEnded, iterationFailed);
    };
    const drained = () =>
      inFlightCount === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onDrained = resolve;
          });
    const stillGoing = () => !o.signal.aborted && requestBudget > 0;

    if (s.executor === 'constant-arrival-rate' || s.executor === 'ramping-arrival-rate') {
      await openLoop(o, t0Ms, segmentsOf(s), s.arrivals, s.seed, s.maxInFlight, recorder, launch, () => inFlightCount, stillGoing);
    } else {
      const vus = shareOf(s.vus, o.shardIndex, o.shardCount);
      const endMs = t0Ms + (s.executor === 'constant-concurrency' ? s.durationMs : s.maxDurationMs);
      let remaining = s.executor === 'iterations' ? shareOf(s.iterations, o.shardIndex, o.shardCount) : Number.POSITIVE_INFINITY;
      let next = o.shardIndex;
      const vu = async () => {
        while (stillGoing() && hrNowMs() < endMs && remaining > 0) {
          remaining--;
          const index = next;
          next += o.shardCount;
          const now = hrNowMs();
          recorder.iterationStartedUnscheduled(now);
          recorder.inFlight++;
          try {
            await runIteration(env, index, now);
          } catch (e) {
            error ??= e instanceof Error ? e.message : String(e);
          } finally {
            recorder.inFlight--;
            recorder.iterationDone(hrNowMs());
          }
          // A closed loop starts the next iteration as soon as one ends: against a target
          // that refuses connections that is a hot loop, so it backs off while nothing answers.
          if (env.unanswered.streak > 0) await sleep(Math.min(noAnswerBackoffMs(env.unanswered.streak), endMs - hrNowMs()), inner.signal);
        }
      };
      // The iterations still running when the time is up get gracefulStopMs, then are aborted
      // (a stream that never ends, on a target whose workers never start, must not hold the run).
      const grace = setTimeout(() => inner.abort(new Error('graceful stop elapsed')), Math.max(0, endMs - hrNowMs()) + s.gracefulStopMs);
      try {
        await Promise.all(Array.from({ length: vus }, vu));
      } finally {
        clearTimeout(grace);
      }
    }
    // Graceful stop: give in-flight iterations their time, then abort them.
    if (inFlightCount > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        drained(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, s.gracefulStopMs);
        }),
      ]);
      clearTimeout(timer);
      inner.abort(new Error('graceful stop elapsed'));
      await drained();
    }
  } finally {
    clearInterval(ticker);
    o.signal.removeEventListener('abort', onOuterAbort);
    recorder.roll(hrNowMs(), true);
  }
  return error;
}

function waitUntil(atMs: number, signal: AbortSignal): Promise<void> {
  return sleep(atMs - hrNowMs(), signal);
}

/**
 * A FIFO of taken starts (iteration index, intended time) in two growable Float64Arrays: no
 * object per entry, and no array whose kind of elements changes under optimised code.
 */
export class StartQueue {
  private idx = new Float64Array(1024);
  private at = new Float64Array(1024);
  private head = 0;
  size = 0;
  push(index: number, atMs: number): void {
    if (this.size === this.idx.length) this.grow();
    const tail = (this.head + this.size) % this.idx.length;
    this.idx[tail] = index;
    this.at[tail] = atMs;
    this.size++;
  }
  headIndex(): number {
    return this.idx[this.head]!;
  }
  headAt(): number {
    return this.at[this.head]!;
  }
  shift(): void {
    this.head = (this.head + 1) % this.idx.length;
    this.size--;
  }
  private grow(): void {
    const n = this.idx.length;
    const idx = new Float64Array(n * 2);
    const at = new Float64Array(n * 2);
    for (let i = 0; i < this.size; i++) {
      idx[i] = this.idx[(this.head + i) % n]!;
      at[i] = this.at[(this.head + i) % n]!;
    }
    this.idx = idx;
    this.at = at;
    this.head = 0;
  }
}

/** Timers wake us this early and the last stretch is covered by setImmediate turns. */
const SPIN_WINDOW_MS = 1.5;
/** A start at most this far away is waited for inside the scheduler's turn. */
const BUSY_WAIT_MS = 0.06;
/**
 * Longest a scheduler turn holds the event loop (launches and waits): answers that arrive
 * meanwhile are read at most this late, which bounds what the scheduler adds to a latency.
 */
const MAX_TURN_MS = 0.1;
const SPIN_CELL = new Int32Array(new SharedArrayBuffer(4));
/**
 * Wait for `atMs` without yielding. The clock is read every few hundred ns, not in a tight
 * loop: each read allocates a heap number, and a tight loop made ~160 MB/s of garbage.
 */
function busyWaitUntil(atMs: number): void {
  while (hrNowMs() < atMs) {
    for (let i = 0; i < 16; i++) Atomics.load(SPIN_CELL, 0);
  }
}

/** Most starts between two answers (the rest wait for the next answer or turn). */
const MAX_STARTS_PER_ANSWER = 16;
/** Most iteration starts in one event-loop turn (a backlog is worked off in batches). */
const MAX_STARTS_PER_TURN = 256;

/**
 * The open-loop scheduler: at each wake-up, start every iteration whose intended time has
 * come (dropping it, counted, when the in-flight cap is reached), then sleep until the next.
 * It never awaits an answer.
 */
function openLoop(
  o: DriveOptions,
  t0Ms: number,
  segments: RateSegment[],
  arrivals: 'uniform' | 'poisson',
  seed: number,
  maxInFlight: number,
  recorder: ShardRecorder,
  launch: (index: number, intendedMs: number) => void,
  inFlightCount: () => number,
  stillGoing: () => boolean,
): Promise<void> {
  const it = schedule({ segments, arrivals, seed, shardIndex: o.shardIndex, shardCount: o.shardCount });
  let next = it.next();
  if (o.dropBeforeMs !== undefined) {
    // Joined late: the starts already past are missed, counted as dropped, never bunched.
    const now = hrNowMs();
    while (!next.done && t0Ms + next.value.offsetMs < o.dropBeforeMs) {
      recorder.iterationScheduled(t0Ms + next.value.offsetMs, now, false);
      recorder.missedAtJoin++;
      next = it.next();
    }
  }
  return new Promise((resolve) => {
    let done = false;
    // Starts taken on schedule while no connection was free wait here, as two numbers each
    // (no iteration, promise or request exists for them yet), and begin as connections free.
    // Their wait is client-side queueing, in their corrected latency as before. Queued as
    // live iterations they were ~1 KB each that every scavenge had to copy (measured: 4-9 ms
    // scavenges at 20,000/s on 50 connections, the main source of late starts).
    const waitq = new StartQueue();
    const waiting = () => waitq.size;
    const startWaiting = (): void => {
      while (waitq.size > 0 && o.http.hasFreeConnection()) {
        const index = waitq.headIndex();
        const intended = waitq.headAt();
        waitq.shift();
        launch(index, intended);
      }
    };
    /**
     * Start every iteration due by now (at most `max`) and return how many were taken; sets
     * `done` when the schedule is over. Called from the scheduler's turns and, between
     * answers, from the HTTP client.
     */
    const launchDue = (max: number): number => {
      let launched = 0;
      const now = hrNowMs();
      while (!next.done && t0Ms + next.value.offsetMs <= now && launched < max) {
        if (!stillGoing()) {
          done = true;
          return launched;
        }
        launched++;
        const intended = t0Ms + next.value.offsetMs;
        if (inFlightCount() + waiting() >= maxInFlight) recorder.iterationScheduled(intended, now, false);
        else {
          recorder.iterationScheduled(intended, hrNowMs(), true);
          if (waiting() === 0 && o.http.hasFreeConnection()) launch(next.value.index, intended);
          else waitq.push(next.value.index, intended);
        }
        next = it.next();
      }
      if (next.done || !stillGoing()) done = true;
      return launched;
    };
    let pumping = false;
    o.http.setAfterAnswer(() => {
      if (pumping) return;
      pumping = true;
      try {
        if (waiting() > 0) startWaiting();
        if (!done && !next.done && t0Ms + next.value.offsetMs <= hrNowMs()) launchDue(MAX_STARTS_PER_ANSWER);
      } finally {
        pumping = false;
      }
    });
    const finish = () => {
      o.http.setAfterAnswer(undefined);
      resolve();
    };
    const tick = () => {
      const turnStart = hrNowMs();
      let launched = 0;
      for (;;) {
        if (waiting() > 0) startWaiting();
        launched += launchDue(MAX_STARTS_PER_TURN - launched);
        if (done || next.done) {
          // Taken starts still waiting for a connection begin as answers free them; an
          // aborted run drops them.
          if (waiting() > 0 && !o.signal.aborted) {
            setImmediate(tick);
            return;
          }
          finish();
          return;
        }
        const due = t0Ms + next.value.offsetMs;
        const at = hrNowMs();
        const waitMs = due - at;
        // Behind schedule: yield to I/O between batches (answers must keep flowing), never
        // start the whole backlog in one turn of the event loop.
        if (launched >= MAX_STARTS_PER_TURN) break;
        if (waitMs > SPIN_WINDOW_MS) {
          setTimeout(tick, waitMs - SPIN_WINDOW_MS + 0.5);
          return;
        }
        // The next start is under SPIN_WINDOW_MS away, closer than a timer can wake us. A
        // start due within BUSY_WAIT_MS is waited for inside this turn (bounded by
        // MAX_TURN_MS, so answers are still read often); further ones take event-loop turns.
        // Measured at 20,000 starts/s: spinning through turns alone allocated ~8 KB per
        // start (an idle turn allocates ~360 bytes), most of the scavenges.
        if (waitMs <= BUSY_WAIT_MS && at - turnStart + waitMs <= MAX_TURN_MS) {
          busyWaitUntil(due);
          continue;
        }
        break;
      }
      setImmediate(tick);
    };
    tick();
  });
}
