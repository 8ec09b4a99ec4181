// §4.1 answer shapes and status codes, §2.2 ids and timing fields, §7 404s for unknown
// endpoints and jobs.
import { z } from 'zod';
import {
  fail, ASYNC_ID_PATTERN, SYNC_ID_PATTERN, HTTP_STATUS, SECOND_MS, JobRecord, RunAnswer, HealthRecord, JOB_STATES,
  type CheckDefinition, type ProbeResponse,
} from 'qbench/suite';
import { describe, expectShape, expectStatus, field, send } from '../lib/http.js';
import { awaitState, endpointFor, expectWaitedJobFinished, getStatus, mockDelayS, qpath, submitRun, submitRunsync } from '../lib/queue.js';

/** Emulated time a short job may take end to end (cold start, queueing, polling). */
export const SHORT_JOB_MS = 60 * SECOND_MS;
const TIMED = JobRecord.extend({ delayTime: z.number().int().nonnegative(), executionTime: z.number().int().nonnegative() });

export const answerChecks: CheckDefinition[] = [
  {
    id: 'queue.run.answer',
    title: 'POST /run answers 200 {id, status: IN_QUEUE} with a UUID id',
    clauses: ['4.1/run-answer', '3.1/run-queued', '2.2/async-id'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const { res } = await submitRun(ctx, ep, { mock_return: { ok: true } });
      const a = expectShape(res, RunAnswer, 'POST /run answer');
      if (!ASYNC_ID_PATTERN.test(a.id)) fail('an async job id that is a UUID (possibly with a suffix) (§2.2)', `id ${JSON.stringify(a.id)}`, res);
      if (SYNC_ID_PATTERN.test(a.id)) fail('an async job id without the sync- prefix', `id ${a.id}`, res);
      return { observed: `id ${a.id}` };
    },
  },
  {
    id: 'queue.runsync.answer',
    title: 'POST /runsync answers 200 with a COMPLETED job record: sync-<UUID> id, delayTime, executionTime, output',
    clauses: ['4.1/runsync-answer', '3.1/runsync-completed', '2.2/sync-id', '2.2/timing-fields', '2.2/output'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker'],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const marker = { qbench: 'runsync-answer', n: 42 };
      const res = await submitRunsync(ctx, ep, { mock_return: marker });
      expectWaitedJobFinished(ctx, res, 'POST /runsync');
      expectStatus(res, HTTP_STATUS.ok, 'POST /runsync');
      const rec = expectShape(res, TIMED.extend({ status: z.literal('COMPLETED') }), 'POST /runsync answer (finished in time)');
      if (!SYNC_ID_PATTERN.test(rec.id)) fail('a sync job id: "sync-" followed by a UUID (§2.2)', `id ${JSON.stringify(rec.id)}`, res);
      if (JSON.stringify(rec.output) !== JSON.stringify(marker)) fail(`output ${JSON.stringify(marker)} (the handler's mock_return)`, `output ${JSON.stringify(rec.output)}`, res);
      return { observed: `id ${rec.id}, delayTime ${rec.delayTime}, executionTime ${rec.executionTime}` };
    },
  },
  {
    id: 'queue.status.record',
    title: '/status of a /run job, read while it runs and once finished: every status a §3.1 state; 200 job record with COMPLETED, delayTime, executionTime, output',
    clauses: ['4.1/status-answer', '2.2/timing-fields', '2.2/output', '3.1/status-states'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker'],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const marker = ['status-record', 7];
      // Long enough for the polls to read the job running (2 s emulated, at least 1.5 s real).
      const { id } = await submitRun(ctx, ep, { mock_return: marker, mock_delay: mockDelayS(ctx, 2, 1_500) });
      const seen = new Set<string>();
      const done = await awaitState(ctx, ep, id, ['COMPLETED', 'FAILED', 'deleted'], SHORT_JOB_MS, 'a short job');
      const offending: ProbeResponse[] = [];
      for (const r of ctx.http.log) {
        const s = field(r.json, 'status');
        if (typeof s !== 'string' || !r.exchange.request.url.includes('/status/')) continue;
        seen.add(s);
        if (!(JOB_STATES as readonly string[]).includes(s)) offending.push(r);
      }
      const firstOffending = offending[0];
      if (firstOffending !== undefined) fail(`status values among ${JOB_STATES.join(', ')}`, `saw ${[...new Set(offending.map((r) => String(field(r.json, 'status'))))].join(', ')}`, firstOffending);
      expectStatus(done.res, HTTP_STATUS.ok, `/status of finished job ${id}`);
      const rec = expectShape(done.res, TIMED.extend({ status: z.literal('COMPLETED') }), '/status of a COMPLETED job');
      if (rec.id !== id) fail(`the record's id ${id}`, `id ${rec.id}`, done.res);
      if (JSON.stringify(rec.output) !== JSON.stringify(marker)) fail(`output ${JSON.stringify(marker)}`, `output ${JSON.stringify(rec.output)}`, done.res);
      return { observed: `states seen: ${[...seen].join(' -> ')}` };
    },
  },
  {
    id: 'queue.status.unknown-job-404',
    title: '/status, /cancel, /retry and /stream of an unknown job id answer 404',
    clauses: ['7/404-job', '4.1/status-answer'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const id = '00000000-0000-4000-8000-000000000000-qbench-unknown';
      for (const [method, op] of [['GET', 'status'], ['POST', 'cancel'], ['POST', 'retry'], ['GET', 'stream']] as const) {
        const res = await send(ctx, { iface: 'queue', method, path: qpath(ep, op, id) });
        expectStatus(res, HTTP_STATUS.notFound, `${method} /${op} of an unknown job`);
      }
      return undefined;
    },
  },
  {
    id: 'queue.unknown-endpoint-404',
    title: 'Every operation on an unknown endpoint id answers 404',
    clauses: ['7/404-endpoint'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = 'qbench-no-such-endpoint-7f3a';
      const someId = '00000000-0000-4000-8000-000000000001';
      const ops = [
        ['POST', qpath(ep, 'run'), { input: { a: 1 } }],
        ['POST', qpath(ep, 'runsync'), { input: { a: 1 } }],
        ['GET', qpath(ep, 'status', someId), undefined],
        ['GET', qpath(ep, 'stream', someId), undefined],
        ['POST', qpath(ep, 'cancel', someId), undefined],
        ['POST', qpath(ep, 'retry', someId), undefined],
        ['POST', qpath(ep, 'purge-queue'), undefined],
        ['GET', qpath(ep, 'health'), undefined],
      ] as const;
      for (const [method, path, json] of ops) {
        const res = await send(ctx, { iface: 'queue', method, path, ...(json !== undefined ? { json } : {}) });
        expectStatus(res, HTTP_STATUS.notFound, `${method} ${path}`);
      }
      return undefined;
    },
  },
  {
    id: 'queue.health.answer',
    title: 'GET /health answers 200 with integer jobs and workers counters',
    clauses: ['4.1/health-answer', '2.4/health-record'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const res = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(endpointFor(ctx), 'health') });
      expectStatus(res, HTTP_STATUS.ok, 'GET /health');
      const h = expectShape(res, HealthRecord, 'GET /health answer');
      return { observed: JSON.stringify({ jobs: h.jobs, workers: { idle: h.workers.idle, running: h.workers.running } }) };
    },
  },
  {
    id: 'queue.status.id-reuse',
    title: 'A /run job id is retrievable by /status right after submission',
    clauses: ['3.1/run-queued', '4.1/status-answer'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const { id } = await submitRun(ctx, ep, { mock_delay: 1 });
      const res = await getStatus(ctx, ep, id);
      expectStatus(res, HTTP_STATUS.ok, `/status right after /run of ${id}`);
      const rec = expectShape(res, JobRecord, '/status answer');
      if (rec.id !== id) fail(`id ${id}`, describe(res), res);
      return { observed: `status ${rec.status}` };
    },
  },
];
