// §3.1 rows, §2.1 ttl / executionTimeout, §2.2 ids, timing fields and retention, §2.4
// health counters, on a ManualClock: every boundary is checked one emulated ms either side.
import { afterEach, describe, expect, it } from 'vitest';
import { RETENTION_MS, SYNC_ID_PATTERN, ASYNC_ID_PATTERN, TTL_MS, EXECUTION_TIMEOUT_MS, MINUTE_MS } from '../../../src/spec/index.js';
import { startManual, type TestEmulator } from './helpers.js';

let t: TestEmulator;
afterEach(async () => {
  await t.close();
});

const run = async (input: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const r = await t.call('POST', '/v2/demo/run', { input, ...extra });
  expect(r.status).toBe(200);
  return r.body.id as string;
};
const status = (id: string, q = '') => t.call('GET', `/v2/demo/status/${id}${q}`);

function addsUp(h: { jobs: Record<string, number> }): void {
  const j = h.jobs as Record<'submitted' | 'retried' | 'inQueue' | 'inProgress' | 'completed' | 'failed' | 'cancelled' | 'purged' | 'expired', number>;
  expect(j.submitted + j.retried).toBe(j.inQueue + j.inProgress + j.completed + j.failed + j.cancelled + j.purged + j.expired);
}

describe('§3.1 job lifecycle', () => {
  it('POST /run answers {id, status: IN_QUEUE} at once; the job completes with output and timing fields', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const r = await t.call('POST', '/v2/demo/run', { input: { mock_delay: 2, mock_return: { ok: 1 } } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body).toEqual({ id: expect.stringMatching(ASYNC_ID_PATTERN), status: 'IN_QUEUE' });
    const running = await status(r.body.id);
    expect(running.body.status).toBe('IN_PROGRESS');
    await t.advance(2000);
    const done = await status(r.body.id);
    expect(done.body).toMatchObject({ id: r.body.id, status: 'COMPLETED', output: { ok: 1 }, executionTime: 2000, delayTime: 0 });
    expect(typeof done.body.workerId).toBe('string');
  });

  it('delayTime counts the queue wait in ms', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const a = await run({ mock_delay: 3 });
    const b = await run({ mock_delay: 1 });
    expect((await status(b)).body.status).toBe('IN_QUEUE');
    await t.advance(3000);
    await t.advance(1000);
    const rb = (await status(b)).body;
    expect(rb).toMatchObject({ status: 'COMPLETED', delayTime: 3000, executionTime: 1000 });
    expect((await status(a)).body.executionTime).toBe(3000);
  });

  it('POST /runsync answers the finished job record with a sync- id', async () => {
    t = await startManual();
    const r = await t.call('POST', '/v2/demo/runsync', { input: { mock_return: 'hi' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: 'hi', delayTime: 0, executionTime: 0 });
    expect(r.body.id).toMatch(SYNC_ID_PATTERN);
  });

  it('POST /runsync not finished within wait answers {id, status} IN_PROGRESS; the job goes on', async () => {
    t = await startManual();
    const p = t.call('POST', '/v2/demo/runsync?wait=1000', { input: { mock_delay: 5 } });
    await new Promise((r) => setImmediate(r));
    // Advance in steps until the request is in and its wait timer has passed.
    for (let i = 0; i < 200 && t.em.core.defaultEndpoint.inProgress === 0; i++) await new Promise((r) => setTimeout(r, 2));
    await t.advance(1000);
    const r = await p;
    expect(r.body).toMatchObject({ status: 'IN_PROGRESS' });
    await t.advance(4000);
    expect((await status(r.body.id)).body.status).toBe('COMPLETED');
  });

  it('cancel of a queued job: CANCELLED, removed before it starts', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    await run({ mock_delay: 10 });
    const q = await run({ mock_delay: 1 });
    const c = await t.call('POST', `/v2/demo/cancel/${q}`, '');
    expect(c.body).toEqual({ id: q, status: 'CANCELLED' });
    await t.advance(20_000);
    const s = await status(q);
    expect(s.body.status).toBe('CANCELLED');
    expect(s.body.executionTime).toBe(0);
    expect(s.body.workerId).toBeUndefined();
  });

  it('cancel of a running job stops execution: it never completes and frees its worker', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const a = await run({ mock_delay: 10 });
    const b = await run({ mock_delay: 1 });
    const c = await t.call('POST', `/v2/demo/cancel/${a}`, {});
    expect(c.body).toEqual({ id: a, status: 'CANCELLED' });
    expect((await status(b)).body.status).toBe('IN_PROGRESS');
    await t.advance(20_000);
    expect((await status(a)).body.status).toBe('CANCELLED');
    expect((await status(b)).body.status).toBe('COMPLETED');
  });

  it('cancel of a finished job is refused with 400; of a cancelled one is idempotent', async () => {
    t = await startManual();
    const a = await run({});
    const c = await t.call('POST', `/v2/demo/cancel/${a}`);
    expect(c.status).toBe(400);
    expect(c.body.error).toMatch(/COMPLETED/);
    const b = await run({ mock_delay: 5 });
    await t.call('POST', `/v2/demo/cancel/${b}`);
    expect((await t.call('POST', `/v2/demo/cancel/${b}`)).body).toEqual({ id: b, status: 'CANCELLED' });
  });

  it('retry from FAILED: same id, input reused, output removed, counted in jobs.retried', async () => {
    t = await startManual();
    const id = await run({ mock_error: true, mock_progress: ['half'], mock_delay: 2 });
    await t.advance(1000);
    expect((await status(id)).body).toMatchObject({ status: 'IN_PROGRESS', output: 'half' });
    await t.advance(1000);
    const failed = (await status(id)).body;
    expect(failed).toMatchObject({ status: 'FAILED', error: expect.any(String) });
    const r = await t.call('POST', `/v2/demo/retry/${id}`);
    expect(r.body).toEqual({ id, status: 'IN_QUEUE' });
    const again = (await status(id)).body;
    expect(again.output).toBeUndefined();
    expect(again.error).toBeUndefined();
    expect(['IN_QUEUE', 'IN_PROGRESS']).toContain(again.status);
    await t.advance(1000);
    // Same input: mock_progress runs again.
    expect((await status(id)).body.output).toBe('half');
    await t.advance(1000);
    expect((await status(id)).body.status).toBe('FAILED');
    const h = (await t.call('GET', '/v2/demo/health')).body;
    expect(h.jobs.retried).toBe(1);
    expect(h.jobs.failed).toBe(2);
    addsUp(h);
  });

  it('executionTimeout ends a running job as TIMED_OUT; retry from TIMED_OUT is accepted', async () => {
    t = await startManual();
    const id = await run({ mock_delay: 60 }, { policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } });
    await t.advance(EXECUTION_TIMEOUT_MS.min - 1);
    expect((await status(id)).body.status).toBe('IN_PROGRESS');
    await t.advance(1);
    const s = (await status(id)).body;
    expect(s).toMatchObject({ status: 'TIMED_OUT', executionTime: EXECUTION_TIMEOUT_MS.min });
    await t.advance(60_000);
    expect((await status(id)).body.status).toBe('TIMED_OUT');
    expect((await t.call('POST', `/v2/demo/retry/${id}`)).body).toEqual({ id, status: 'IN_QUEUE' });
  });

  it('retry is refused from COMPLETED, CANCELLED, IN_QUEUE and IN_PROGRESS', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const done = await run({});
    const running = await run({ mock_delay: 10 });
    const queued = await run({});
    const cancelled = await run({});
    await t.call('POST', `/v2/demo/cancel/${cancelled}`);
    for (const [id, st] of [[done, 'COMPLETED'], [running, 'IN_PROGRESS'], [queued, 'IN_QUEUE'], [cancelled, 'CANCELLED']] as const) {
      const r = await t.call('POST', `/v2/demo/retry/${id}`);
      expect(r.status, st).toBe(400);
      expect(r.body.error).toContain(st);
    }
  });

  it('purge removes queued jobs only and answers {removed, status: "completed"}', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const running = await run({ mock_delay: 10 });
    const q1 = await run({});
    const q2 = await run({}, { policy: { lowPriority: true } });
    const r = await t.call('POST', '/v2/demo/purge-queue', '');
    expect(r.body).toEqual({ removed: 2, status: 'completed' });
    expect((await status(q1)).status).toBe(404);
    expect((await status(q2)).status).toBe(404);
    expect((await status(running)).body.status).toBe('IN_PROGRESS');
    await t.advance(10_000);
    expect((await status(running)).body.status).toBe('COMPLETED');
    const h = (await t.call('GET', '/v2/demo/health')).body;
    expect(h.jobs.purged).toBe(2);
    addsUp(h);
  });
});

describe('§2.1 ttl', () => {
  it('deletes a queued job at ttl (404 afterwards)', async () => {
    t = await startManual({ workers: { min: 0, max: 1 } });
    await t.call('POST', '/_qbench/workers', { min: 0, max: 1 });
    const id = await run({}, { policy: { ttl: TTL_MS.min, lowPriority: true } });
    await t.advance(TTL_MS.min - 1);
    expect((await status(id)).body.status).toBe('IN_QUEUE');
    await t.advance(1);
    expect((await status(id)).status).toBe(404);
    const h = (await t.call('GET', '/v2/demo/health')).body;
    expect(h.jobs.expired).toBe(1);
    addsUp(h);
  });

  it('deletes a running job mid-execution even if it would have succeeded', async () => {
    t = await startManual();
    const id = await run({ mock_delay: 30 }, { policy: { ttl: 20_000 } });
    await t.advance(19_999);
    expect((await status(id)).body.status).toBe('IN_PROGRESS');
    await t.advance(1);
    expect((await status(id)).status).toBe(404);
    await t.advance(20_000);
    expect((await status(id)).status).toBe(404);
    const h = (await t.call('GET', '/v2/demo/health')).body;
    expect(h.jobs).toMatchObject({ inProgress: 0, completed: 0, expired: 1 });
    expect(h.workers.running).toBe(0);
    addsUp(h);
  });

  it('deletes a completed job at ttl before its retention ends', async () => {
    t = await startManual();
    const id = await run({}, { policy: { ttl: 15_000 } });
    await t.advance(14_999);
    expect((await status(id)).body.status).toBe('COMPLETED');
    await t.advance(1);
    expect((await status(id)).status).toBe(404);
  });

  it('deletes FAILED, CANCELLED and TIMED_OUT jobs at ttl too (every state of the §3.1 ttl row)', async () => {
    t = await startManual({ workers: { min: 3, max: 3 } });
    const ttl = { ttl: 20_000 };
    const failed = await run({ mock_error: true }, { policy: ttl });
    const cancelled = await run({ mock_delay: 100 }, { policy: ttl });
    await t.call('POST', `/v2/demo/cancel/${cancelled}`);
    const timedOut = await run({ mock_delay: 100 }, { policy: { ...ttl, executionTimeout: EXECUTION_TIMEOUT_MS.min } });
    await t.advance(EXECUTION_TIMEOUT_MS.min);
    const states = async () => Promise.all([failed, cancelled, timedOut].map(async (id) => (await status(id)).body.status as string));
    expect(await states()).toEqual(['FAILED', 'CANCELLED', 'TIMED_OUT']);
    await t.advance(20_000 - EXECUTION_TIMEOUT_MS.min - 1);
    expect(await states()).toEqual(['FAILED', 'CANCELLED', 'TIMED_OUT']);
    await t.advance(1);
    for (const id of [failed, cancelled, timedOut]) expect((await status(id)).status).toBe(404);
  });

  it('/status?ttl= sets the ttl, counted from submission', async () => {
    t = await startManual();
    const id = await run({});
    await t.advance(5_000);
    const s = await status(id, '?ttl=6000');
    expect(s.body.status).toBe('COMPLETED');
    await t.advance(999);
    expect((await status(id)).status).toBe(200);
    await t.advance(1);
    expect((await status(id)).status).toBe(404);
  });
});

describe('§2.2 retention', () => {
  it('/run results are kept 30 minutes after completion, then gone (retry too)', async () => {
    t = await startManual();
    const id = await run({ mock_error: true });
    await t.advance(RETENTION_MS.run - 1);
    expect((await status(id)).body.status).toBe('FAILED');
    await t.advance(1);
    expect((await status(id)).status).toBe(404);
    expect((await t.call('POST', `/v2/demo/retry/${id}`)).status).toBe(404);
  });

  it('/runsync results are kept 1 minute by default', async () => {
    t = await startManual();
    const r = await t.call('POST', '/v2/demo/runsync', { input: {} });
    await t.advance(RETENTION_MS.runsyncDefault - 1);
    expect((await status(r.body.id)).status).toBe(200);
    await t.advance(1);
    expect((await status(r.body.id)).status).toBe(404);
  });

  it('/runsync with wait keeps results for clamp(wait, 1 min, 5 min)', async () => {
    t = await startManual();
    const long = await t.call('POST', '/v2/demo/runsync?wait=300000', { input: {} });
    const mid = await t.call('POST', '/v2/demo/runsync?wait=150000', { input: {} });
    const short = await t.call('POST', '/v2/demo/runsync?wait=1000', { input: {} });
    await t.advance(RETENTION_MS.runsyncDefault);
    expect((await status(short.body.id)).status).toBe(404);
    expect((await status(mid.body.id)).status).toBe(200);
    await t.advance(150_000 - RETENTION_MS.runsyncDefault);
    expect((await status(mid.body.id)).status).toBe(404);
    await t.advance(RETENTION_MS.runsyncMax - 150_000 - 1);
    expect((await status(long.body.id)).status).toBe(200);
    await t.advance(1);
    expect((await status(long.body.id)).status).toBe(404);
    expect(RETENTION_MS.runsyncMax).toBe(5 * MINUTE_MS);
  });
});

describe('status-sync and health', () => {
  it('GET /status-sync waits for the end of the job', async () => {
    t = await startManual();
    const id = await run({ mock_delay: 3, mock_return: 'x' });
    const p = t.call('GET', `/v2/demo/status-sync/${id}?wait=90000`);
    let settled = false;
    void p.then(() => (settled = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
    expect(settled).toBe(false);
    await t.advance(3000);
    expect((await p).body).toMatchObject({ status: 'COMPLETED', output: 'x' });
  });

  it('health counts workers and jobs and always adds up', async () => {
    t = await startManual({ workers: { min: 1, max: 2 } });
    await run({ mock_delay: 5 });
    await run({ mock_delay: 5 });
    await run({ mock_delay: 5 });
    await run({ mock_delay: 5 }, { policy: { lowPriority: true } });
    const h = (await t.call('GET', '/v2/demo/health')).body;
    expect(h.workers).toMatchObject({ running: 2, idle: 0 });
    expect(h.jobs).toMatchObject({ inProgress: 2, inQueue: 2 });
    addsUp(h);
    await t.advance(5000);
    await t.advance(5000);
    const h2 = (await t.call('GET', '/v2/demo/health')).body;
    expect(h2.jobs).toMatchObject({ inProgress: 0, inQueue: 0, completed: 4 });
    expect(h2.workers.idle).toBe(2);
    addsUp(h2);
  });
});
