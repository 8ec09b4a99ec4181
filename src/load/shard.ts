// One shard of a run (the whole run on one thread, or 1/N of it in a worker thread): the
// open-loop scheduler that starts each iteration at its intended time and never waits for
// answers (bounded in-flight, dropped iterations counted), and the closed-loop executors
// (constant-concurrency, iterations). Recording goes to a ShardRecorder (issue 6).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import type { Percentiles } from '../report/model.js';
import { schedule, type RateSegment } from './arrivals.js';
import type { LoadTarget } from './context.js';
import { TargetHttp } from './http.js';
import { backoffFor, runIteration, type IterationEnv } from './iteration.js';
import { hrNowMs, ShardRecorder } from './recorder.js';
import type { Scenario } from './scenario.js';
import type { BucketWire, ShardEndWire } from './wire.js';

export interface ShardPlan {
  readonly scenario: Scenario;
  readonly target: LoadTarget;
  readonly shardIndex: number;
  readonly shardCount: number;
  /** Scenario start (hrNow base, shared across threads). */
  readonly t0Ms: number;
  readonly state: unknown;
  readonly signal: AbortSignal;
  readonly emit: (bucket: BucketWire) => void;
}

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

export const ELD_RESOLUTION_MS = 10;

export function eventLoopPercentiles(h: ReturnType<typeof monitorEventLoopDelay>): Percentiles {
  const ms = (ns: number) => Math.round((ns / 1e6) * 1000) / 1000;
  // The monitor samples every ELD_RESOLUTION_MS; subtract that expected wait from each value.
  const adj = (ns: number) => Math.max(0, Math.round((ns / 1e6 - ELD_RESOLUTION_MS) * 1000) / 1000);
  if (h.count === 0) return { count: 0, min: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  return {
    count: h.count,
    min: adj(h.min),
    mean: adj(h.mean),
    stddev: ms(Number.isNaN(h.stddev) ? 0 : h.stddev),
    p50: adj(h.percentile(50)),
    p90: adj(h.percentile(90)),
    p95: adj(h.percentile(95)),
    p99: adj(h.percentile(99)),
    p999: adj(h.percentile(99.9)),
    max: adj(h.max),
  };
}

export async function runShard(plan: ShardPlan): Promise<ShardEndWire> {
  const { scenario: s } = plan;
  if (s.executor === 'max-throughput') throw new Error('max-throughput runs through autocannon, not a shard');
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  const recorder = new ShardRecorder(plan.shardIndex, plan.t0Ms, plan.emit);
  const http = new TargetHttp(plan.target, { connections: s.connections ?? s.maxInFlight, requestTimeoutMs: s.requestTimeoutMs });
  // Our own controller: the graceful stop aborts in-flight iterations without aborting the caller.
  const inner = new AbortController();
  // Every waiting request and poll pause listens on this one signal.
  setMaxListeners(0, inner.signal);
  const onOuterAbort = () => inner.abort(plan.signal.reason);
  plan.signal.addEventListener('abort', onOuterAbort, { once: true });
  let requestBudget = shareOf(s.maxRequests, plan.shardIndex, plan.shardCount);
  const env: IterationEnv = {
    scenario: s,
    target: plan.target,
    http,
    recorder,
    state: plan.state,
    shard: plan.shardIndex,
    scheduleStartMs: plan.t0Ms,
    signal: inner.signal,
    backoff: backoffFor(s),
    takeRequestBudget: () => requestBudget-- > 0,
  };
  const ticker = setInterval(() => recorder.roll(hrNowMs()), 250);
  let error: string | undefined;
  // Measure the generator from the schedule's start, not while modules load.
  await waitUntil(plan.t0Ms, plan.signal);
  eld.enable();
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
    const stillGoing = () => !plan.signal.aborted && requestBudget > 0;

    if (s.executor === 'constant-arrival-rate' || s.executor === 'ramping-arrival-rate') {
      await openLoop(plan, segmentsOf(s), s.arrivals, s.seed, s.maxInFlight, recorder, launch, () => inFlightCount, stillGoing);
    } else {
      const vus = shareOf(s.vus, plan.shardIndex, plan.shardCount);
      const endMs = plan.t0Ms + (s.executor === 'constant-concurrency' ? s.durationMs : s.maxDurationMs);
      let remaining = s.executor === 'iterations' ? shareOf(s.iterations, plan.shardIndex, plan.shardCount) : Number.POSITIVE_INFINITY;
      let next = plan.shardIndex;
      const vu = async () => {
        while (stillGoing() && hrNowMs() < endMs && remaining > 0) {
          remaining--;
          const index = next;
          next += plan.shardCount;
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
        }
      };
      await Promise.all(Array.from({ length: vus }, vu));
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
    plan.signal.removeEventListener('abort', onOuterAbort);
    recorder.roll(hrNowMs(), true);
    eld.disable();
    await http.destroy();
  }
  return {
    shard: plan.shardIndex,
    eventLoopDelayMs: eventLoopPercentiles(eld),
    aborted: plan.signal.aborted,
    ...(error !== undefined ? { error } : {}),
  };
}

function waitUntil(atMs: number, signal: AbortSignal): Promise<void> {
  const delay = atMs - hrNowMs();
  if (delay <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, delay);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Timers wake us this early and the last stretch is covered by setImmediate turns. */
const SPIN_WINDOW_MS = 1.5;
/** Most iteration starts in one event-loop turn (a backlog is worked off in batches). */
const MAX_STARTS_PER_TURN = 256;

/**
 * The open-loop scheduler: at each wake-up, start every iteration whose intended time has
 * come (dropping it, counted, when the in-flight cap is reached), then sleep until the next.
 * It never awaits an answer.
 */
function openLoop(
  plan: ShardPlan,
  segments: RateSegment[],
  arrivals: 'uniform' | 'poisson',
  seed: number,
  maxInFlight: number,
  recorder: ShardRecorder,
  launch: (index: number, intendedMs: number) => void,
  inFlightCount: () => number,
  stillGoing: () => boolean,
): Promise<void> {
  const it = schedule({ segments, arrivals, seed, shardIndex: plan.shardIndex, shardCount: plan.shardCount });
  let next = it.next();
  return new Promise((resolve) => {
    const tick = () => {
      const now = hrNowMs();
      let launched = 0;
      while (!next.done && plan.t0Ms + next.value.offsetMs <= now && launched < MAX_STARTS_PER_TURN) {
        launched++;
        if (!stillGoing()) {
          resolve();
          return;
        }
        const intended = plan.t0Ms + next.value.offsetMs;
        if (inFlightCount() >= maxInFlight) recorder.iterationScheduled(intended, now, false);
        else {
          recorder.iterationScheduled(intended, hrNowMs(), true);
          launch(next.value.index, intended);
        }
        next = it.next();
      }
      if (next.done || !stillGoing()) {
        resolve();
        return;
      }
      const waitMs = plan.t0Ms + next.value.offsetMs - hrNowMs();
      // Behind schedule: yield to I/O between batches (answers must keep flowing), never
      // start the whole backlog in one turn of the event loop.
      if (waitMs > SPIN_WINDOW_MS && launched < MAX_STARTS_PER_TURN) setTimeout(tick, waitMs - SPIN_WINDOW_MS + 0.5);
      else setImmediate(tick);
    };
    tick();
  });
}
