// The measurement phases, each bounded by the job budget and the deadline:
//  - warm: one job at a time (a worker stays warm): dispatch, execution and overhead samples;
//  - cold: wait until the idle timeout has stopped the workers (/health), then one job: a cold
//    start each time, and an idle-timeout sample from each wait;
//  - burst: many jobs at once with /health polled throughout: the scaler's reaction, the scale-up
//    timeline, the most workers reached, jobs per worker;
//  - stream: jobs read through /stream, for handlers that stream (time to first chunk, gaps).
import type { InputClass } from './observations.js';
import { healthPoint, midOf, poolBefore, recordJob, runPhase, stopReason, waitForRest, watchHealth, type PhaseContext } from './phase-context.js';
import { workersUp, type TimedHealth } from './target.js';
import { isTerminal } from '../spec/index.js';
import type { BurstObservation, HealthPoint, PhaseOutcome } from './observations.js';

export function warmPhase(ctx: PhaseContext, classes: readonly InputClass[], jobsPerClass: number): Promise<PhaseOutcome> {
  return runPhase(ctx, 'warm', async () => {
    let jobs = 0;
    for (const cls of classes) {
      for (let i = 0; i < jobsPerClass; i += 1) {
        if (ctx.deadline.signal.aborted) return { jobs, reason: stopReason(ctx, undefined) };
        const before = await ctx.target.health();
        const j = await ctx.target.runSyncJob(cls.body, ctx.deadline.remainingMs(), ctx.deadline.signal);
        jobs += 1;
        recordJob(ctx, 'warm', cls.id, j, poolBefore(before.health));
      }
    }
    return { jobs };
  });
}

export interface ColdOptions {
  /** Workers that stay up at rest (workersMin, given or assumed 0). */
  readonly floorWorkers: number;
  /** Real ms one idle gap may last before the phase gives up. */
  readonly maxIdleWaitMs: number;
}

/** The real instant the latest job ended on its worker: its answer, less half a round trip. */
function lastJobEndMs(ctx: PhaseContext): number | undefined {
  const last = ctx.obs.jobs.at(-1);
  return last === undefined ? undefined : ctx.originMs + last.answeredAtMs - ctx.obs.rttRealMs / 2;
}

export function coldPhase(ctx: PhaseContext, cls: InputClass, count: number, o: ColdOptions): Promise<PhaseOutcome> {
  return runPhase(ctx, 'cold', async () => {
    let jobs = 0;
    // The real instant the last /health showing the job running was taken: the job ended between
    // it and its answer. Both ends of an idle sample are then read on /health, so a late answer
    // (a slow client or network) does not move one end alone.
    let lastRunningMs: number | undefined;
    for (let i = 0; i < count; i += 1) {
      const answeredEndMs = lastJobEndMs(ctx);
      const jobEndMs = answeredEndMs === undefined || lastRunningMs === undefined ? answeredEndMs : (lastRunningMs + Math.max(lastRunningMs, answeredEndMs)) / 2;
      const rest = await waitForRest(ctx, o.floorWorkers, o.maxIdleWaitMs);
      if (!rest.reached) {
        if (ctx.deadline.signal.aborted || rest.cutByDeadline) return { jobs, reason: `stopped: --max-duration of ${Math.round(ctx.deadline.maxDurationMs / 1000)} s reached while waiting for the workers to stop` };
        ctx.obs.restWorkers = rest.fewestUp;
        const reason = `workers stayed up (${rest.fewestUp} at the fewest) for ${(o.maxIdleWaitMs / 1000).toFixed(0)} s: either ${rest.fewestUp} active workers (--workers-min ${rest.fewestUp}) or an idle timeout longer than that wait (--idle-timeout)`;
        return jobs === 0 ? { jobs, reason, skipped: true } : { jobs, reason };
      }
      ctx.obs.restWorkers = Math.min(ctx.obs.restWorkers ?? Infinity, workersUp(rest.last.health));
      if (rest.droppedAtMs !== undefined && jobEndMs !== undefined && rest.droppedAtMs > jobEndMs) {
        ctx.obs.idleTimeoutSamplesMs.push((rest.droppedAtMs - jobEndMs) * ctx.timeScale);
      }
      const sub = await ctx.target.submit(cls.body);
      jobs += 1;
      // /health and /status side by side until the job ends: the worker seen starting, seen
      // running (it took the job) and the job seen IN_PROGRESS are read on the same polls, so a
      // slow client or network moves every mark alike. Each change happened between the last
      // poll without it and the first with it.
      let previousMs = sub.sentAtMs;
      let seenAtMs: number | undefined;
      let runningAtMs: number | undefined;
      let startedAtMs: number | undefined;
      let firstSeenGapMs: number | undefined;
      lastRunningMs = undefined;
      let last;
      for (;;) {
        const [h, st] = await Promise.all([ctx.target.health(), ctx.target.status(sub.id)]);
        const at = (midOf(h) + midOf(st)) / 2;
        const running = h.health.workers.running > 0;
        if (running) lastRunningMs = at;
        if (seenAtMs === undefined && workersUp(h.health) > o.floorWorkers) {
          seenAtMs = (previousMs + at) / 2;
          firstSeenGapMs = at - previousMs;
        }
        if (runningAtMs === undefined && running) runningAtMs = (previousMs + at) / 2;
        if (startedAtMs === undefined && st.record.status !== 'IN_QUEUE') startedAtMs = (previousMs + at) / 2;
        previousMs = at;
        last = st;
        if (isTerminal(st.record.status)) break;
        if (!(await ctx.target.clock.sleep(ctx.healthPollMs, ctx.deadline.signal))) throw ctx.deadline.signal.reason as Error;
      }
      // Two changes first seen on the same poll happened within its interval: half of it each way.
      const span = (from: number | undefined, to: number | undefined) => {
        if (from === undefined || to === undefined) return undefined;
        return (to > from ? to - from : (firstSeenGapMs ?? 0) / 2) * ctx.timeScale;
      };
      recordJob(ctx, 'cold', cls.id, { record: last.record, sentAtMs: sub.sentAtMs, answeredAtMs: last.answeredAtMs }, poolBefore(rest.last.health), {
        startMs: span(seenAtMs, runningAtMs),
        queuedToStartMs: span(seenAtMs, startedAtMs),
      });
    }
    return { jobs };
  });
}

const upOf = (p: HealthPoint): number => p.idle + p.running + p.initializing + p.throttled + p.unhealthy;

/** Read the scale-up out of a burst's /health timeline. */
export function summarizeBurst(jobs: number, workersBefore: number, timeline: readonly HealthPoint[]): BurstObservation {
  const firstIndex = timeline.findIndex((p) => upOf(p) > workersBefore);
  const first = timeline[firstIndex];
  // The workers came between the last /health without them and the first with them.
  const firstScaleUpMs = first === undefined ? undefined : (first.tMs + (firstIndex > 0 ? (timeline[firstIndex - 1] as HealthPoint).tMs : 0)) / 2;
  let peakWorkers = workersBefore;
  let peakAtMs = 0;
  let maxJobsPerRunningWorker = 0;
  let throttledSeen = 0;
  for (const p of timeline) {
    if (upOf(p) > peakWorkers) {
      peakWorkers = upOf(p);
      peakAtMs = p.tMs;
    }
    if (p.running > 0) maxJobsPerRunningWorker = Math.max(maxJobsPerRunningWorker, p.inProgress / p.running);
    throttledSeen = Math.max(throttledSeen, p.throttled);
  }
  return {
    jobs,
    workersBefore,
    timeline,
    firstScaleUpMs,
    workersAtFirstScaleUp: first === undefined ? undefined : upOf(first),
    peakWorkers,
    peakAtMs,
    maxJobsPerRunningWorker,
    throttledSeen,
  };
}

export function burstPhase(ctx: PhaseContext, classes: readonly InputClass[], count: number): Promise<PhaseOutcome> {
  return runPhase(ctx, 'burst', async () => {
    const before = await ctx.target.health();
    const startMs = ctx.target.clock.now();
    const timeline: HealthPoint[] = [];
    // Every job is taken from the budget as it is created: a job past the budget is never sent.
    const sends = Array.from({ length: count }, (_, i) => {
      const cls = classes[i % classes.length] as InputClass;
      return ctx.target.runSyncJob(cls.body, ctx.deadline.remainingMs(), ctx.deadline.signal).then((j) => recordJob(ctx, 'burst', cls.id, j, 'busy'));
    });
    const all = Promise.allSettled(sends);
    const onPoint = (h: TimedHealth) => timeline.push(healthPoint(h, startMs, ctx.timeScale));
    await watchHealth(ctx, all, onPoint);
    const settled = await all;
    const failed = settled.filter((s) => s.status === 'rejected');
    ctx.obs.burst = summarizeBurst(count, workersUp(before.health), timeline);
    const jobs = settled.length - failed.filter((s) => s.status === 'rejected' && s.reason instanceof Error && s.reason.name === 'BudgetExhaustedError').length;
    const firstFailure = failed[0];
    return firstFailure === undefined ? { jobs } : { jobs, reason: `${failed.length} of ${count} burst jobs did not finish: ${stopReason(ctx, firstFailure.status === 'rejected' ? firstFailure.reason : undefined)}` };
  });
}

/** Tokens a chunk carries: its output's `tokens` number or the length of its `text` list. */
function tokensOf(chunk: unknown): number | undefined {
  if (typeof chunk !== 'object' || chunk === null) return undefined;
  const out = (chunk as { output?: unknown }).output;
  if (typeof out !== 'object' || out === null) return undefined;
  const { tokens, text } = out as { tokens?: unknown; text?: unknown };
  if (typeof tokens === 'number' && Number.isFinite(tokens)) return tokens;
  return Array.isArray(text) ? text.length : undefined;
}

export function streamPhase(ctx: PhaseContext, classes: readonly InputClass[], jobsPerClass: number): Promise<PhaseOutcome> {
  return runPhase(ctx, 'stream', async () => {
    let jobs = 0;
    for (const cls of classes) {
      for (let i = 0; i < jobsPerClass; i += 1) {
        if (ctx.deadline.signal.aborted) return { jobs, reason: stopReason(ctx, undefined) };
        const before = await ctx.target.health();
        const j = await ctx.target.streamJob(cls.body, ctx.deadline.signal);
        jobs += 1;
        const sample = recordJob(ctx, 'stream', cls.id, j, poolBefore(before.health));
        if (j.chunks.length <= 1) {
          // The handler does not stream this input (no chunk, or its one output at the end): one job said so, the rest are not sent.
          ctx.obs.nonStreamingClasses.push(cls.id);
          break;
        }
        const counts = j.chunks.map(tokensOf).filter((t): t is number => t !== undefined);
        ctx.obs.streams.push({
          classId: cls.id,
          job: sample,
          chunks: j.chunks.length,
          firstArrivalMs: ((j.chunkArrivalsMs[0] as number) - j.sentAtMs) * ctx.timeScale,
          firstToLastArrivalMs: ((j.chunkArrivalsMs.at(-1) as number) - (j.chunkArrivalsMs[0] as number)) * ctx.timeScale,
          startToFirstChunkMs: j.startedAtMs === undefined ? undefined : Math.max(0, (j.chunkArrivalsMs[0] as number) - j.startedAtMs) * ctx.timeScale,
          tokensPerChunk: counts.length > 0 ? counts.reduce((a, b) => a + b, 0) / counts.length : undefined,
        });
      }
    }
    return { jobs };
  });
}
