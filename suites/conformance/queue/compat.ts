// WIRE-COMPAT findings on the queue endpoint: what the public SDKs need beyond the spec
// (200 exactly, JSON content type, empty/`{}` bodies for cancel and purge, POST reads,
// /status-sync, {error} bodies, health extras, `error` on FAILED jobs). Never spec failures.
import { fail, HTTP_STATUS, RUNSYNC_WAIT_MS, SECOND_MS, type CheckDefinition } from 'qbench/suite';
import { describe, expectStatus, field, send } from '../lib/http.js';
import { awaitState, endpointFor, expectWaitedJobFinished, health, mockDelayS, qpath, submitRun, submitRunsync } from '../lib/queue.js';
import { SHORT_JOB_MS } from './answers.js';

export const compatChecks: CheckDefinition[] = [
  {
    id: 'queue.compat.status-200-and-json',
    title: 'Successful queue answers are exactly 200 with content-type application/json; errors are {error} JSON',
    clauses: ['compat/200', 'compat/content-type', 'compat/error-body'],
    interface: 'queue', kind: 'compat', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const { id, res: run } = await submitRun(ctx, ep, { mock_return: 'c' });
      const answers = [run, await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'status', id) }), (await health(ctx, ep)).res];
      for (const a of answers) {
        if (a.status !== HTTP_STATUS.ok) fail('HTTP 200 exactly', describe(a), a);
        if (!(a.headers['content-type'] ?? '').startsWith('application/json')) fail('content-type: application/json', `content-type ${a.headers['content-type'] ?? '(none)'}`, a);
      }
      const bad = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'run'), body: '{' });
      if (typeof field(bad.json, 'error') !== 'string') fail('an error body {error: string}', describe(bad), bad);
      if (!(bad.headers['content-type'] ?? '').startsWith('application/json')) fail('content-type: application/json on errors too', `content-type ${bad.headers['content-type'] ?? '(none)'}`, bad);
      return undefined;
    },
  },
  {
    id: 'queue.compat.empty-bodies',
    title: 'POST /cancel and /purge-queue accept an empty body and {} with content-type application/json',
    clauses: ['compat/empty-bodies'],
    interface: 'queue', kind: 'compat', tags: ['destructive'],
    async run(ctx) {
      const ep = endpointFor(ctx, 'compat-empty');
      for (const body of ['', '{}']) {
        const { id } = await submitRun(ctx, ep, { mock_delay: 30 });
        const c = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'cancel', id), body, contentType: 'application/json' });
        expectStatus(c, HTTP_STATUS.ok, `POST /cancel with body ${JSON.stringify(body)}`);
        const p = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'purge-queue'), body, contentType: 'application/json' });
        expectStatus(p, HTTP_STATUS.ok, `POST /purge-queue with body ${JSON.stringify(body)}`);
      }
      return undefined;
    },
  },
  {
    id: 'queue.compat.post-reads-and-status-sync',
    title: '/status and /stream answer POST too; GET /status-sync?wait= waits for the job and answers like /status',
    clauses: ['compat/post-reads', 'compat/status-sync'],
    interface: 'queue', kind: 'compat', tags: ['needs-mock-worker'],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const { id } = await submitRun(ctx, ep, { mock_delay: 1, mock_return: 'synced' });
      const ss = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'status-sync', id), rawQuery: `wait=${RUNSYNC_WAIT_MS.max}`, timeoutMs: 60_000 });
      expectWaitedJobFinished(ctx, ss, 'GET /status-sync', RUNSYNC_WAIT_MS.max);
      expectStatus(ss, HTTP_STATUS.ok, 'GET /status-sync');
      if (field(ss.json, 'status') !== 'COMPLETED' || field(ss.json, 'output') !== 'synced') fail('the COMPLETED record with output "synced"', describe(ss), ss);
      for (const op of ['status', 'stream'] as const) {
        const r = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, op, id) });
        expectStatus(r, HTTP_STATUS.ok, `POST /${op}`);
      }
      return undefined;
    },
  },
  {
    id: 'queue.compat.health-extras-and-failed-error',
    title: '/health carries workers.initializing/ready/throttled/unhealthy; a FAILED job carries error (string)',
    clauses: ['compat/health-extras', 'compat/failed-error'],
    interface: 'queue', kind: 'compat', tags: ['needs-mock-worker'],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const { res, record } = await health(ctx, ep);
      const missing = (['initializing', 'ready', 'throttled', 'unhealthy'] as const).filter((k) => typeof record.workers[k] !== 'number');
      if (missing.length > 0) fail('workers.initializing, ready, throttled, unhealthy', `missing ${missing.join(', ')}`, res);
      const { id } = await submitRun(ctx, ep, { mock_error: true });
      const end = await awaitState(ctx, ep, id, ['FAILED'], SHORT_JOB_MS, 'a mock_error job fails');
      if (typeof field(end.res.json, 'error') !== 'string') fail('error (string) on the FAILED record', describe(end.res), end.res);
      return undefined;
    },
  },
  {
    id: 'queue.runsync.wait-returns-early',
    title: '/runsync with a wait shorter than the job answers when the wait ends, with the job not yet finished',
    clauses: ['4.1/wait-controls-wait'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'timing'],
    emulatedWaitMs: RUNSYNC_WAIT_MS.min * 30,
    async run(ctx) {
      const ep = endpointFor(ctx, 'wait-early');
      // 30 waits long, and at least 3 s of real time: at scale 60 thirty waits are 0.5 s, within
      // what a stalled host or a network adds to one answer.
      const delayS = mockDelayS(ctx, (RUNSYNC_WAIT_MS.min * 30) / SECOND_MS, 3_000);
      const res = await submitRunsync(ctx, ep, { mock_delay: delayS, mock_return: 'late' }, { waitMs: RUNSYNC_WAIT_MS.min });
      expectStatus(res, HTTP_STATUS.ok, `/runsync?wait=${RUNSYNC_WAIT_MS.min} of a ${delayS} s job`);
      const s = field(res.json, 'status');
      const waited = ctx.time.toEmulatedMs(res.durationMs);
      ctx.measure('answeredAfterEmulatedMs', Math.round(waited));
      if (s === 'COMPLETED') fail(`an answer after about ${RUNSYNC_WAIT_MS.min} ms, before the ${delayS} s job completes`, describe(res), res);
      // Tolerance: the answer may come late on a busy host, but not after the job itself would have finished.
      if (waited > delayS * 1000) fail(`an answer within the wait, well before ${delayS} s`, `answered after ${Math.round(waited)} ms`, res);
      const id = field(res.json, 'id');
      if (typeof id === 'string') await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'cancel', id) });
      return { observed: `status ${String(s)} after ${Math.round(waited)} ms (emulated)` };
    },
  },
];
