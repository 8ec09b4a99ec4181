// The model-based property (§3.1 state machine, §2.2 retention, §2.4 health): fast-check
// generates command sequences, fc.asyncModelRun plays them against the target's model
// endpoint and the model; every run starts from an idle endpoint and ends by cancelling its
// jobs and checking that the endpoint is idle again (a cancelled job's execution is stopped).
import fc from 'fast-check';
import { HTTP_STATUS, HealthRecord, SECOND_MS } from '../../spec/index.js';
import { sleepMs } from '../rate-budget.js';
import type { FuzzPropertyDef, PropertyContext } from '../property.js';
import { queuePath } from '../target.js';
import { commandArbitraries, type ModelCommand } from './commands.js';
import { LONGEST_PLAN_MS } from './job-plans.js';
import { possibleAt, type JobModel } from './job-model.js';
import { cancelJob, checkHealth, type ModelReal } from './model-steps.js';

export interface StateMachineOptions {
  /** Most commands in one generated sequence. */
  readonly maxCommands: number;
  /** fast-check's replayPath of a failing command sequence (printed with the finding). */
  readonly replayPath?: string | undefined;
}

/** Real ms one HTTP exchange with the target may take on a busy machine: the slack on every time rule. */
export const REAL_MARGIN_MS = 300;
const POLL_REAL_MS = 25;

export function marginMsFor(timeScale: number): number {
  return Math.max(2 * SECOND_MS, REAL_MARGIN_MS * timeScale);
}

/** Real ms to wait for an endpoint to go idle: the longest plan, with room, at the target's speed. */
export function idleBoundRealMs(timeScale: number): number {
  return (1.5 * LONGEST_PLAN_MS) / timeScale + 2 * REAL_MARGIN_MS;
}

/** Poll /health until nothing is queued or running, or the bound passes. */
async function waitForIdle(ctx: PropertyContext, endpointId: string): Promise<void> {
  const deadline = performance.now() + idleBoundRealMs(ctx.target.timeScale);
  while (performance.now() < deadline) {
    const a = await ctx.http.send({ operation: 'health', method: 'GET', url: queuePath(ctx.target, endpointId, '/health'), auth: 'header-bearer' }, ctx.signal);
    const h = a.status === HTTP_STATUS.ok ? HealthRecord.safeParse(a.json) : undefined;
    if (h?.success && h.data.jobs.inQueue === 0 && h.data.jobs.inProgress === 0) return;
    await sleepMs(POLL_REAL_MS, ctx.signal);
  }
}

function newModel(ctx: PropertyContext): JobModel {
  return { jobs: [], retries: 0, marginMs: marginMsFor(ctx.target.timeScale) };
}

function newReal(ctx: PropertyContext): ModelReal {
  const scale = ctx.target.timeScale;
  return { ctx, endpointId: ctx.target.modelEndpointId, now: () => performance.now() * scale, recent: [], trail: [] };
}

/** Cancel every job that may still be queued or running (judged: §3.1 cancel stops execution). */
async function cancelActive(model: JobModel, real: ModelReal, judged: boolean): Promise<void> {
  for (const job of model.jobs) {
    const s = possibleAt(model, job, real.now());
    if (!s.has('IN_QUEUE') && !s.has('IN_PROGRESS')) continue;
    if (judged) await cancelJob(model, real, job);
    else await real.ctx.http.send({ operation: 'cancel', method: 'POST', url: queuePath(real.ctx.target, real.endpointId, `/cancel/${encodeURIComponent(job.id)}`), auth: 'header-bearer' }, real.ctx.signal).catch(() => undefined);
  }
}

export function stateMachineProperty(options: StateMachineOptions): FuzzPropertyDef<Iterable<ModelCommand>> {
  return {
    name: 'job-state-machine',
    clause: {
      section: '§3.1, §2.2, §2.4',
      quote: 'job states and transitions (cancel of queued/running, retry only from FAILED or TIMED_OUT, purge removes queued jobs only, ttl deletes), result retention, health counters',
    },
    kind: 'state-machine',
    skipReason: () => undefined,
    arbitrary: () =>
      fc.commands(commandArbitraries(), { maxCommands: options.maxCommands, ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}) }),
    async check(ctx, cmds) {
      const model = newModel(ctx);
      const real = newReal(ctx);
      await waitForIdle(ctx, real.endpointId);
      real.trail.push('start');
      await checkHealth(model, real);
      let finished = false;
      try {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await cancelActive(model, real, true);
        // Give the target the time a cancelled job's execution may take to stop, then require idle.
        await waitForIdle(ctx, real.endpointId);
        real.trail.push('end: every job cancelled or ended');
        await checkHealth(model, real);
        finished = true;
      } finally {
        if (!finished && !ctx.signal.aborted) await cancelActive(model, real, false);
      }
    },
    // fc.commands values render as the command list plus /*replayPath=...*/.
    describe: (cmds) => fc.stringify(cmds),
  };
}
