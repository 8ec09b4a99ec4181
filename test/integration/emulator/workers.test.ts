// The simulated worker pool: cold start, scale-up on queue depth that lowPriority jobs do
// not trigger, the max bound, idle timeout down to min, jobs per worker, crash and refresh.
import { afterEach, describe, expect, it } from 'vitest';
import { startManual, type TestEmulator } from './helpers.js';

let t: TestEmulator;
afterEach(async () => {
  await t.close();
});

const health = async () => (await t.call('GET', '/v2/demo/health')).body as { jobs: Record<string, number>; workers: Record<string, number> };
const run = async (input: Record<string, unknown>, lowPriority = false) => (await t.call('POST', '/v2/demo/run', { input, policy: { lowPriority } })).body.id as string;

describe('worker pool', () => {
  it('cold start: a new worker takes jobs only after coldStartMs', async () => {
    t = await startManual({ workers: { min: 0, max: 2, coldStartMs: 3000 } });
    const id = await run({});
    expect((await health()).workers.initializing).toBe(1);
    await t.advance(2999);
    expect((await t.call('GET', `/v2/demo/status/${id}`)).body.status).toBe('IN_QUEUE');
    await t.advance(1);
    const s = (await t.call('GET', `/v2/demo/status/${id}`)).body;
    expect(s).toMatchObject({ status: 'COMPLETED', delayTime: 3000 });
  });

  it('lowPriority jobs do not trigger scale-up; normal ones do, up to max', async () => {
    t = await startManual({ workers: { min: 1, max: 3 } });
    await run({ mock_delay: 10 });
    await run({ mock_delay: 10 }, true);
    await run({ mock_delay: 10 }, true);
    expect((await health()).workers).toMatchObject({ running: 1, idle: 0 });
    for (let i = 0; i < 5; i++) await run({ mock_delay: 10 });
    const h = await health();
    expect(h.workers.running).toBe(3);
    expect(h.jobs.inQueue).toBe(5);
  });

  it('idle workers above min stop after the idle timeout', async () => {
    t = await startManual({ workers: { min: 1, max: 3, idleTimeoutMs: 5000 } });
    for (let i = 0; i < 3; i++) await run({ mock_delay: 1 });
    await t.advance(1000);
    expect((await health()).workers.idle).toBe(3);
    await t.advance(4999);
    expect((await health()).workers.idle).toBe(3);
    await t.advance(1);
    expect((await health()).workers.idle).toBe(1);
  });

  it('jobsPerWorker jobs share one worker', async () => {
    t = await startManual({ workers: { min: 1, max: 1, jobsPerWorker: 3 } });
    for (let i = 0; i < 4; i++) await run({ mock_delay: 5 });
    const h = await health();
    expect(h.jobs).toMatchObject({ inProgress: 3, inQueue: 1 });
    expect(h.workers.running).toBe(1);
  });

  it('mock_crash fails the job and replaces the worker; mock_refresh recycles it', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const workerOf = async (id: string) => (await t.call('GET', `/v2/demo/status/${id}`)).body.workerId as string;
    const a = await run({ mock_crash: true });
    expect((await t.call('GET', `/v2/demo/status/${a}`)).body).toMatchObject({ status: 'FAILED', error: expect.stringContaining('crash') });
    const b = await run({ mock_refresh: true });
    const c = await run({});
    expect(await workerOf(b)).not.toBe(await workerOf(a));
    expect(await workerOf(c)).not.toBe(await workerOf(b));
    expect((await health()).workers.idle).toBe(1);
  });

  it('POST /_qbench/workers sets min/max and starts warm workers', async () => {
    t = await startManual({ workers: { min: 0, max: 2 } });
    const r = await t.call('POST', '/_qbench/workers', { min: 1, max: 6, running: 4 });
    expect(r.status).toBe(200);
    expect((await health()).workers.idle).toBe(4);
    expect((await t.call('POST', '/_qbench/workers', { min: 3, max: 2 })).status).toBe(400);
    expect((await t.call('POST', '/_qbench/workers', { endpoint: 'nope' })).status).toBe(404);
    expect((await t.call('POST', '/_qbench/workers', { bogus: 1 })).status).toBe(400);
  });

  it('POST /_qbench/reset forgets jobs and counters', async () => {
    t = await startManual();
    const id = await run({});
    await t.call('POST', '/_qbench/reset');
    expect((await t.call('GET', `/v2/demo/status/${id}`)).status).toBe(404);
    expect((await health()).jobs.submitted).toBe(0);
    const counters = (await t.call('GET', '/_qbench/counters')).body;
    expect(counters.endpoints.demo.jobsHeld).toBe(0);
  });
});
