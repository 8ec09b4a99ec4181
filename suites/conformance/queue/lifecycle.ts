// §3.1 transitions: cancel of queued and running jobs, retry from FAILED and TIMED_OUT (same
// id, input reused, output removed), retry refused from COMPLETED / IN_QUEUE / CANCELLED,
// execution timeout (§2.1), purge leaving running jobs alone, health counters (§2.4).

import {
  fail, inconclusive, CancelAnswer, EXECUTION_TIMEOUT_MS, HTTP_STATUS, PurgeAnswer, RetryAnswer, SECOND_MS,
  type CheckContext, type CheckDefinition, type ProbeResponse,
} from 'qbench/suite';
import { describe, expectRefusal, expectShape, expectStatus, field } from '../lib/http.js';
import { PRECONDITION_FLOOR_REAL_MS, awaitState, endpointFor, getStatus, mockDelayS, health, holdQueue, isDedicated, pollIntervalRealMs, postOp, purge, stateOf, submitQueued, submitRun, sustainedIdleQueue } from '../lib/queue.js';
import { SHORT_JOB_MS } from './answers.js';

/** A running job's handler delay: long enough to act on it while it runs, short enough to observe it finishing. */
const RUNNING_DELAY_S = 120;
/**
 * The job that must survive a purge runs at least this long in real time: at time scale 60 its
 * 5 emulated seconds are 83 ms, shorter than a status poll over a network, which then sees it
 * COMPLETED without ever seeing it IN_PROGRESS.
 */
const SURVIVOR_FLOOR_REAL_MS = 1_500;
const RUNNING_DELAY_MS = RUNNING_DELAY_S * SECOND_MS;
/** Emulated time the health check waits for jobs left on its endpoint by an earlier run. */
const LEFTOVER_WAIT_MS = 60 * SECOND_MS;

async function failedJob(ctx: CheckContext, ep: string, input: Record<string, unknown>): Promise<string> {
  const { id } = await submitRun(ctx, ep, { mock_error: true, ...input });
  await awaitState(ctx, ep, id, ['FAILED'], SHORT_JOB_MS, 'a mock_error job ends FAILED (§7 "a job fails on worker errors")');
  return id;
}

/** A job seen IN_PROGRESS; `submittedAtMs`: when its submission was sent (it cannot have started earlier). */
async function runningJob(ctx: CheckContext, ep: string, input: Record<string, unknown>, policy?: Record<string, unknown>): Promise<{ id: string; submittedAtMs: number }> {
  const { id, res } = await submitRun(ctx, ep, input, policy ? { policy } : {});
  await awaitState(ctx, ep, id, ['IN_PROGRESS'], SHORT_JOB_MS, 'a long job starts');
  return { id, submittedAtMs: res.sentAtMs };
}

export const lifecycleChecks: CheckDefinition[] = [
  {
    id: 'queue.cancel.queued',
    title: 'Cancel of a queued job answers {id, status: CANCELLED} at once and the job never runs',
    clauses: ['3.1/cancel-queued', '4.1/cancel-answer', '7/job-symptoms'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'timing'],
    emulatedWaitMs: 40 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'cancel-queued');
      const { id, hold } = await submitQueued(ctx, ep, { mock_return: 'should-not-run' });
      try {
        const res = await postOp(ctx, ep, 'cancel', id);
        expectStatus(res, HTTP_STATUS.ok, 'POST /cancel of a queued job');
        const a = expectShape(res, CancelAnswer, 'POST /cancel answer');
        if (a.id !== id) fail(`id ${id}`, describe(res), res);
        await hold.release();
        // With the workers free again, a job still queued would start now.
        await ctx.time.sleep(5 * SECOND_MS, ctx.signal);
        const after = await getStatus(ctx, ep, id);
        const s = stateOf(after);
        if (s !== 'CANCELLED' && s !== 'deleted') fail('the cancelled job stays CANCELLED (or is gone): it never runs', describe(after), after);
        if (field(after.json, 'output') !== undefined) fail('no output on a job cancelled before it started', describe(after), after);
        return { observed: `after cancel: ${s}` };
      } finally {
        await hold.release();
      }
    },
  },
  {
    id: 'queue.cancel.running',
    title: 'Cancel of a running job answers CANCELLED and stops execution: it never completes',
    clauses: ['3.1/cancel-running', '4.1/cancel-answer'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'timing'],
    emulatedWaitMs: RUNNING_DELAY_MS * 2,
    async run(ctx) {
      const ep = endpointFor(ctx, 'cancel-running');
      const { id, submittedAtMs } = await runningJob(ctx, ep, { mock_delay: RUNNING_DELAY_S, mock_return: 'should-not-complete' });
      const res = await postOp(ctx, ep, 'cancel', id);
      // The job cannot end before its submission plus its handler's delay: a cancel answered by then
      // found it running. One answered later (a stalled host, a slow network) may have come too late.
      if (res.status !== HTTP_STATUS.ok && res.doneAtMs >= submittedAtMs + ctx.time.toRealMs(RUNNING_DELAY_MS)) {
        const now = await getStatus(ctx, ep, id);
        if (stateOf(now) === 'COMPLETED') inconclusive(`the job ran its ${RUNNING_DELAY_S} s (emulated) to the end before the cancel reached it (${describe(res)}): no running job was cancelled`, [res, now]);
      }
      expectStatus(res, HTTP_STATUS.ok, 'POST /cancel of a running job');
      expectShape(res, CancelAnswer, 'POST /cancel answer');
      // Past the moment the handler would have finished, the job must not be COMPLETED.
      await ctx.time.sleep(RUNNING_DELAY_MS * 1.5, ctx.signal);
      const after = await getStatus(ctx, ep, id);
      const s = stateOf(after);
      if (s === 'COMPLETED' || s === 'IN_PROGRESS' || field(after.json, 'output') === 'should-not-complete') {
        fail('execution stopped: the job stays CANCELLED and carries no output', describe(after), after);
      }
      return { observed: `after the handler's delay: ${s}` };
    },
  },
  {
    id: 'queue.retry.from-failed',
    title: 'Retry of a FAILED job: {same id, IN_QUEUE}, previous output removed, original input reused',
    clauses: ['3.1/retry-failed', '4.1/retry-answer'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker'],
    emulatedWaitMs: 40 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'retry-failed');
      // Progress updates give the failed job an interim output that the retry must remove.
      const id = await failedJob(ctx, ep, { mock_progress: ['step-1'], mock_delay: 2, qbench_marker: 'retry-input' });
      const before = await getStatus(ctx, ep, id);
      if (field(before.json, 'output') === undefined && field(before.json, 'error') === undefined) {
        fail('the FAILED job carries its interim output or error before the retry', describe(before), before);
      }
      // Occupy every worker so that the retried job stays IN_QUEUE where its record can be read.
      const hold = await holdQueue(ctx, ep);
      try {
        const res = await postOp(ctx, ep, 'retry', id);
        expectStatus(res, HTTP_STATUS.ok, 'POST /retry of a FAILED job');
        const a = expectShape(res, RetryAnswer, 'POST /retry answer');
        if (a.id !== id) fail(`the same id ${id} (§3.1 "Same id")`, `id ${a.id}`, res);
        const now = await getStatus(ctx, ep, id);
        expectStatus(now, HTTP_STATUS.ok, '/status right after retry');
        if (stateOf(now) !== 'IN_QUEUE') {
          // Only a hold known to occupy every worker of an endpoint of the check's own keeps the job queued for sure.
          if (!(isDedicated(ctx, ep) && hold.full)) inconclusive(`the retried job was already ${stateOf(now)} right after the retry: the ${hold.blockers.length} blocker jobs did not hold every worker (other clients' jobs come and go), so its queued record could not be read`, now);
          fail('IN_QUEUE after retry while every worker is busy', describe(now), [res, now]);
        }
        if (field(now.json, 'output') !== undefined) fail('previous output removed after retry (§3.1)', describe(now), [before, res, now]);
      } finally {
        await hold.release();
      }
      // The original input is reused: mock_error again, so the job fails again.
      const again = await awaitState(ctx, ep, id, ['FAILED', 'COMPLETED'], SHORT_JOB_MS, 'the retried job ends');
      if (stateOf(again.res) !== 'FAILED') fail('the retried job runs the original input (mock_error) and fails again', describe(again.res), again.res);
      return { observed: `retry kept id ${id}` };
    },
  },
  {
    id: 'queue.execution-timeout',
    title: 'A job running past policy.executionTimeout ends TIMED_OUT; retry then answers {same id, IN_QUEUE}',
    clauses: ['2.1/execution-timeout-enforced', '3.1/retry-timed-out', '4.1/retry-answer', '7/job-symptoms'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'timing'],
    emulatedWaitMs: RUNNING_DELAY_MS * 2,
    async run(ctx) {
      const ep = endpointFor(ctx, 'timeout');
      const timeoutMs = EXECUTION_TIMEOUT_MS.min;
      const delayS = (timeoutMs * 4) / SECOND_MS;
      const { id, res: submitted } = await submitRun(ctx, ep, { mock_delay: delayS, mock_return: 'too-late' }, { policy: { executionTimeout: timeoutMs } });
      // From when the submission was sent: the job cannot have started earlier, so the time to the
      // answer that showed TIMED_OUT bounds its execution from above (a slow answer to the
      // submission cannot make a job that ran its full timeout look early).
      const t0 = submitted.sentAtMs;
      const end = await awaitState(ctx, ep, id, ['TIMED_OUT', 'COMPLETED', 'FAILED', 'CANCELLED'], delayS * SECOND_MS * 2, 'a job longer than its executionTimeout ends');
      const st = stateOf(end.res);
      if (st !== 'TIMED_OUT') fail(`TIMED_OUT after ${timeoutMs} ms of execution`, describe(end.res), end.res);
      const elapsedMs = ctx.time.toEmulatedMs(end.atMs - t0);
      ctx.measure('timedOutAfterEmulatedMs', Math.round(elapsedMs));
      // Tolerance: the job cannot end before its timeout; 20% under it covers polling and clock granularity.
      if (elapsedMs < timeoutMs * 0.8) fail(`TIMED_OUT no earlier than ${timeoutMs} ms after submission`, `TIMED_OUT after ${Math.round(elapsedMs)} ms`, end.res);
      const res = await postOp(ctx, ep, 'retry', id);
      expectStatus(res, HTTP_STATUS.ok, 'POST /retry of a TIMED_OUT job');
      const a = expectShape(res, RetryAnswer, 'POST /retry answer');
      if (a.id !== id) fail(`the same id ${id}`, `id ${a.id}`, res);
      await postOp(ctx, ep, 'cancel', id);
      return { observed: `TIMED_OUT after ${Math.round(elapsedMs)} ms emulated` };
    },
  },
  {
    id: 'queue.execution-timeout.queue-time-not-counted',
    title: 'executionTimeout counts only execution: a job queued longer than its timeout still completes',
    clauses: ['2.1/execution-timeout-only-running'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'timing'],
    emulatedWaitMs: 3 * EXECUTION_TIMEOUT_MS.min + 40 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'timeout-queued');
      const timeoutMs = EXECUTION_TIMEOUT_MS.min;
      const { id, hold } = await submitQueued(ctx, ep, { mock_return: 'ok' }, { policy: { executionTimeout: timeoutMs } });
      try {
        await ctx.time.sleep(timeoutMs * 2, ctx.signal);
        const queued = await getStatus(ctx, ep, id);
        const st = stateOf(queued);
        if (st === 'TIMED_OUT') fail(`still IN_QUEUE after ${timeoutMs * 2} ms in the queue (timeout not enforced while queued)`, describe(queued), queued);
        // A job that left the queue (a worker freed by another client's job) was not held: the rule was not put to the test.
        if (st !== 'IN_QUEUE') inconclusive(`the job left the queue before ${timeoutMs * 2} ms had passed (${describe(queued)}): the ${hold.blockers.length} blocker jobs did not hold every worker`, queued);
        await hold.release();
        const end = await awaitState(ctx, ep, id, ['COMPLETED', 'TIMED_OUT', 'FAILED'], SHORT_JOB_MS, 'the job runs once workers are free');
        if (stateOf(end.res) !== 'COMPLETED') fail('COMPLETED: queue time does not count against executionTimeout', describe(end.res), end.res);
        return undefined;
      } finally {
        await hold.release();
      }
    },
  },
  {
    id: 'queue.retry.refused-states',
    title: 'Retry is refused from COMPLETED, IN_QUEUE and CANCELLED and leaves the job as it was',
    clauses: ['3.1/retry-only', '7/400'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker'],
    emulatedWaitMs: 30 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'retry-refused');
      const observed: Record<string, number> = {};
      // COMPLETED
      const { id: done } = await submitRun(ctx, ep, { mock_return: 'done' });
      await awaitState(ctx, ep, done, ['COMPLETED'], SHORT_JOB_MS, 'a short job completes');
      const r1 = await postOp(ctx, ep, 'retry', done);
      observed['COMPLETED'] = r1.status;
      expectRefusal(r1, 'POST /retry of a COMPLETED job');
      const s1 = await getStatus(ctx, ep, done);
      if (stateOf(s1) !== 'COMPLETED') fail('the COMPLETED job stays COMPLETED after a refused retry', describe(s1), [r1, s1]);
      // IN_QUEUE, then CANCELLED
      const { id: queued, hold } = await submitQueued(ctx, ep, { mock_return: 'q' });
      try {
        const r2 = await postOp(ctx, ep, 'retry', queued);
        observed['IN_QUEUE'] = r2.status;
        expectRefusal(r2, 'POST /retry of an IN_QUEUE job');
        const c = await postOp(ctx, ep, 'cancel', queued);
        if (c.status !== HTTP_STATUS.ok) {
          // Refused because the job had meanwhile run to its end (a worker freed by another client): no CANCELLED job to try.
          const s2 = await getStatus(ctx, ep, queued);
          if (stateOf(s2) !== 'IN_QUEUE' && stateOf(s2) !== 'IN_PROGRESS') inconclusive(`the queued job left the queue and ended (${describe(s2)}) before it could be cancelled: the blocker jobs did not hold every worker`, [c, s2]);
        }
        expectStatus(c, HTTP_STATUS.ok, 'POST /cancel of the queued job');
        const r3 = await postOp(ctx, ep, 'retry', queued);
        observed['CANCELLED'] = r3.status;
        expectRefusal(r3, 'POST /retry of a CANCELLED job');
        const s3 = await getStatus(ctx, ep, queued);
        const st3 = stateOf(s3);
        if (st3 === 'IN_QUEUE' || st3 === 'IN_PROGRESS' || st3 === 'COMPLETED') fail('the CANCELLED job stays cancelled after a refused retry', describe(s3), [r3, s3]);
      } finally {
        await hold.release();
      }
      ctx.measure('refusalStatus', observed);
      return { observed: `refusal statuses ${JSON.stringify(observed)}` };
    },
  },
  {
    id: 'queue.purge.queued-only',
    title: 'Purge removes the queued jobs ({removed, status: "completed"}) and leaves running jobs to complete',
    clauses: ['3.1/purge-queued-only', '4.1/purge-answer'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'destructive'],
    emulatedWaitMs: 60 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'purge');
      const dedicated = isDedicated(ctx, ep);
      const { id: q1, hold } = await submitQueued(ctx, ep, { mock_return: 'purged' });
      try {
        const { id: q2 } = await submitRun(ctx, ep, { mock_return: 'purged' }, { policy: { lowPriority: true } });
        // Blockers beyond the worker count wait in the queue and are rightly purged: judge the running ones.
        const runningBefore: string[] = [];
        const blockerAnswers: ProbeResponse[] = [];
        for (const b of hold.blockers) {
          const r = await getStatus(ctx, ep, b);
          blockerAnswers.push(r);
          if (stateOf(r) === 'IN_PROGRESS') runningBefore.push(b);
        }
        // The rule is about a purge beside running jobs: without one of this check's own running, it cannot be judged.
        if (runningBefore.length === 0) {
          inconclusive(`no blocker job of this check was running before the purge (${hold.blockers.length} blockers: ${[...new Set(blockerAnswers.map(stateOf))].join(', ')}): other clients' jobs held every worker`, blockerAnswers);
        }
        const res = await purge(ctx, ep);
        expectStatus(res, HTTP_STATUS.ok, 'POST /purge-queue');
        const a = expectShape(res, PurgeAnswer, 'POST /purge-queue answer');
        const after = await Promise.all([q1, q2].map(async (q) => ({ q, s: await getStatus(ctx, ep, q) })));
        for (const { q, s } of after) {
          // Still queued after the purge answered: it was not removed.
          if (stateOf(s) === 'IN_QUEUE') fail(`purged job ${q} no longer queued`, describe(s), [res, s]);
          // Running or done: on an endpoint held by this check alone it cannot have started (it was purged and run);
          // elsewhere a worker freed by another client may have taken it before the purge.
          if (stateOf(s) === 'IN_PROGRESS' || stateOf(s) === 'COMPLETED') {
            if (!(dedicated && hold.full)) inconclusive(`job ${q}, queued before the purge, was ${stateOf(s)} after it: a worker freed by another client's job may have taken it first`, s);
            fail(`purged job ${q} no longer queued (it never runs)`, describe(s), [res, s]);
          }
        }
        if (dedicated ? a.removed !== 2 : a.removed < 2) fail(`removed ${dedicated ? '' : 'at least '}2 (the queued jobs this check made)`, `removed ${a.removed}`, res);
        for (const b of runningBefore) {
          const s = await getStatus(ctx, ep, b);
          if (stateOf(s) !== 'IN_PROGRESS') fail(`blocker ${b}, running before the purge, continues (IN_PROGRESS)`, describe(s), [res, s]);
        }
        return { observed: `removed ${a.removed}; ${runningBefore.length} running jobs continued` };
      } finally {
        await hold.release();
      }
    },
  },
  {
    id: 'queue.purge.running-completes',
    title: 'A job running during a purge still completes with its output',
    clauses: ['3.1/purge-queued-only'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'destructive', 'timing'],
    emulatedWaitMs: 40 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'purge-running');
      // 5 emulated seconds, and at least SURVIVOR_FLOOR_REAL_MS: a poll must see the job running before the purge.
      const delayS = mockDelayS(ctx, 5, SURVIVOR_FLOOR_REAL_MS);
      const { id } = await runningJob(ctx, ep, { mock_delay: delayS, mock_return: 'survived' });
      const res = await purge(ctx, ep);
      expectStatus(res, HTTP_STATUS.ok, 'POST /purge-queue');
      const end = await awaitState(ctx, ep, id, ['COMPLETED', 'CANCELLED', 'FAILED', 'deleted'], SHORT_JOB_MS, 'the running job ends');
      if (stateOf(end.res) !== 'COMPLETED' || field(end.res.json, 'output') !== 'survived') fail('COMPLETED with output "survived"', describe(end.res), [res, end.res]);
      return undefined;
    },
  },
  {
    id: 'queue.health.counts',
    title: '/health counters match the jobs the check made (completed, failed, inQueue, inProgress, retried)',
    clauses: ['2.4/health-counts', '2.4/health-record'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker'],
    emulatedWaitMs: 40 * SECOND_MS,
    async run(ctx) {
      const ep = endpointFor(ctx, 'health');
      const exact = isDedicated(ctx, ep);
      let first = await health(ctx, ep);
      // Jobs counted queued beside idle workers with nothing in progress, for a sustained interval: no
      // client's traffic explains them (its jobs would be taken and seen running), shared endpoint or not.
      const idleQueue = async () => {
        const readings = await sustainedIdleQueue(ctx, ep, first);
        if (readings === null) return;
        const r = first.record;
        const spanS = ((readings.at(-1)!.doneAtMs - readings[0].sentAtMs) / SECOND_MS).toFixed(1);
        fail('no job counted inQueue while workers stay idle and nothing is in progress (an idle worker takes a waiting job)', `inQueue ${r.jobs.inQueue}, inProgress 0, workers idle ${r.workers.idle}, running 0 in each of ${readings.length} readings over ${spanS} s`, readings);
      };
      await idleQueue();
      // An endpoint of the check's own may still hold jobs of an earlier run: wait for them to end
      // (LEFTOVER_WAIT_MS emulated, at least PRECONDITION_FLOOR_REAL_MS real) before counting.
      const drainBy = performance.now() + Math.max(PRECONDITION_FLOOR_REAL_MS, ctx.time.toRealMs(LEFTOVER_WAIT_MS));
      while (exact && (first.record.jobs.inQueue !== 0 || first.record.jobs.inProgress !== 0) && performance.now() < drainBy) {
        await ctx.time.sleepReal(pollIntervalRealMs(ctx), ctx.signal);
        first = await health(ctx, ep);
      }
      const base = first.record;
      if (exact && (base.jobs.inQueue !== 0 || base.jobs.inProgress !== 0)) {
        await idleQueue();
        inconclusive(`endpoint ${ep} still held jobs of an earlier run after waiting (${JSON.stringify(base.jobs)}): the counts could not be isolated; rerun once they end`, first.res);
      }
      const { id: ok1 } = await submitRun(ctx, ep, { mock_return: 1 });
      const { id: ok2 } = await submitRun(ctx, ep, { mock_return: 2 });
      const bad = await failedJob(ctx, ep, {});
      await awaitState(ctx, ep, ok1, ['COMPLETED'], SHORT_JOB_MS, 'job 1 completes');
      await awaitState(ctx, ep, ok2, ['COMPLETED'], SHORT_JOB_MS, 'job 2 completes');
      const retried = await postOp(ctx, ep, 'retry', bad);
      expectStatus(retried, HTTP_STATUS.ok, 'POST /retry of the failed job');
      await awaitState(ctx, ep, bad, ['FAILED'], SHORT_JOB_MS, 'the retried job fails again');
      const { hold } = await submitQueued(ctx, ep, { mock_return: 'q' });
      try {
        const { res, record: h } = await health(ctx, ep);
        const want = {
          completed: base.jobs.completed + 2,
          failed: base.jobs.failed + 2,
          retried: base.jobs.retried + 1,
          inQueue: base.jobs.inQueue + 1,
          inProgress: base.jobs.inProgress + hold.blockers.length,
        };
        const got = { completed: h.jobs.completed, failed: h.jobs.failed, retried: h.jobs.retried, inQueue: h.jobs.inQueue, inProgress: h.jobs.inProgress };
        ctx.measure('health', { before: base.jobs, after: h.jobs });
        // `failed` counts failures (2: the first run and the retried run) or failed jobs (1): accept both.
        // On a shared endpoint other clients' jobs come and go: only the ever-growing counters have
        // lower bounds there (and our queued job and running blockers count at least once each).
        const sharedFloor = { inQueue: 1, inProgress: 1 };
        const wrong = (Object.keys(want) as (keyof typeof want)[]).filter((k) => {
          const lo = k === 'failed' ? base.jobs.failed + 1 : want[k];
          if (exact) return got[k] < lo || got[k] > want[k];
          return got[k] < (k === 'inQueue' || k === 'inProgress' ? sharedFloor[k] : lo);
        });
        // inProgress: blockers that have not started yet are queued, not running.
        if (wrong.length > 0 && !(wrong.length === 1 && wrong[0] === 'inProgress' && got.inProgress + got.inQueue === want.inProgress + want.inQueue)) {
          fail(`health jobs ${exact ? '' : 'at least '}${JSON.stringify(want)}`, `${JSON.stringify(got)} (${wrong.join(', ')} off)`, res);
        }

        return { observed: JSON.stringify(got) };
      } finally {
        await hold.release();
      }
    },
  },
];

