// The queue endpoint's state machine (src/emulator/queue/endpoint.ts) on a ManualClock, with no
// server and no socket: every row of the §3.1 table as src/spec/job-states.ts states it (the
// service rows included), and every timer the endpoint arms (execution timeout, ttl, retention,
// /status?ttl, cold start, idle stop, handler delays, long-poll waits).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import type { FaultName } from '../../../src/emulator/faults.js';
import { QueueEndpoint, type SubmitOptions } from '../../../src/emulator/queue/endpoint.js';
import { mockWorkerHandler } from '../../../src/emulator/queue/handlers/mock-worker.js';
import type { Handler } from '../../../src/emulator/queue/handlers/types.js';
import type { Job, SubmitKind } from '../../../src/emulator/queue/job.js';
import { EndpointRateLimiter, rulesWithOverrides } from '../../../src/emulator/queue/rate-limiter.js';
import { WebhookDispatcher } from '../../../src/emulator/queue/webhooks.js';
import type { PoolSettings } from '../../../src/emulator/queue/worker-pool.js';
import { EXECUTION_TIMEOUT_MS, MINUTE_MS, RETENTION_MS, SECOND_MS, TRANSITIONS, TTL_MS, type JobState, type Transition } from '../../../src/spec/index.js';

/** Records the webhook calls the endpoint makes instead of sending them. */
class RecordingWebhooks extends WebhookDispatcher {
  readonly sent: { url: string; record: unknown }[] = [];
  override send(url: string, record: unknown): void {
    this.sent.push({ url, record });
  }
}

interface HarnessOptions {
  pool?: Partial<PoolSettings>;
  faults?: FaultName[];
  handler?: Handler;
  retainEndedJobs?: boolean;
}

/** One endpoint on a ManualClock at t=0; one warm worker taking one job at a time unless told otherwise. */
function harness(o: HarnessOptions = {}) {
  const clock = new ManualClock(0);
  const faults = new Set<FaultName>(o.faults ?? []);
  const webhooks = new RecordingWebhooks({ clock, faults, maxConcurrent: 1, maxPending: 10, attemptTimeoutMs: 1_000 });
  const limiter = new EndpointRateLimiter({
    nowMs: () => clock.now(),
    scale: () => 1,
    enabled: () => false,
    requestsPerWorker: () => 1,
    rules: () => rulesWithOverrides({}),
    late: false,
    noConcurrencyCap: false,
  });
  const pool: PoolSettings = { min: 1, max: 1, jobsPerWorker: 1, coldStartMs: 0, idleTimeoutMs: 5 * SECOND_MS, scaleUpQueueDepth: 1, simulated: true, ...o.pool };
  const ep = new QueueEndpoint({
    id: 'demo',
    clock,
    faults,
    webhooks,
    handler: o.handler ?? mockWorkerHandler,
    limiter,
    pool,
    streamChunkBytes: () => 1_000_000,
    llm: { kvCacheTokens: 65_536, contentionPerJob: 0.5 },
    retainEndedJobs: o.retainEndedJobs,
  });
  open.push(async () => {
    ep.close();
    await webhooks.close();
  });
  /** Move emulated time on, then let the handlers' continuations (promise jobs) run. */
  const advance = async (ms: number): Promise<void> => {
    clock.advance(ms);
    await drained();
  };
  const submit = async (input: Record<string, unknown>, extra: Partial<SubmitOptions> = {}, kind: SubmitKind = 'run'): Promise<Job> => {
    const job = ep.submit(kind, { input, ...extra });
    await drained();
    return job;
  };
  /** The job's state, or 'deleted' once the endpoint no longer holds it. */
  const state = (job: Job): JobState | 'deleted' => (ep.get(job.id) === job ? job.status : 'deleted');
  return { clock, ep, webhooks, advance, submit, state };
}
type Harness = ReturnType<typeof harness>;

/** Run every queued promise continuation (a handler waking from its sleep, its outcome). */
function drained(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

const RUNNING = { mock_delay: 60 }; // a job that runs for 60 s of emulated time
const COLD = { pool: { min: 0, coldStartMs: 30 * SECOND_MS } }; // the first job waits 30 s for a worker

/** Bring a job into `state`, with the given ttl (the default 24 h when absent). */
async function jobIn(h: Harness, state: JobState, ttl?: number): Promise<Job> {
  const policy = { ttl };
  switch (state) {
    case 'IN_QUEUE':
      return h.submit(RUNNING, { policy });
    case 'IN_PROGRESS':
      return h.submit(RUNNING, { policy });
    case 'COMPLETED':
      return h.submit({ mock_return: 'done' }, { policy });
    case 'FAILED':
      return h.submit({ mock_error: true }, { policy });
    case 'CANCELLED': {
      const job = await h.submit(RUNNING, { policy });
      h.ep.cancel(job.id);
      return job;
    }
    case 'TIMED_OUT': {
      const job = await h.submit(RUNNING, { policy: { ...policy, executionTimeout: EXECUTION_TIMEOUT_MS.min } });
      await h.advance(EXECUTION_TIMEOUT_MS.min);
      return job;
    }
  }
}

/** The endpoint each row needs: IN_QUEUE rows a cold pool (the job waits for its worker). */
function harnessFor(row: Transition): Harness {
  return row.from === 'IN_QUEUE' || (row.from === null && row.trigger === 'run') ? harness(COLD) : harness();
}

/** Apply the row's trigger to `job` (undefined: the trigger creates the job). Returns the job the row is about. */
async function trigger(h: Harness, row: Transition, job: Job | undefined): Promise<Job> {
  switch (row.trigger) {
    case 'run':
      return h.submit(RUNNING);
    case 'runsync': {
      const j = await h.submit({ mock_delay: 2, mock_return: 'out' }, { waitMs: MINUTE_MS }, 'runsync');
      await h.advance(2 * SECOND_MS);
      return j;
    }
    case 'cancel':
      expect(h.ep.cancel((job as Job).id)).toMatchObject({ ok: true, status: 'CANCELLED' });
      return job as Job;
    case 'retry':
      // The only worker busy with another job: the retried job waits in the queue.
      await h.submit(RUNNING);
      expect(h.ep.retry((job as Job).id)).toMatchObject({ ok: true, id: (job as Job).id, status: 'IN_QUEUE' });
      return job as Job;
    case 'purge':
      h.ep.purge();
      return job as Job;
    case 'ttl-expired':
      await h.advance(TTL_MS.min - h.clock.now());
      return job as Job;
    case 'worker-start':
      await h.advance(COLD.pool.coldStartMs);
      return job as Job;
    case 'worker-complete':
      await h.advance(RUNNING.mock_delay * SECOND_MS);
      return job as Job;
    case 'worker-fail': {
      // A running job whose handler raises once its delay has passed.
      const j = await h.submit({ mock_delay: 1, mock_error: true });
      expect(h.state(j)).toBe('IN_PROGRESS');
      await h.advance(SECOND_MS);
      return j;
    }
    case 'execution-timeout': {
      const j = await h.submit(RUNNING, { policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } });
      expect(h.state(j)).toBe('IN_PROGRESS');
      await h.advance(EXECUTION_TIMEOUT_MS.min);
      return j;
    }
  }
}

describe('§3.1: every row of the job state table', () => {
  it.each(TRANSITIONS.map((row) => ({ ...row, name: `${row.from ?? '(none)'} --${row.trigger}--> ${row.to}` })))('$name', async (row) => {
    const h = harnessFor(row);
    const createdByTrigger = row.from === null || row.trigger === 'worker-fail' || row.trigger === 'execution-timeout';
    const before = createdByTrigger ? undefined : await jobIn(h, row.from as JobState, row.trigger === 'ttl-expired' ? TTL_MS.min : undefined);
    if (before) expect(h.state(before)).toBe(row.from);
    const job = await trigger(h, row, before);
    expect(h.state(job)).toBe(row.to);
  });
});

describe('what each transition also does', () => {
  it('run: the id carries the -e1 suffix; the job waits IN_QUEUE until a worker is ready, then delayTime is the wait', async () => {
    const h = harness(COLD);
    const job = await h.submit({ mock_delay: 1 });
    expect(job.id).toMatch(/^[0-9a-f-]{36}-e1$/);
    expect(h.ep.health()).toMatchObject({ jobs: { inQueue: 1, inProgress: 0 }, workers: { initializing: 1 } });
    await h.advance(30 * SECOND_MS - 1);
    expect(h.state(job)).toBe('IN_QUEUE');
    await h.advance(1);
    expect(h.state(job)).toBe('IN_PROGRESS');
    expect(h.ep.record(job)).toMatchObject({ status: 'IN_PROGRESS', delayTime: 30 * SECOND_MS, executionTime: 0 });
    await h.advance(SECOND_MS);
    expect(h.ep.record(job)).toMatchObject({ status: 'COMPLETED', delayTime: 30 * SECOND_MS, executionTime: SECOND_MS, output: 'Hello World!' });
  });

  it('runsync: the id is sync-<uuid>; a waiter resolves when the job completes, with its output', async () => {
    const h = harness();
    const job = await h.submit({ mock_delay: 3, mock_return: { a: 1 } }, {}, 'runsync');
    expect(job.id).toMatch(/^sync-[0-9a-f-]{36}$/);
    let woke = false;
    void h.ep.waitUntil(job, MINUTE_MS, () => job.status === 'COMPLETED').then(() => (woke = true));
    await h.advance(3 * SECOND_MS - 1);
    expect(woke).toBe(false);
    await h.advance(1);
    expect(woke).toBe(true);
    expect(h.ep.record(job)).toMatchObject({ status: 'COMPLETED', output: { a: 1 }, executionTime: 3 * SECOND_MS });
  });

  it('cancel while queued: the job never starts, even when a worker becomes ready', async () => {
    const h = harness(COLD);
    const job = await h.submit({ mock_return: 'never' });
    h.ep.cancel(job.id);
    await h.advance(MINUTE_MS);
    expect(h.ep.record(job)).toMatchObject({ status: 'CANCELLED', executionTime: 0 });
    expect(job.startedAtMs).toBeUndefined();
    expect(h.ep.health()).toMatchObject({ jobs: { cancelled: 1, inQueue: 0, completed: 0 } });
  });

  it('cancel while running stops the execution: the handler is aborted and the worker takes the next job', async () => {
    const h = harness();
    const first = await h.submit(RUNNING);
    const second = await h.submit({ mock_return: 'next' });
    expect(h.state(second)).toBe('IN_QUEUE');
    const signal = first.abort?.signal;
    h.ep.cancel(first.id);
    expect(signal?.aborted).toBe(true);
    await h.advance(0);
    expect(h.state(second)).toBe('COMPLETED');
    // The cancelled job's handler, aborted, never ends it a second time.
    await h.advance(RUNNING.mock_delay * SECOND_MS);
    expect(h.ep.record(first)).toMatchObject({ status: 'CANCELLED' });
    expect(h.ep.health()).toMatchObject({ jobs: { cancelled: 1, completed: 1, inProgress: 0 } });
  });

  it('cancel is refused from COMPLETED, FAILED and TIMED_OUT; cancelling a CANCELLED job answers CANCELLED again', async () => {
    for (const s of ['COMPLETED', 'FAILED', 'TIMED_OUT'] as const) {
      const h = harness();
      const job = await jobIn(h, s);
      expect(h.ep.cancel(job.id)).toEqual({ ok: false, reason: 'not-cancellable', status: s });
      expect(h.state(job)).toBe(s);
    }
    const h = harness();
    const job = await jobIn(h, 'CANCELLED');
    expect(h.ep.cancel(job.id)).toEqual({ ok: true, id: job.id, status: 'CANCELLED' });
    expect(h.ep.cancel('no-such-job')).toEqual({ ok: false, reason: 'not-found' });
  });

  it('retry: same id, original input reused, previous output and error removed; the job runs again', async () => {
    const h = harness();
    // A progress update at 4 s becomes the output; the job times out at 5 s.
    const input = { mock_delay: 8, mock_progress: ['half'] };
    const job = await h.submit(input, { policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } });
    // Two steps: a handler's continuation runs once advance() returns, after every timer it passed.
    await h.advance(4 * SECOND_MS);
    expect(h.ep.record(job)).toMatchObject({ status: 'IN_PROGRESS', output: 'half' });
    await h.advance(SECOND_MS);
    expect(h.ep.record(job)).toMatchObject({ status: 'TIMED_OUT', output: 'half', error: 'job exceeded its executionTimeout of 5000 ms' });
    const blocker = await h.submit(RUNNING);
    expect(h.ep.retry(job.id)).toEqual({ ok: true, id: job.id, status: 'IN_QUEUE' });
    expect(h.ep.record(job)).toEqual({ id: job.id, status: 'IN_QUEUE', delayTime: 0, executionTime: 0 });
    expect(job.input).toBe(input);
    h.ep.cancel(blocker.id);
    await h.advance(0);
    expect(h.state(job)).toBe('IN_PROGRESS');
    expect(job.input).toBe(input);
    expect(h.ep.health()).toMatchObject({ jobs: { retried: 1, timedOut: 1, submitted: 2, cancelled: 1 } });
  });

  it('retry is accepted only from FAILED or TIMED_OUT', async () => {
    for (const s of ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const) {
      const h = s === 'IN_QUEUE' ? harness(COLD) : harness();
      const job = await jobIn(h, s);
      expect(h.ep.retry(job.id), s).toEqual({ ok: false, reason: 'not-retryable', status: s });
      expect(h.state(job)).toBe(s);
    }
    expect(harness().ep.retry('no-such-job')).toEqual({ ok: false, reason: 'not-found' });
  });

  it('a handler of an earlier attempt that ignores its abort cannot end the retried job', async () => {
    // First call answers after 10 s, the retry's after 3 s; neither listens to its signal.
    const delaysMs = [10 * SECOND_MS, 3 * SECOND_MS];
    let calls = 0;
    const handler: Handler = (_input, ctx) => {
      const n = calls++;
      return new Promise((resolve) => ctx.clock.setTimer(delaysMs[n] ?? 0, () => resolve({ kind: 'output', output: `attempt ${n}`, refresh: false })));
    };
    const h = harness({ handler, pool: { jobsPerWorker: 2 } });
    const job = await h.submit({}, { policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } });
    await h.advance(EXECUTION_TIMEOUT_MS.min);
    expect(h.state(job)).toBe('TIMED_OUT');
    h.ep.retry(job.id);
    await h.advance(0);
    expect(job.attempt).toBe(1);
    await h.advance(3 * SECOND_MS);
    expect(h.ep.record(job)).toMatchObject({ status: 'COMPLETED', output: 'attempt 1' });
    await h.advance(2 * SECOND_MS);
    expect(calls).toBe(2);
    expect(h.ep.record(job)).toMatchObject({ status: 'COMPLETED', output: 'attempt 1' });
    expect(h.ep.health()).toMatchObject({ jobs: { completed: 1, timedOut: 1 } });
  });

  it('purge removes queued jobs only; jobs in progress continue', async () => {
    const h = harness();
    const running = await h.submit({ mock_delay: 5 });
    const queued = [await h.submit({}), await h.submit({})];
    expect(h.ep.purge()).toBe(2);
    for (const q of queued) expect(h.state(q)).toBe('deleted');
    expect(h.state(running)).toBe('IN_PROGRESS');
    await h.advance(5 * SECOND_MS);
    expect(h.state(running)).toBe('COMPLETED');
    expect(h.ep.health()).toMatchObject({ jobs: { purged: 2, completed: 1, inQueue: 0 } });
  });

  it('worker failure: a handler error fails the job with its message; a crash fails every job of the worker and removes it', async () => {
    const h = harness({ pool: { jobsPerWorker: 2 } });
    const other = await h.submit({ mock_delay: 10 });
    const crash = await h.submit({ mock_delay: 1, mock_crash: true });
    const worker = crash.workerId;
    expect(other.workerId).toBe(worker);
    await h.advance(SECOND_MS);
    expect(h.ep.record(crash)).toMatchObject({ status: 'FAILED', error: 'worker exited unexpectedly (mock_crash)' });
    expect(h.ep.record(other)).toMatchObject({ status: 'FAILED', error: 'worker exited unexpectedly (mock_crash)' });
    expect(h.ep.pool.workers.has(worker as string)).toBe(false);
    // The pool keeps its minimum: a fresh worker takes the next job.
    const next = await h.submit({ mock_return: 1 });
    expect(h.state(next)).toBe('COMPLETED');
    expect(next.workerId).not.toBe(worker);
  });

  it('a webhook is called once per ending, with the job record', async () => {
    const h = harness();
    const job = await h.submit({ mock_return: 'x' }, { webhook: 'http://127.0.0.1:9/hook' });
    expect(h.webhooks.sent).toEqual([{ url: 'http://127.0.0.1:9/hook', record: h.ep.record(job) }]);
    await h.submit({ mock_return: 'y' });
    expect(h.webhooks.sent).toHaveLength(1);
  });
});

describe('timers', () => {
  it('the execution timeout counts from the start, not from submission, and stops the handler', async () => {
    const h = harness(COLD);
    const job = await h.submit(RUNNING, { policy: { executionTimeout: 8 * SECOND_MS } });
    await h.advance(30 * SECOND_MS);
    expect(h.state(job)).toBe('IN_PROGRESS');
    const signal = job.abort?.signal;
    await h.advance(8 * SECOND_MS - 1);
    expect(h.state(job)).toBe('IN_PROGRESS');
    await h.advance(1);
    expect(h.ep.record(job)).toMatchObject({ status: 'TIMED_OUT', executionTime: 8 * SECOND_MS, error: 'job exceeded its executionTimeout of 8000 ms' });
    expect(signal?.aborted).toBe(true);
    expect(h.ep.health()).toMatchObject({ jobs: { timedOut: 1, failed: 1, inProgress: 0 } });
  });

  it('the default execution timeout is 10 minutes (§2.1)', async () => {
    const h = harness();
    const job = await h.submit({ mock_delay: 3600 });
    await h.advance(EXECUTION_TIMEOUT_MS.defaultValue - 1);
    expect(h.state(job)).toBe('IN_PROGRESS');
    await h.advance(1);
    expect(h.state(job)).toBe('TIMED_OUT');
  });

  it('a job that ends before its timeout leaves no execution timer behind', async () => {
    const h = harness();
    const job = await h.submit({ mock_delay: 1 });
    expect(job.execTimer).toBeDefined();
    await h.advance(SECOND_MS);
    expect(h.state(job)).toBe('COMPLETED');
    expect(job.execTimer).toBeUndefined();
    // What is left: the job's expiry and the idle worker's stop check.
    expect(h.clock.pendingTimers()).toBe(2);
  });

  it('ttl counts from submission and covers queue and execution time: a running job is deleted at once, its handler stopped', async () => {
    const h = harness(COLD);
    const job = await h.submit(RUNNING, { policy: { ttl: 40 * SECOND_MS } });
    await h.advance(30 * SECOND_MS);
    expect(h.state(job)).toBe('IN_PROGRESS');
    const signal = job.abort?.signal;
    await h.advance(10 * SECOND_MS - 1);
    expect(h.state(job)).toBe('IN_PROGRESS');
    await h.advance(1);
    expect(h.state(job)).toBe('deleted');
    expect(signal?.aborted).toBe(true);
    expect(h.ep.health()).toMatchObject({ jobs: { expired: 1, inProgress: 0, completed: 0 } });
    expect(h.ep.pool.busyCount).toBe(0);
  });

  it('the default ttl is 24 hours: a job queued that long is deleted (§2.1)', async () => {
    const h = harness({ pool: { min: 0, max: 0 } });
    const job = await h.submit({});
    await h.advance(TTL_MS.defaultValue - 1);
    expect(h.state(job)).toBe('IN_QUEUE');
    await h.advance(1);
    expect(h.state(job)).toBe('deleted');
    expect(h.ep.queueSize).toBe(0);
  });

  it('retention of a /run result: 30 minutes after it ended (§2.2)', async () => {
    const h = harness();
    const job = await h.submit({ mock_delay: 2 });
    await h.advance(2 * SECOND_MS);
    expect(h.state(job)).toBe('COMPLETED');
    await h.advance(RETENTION_MS.run - 1);
    expect(h.state(job)).toBe('COMPLETED');
    await h.advance(1);
    expect(h.state(job)).toBe('deleted');
  });

  it('with retention of ended jobs off (the discrete-event mode) a job is forgotten as it ends: its waiter wakes, no timer is left', async () => {
    const h = harness({ retainEndedJobs: false });
    const job = await h.submit({ mock_delay: 2 });
    let woke = false;
    void h.ep.waitUntil(job, MINUTE_MS, () => job.status === 'COMPLETED').then(() => (woke = true));
    await h.advance(2 * SECOND_MS);
    expect(job.status).toBe('COMPLETED');
    expect(h.state(job)).toBe('deleted');
    expect(woke).toBe(true);
    expect(h.ep.counters.completed).toBe(1);
    // Left: the active worker's idle check only (no retention, no ttl, no execution timeout).
    expect(h.clock.pendingTimers()).toBe(1);
  });

  it('retention of a /runsync result: 1 minute by default, the wait when given, within 1 to 5 minutes (§2.2)', async () => {
    const cases: [number | undefined, number][] = [
      [undefined, RETENTION_MS.runsyncDefault],
      [3 * MINUTE_MS, 3 * MINUTE_MS],
      [10 * SECOND_MS, RETENTION_MS.runsyncDefault],
      [60 * MINUTE_MS, RETENTION_MS.runsyncMax],
    ];
    for (const [waitMs, retainedMs] of cases) {
      const h = harness();
      const job = await h.submit({}, { waitMs }, 'runsync');
      expect(h.state(job), String(waitMs)).toBe('COMPLETED');
      await h.advance(retainedMs - 1);
      expect(h.state(job), String(waitMs)).toBe('COMPLETED');
      await h.advance(1);
      expect(h.state(job), String(waitMs)).toBe('deleted');
    }
  });

  it('a ttl shorter than the retention ends an ended job first: expiry is the earlier of the two', async () => {
    const h = harness();
    const job = await h.submit({}, { policy: { ttl: 20 * SECOND_MS } });
    expect(h.state(job)).toBe('COMPLETED');
    await h.advance(20 * SECOND_MS - 1);
    expect(h.state(job)).toBe('COMPLETED');
    await h.advance(1);
    expect(h.state(job)).toBe('deleted');
  });

  it('a retried job is not deleted by the retention of its earlier ending', async () => {
    const h = harness();
    const job = await h.submit({ mock_error: true });
    await h.advance(RETENTION_MS.run - MINUTE_MS);
    h.ep.retry(job.id);
    await h.advance(0);
    expect(h.state(job)).toBe('FAILED');
    await h.advance(MINUTE_MS);
    expect(h.state(job)).toBe('FAILED');
    await h.advance(RETENTION_MS.run - MINUTE_MS);
    expect(h.state(job)).toBe('deleted');
  });

  it('/status?ttl= sets the ttl, still counted from submission; a ttl already past deletes the job at once', async () => {
    const h = harness({ pool: { min: 0, max: 0 } });
    const job = await h.submit({});
    await h.advance(5 * SECOND_MS);
    h.ep.setTtl(job, 20 * SECOND_MS);
    await h.advance(15 * SECOND_MS - 1);
    expect(h.state(job)).toBe('IN_QUEUE');
    await h.advance(1);
    expect(h.state(job)).toBe('deleted');

    const late = await h.submit({});
    await h.advance(30 * SECOND_MS);
    h.ep.setTtl(late, 10 * SECOND_MS);
    await h.advance(0);
    expect(h.state(late)).toBe('deleted');
  });

  it('a worker above the minimum stops after the idle timeout; the minimum stays', async () => {
    const h = harness({ pool: { min: 1, max: 3, idleTimeoutMs: 10 * SECOND_MS } });
    const jobs = [await h.submit({ mock_delay: 1 }), await h.submit({ mock_delay: 1 }), await h.submit({ mock_delay: 1 })];
    expect(h.ep.pool.workers.size).toBe(3);
    await h.advance(SECOND_MS);
    for (const j of jobs) expect(h.state(j)).toBe('COMPLETED');
    await h.advance(10 * SECOND_MS - 1);
    expect(h.ep.pool.workers.size).toBe(3);
    await h.advance(1);
    expect(h.ep.pool.workers.size).toBe(1);
    expect(h.ep.health()).toMatchObject({ workers: { idle: 1, running: 0 } });
  });

  it('a long-poll wait ends after its emulated time when nothing happens, at once when the job is deleted', async () => {
    const h = harness({ pool: { min: 0, max: 0 } });
    const job = await h.submit({});
    let waited = false;
    void h.ep.waitUntil(job, 20 * SECOND_MS, () => isEnded(job)).then(() => (waited = true));
    await h.advance(20 * SECOND_MS - 1);
    expect(waited).toBe(false);
    await h.advance(1);
    expect(waited).toBe(true);

    let woke = false;
    void h.ep.waitUntil(job, MINUTE_MS, () => isEnded(job)).then(() => (woke = true));
    h.ep.purge();
    await drained();
    expect(woke).toBe(true);
  });
});

describe('reset and close', () => {
  it('reset forgets every job and counter, wakes waiters and leaves only the new pool', async () => {
    const h = harness();
    const running = await h.submit(RUNNING);
    const queued = await h.submit({});
    let woke = false;
    void h.ep.waitUntil(queued, MINUTE_MS, () => isEnded(queued)).then(() => (woke = true));
    const signal = running.abort?.signal;
    h.ep.reset({ min: 0, max: 1, jobsPerWorker: 1, coldStartMs: 0, idleTimeoutMs: SECOND_MS, scaleUpQueueDepth: 1, simulated: true });
    await drained();
    expect(woke).toBe(true);
    expect(signal?.aborted).toBe(true);
    expect([h.state(running), h.state(queued)]).toEqual(['deleted', 'deleted']);
    expect(h.ep.health()).toMatchObject({ jobs: { submitted: 0, inQueue: 0, inProgress: 0 } });
    expect(h.ep.pool.workers.size).toBe(0);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('close stops every job and cancels every timer; a waiter resolves', async () => {
    const h = harness({ pool: { min: 2, max: 2 } });
    const running = await h.submit(RUNNING);
    await h.submit({});
    let woke = false;
    void h.ep.waitUntil(running, MINUTE_MS, () => isEnded(running)).then(() => (woke = true));
    h.ep.close();
    await drained();
    expect(woke).toBe(true);
    expect(h.ep.jobs.size).toBe(0);
    expect(h.ep.queueSize).toBe(0);
    expect(h.clock.pendingTimers()).toBe(0);
  });
});

function isEnded(job: Job): boolean {
  return job.status !== 'IN_QUEUE' && job.status !== 'IN_PROGRESS';
}
