// The fast-check commands of the model-based run (fc.commands + fc.asyncModelRun): run,
// runsync, status, stream, cancel, retry, purge, health and wait, plus composite commands
// that make the illegal ones happen on purpose (retry of COMPLETED or CANCELLED, cancel and
// retry after retention). Every command ends with the §2.4 health check.
import fc from 'fast-check';
import { RETENTION_MS, SECOND_MS, EXECUTION_TIMEOUT_MS, TTL_MS } from '../../spec/index.js';
import { sleepMs } from '../rate-budget.js';
import { JOB_PLANS, PLAN_NAMES, type PlanName } from './job-plans.js';
import type { JobModel, ModelJob } from './job-model.js';
import {
  cancelJob,
  checkHealth,
  healthOfUnknownEndpoint,
  statusWithoutKey,
  observeStatus,
  observeStream,
  purgeQueue,
  retryJob,
  statusOfUnknown,
  submitRun,
  submitRunsync,
  type ModelReal,
} from './model-steps.js';

export type ModelCommand = fc.AsyncCommand<JobModel, ModelReal, false>;

/**
 * Emulated waits: a second; past a timed-out job's execution timeout; half of /runsync
 * retention (a job must still be there); past /runsync retention (it must be gone).
 */
export const WAITS_MS = [SECOND_MS, 2 * EXECUTION_TIMEOUT_MS.min, RETENTION_MS.runsyncDefault / 2 + 5 * SECOND_MS, RETENTION_MS.runsyncDefault + 30 * SECOND_MS] as const;

/** Sleep `emulatedMs` of the target's time. */
function waitEmulated(real: ModelReal, emulatedMs: number): Promise<void> {
  return sleepMs(Math.ceil(emulatedMs / real.ctx.target.timeScale), real.ctx.signal);
}

abstract class Base implements ModelCommand {
  check(_m: Readonly<JobModel>): boolean {
    return true;
  }
  async run(m: JobModel, r: ModelReal): Promise<void> {
    await this.act(m, r);
    await checkHealth(m, r);
  }
  protected abstract act(m: JobModel, r: ModelReal): Promise<void>;
  abstract toString(): string;
}

/** A command about one existing job, picked by index modulo the jobs so far. */
abstract class OnJob extends Base {
  constructor(protected readonly pick: number) {
    super();
  }
  override check(m: Readonly<JobModel>): boolean {
    return m.jobs.length > 0;
  }
  protected job(m: JobModel): ModelJob {
    return m.jobs[this.pick % m.jobs.length] as ModelJob;
  }
  protected act(m: JobModel, r: ModelReal): Promise<void> {
    return this.onJob(m, r, this.job(m));
  }
  protected abstract onJob(m: JobModel, r: ModelReal, job: ModelJob): Promise<void>;
}

class RunCommand extends Base {
  constructor(private readonly plan: PlanName) {
    super();
  }
  protected async act(m: JobModel, r: ModelReal) {
    await submitRun(m, r, JOB_PLANS[this.plan]);
  }
  toString() {
    return `run(${this.plan})`;
  }
}

class RunsyncCommand extends Base {
  constructor(private readonly plan: PlanName, private readonly withWait: boolean) {
    super();
  }
  protected async act(m: JobModel, r: ModelReal) {
    await submitRunsync(m, r, JOB_PLANS[this.plan], this.withWait);
  }
  toString() {
    return `runsync(${this.plan}${this.withWait ? ', wait' : ''})`;
  }
}

class StatusCommand extends OnJob {
  protected onJob(m: JobModel, r: ModelReal, job: ModelJob) {
    return observeStatus(m, r, job);
  }
  toString() {
    return `status(#${this.pick})`;
  }
}

class StreamCommand extends OnJob {
  protected onJob(m: JobModel, r: ModelReal, job: ModelJob) {
    return observeStream(m, r, job);
  }
  toString() {
    return `stream(#${this.pick})`;
  }
}

class CancelCommand extends OnJob {
  protected onJob(m: JobModel, r: ModelReal, job: ModelJob) {
    return cancelJob(m, r, job);
  }
  toString() {
    return `cancel(#${this.pick})`;
  }
}

class RetryCommand extends OnJob {
  protected onJob(m: JobModel, r: ModelReal, job: ModelJob) {
    return retryJob(m, r, job);
  }
  toString() {
    return `retry(#${this.pick})`;
  }
}

class PurgeCommand extends Base {
  protected act(m: JobModel, r: ModelReal) {
    return purgeQueue(m, r);
  }
  toString() {
    return 'purge';
  }
}

class HealthCommand extends Base {
  protected async act() {
    // The health check that follows every command is the whole of this one.
  }
  toString() {
    return 'health';
  }
}

class WaitCommand extends Base {
  constructor(private readonly emulatedMs: number) {
    super();
  }
  protected act(_m: JobModel, r: ModelReal) {
    return waitEmulated(r, this.emulatedMs);
  }
  toString() {
    return `wait(${this.emulatedMs} ms)`;
  }
}

class UnknownStatusCommand extends Base {
  constructor(private readonly id: string) {
    super();
  }
  protected act(_m: JobModel, r: ModelReal) {
    return statusOfUnknown(r, this.id);
  }
  toString() {
    return `status(unknown ${this.id})`;
  }
}

class UnknownEndpointCommand extends Base {
  constructor(private readonly endpointId: string) {
    super();
  }
  protected act(_m: JobModel, r: ModelReal) {
    return healthOfUnknownEndpoint(r, this.endpointId);
  }
  toString() {
    return `health(unknown endpoint ${this.endpointId})`;
  }
}

class NoKeyCommand extends Base {
  constructor(private readonly pick: number) {
    super();
  }
  protected act(m: JobModel, r: ModelReal) {
    return statusWithoutKey(m, r, m.jobs.length > 0 ? m.jobs[this.pick % m.jobs.length] : undefined);
  }
  toString() {
    return `status-without-key(#${this.pick})`;
  }
}

/** Illegal on purpose: retry of a COMPLETED job (§3.1: only FAILED or TIMED_OUT). */
class RetryCompletedCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRunsync(m, r, JOB_PLANS.quick, false);
    await observeStatus(m, r, job);
    await retryJob(m, r, job);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'retry-of-completed';
  }
}

/** Illegal on purpose: retry of a CANCELLED job. */
class RetryCancelledCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRun(m, r, JOB_PLANS.slow);
    await cancelJob(m, r, job);
    await retryJob(m, r, job);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'retry-of-cancelled';
  }
}

/** Illegal on purpose: cancel and retry once /runsync retention has passed (§2.2: "can no longer be retried"). */
class AfterRetentionCommand extends Base {
  constructor(private readonly plan: 'quick' | 'fail') {
    super();
  }
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRunsync(m, r, JOB_PLANS[this.plan], false);
    await waitEmulated(r, RETENTION_MS.runsyncDefault + m.marginMs + SECOND_MS);
    await (this.plan === 'quick' ? cancelJob(m, r, job) : retryJob(m, r, job));
  }
  toString() {
    return this.plan === 'quick' ? 'cancel-after-retention' : 'retry-after-retention';
  }
}

/** Legal on purpose: retry of a FAILED job is accepted with the same id and runs again (§3.1). */
class RetryFailedCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRunsync(m, r, JOB_PLANS.fail, false);
    await retryJob(m, r, job);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'retry-of-failed';
  }
}

/** A job past its execution timeout is TIMED_OUT (never COMPLETED), and retry takes it back (§2.1, §3.1). */
class TimeoutThenRetryCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRun(m, r, JOB_PLANS.timeout);
    await waitEmulated(r, JOB_PLANS.timeout.runMs + JOB_PLANS.slow.runMs + m.marginMs);
    await observeStatus(m, r, job);
    await retryJob(m, r, job);
  }
  toString() {
    return 'timeout-then-retry';
  }
}

/** §2.1 ttl deletes a job in any state, also mid-execution: 404 once it has run out. */
class TtlExpiryCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRun(m, r, JOB_PLANS['short-ttl']);
    await waitEmulated(r, JOB_PLANS['short-ttl'].ttlMs + m.marginMs + SECOND_MS);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'ttl-expiry';
  }
}

/** §4.1 /status?ttl= sets the job's ttl: a running job given the shortest ttl is gone once it has run out. */
class StatusTtlCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRun(m, r, JOB_PLANS.slow);
    await observeStatus(m, r, job, TTL_MS.min);
    await waitEmulated(r, TTL_MS.min + m.marginMs + SECOND_MS);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'status-ttl-expiry';
  }
}

/** §2.2 a /runsync result is still there halfway through its retention window. */
class WithinRetentionCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRunsync(m, r, JOB_PLANS.quick, false);
    await waitEmulated(r, RETENTION_MS.runsyncDefault / 2 + 5 * SECOND_MS);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'status-within-retention';
  }
}

/** §3.1 "Purge removes queued jobs only; jobs in progress continue." */
class PurgeWhileRunningCommand extends Base {
  protected async act(m: JobModel, r: ModelReal) {
    const job = await submitRun(m, r, JOB_PLANS.slow);
    await waitEmulated(r, 2 * SECOND_MS);
    await observeStatus(m, r, job);
    await purgeQueue(m, r);
    await observeStatus(m, r, job);
  }
  toString() {
    return 'purge-while-running';
  }
}

const plan = fc.constantFrom(...PLAN_NAMES);
const pick = fc.nat({ max: 7 });

/** The command arbitraries, repeated for weight (fc.commands draws uniformly among them). */
export function commandArbitraries(): fc.Arbitrary<ModelCommand>[] {
  const run = plan.map((p): ModelCommand => new RunCommand(p));
  const runsync = fc.tuple(plan, fc.boolean()).map(([p, w]): ModelCommand => new RunsyncCommand(p, w));
  const status = pick.map((i): ModelCommand => new StatusCommand(i));
  const cancel = pick.map((i): ModelCommand => new CancelCommand(i));
  const retry = pick.map((i): ModelCommand => new RetryCommand(i));
  const wait = fc.constantFrom(...WAITS_MS).map((ms): ModelCommand => new WaitCommand(ms));
  return [
    run, run,
    runsync, runsync,
    status, status, status,
    cancel, cancel,
    retry, retry,
    wait, wait,
    pick.map((i): ModelCommand => new StreamCommand(i)),
    fc.constant<ModelCommand>(new PurgeCommand()),
    fc.constant<ModelCommand>(new HealthCommand()),
    fc.uuid({ version: 4 }).map((id): ModelCommand => new UnknownStatusCommand(id)),
    fc.stringMatching(/^[a-z][a-z0-9]{5,11}$/).map((id): ModelCommand => new UnknownEndpointCommand(`qbench-nx-${id}`)),
    pick.map((i): ModelCommand => new NoKeyCommand(i)),
    fc.constant<ModelCommand>(new RetryCompletedCommand()),
    fc.constant<ModelCommand>(new RetryCancelledCommand()),
    fc.constantFrom('quick' as const, 'fail' as const).map((p): ModelCommand => new AfterRetentionCommand(p)),
    fc.constant<ModelCommand>(new RetryFailedCommand()),
    fc.constant<ModelCommand>(new TimeoutThenRetryCommand()),
    fc.constant<ModelCommand>(new TtlExpiryCommand()),
    fc.constant<ModelCommand>(new StatusTtlCommand()),
    fc.constant<ModelCommand>(new WithinRetentionCommand()),
    fc.constant<ModelCommand>(new PurgeWhileRunningCommand()),
  ];
}
