// One queue-based endpoint: its jobs, queue, lifecycle timers and workers. Implements the
// §3.1 state table (with its unstated service rows from src/spec/job-states.ts), §2.1
// ttl and execution timeout, §2.2 retention, §2.4 health and the §6 webhook trigger.
// Every duration runs on the injected clock. Fault switches of the job lifecycle live here.
// The deployment model adds its service overhead before a job joins the queue and its dispatch
// delay before a worker starts it; in both the job is IN_QUEUE but held out of the queue.
import { RETENTION_MS, RETRYABLE_STATES, TTL_MS, EXECUTION_TIMEOUT_MS, isTerminal } from '../../spec/index.js';
import type { JobState } from '../../spec/index.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { FaultSet } from '../faults.js';
import { Job, type StoredChunk, type SubmitKind } from './job.js';
import type { Handler, HandlerContext, HandlerOutcome } from './handlers/types.js';
import { WorkerPool, type PoolSettings, type Worker } from './worker-pool.js';
import type { WebhookDispatcher } from './webhooks.js';
import type { EndpointRateLimiter } from './rate-limiter.js';
import { toChunks } from './stream-chunks.js';
import { randomJobId } from './job-ids.js';
import { JobQueue } from './job-queue.js';
import { WorkerStops } from './worker-stops.js';
import { resolveDeployment } from '../../deployment/index.js';
import { DeploymentModel } from './deployment-model.js';
import { modelledInput, type TimedRunContext } from './handlers/timed-handler.js';

export interface JobCounters {
  submitted: number;
  completed: number;
  /** FAILED and TIMED_OUT endings (timedOut is the subset). */
  failed: number;
  timedOut: number;
  cancelled: number;
  retried: number;
  purged: number;
  /** Jobs deleted by ttl while queued or running. */
  expired: number;
}

export interface EndpointDeps {
  readonly id: string;
  readonly clock: Clock;
  readonly faults: FaultSet;
  readonly webhooks: WebhookDispatcher;
  readonly handler: Handler;
  readonly limiter: EndpointRateLimiter;
  readonly pool: PoolSettings;
  readonly streamChunkBytes: () => number;
  readonly llm: HandlerContext['llm'];
  /** The deployment model (timings, billing); absent: one built from `pool` with no timing model beyond its cold start. */
  readonly model?: DeploymentModel | undefined;
  /** Told of every job a worker starts (the simulator's figures); absent on the HTTP emulator. */
  readonly observer?: EndpointObserver | undefined;
  /**
   * false: a job is forgotten as soon as it ends, with no §2.2 retention (nobody can ask for its
   * record: the discrete-event mode reads what it needs in EndpointObserver.jobEnded). Retention
   * only keeps an ended job readable, so no timing, scaling or billing figure depends on it.
   * Default true (the service's behaviour).
   */
  readonly retainEndedJobs?: boolean | undefined;
}

/** What the discrete-event mode watches of an endpoint beyond its job records. */
export interface EndpointObserver {
  /** `job` went IN_PROGRESS on `worker` (for the first time or again after a retry). */
  jobStarted(job: Job, worker: Worker): void;
  /** `job` reached a terminal state (its record final: endedAtMs, startedAtMs, queuedAtMs set). */
  jobEnded?(job: Job): void;
  /** `job`'s worker streamed `output` now (before the 1 MB split): the LLM figures' token times. */
  chunkEmitted?(job: Job, output: unknown): void;
}

/** A job held out of the queue: joining it after the service overhead (no worker), or being handed to `worker`. */
class Held {
  timer: TimerHandle | undefined = undefined;
  constructor(
    readonly job: Job,
    readonly worker: Worker | undefined,
  ) {}
}

export interface SubmitOptions {
  readonly input: Record<string, unknown>;
  readonly webhook?: string | undefined;
  readonly s3Config?: Record<string, unknown> | undefined;
  readonly policy?: { executionTimeout?: number | undefined; ttl?: number | undefined; lowPriority?: boolean | undefined } | undefined;
  /** /runsync `wait` when the client gave one (it lengthens retention, see retentionFor). */
  readonly waitMs?: number | undefined;
}

export type CancelResult = { ok: true; id: string; status: 'CANCELLED' } | { ok: false; reason: 'not-found' } | { ok: false; reason: 'not-cancellable'; status: JobState };
export type RetryResult = { ok: true; id: string; status: 'IN_QUEUE' } | { ok: false; reason: 'not-found' } | { ok: false; reason: 'not-retryable'; status: JobState };

export interface StreamTake {
  /** A §3.1 state as the answers spell it (statusWord). */
  status: string;
  stream: StoredChunk[];
}

const NO_CHUNKS: StoredChunk[] = [];

function isPromiseLike<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** The HandlerContext of one job on one simulated worker, and its modelled run's (a class: no closures per job). */
class SimulatedRun implements HandlerContext, TimedRunContext {
  constructor(
    private readonly ep: QueueEndpoint,
    private readonly job: Job,
    private readonly worker: Worker,
    private readonly attempt: number,
  ) {}

  get clock(): Clock {
    return this.ep.clock;
  }

  get jobId(): string {
    return this.job.id;
  }

  get input(): Record<string, unknown> {
    return this.job.input;
  }

  get runTimer(): TimerHandle | undefined {
    return this.job.runTimer;
  }

  set runTimer(t: TimerHandle | undefined) {
    this.job.runTimer = t;
  }

  done(outcome: HandlerOutcome): void {
    this.ep.finish(this.job, this.attempt, outcome);
  }

  get llm(): HandlerContext['llm'] {
    return this.ep.llm;
  }

  /** Made on first use (most load-test jobs never sleep); aborted at once for a stopped job. */
  get signal(): AbortSignal {
    if (!this.ep.current(this.job, this.attempt)) return AbortSignal.abort(new Error('job stopped'));
    this.job.abort ??= new AbortController();
    return this.job.abort.signal;
  }

  emit(output: unknown, metrics?: Record<string, unknown>): void {
    this.ep.emitChunk(this.job, this.attempt, output, metrics);
  }

  progress(output: unknown): void {
    this.ep.progress(this.job, this.attempt, output);
  }

  workerJobs(): number {
    return this.worker.jobs.size;
  }

  pendingJobs(): number {
    return this.ep.queueSize;
  }

  setKvTokens(tokens: number): number {
    return this.ep.pool.setKv(this.worker, this.job.id, tokens);
  }
}

export class QueueEndpoint {
  readonly id: string;
  readonly jobs = new Map<string, Job>();
  private readonly queue = new JobQueue();
  /** IN_QUEUE jobs out of the queue for a while (see Held). */
  private readonly held = new Map<Job, Held>();
  private queuedNormal = 0;
  private runningJobs = 0;
  readonly pool: WorkerPool;
  readonly limiter: EndpointRateLimiter;
  readonly counters: JobCounters = { submitted: 0, completed: 0, failed: 0, timedOut: 0, cancelled: 0, retried: 0, purged: 0, expired: 0 };
  private dispatching = false;
  /** Template binding (§4.2 rolling releases). */
  templateId: string | undefined;

  readonly model: DeploymentModel;

  constructor(private readonly deps: EndpointDeps) {
    this.id = deps.id;
    this.limiter = deps.limiter;
    this.model = deps.model ?? new DeploymentModel(resolveDeployment(deps.id, deps.pool, undefined));
    this.pool = new WorkerPool(deps.clock, deps.id, deps.pool, () => this.dispatch(), this.model, {
      inProgress: () => this.runningJobs + this.held.size - this.arriving,
      queuedSince: (cutoffMs, cap) => this.queue.countNormalSince(cutoffMs, cap),
    });
    this.stops = new WorkerStops(deps.clock);
    this.pool.autoscale(0);
  }

  get clock(): Clock {
    return this.deps.clock;
  }

  get llm(): HandlerContext['llm'] {
    return this.deps.llm;
  }

  private has(f: Parameters<FaultSet['has']>[0]): boolean {
    return this.deps.faults.has(f);
  }

  /** §2.2 retention; /runsync: 1 min, or the given `wait` clamped to 1..5 min. */
  retentionFor(kind: SubmitKind, waitMs: number | undefined): number {
    let ms: number;
    if (kind === 'run' || this.has('runsync-long-retention')) ms = RETENTION_MS.run;
    else ms = waitMs === undefined ? RETENTION_MS.runsyncDefault : Math.min(RETENTION_MS.runsyncMax, Math.max(RETENTION_MS.runsyncDefault, waitMs));
    return this.has('retention-halved') ? ms / 2 : ms;
  }

  submit(kind: SubmitKind, o: SubmitOptions): Job {
    const now = this.clock.now();
    const id = randomJobId(kind === 'runsync' && !this.has('wrong-sync-id-prefix') ? 'sync-' : '', kind === 'run' ? '-e1' : '');
    const job = new Job({
      id,
      kind,
      input: o.input,
      webhook: o.webhook,
      s3Config: o.s3Config,
      lowPriority: o.policy?.lowPriority === true,
      executionTimeoutMs: o.policy?.executionTimeout ?? EXECUTION_TIMEOUT_MS.defaultValue,
      submittedAtMs: now,
      ttlMs: o.policy?.ttl ?? TTL_MS.defaultValue,
      retentionMs: this.retentionFor(kind, o.waitMs),
    });
    this.jobs.set(id, job);
    this.counters.submitted += 1;
    const overheadMs = this.model.timing.overheadMs();
    if (overheadMs > 0) {
      // The service's own overhead: the job joins the queue (and delayTime starts) this much later.
      job.queuedAtMs = now + overheadMs;
      this.hold(job, overheadMs, undefined);
    } else {
      this.enqueue(job);
    }
    // The ttl timer is armed after the job's first continuations: a job that ends at once
    // (in the call, or within those continuations) gets its one expiry timer (min of ttl and
    // retention) from settle() instead.
    if (job.expiryTimer === undefined) this.clock.defer(this.armFirstExpiry, job);
    return job;
  }

  private readonly armFirstExpiry = (job: Job): void => {
    if (this.jobs.get(job.id) === job && job.expiryTimer === undefined) this.armExpiry(job);
  };

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (!job.lowPriority) this.queuedNormal += 1;
    this.dispatch();
    if (this.queueWaiters.size > 0 && this.queue.has(job)) {
      const ws = [...this.queueWaiters];
      this.queueWaiters.clear();
      for (const fn of ws) fn();
    }
  }

  /** Pulling (external) workers waiting for a job to be queued. */
  private readonly queueWaiters = new Set<() => void>();

  /** Resolve when a job is queued, `emulatedMs` pass or `signal` aborts. */
  waitForQueued(emulatedMs: number, signal: AbortSignal): Promise<void> {
    if (this.queue.size > 0 || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        timer.cancel();
        this.queueWaiters.delete(finish);
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const timer = this.clock.setTimer(emulatedMs, finish);
      signal.addEventListener('abort', finish, { once: true });
      this.queueWaiters.add(finish);
    });
  }

  /** Jobs held before joining the queue (the overhead), a part of `held`. */
  private arriving = 0;

  /** Hold `job` out of the queue for `ms`: then it joins the queue (no worker) or starts on `worker`. */
  private hold(job: Job, ms: number, worker: Worker | undefined): void {
    if (worker === undefined) this.arriving += 1;
    const h = new Held(job, worker);
    h.timer = this.clock.setTimerFor(ms, this.onHoldOver, h);
    this.held.set(job, h);
  }

  /** A hold is over (one function for every hold, so that a held job costs no closure). */
  private readonly onHoldOver = (h: Held): void => {
    const { job, worker } = h;
    this.held.delete(job);
    if (worker === undefined) {
      this.arriving -= 1;
      job.queuedAtMs = this.clock.now();
      this.enqueue(job);
    } else if (worker.jobs.has(job.id) && this.pool.workers.has(worker.id)) {
      this.start(job, worker);
    } else {
      // Its worker died while the job was on the way: back to the queue.
      this.enqueue(job);
    }
  };

  /** End a hold early (cancel, expiry, purge); a reserved worker slot frees. */
  private unhold(job: Job): boolean {
    const h = this.held.get(job);
    if (h === undefined) return false;
    h.timer?.cancel();
    this.held.delete(job);
    if (h.worker === undefined) this.arriving -= 1;
    else this.pool.release(h.worker, job.id);
    return true;
  }

  private dequeue(job: Job): boolean {
    if (this.held.size > 0 && this.unhold(job)) return true;
    if (!this.queue.remove(job)) return false;
    if (!job.lowPriority) this.queuedNormal -= 1;
    return true;
  }

  /** Hand queued jobs to free simulated workers, then let the autoscaler look at what is left. */
  dispatch(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (;;) {
        while (this.queue.size > 0) {
          const w = this.pool.freeSimulated();
          if (!w) break;
          const job = this.queue.peek() as Job;
          this.dequeue(job);
          this.handTo(job, w);
        }
        // Workers without a cold start take jobs at once.
        if (this.pool.autoscale(this.queuedNormal) === 0 || this.queue.size === 0) break;
      }
    } finally {
      this.dispatching = false;
    }
  }

  /** Oldest queued job for a pulling (external) worker, or undefined. */
  takeNext(): Job | undefined {
    const job = this.queue.peek();
    if (job === undefined) return undefined;
    this.dequeue(job);
    return job;
  }

  /** A simulated worker takes `job`: it starts after the model's dispatch delay, its slot reserved meanwhile. */
  private handTo(job: Job, w: Worker): void {
    const ms = this.model.timing.dispatchMs();
    if (ms <= 0) return this.start(job, w);
    this.pool.assign(w, job);
    this.hold(job, ms, w);
  }

  /** IN_QUEUE -> IN_PROGRESS on `w`. */
  start(job: Job, w: Worker): void {
    const now = this.clock.now();
    job.status = 'IN_PROGRESS';
    job.startedAtMs = now;
    job.workerId = w.id;
    this.runningJobs += 1;
    // A retried job taken again: the stop owed for its earlier attempt is moot, and that attempt's
    // worker no longer holds it.
    const owed = this.stops.remove(job.id);
    const holder = owed === undefined ? undefined : this.pool.workers.get(owed.workerId);
    if (holder) this.pool.release(holder, job.id);
    this.pool.assign(w, job);
    this.deps.observer?.jobStarted(job, w);
    this.notify(job);
    const attempt = job.attempt;
    const runEndsInMs = w.kind === 'simulated' ? this.runSimulated(job, w) : Infinity;
    // Armed after the handler's first continuation: a handler that ends at once (most jobs of a
    // load test) never costs a timer, nor does a modelled run that ends before its timeout would.
    if (!this.has('execution-timeout-ignored') && runEndsInMs >= job.executionTimeoutMs && this.current(job, attempt)) this.clock.defer(this.armExecTimeout, job);
  }

  /** The execution timeout of a running job, due executionTimeoutMs after its start. */
  private readonly armExecTimeout = (job: Job): void => {
    if (this.jobs.get(job.id) !== job || job.status !== 'IN_PROGRESS' || job.execTimer) return;
    job.execTimer = this.clock.setTimerFor((job.startedAtMs as number) + job.executionTimeoutMs - this.clock.now(), this.onExecTimeout, job);
  };

  private readonly onExecTimeout = (job: Job): void => {
    job.execTimer = undefined;
    if (job.status !== 'IN_PROGRESS') return;
    this.settle(job, 'TIMED_OUT', undefined, `job exceeded its executionTimeout of ${job.executionTimeoutMs} ms`);
  };

  /** Run `job` on simulated worker `w`; answers the ms until the run ends when known (a modelled run), else Infinity. */
  private runSimulated(job: Job, w: Worker): number {
    const attempt = job.attempt;
    const ctx = new SimulatedRun(this, job, w, attempt);
    const engine = this.model.engine;
    // The engine's run: one step timer per worker, the job's tokens at each step's end (engine-run.ts).
    if (engine !== undefined && engine.accepts(job.input)) return engine.run(ctx, w.id);
    const timed = this.model.timed;
    if (timed !== undefined && modelledInput(job.input)) {
      // The model's timings: timer steps on the clock, ending in ctx.done (see timed-handler.ts).
      return timed.run(ctx);
    }
    let out: Promise<HandlerOutcome> | HandlerOutcome;
    try {
      out = this.deps.handler(job.input, ctx);
    } catch (e) {
      this.finish(job, attempt, { kind: 'error', error: e instanceof Error ? e.message : String(e), refresh: false });
      return 0;
    }
    // An outcome answered in the call ends the job now, inside dispatch (which does not re-enter).
    if (!isPromiseLike(out)) {
      this.finish(job, attempt, out);
      return 0;
    }
    out.then(
      (outcome) => this.finish(job, attempt, outcome),
      (e: unknown) => {
        // A stopped job's handler rejects from its aborted sleep: nothing to record.
        if (!this.current(job, attempt)) return;
        this.finish(job, attempt, { kind: 'error', error: e instanceof Error ? e.message : String(e), refresh: false });
      },
    );
    return Infinity;
  }

  /** True while `job` is still running the given attempt (stale handler calls are ignored). */
  current(job: Job, attempt: number): boolean {
    return this.jobs.get(job.id) === job && job.attempt === attempt && job.status === 'IN_PROGRESS';
  }

  /** A streamed chunk from the job's worker (simulated or external). */
  emitChunk(job: Job, attempt: number, output: unknown, metrics?: Record<string, unknown>): void {
    if (!this.current(job, attempt)) return;
    this.deps.observer?.chunkEmitted?.(job, output);
    const parts = toChunks(output, metrics, this.deps.streamChunkBytes(), !this.has('stream-chunk-oversize'));
    if (job.chunks) for (const c of parts) job.chunks.push(c);
    else job.chunks = parts;
    this.notify(job);
  }

  progress(job: Job, attempt: number, output: unknown): void {
    if (!this.current(job, attempt)) return;
    job.output = output;
    this.notify(job);
  }

  /** The handler of `job` ended (simulated or external worker). */
  finish(job: Job, attempt: number, outcome: HandlerOutcome): void {
    if (!this.current(job, attempt)) return;
    const w = job.workerId === undefined ? undefined : this.pool.workers.get(job.workerId);
    job.abort = undefined;
    switch (outcome.kind) {
      case 'output':
        this.settle(job, 'COMPLETED', outcome.output, undefined, true);
        break;
      case 'error':
        this.settle(job, 'FAILED', undefined, outcome.error, true);
        break;
      case 'crash':
        this.settle(job, 'FAILED', undefined, outcome.error, true);
        if (w) this.crashWorker(w, outcome.error);
        break;
    }
    if (w && outcome.kind !== 'crash' && outcome.refresh) this.recycle(w);
  }

  /** A worker is gone (crash, or an external worker that stopped calling): its jobs fail, it leaves the pool. */
  workerGone(w: Worker, error: string): void {
    this.crashWorker(w, error);
  }

  /** The worker process died: its other jobs fail too, and it leaves the pool. */
  private crashWorker(w: Worker, error: string): void {
    for (const other of [...w.jobs.values()]) {
      if (other.status !== 'IN_PROGRESS') continue;
      this.settle(other, 'FAILED', undefined, error, true);
    }
    this.stops.dropWorker(w.id);
    this.pool.remove(w);
    this.dispatch();
  }

  /** refresh_worker: the worker is replaced once its jobs are done. */
  private recycle(w: Worker): void {
    if (!this.pool.workers.has(w.id)) return;
    if (w.jobs.size === 0) this.pool.remove(w);
    else w.state = 'draining';
    this.dispatch();
  }

  /**
   * Abort a running handler and free its worker slot. `byWorker`: the worker itself ended
   * the job, so an external worker needs no stop signal. An external worker is owed a stop
   * instead, and keeps the job (and its slot) until it shows the job gone (confirmStopped).
   */
  private stopExecution(job: Job, byWorker = false): void {
    this.stopHandler(job, 'job stopped');
    if (job.status === 'IN_PROGRESS') this.runningJobs -= 1;
    const w = job.workerId === undefined ? undefined : this.pool.workers.get(job.workerId);
    if (!w) return;
    if (w.kind === 'external' && !byWorker) this.stops.add(job.id, w.id, job.startedAtMs ?? this.clock.now());
    else this.pool.release(w, job.id);
  }

  /** Stops owed to external workers, answered on their job-stop (see worker-stops.ts). */
  readonly stops: WorkerStops;

  /**
   * The external worker `w` no longer runs `jobId` (its heartbeat or its job-done says so):
   * the stop owed for it is settled and the worker's slot frees. False when none was owed.
   */
  confirmStopped(w: Worker, jobId: string): boolean {
    const owed = this.stops.get(jobId);
    if (owed?.workerId !== w.id) return false;
    this.stops.remove(jobId);
    this.pool.release(w, jobId);
    this.dispatch();
    return true;
  }

  /** Move a job into a terminal state; starts retention, fires the webhook, wakes waiters. */
  private settle(job: Job, status: JobState, output: unknown, error: string | undefined, byWorker = false): void {
    if (job.status === 'IN_PROGRESS') this.stopExecution(job, byWorker);
    job.status = status;
    job.endedAtMs = this.clock.now();
    if (output !== undefined) job.output = output;
    job.error = error;
    switch (status) {
      case 'COMPLETED':
        this.counters.completed += 1;
        break;
      case 'FAILED':
        this.counters.failed += 1;
        break;
      case 'TIMED_OUT':
        this.counters.failed += 1;
        this.counters.timedOut += 1;
        break;
      case 'CANCELLED':
        this.counters.cancelled += 1;
        break;
      default:
        break;
    }
    if (job.webhook !== undefined) this.deps.webhooks.send(job.webhook, this.record(job));
    this.deps.observer?.jobEnded?.(job);
    // Forgotten at once (it wakes its waiters to find it gone), or kept for its retention.
    if (this.deps.retainEndedJobs === false) this.teardown(job, 'job ended');
    else {
      this.armExpiry(job);
      this.notify(job);
    }
    this.dispatch();
  }

  /** One expiry timer per job: ttl from submission, or retention once ended, whichever is first. */
  private armExpiry(job: Job): void {
    job.expiryTimer?.cancel();
    job.expiryTimer = undefined;
    let due = this.has('ttl-ignored') ? Infinity : job.submittedAtMs + job.ttlMs;
    if (job.endedAtMs !== undefined && isTerminal(job.status)) due = Math.min(due, job.endedAtMs + job.retentionMs);
    if (due === Infinity) return;
    job.expiryTimer = this.clock.setTimerFor(due - this.clock.now(), this.onExpiry, job);
  }

  /** The expiry timer of every job (one function, so that a retained job holds no closure). */
  private readonly onExpiry = (job: Job): void => {
    job.expiryTimer = undefined;
    this.expire(job);
  };

  /** §2.1/§2.2: the job is deleted in any state; later lookups answer 404. */
  private expire(job: Job): void {
    if (this.jobs.get(job.id) !== job) return;
    if (job.status === 'IN_QUEUE') {
      this.dequeue(job);
      this.counters.expired += 1;
    } else if (job.status === 'IN_PROGRESS') {
      this.stopExecution(job);
      this.counters.expired += 1;
    }
    this.teardown(job, 'job expired');
    this.dispatch();
  }

  /** Abort the job's handler (its sleeps reject with `reason`) and disarm its execution timeout. */
  private stopHandler(job: Job, reason: string): void {
    job.abort?.abort(new Error(reason));
    job.abort = undefined;
    job.runTimer?.cancel();
    job.runTimer = undefined;
    job.execTimer?.cancel();
    job.execTimer = undefined;
  }

  /**
   * The one way a job leaves the endpoint (ttl or retention expiry, purge, reset, close): its
   * handler stopped, its timers disarmed, the job forgotten, and whoever waits on it woken to
   * find it gone. The caller has taken it off the queue or its worker first.
   */
  private teardown(job: Job, reason: string): void {
    this.stopHandler(job, reason);
    job.expiryTimer?.cancel();
    job.expiryTimer = undefined;
    this.jobs.delete(job.id);
    this.notify(job);
  }

  /** Tear down every job, queued or running, and empty the queue (reset, close). */
  private teardownAll(reason: string): void {
    for (const h of this.held.values()) h.timer?.cancel();
    this.held.clear();
    this.arriving = 0;
    for (const job of [...this.jobs.values()]) this.teardown(job, reason);
    this.queue.clear();
    this.queuedNormal = 0;
    this.runningJobs = 0;
  }

  /** /status?ttl=: the job's ttl becomes `ttlMs`, still counted from submission. */
  setTtl(job: Job, ttlMs: number): void {
    if (this.has('status-ttl-ignored')) return;
    job.ttlMs = ttlMs;
    this.armExpiry(job);
  }

  cancel(id: string): CancelResult {
    const job = this.jobs.get(id);
    if (!job) return { ok: false, reason: 'not-found' };
    if (job.status === 'IN_QUEUE') {
      this.dequeue(job);
      this.settle(job, 'CANCELLED', undefined, undefined);
    } else if (job.status === 'IN_PROGRESS') {
      if (!this.has('cancel-does-not-stop-running')) this.settle(job, 'CANCELLED', undefined, undefined);
    } else if (job.status !== 'CANCELLED') {
      return { ok: false, reason: 'not-cancellable', status: job.status };
    }
    return { ok: true, id, status: 'CANCELLED' };
  }

  retry(id: string): RetryResult {
    const job = this.jobs.get(id);
    if (!job) return { ok: false, reason: 'not-found' };
    const allowed =
      RETRYABLE_STATES.has(job.status) ||
      (job.status === 'COMPLETED' && this.has('retry-from-completed')) ||
      (job.status === 'CANCELLED' && this.has('retry-from-cancelled'));
    if (!allowed) return { ok: false, reason: 'not-retryable', status: job.status };
    job.attempt += 1;
    job.status = 'IN_QUEUE';
    if (!this.has('retry-keeps-output')) job.output = undefined;
    job.error = undefined;
    job.workerId = undefined;
    job.startedAtMs = undefined;
    job.endedAtMs = undefined;
    job.chunks = undefined;
    job.chunksDelivered = 0;
    job.finalDelivered = false;
    job.queuedAtMs = this.clock.now();
    this.counters.retried += 1;
    this.armExpiry(job);
    this.enqueue(job);
    this.notify(job);
    return { ok: true, id: this.has('retry-new-id') ? randomJobId('', '-e1') : id, status: 'IN_QUEUE' };
  }

  /** §3.1 purge: queued jobs are removed (deleted); jobs in progress continue. */
  purge(): number {
    let removed = 0;
    for (const job of [...this.held.keys(), ...this.queue.toArray()]) {
      this.dequeue(job);
      this.counters.purged += 1;
      this.teardown(job, 'job purged');
      removed += 1;
    }
    if (this.has('purge-removes-running')) {
      for (const job of [...this.jobs.values()]) {
        if (job.status !== 'IN_PROGRESS') continue;
        this.settle(job, 'CANCELLED', undefined, undefined);
        removed += 1;
      }
    }
    this.dispatch();
    return removed;
  }

  /** The record /status, /runsync, status-sync and webhooks answer (§2.2 + WIRE-COMPAT extras). */
  record(job: Job): Record<string, unknown> {
    const r: Record<string, unknown> = { id: job.id, status: this.statusWord(job.status) };
    if (!this.has('timing-fields-missing')) {
      const now = this.clock.now();
      const started = job.startedAtMs;
      // Not below 0: a job still in its service overhead has not joined the queue yet.
      r['delayTime'] = Math.max(0, Math.round((started ?? job.endedAtMs ?? now) - job.queuedAtMs));
      r['executionTime'] = started === undefined ? 0 : Math.round((job.endedAtMs ?? now) - started);
    }
    if (job.workerId !== undefined) r['workerId'] = job.workerId;
    if (job.output !== undefined) r['output'] = job.output;
    if (job.error !== undefined) r['error'] = job.error;
    return r;
  }

  /** A job state as the answers spell it (§3.1; the status-word faults spell it otherwise). */
  statusWord(status: JobState): string {
    if (this.has('status-word-running') && status === 'IN_PROGRESS') return 'RUNNING';
    if (this.has('status-lowercase')) return status.toLowerCase();
    return status;
  }

  /** New chunks since the last call (WIRE-COMPAT /stream); a non-streaming job's output comes once, split. */
  takeStream(job: Job): StreamTake {
    let stream = NO_CHUNKS;
    if (job.chunks && job.chunksDelivered < job.chunks.length) {
      stream = job.chunks.slice(job.chunksDelivered);
      job.chunksDelivered = job.chunks.length;
    } else if (!job.chunks && job.status === 'COMPLETED' && !job.finalDelivered && job.output !== undefined) {
      stream = toChunks(job.output, undefined, this.deps.streamChunkBytes(), !this.has('stream-chunk-oversize'));
      job.finalDelivered = true;
    }
    // The fault: an ended job's stream never says so.
    const status = this.has('stream-outlives-job') && isTerminal(job.status) ? 'IN_PROGRESS' : job.status;
    return { status: this.statusWord(status), stream };
  }

  /** True when a /stream call would get something now. */
  streamReady(job: Job): boolean {
    if (job.chunks && job.chunksDelivered < job.chunks.length) return true;
    return isTerminal(job.status);
  }

  health(): Record<string, unknown> {
    const w = this.pool.counts();
    const c = this.counters;
    return {
      jobs: {
        completed: c.completed,
        failed: c.failed,
        inProgress: this.runningJobs,
        inQueue: this.queue.size + this.held.size + (this.has('health-miscount') ? 1 : 0),
        retried: c.retried,
        cancelled: c.cancelled,
        timedOut: c.timedOut,
        purged: c.purged,
        expired: c.expired,
        submitted: c.submitted,
      },
      workers: { idle: w.idle, running: w.running, initializing: w.initializing, ready: w.ready, throttled: w.throttled, unhealthy: w.unhealthy },
    };
  }

  /** IN_QUEUE jobs: queued, or held (overhead, dispatch). */
  get queueSize(): number {
    return this.queue.size + this.held.size;
  }

  get inProgress(): number {
    return this.runningJobs;
  }

  /** Wake everything waiting on `job` (status-sync, runsync, stream long-polls). */
  private notify(job: Job): void {
    const w = job.waiters;
    if (!w) return;
    job.waiters = undefined;
    for (const fn of w) fn();
  }

  /**
   * Resolve once `pred()` holds, the job is deleted, `emulatedMs` pass or `signal` aborts,
   * whichever is first. Never rejects.
   */
  waitUntil(job: Job, emulatedMs: number, pred: () => boolean, signal?: AbortSignal): Promise<void> {
    if (pred() || this.jobs.get(job.id) !== job || emulatedMs <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        timer.cancel();
        job.waiters?.delete(check);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const check = () => {
        if (done) return;
        if (pred() || this.jobs.get(job.id) !== job) finish();
        else (job.waiters ??= new Set()).add(check);
      };
      const timer = this.clock.setTimer(emulatedMs, finish);
      signal?.addEventListener('abort', finish, { once: true });
      (job.waiters ??= new Set()).add(check);
    });
  }

  /** Every job, newest first, for GET /requests. */
  listJobs(limit: number, status: JobState | undefined): { jobs: Job[]; total: number } {
    const all: Job[] = [];
    for (const j of this.jobs.values()) if (status === undefined || j.status === status) all.push(j);
    all.sort((a, b) => b.submittedAtMs - a.submittedAtMs);
    return { jobs: all.slice(0, limit), total: all.length };
  }

  /** Forget every job and counter; workers back to the configured pool (POST /_qbench/reset). */
  reset(settings: PoolSettings): void {
    this.teardownAll('reset');
    this.stops.clear();
    for (const k of Object.keys(this.counters) as (keyof JobCounters)[]) this.counters[k] = 0;
    this.pool.clear();
    this.model.reset();
    this.pool.settings = settings;
    this.limiter.reset();
    this.pool.autoscale(0);
  }

  /** Stop everything (server close). */
  close(): void {
    this.teardownAll('emulator closed');
    this.stops.close();
    this.pool.clear();
  }
}
