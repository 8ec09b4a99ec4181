// What every measurement phase shares: the budgeted target, the deadline, the time scale that
// turns real ms into the target's ms, and the helpers that read /health into timelines and
// wait for the pool to come to rest (the idle gaps).
import type { Deadline } from './budget.js';
import type { HealthPoint, JobSample, Observations, PhaseName, PhaseOutcome, PoolBefore } from './observations.js';
import { workersUp, type CalibrationTarget, type TimedHealth, type TimedJob } from './target.js';
import type { HealthRecord } from '../spec/index.js';
import { BudgetExhaustedError } from './budget.js';

export interface PhaseContext {
  readonly target: CalibrationTarget;
  readonly deadline: Deadline;
  /** Target ms per real ms. */
  readonly timeScale: number;
  /** Real ms at which the calibration started (sample times are relative to it). */
  readonly originMs: number;
  /** Real ms between /health polls while watching the pool. */
  readonly healthPollMs: number;
  /**
   * Real ms to the next poll while timing worker starts: healthPollMs on average, drawn anew each
   * time (absent: healthPollMs), so that when a poll falls does not line up with when a start
   * begins or ends (a scaler's periodic check, a batch's sends): each reading's error then has
   * mean 0, start by start.
   */
  readonly pollGapMs?: () => number;
  /** Uniform draws in [0, 1) that place the first poll after a send (firstPollAfterSend); absent: the middle. */
  readonly pollPhase?: () => number;
  readonly obs: Observations;
  readonly log: (line: string) => void;
}

/** Spread of the start-timing polls' gaps: each uniform within ±this share of healthPollMs. */
export const POLL_JITTER = 0.5;

/** The next start-timing poll's gap, real ms. */
export const nextPollMs = (ctx: PhaseContext): number => ctx.pollGapMs?.() ?? ctx.healthPollMs;

/**
 * When to take the first start-timing poll after a send, and the span that poll closes (both
 * real ms), so that the polls are a stationary renewal process from the earliest instant a poll
 * could describe (half a round trip after the sleep would begin): the span covering that instant
 * is drawn by its length (a poll's round trip `rttMs` plus a gap of nextPollMs), the instant
 * uniform within it, and the first poll, `sleepMs` later, ends that span. A change after that
 * instant that the polls do not cause (a worker begun a fixed time after the send, one begun at a
 * scaler's check, each ready a cold start later) then lies uniformly within the span it is seen
 * in, so the middle of that span is right on average: the reading noise of readingNoiseMs2, with
 * mean 0. A change before that instant (within the round trips before the first poll could go) is
 * read up to that much late.
 */
export function firstPollAfterSend(ctx: PhaseContext, rttMs: number): { readonly sleepMs: number; readonly spanMs: number } {
  const jitter = ctx.pollGapMs === undefined ? 0 : POLL_JITTER;
  const a = Math.max(0, rttMs) + ctx.healthPollMs * (1 - jitter);
  const b = 2 * jitter * ctx.healthPollMs;
  const u = ctx.pollPhase?.() ?? 0.5;
  const at = ctx.pollPhase?.() ?? 0.5;
  // A gap a + b v, v uniform, drawn by its length: density (a + b v) / (a + b / 2) on [0, 1].
  const v = b > 0 ? (-a + Math.sqrt(a * a + 2 * b * u * (a + b / 2))) / b : 0;
  const spanMs = a + b * v;
  return { sleepMs: (1 - at) * spanMs, spanMs };
}

/** The real instant a /health answer describes: the middle of its round trip. */
export const midOf = (h: { readonly sentAtMs: number; readonly answeredAtMs: number }): number => (h.sentAtMs + h.answeredAtMs) / 2;

export function poolBefore(h: HealthRecord): PoolBefore {
  if (h.workers.idle > 0) return 'warm';
  return workersUp(h) === 0 ? 'cold' : 'busy';
}

export function healthPoint(h: TimedHealth, phaseStartMs: number, timeScale: number): HealthPoint {
  const w = h.health.workers;
  return {
    tMs: (midOf(h) - phaseStartMs) * timeScale,
    idle: w.idle,
    running: w.running,
    initializing: w.initializing ?? 0,
    throttled: w.throttled ?? 0,
    unhealthy: w.unhealthy ?? 0,
    inQueue: h.health.jobs.inQueue,
    inProgress: h.health.jobs.inProgress,
  };
}

/** Record one finished job in the target's ms. */
export function recordJob(ctx: PhaseContext, phase: PhaseName, classId: string, j: TimedJob, before: PoolBefore, start?: { readonly readyAtMs: number | undefined }): JobSample {
  const sample: JobSample = {
    phase,
    classId,
    status: j.record.status,
    sentAtMs: j.sentAtMs - ctx.originMs,
    answeredAtMs: j.answeredAtMs - ctx.originMs,
    e2eMs: (j.answeredAtMs - j.sentAtMs) * ctx.timeScale,
    delayMs: j.record.delayTime,
    executionMs: j.record.executionTime,
    poolBefore: before,
    ...(j.record.workerId !== undefined ? { workerId: j.record.workerId } : {}),
    ...(start !== undefined ? { metStart: true, ...(start.readyAtMs !== undefined ? { workerReadyAtMs: start.readyAtMs - ctx.originMs } : {}) } : {}),
  };
  ctx.obs.jobs.push(sample);
  return sample;
}

/**
 * Poll /health every `gapMs()` (healthPollMs unless given) until `until` settles (or the
 * deadline), calling `onPoint` with each answer. Polls are sequential: one /health in flight at a time.
 */
export async function watchHealth(ctx: PhaseContext, until: Promise<unknown>, onPoint: (h: TimedHealth) => void, gapMs: () => number = () => ctx.healthPollMs): Promise<void> {
  let settled = false;
  const done = until.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled && !ctx.deadline.signal.aborted) {
    onPoint(await ctx.target.health());
    if (settled) break;
    await Promise.race([done, ctx.target.clock.sleep(gapMs(), ctx.deadline.signal)]);
  }
}

export interface RestOutcome {
  /** The pool came down to `floorWorkers` or fewer. */
  readonly reached: boolean;
  /** Real instant the last worker above the floor stopped (between the two polls around it). */
  readonly droppedAtMs: number | undefined;
  /** The fewest workers seen up while waiting. */
  readonly fewestUp: number;
  readonly last: TimedHealth;
  /** The wait ended at the deadline (--max-duration), not at `maxWaitMs`. */
  readonly cutByDeadline: boolean;
}

/**
 * Wait, polling /health, until at most `floorWorkers` workers are up (the idle timeout has
 * stopped the others), for at most `maxWaitMs` real ms and never past the deadline; `onPoll`
 * sees every answer.
 */
export async function waitForRest(ctx: PhaseContext, floorWorkers: number, maxWaitMs: number, onPoll?: (h: TimedHealth) => void): Promise<RestOutcome> {
  const clock = ctx.target.clock;
  const cutByDeadline = ctx.deadline.remainingMs() <= maxWaitMs;
  const endMs = clock.now() + Math.min(maxWaitMs, ctx.deadline.remainingMs());
  let prev: TimedHealth | undefined;
  let fewestUp = Infinity;
  for (;;) {
    const h = await ctx.target.health();
    onPoll?.(h);
    const up = workersUp(h.health);
    fewestUp = Math.min(fewestUp, up);
    if (up <= floorWorkers) {
      return { reached: true, droppedAtMs: prev === undefined ? undefined : (midOf(prev) + midOf(h)) / 2, fewestUp, last: h, cutByDeadline: false };
    }
    prev = h;
    if (clock.now() >= endMs || !(await clock.sleep(Math.min(ctx.healthPollMs, Math.max(0, endMs - clock.now())), ctx.deadline.signal))) {
      return { reached: false, droppedAtMs: undefined, fewestUp, last: h, cutByDeadline };
    }
  }
}

/** Why a phase stopped early, in words; rethrows what is not a budget or deadline stop. */
export function stopReason(ctx: PhaseContext, e: unknown): string {
  if (e instanceof BudgetExhaustedError) return e.message;
  if (ctx.deadline.signal.aborted) return `stopped: ${ctx.deadline.signal.reason instanceof Error ? ctx.deadline.signal.reason.message : 'deadline'}`;
  return `stopped by an error: ${e instanceof Error ? e.message : String(e)}`;
}

/** Run one phase body, turning a budget, deadline or request failure into a partial outcome. */
export async function runPhase(ctx: PhaseContext, phase: PhaseName, body: () => Promise<{ jobs: number; reason?: string; skipped?: boolean }>): Promise<PhaseOutcome> {
  const startMs = ctx.target.clock.now();
  const before = ctx.target.budget.sent;
  let outcome: PhaseOutcome;
  try {
    const r = await body();
    const realMs = ctx.target.clock.now() - startMs;
    outcome = r.skipped === true ? { phase, status: 'skipped', jobs: r.jobs, realMs, ...(r.reason !== undefined ? { reason: r.reason } : {}) } : { phase, status: r.reason === undefined ? 'done' : 'partial', jobs: r.jobs, realMs, ...(r.reason !== undefined ? { reason: r.reason } : {}) };
  } catch (e) {
    outcome = { phase, status: 'partial', jobs: ctx.target.budget.sent - before, realMs: ctx.target.clock.now() - startMs, reason: stopReason(ctx, e) };
  }
  ctx.obs.phases.push(outcome);
  ctx.log(`phase ${phase}: ${outcome.status}, ${outcome.jobs} jobs, ${(outcome.realMs / 1000).toFixed(1)} s${outcome.reason !== undefined ? ` (${outcome.reason})` : ''}`);
  return outcome;
}
