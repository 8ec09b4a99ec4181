// The worker protocol's stop and health rules, call by call on a ManualClock (WIRE-COMPAT "How the
// official Python worker behaves"): job-stop is held open until a stop exists for the worker (or
// workerStopLongPollMs pass), released on client disconnect and emulator close; a delivered stop
// is re-delivered until the worker's heartbeat or job-done shows the job gone, and the worker
// keeps the job's slot until then; a ping with status=unhealthy keeps the worker from jobs.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { STOP_CONFIRM_AFTER_TAKE_REAL_MS, STOP_REDELIVER_REAL_MS } from '../../../src/emulator/http/worker-protocol.js';
import type { QueueEndpoint } from '../../../src/emulator/queue/endpoint.js';
import { KEY, startManual, until, type TestEmulator } from './helpers.js';

const STOP_POLL_MS = 20_000;

let current: TestEmulator | undefined;
let em: EmulatorHandle | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
  await em?.close();
  em = undefined;
});

const raw = (base: string, path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: KEY, ...init.headers } });

async function manual(): Promise<{ t: TestEmulator; ep: QueueEndpoint; get: (path: string, init?: RequestInit) => Promise<Response> }> {
  const t = await startManual({ externalWorkers: true, workerTakeLongPollMs: 0, workerStopLongPollMs: STOP_POLL_MS });
  current = t;
  const url = t.em.url;
  return { t, ep: t.em.core.endpoints.get('demo')!, get: (path, init) => raw(url, path, init) };
}

async function takeOne(t: TestEmulator, get: (p: string) => Promise<Response>, workerId: string): Promise<string> {
  const id = (await t.call('POST', '/v2/demo/run', { input: {} })).body.id as string;
  const took = (await (await get(`/v2/demo/job-take/${workerId}?gpu=x&job_in_progress=0`)).json()) as { id: string };
  expect(took.id).toBe(id);
  return id;
}

interface HeldCall {
  readonly response: Promise<Response>;
  answered(): boolean;
}

/** Call job-stop as `workerId` and wait until the emulator holds `heldAfter` job-stop calls. */
async function heldStop(ep: QueueEndpoint, get: (p: string) => Promise<Response>, workerId: string, heldAfter = 1): Promise<HeldCall> {
  let answered = false;
  const response = get(`/v2/demo/job-stop/${workerId}?gpu=x`).then((r) => {
    answered = true;
    return r;
  });
  await until(() => ep.stops.held === heldAfter, `${heldAfter} job-stop call(s) to be held`);
  return { response, answered: () => answered };
}

describe('job-stop long-poll', () => {
  it(`is held open for workerStopLongPollMs (real ms) and then answers 204`, async () => {
    const { t, ep, get } = await manual();
    const call = await heldStop(ep, get, 'w1');
    await t.advance(STOP_POLL_MS - 1);
    expect(call.answered()).toBe(false);
    await t.advance(1);
    expect((await call.response).status).toBe(204);
    expect(ep.stops.held).toBe(0);
  });

  it('answers as soon as a stop exists for that worker, and only for that worker', async () => {
    const { t, ep, get } = await manual();
    const id = await takeOne(t, get, 'w1');
    const other = await heldStop(ep, get, 'w2');
    const mine = await heldStop(ep, get, 'w1', 2);
    expect((await t.call('POST', `/v2/demo/cancel/${id}`)).body).toEqual({ id, status: 'CANCELLED' });
    const r = await mine.response;
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ jobsToStop: [id] });
    expect(other.answered()).toBe(false);
    await t.advance(STOP_POLL_MS);
    expect((await other.response).status).toBe(204);
  });

  it('is released when the client goes away and when the emulator closes', async () => {
    const { t, ep, get } = await manual();
    const ac = new AbortController();
    const gone = get('/v2/demo/job-stop/w1?gpu=x', { signal: ac.signal }).catch((e: unknown) => e);
    await until(() => ep.stops.held === 1, 'job-stop to be held');
    ac.abort();
    await gone;
    await until(() => ep.stops.held === 0, 'the abandoned job-stop to be released');

    const held = get('/v2/demo/job-stop/w1?gpu=x').then(
      (r) => r.status,
      () => 'connection closed',
    );
    await until(() => ep.stops.held === 1, 'job-stop to be held');
    current = undefined;
    await t.close();
    expect([204, 'connection closed']).toContain(await held);
    expect(ep.stops.held).toBe(0);
  });
});

describe('stop re-delivery and confirmation', () => {
  it(`a delivered stop is answered again every ${STOP_REDELIVER_REAL_MS} ms until a heartbeat taken ${STOP_CONFIRM_AFTER_TAKE_REAL_MS} ms after the take no longer lists the job`, async () => {
    const { t, ep, get } = await manual();
    const id = await takeOne(t, get, 'w1');
    await t.call('POST', `/v2/demo/cancel/${id}`);
    expect(await (await get('/v2/demo/job-stop/w1?gpu=x')).json()).toEqual({ jobsToStop: [id] });
    // Delivered once: the next call waits for the re-delivery, not for the long-poll bound.
    const second = await heldStop(ep, get, 'w1');
    await t.advance(STOP_REDELIVER_REAL_MS - 1);
    expect(second.answered()).toBe(false);
    await t.advance(1);
    expect(await (await second.response).json()).toEqual({ jobsToStop: [id] });

    // The worker still holds the job (and its slot) while it lists it, or pings too soon after the take.
    const health = async () => (await t.call('GET', '/v2/demo/health')).body.workers as Record<string, number>;
    expect((await get(`/v2/demo/ping/w1?job_id=${id}`)).status).toBe(200);
    expect(ep.stops.size).toBe(1);
    expect((await health()).running).toBe(1);
    expect((await t.call('GET', `/v2/demo/status/${id}`)).body.status).toBe('CANCELLED');
    await get('/v2/demo/ping/w1?job_id=');
    expect(ep.stops.size).toBe(1);
    await t.advance(STOP_CONFIRM_AFTER_TAKE_REAL_MS - STOP_REDELIVER_REAL_MS);
    await get('/v2/demo/ping/w1?job_id=other-job');
    expect(ep.stops.size).toBe(0);
    expect(await health()).toMatchObject({ running: 0, idle: 1 });
    const after = await heldStop(ep, get, 'w1');
    await t.advance(STOP_POLL_MS);
    expect((await after.response).status).toBe(204);
  });

  it("the job's job-done settles its stop at once; an execution timeout is a stop too", async () => {
    const { t, ep, get } = await manual();
    const id = await takeOne(t, get, 'w1');
    await t.call('POST', `/v2/demo/cancel/${id}`);
    expect(ep.stops.size).toBe(1);
    const done = await get(`/v2/demo/job-done/w1/${id}?gpu=x&isStream=false`, { method: 'POST', body: '{"output":"late"}' });
    expect(done.status).toBe(404);
    expect(ep.stops.size).toBe(0);
    expect(ep.pool.workers.get('w1')?.jobs.size).toBe(0);
    expect((await t.call('GET', `/v2/demo/status/${id}`)).body).toMatchObject({ status: 'CANCELLED' });

    const timed = (await t.call('POST', '/v2/demo/run', { input: {}, policy: { executionTimeout: 5_000 } })).body.id as string;
    await get('/v2/demo/job-take/w1?gpu=x');
    await t.advance(5_000);
    expect((await t.call('GET', `/v2/demo/status/${timed}`)).body.status).toBe('TIMED_OUT');
    expect(await (await get('/v2/demo/job-stop/w1?gpu=x')).json()).toEqual({ jobsToStop: [timed] });
  });
});

describe('a stopped job retried', () => {
  it('taken again, it is no longer owed as a stop, and the worker that held it frees the slot', async () => {
    const { t, ep, get } = await manual();
    const id = (await t.call('POST', '/v2/demo/run', { input: {}, policy: { executionTimeout: 5_000 } })).body.id as string;
    await get('/v2/demo/job-take/w1?gpu=x');
    await t.advance(5_000);
    expect((await t.call('GET', `/v2/demo/status/${id}`)).body.status).toBe('TIMED_OUT');
    expect(ep.stops.get(id)?.workerId).toBe('w1');
    expect(ep.pool.workers.get('w1')?.jobs.has(id)).toBe(true);
    expect((await t.call('POST', `/v2/demo/retry/${id}`)).body).toEqual({ id, status: 'IN_QUEUE' });
    const took = (await (await get('/v2/demo/job-take/w2?gpu=x')).json()) as { id: string };
    expect(took.id).toBe(id);
    expect(ep.stops.size).toBe(0);
    expect(ep.pool.workers.get('w1')?.jobs.size).toBe(0);
    expect(ep.pool.workers.get('w2')?.jobs.has(id)).toBe(true);
    const done = await get(`/v2/demo/job-done/w2/${id}?gpu=x&isStream=false`, { method: 'POST', body: '{"output":"second attempt"}' });
    expect(done.status).toBe(200);
    expect((await t.call('GET', `/v2/demo/status/${id}`)).body).toMatchObject({ status: 'COMPLETED', output: 'second attempt', workerId: 'w2' });
  });
});

describe('unhealthy workers', () => {
  it('a ping with status=unhealthy counts in /health workers.unhealthy and the worker gets no job until it pings healthy', async () => {
    em = await startEmulator({ apiKey: KEY, externalWorkers: true, workerTakeLongPollMs: 100 });
    const api = async (path: string, init: RequestInit = {}) => raw(em!.url, path, init);
    const workers = async () => ((await (await api('/v2/demo/health')).json()) as { workers: Record<string, number> }).workers;
    expect((await api('/v2/demo/ping/sick-1?job_id=&status=unhealthy&check=network')).status).toBe(200);
    expect(await workers()).toMatchObject({ unhealthy: 1, idle: 0, ready: 0 });
    const id = ((await (await api('/v2/demo/run', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{}}' })).json()) as { id: string }).id;
    expect((await api('/v2/demo/job-take/sick-1?gpu=x&job_in_progress=0')).status).toBe(204);
    expect((await api('/v2/demo/job-take-batch/sick-1?gpu=x&batch_size=4')).status).toBe(204);
    expect(((await (await api(`/v2/demo/status/${id}`)).json()) as { status: string }).status).toBe('IN_QUEUE');
    await api('/v2/demo/ping/sick-1?job_id=');
    expect(await workers()).toMatchObject({ unhealthy: 0, idle: 1 });
    const took = await api('/v2/demo/job-take/sick-1?gpu=x&job_in_progress=0');
    expect(took.status).toBe(200);
    expect(((await took.json()) as { id: string }).id).toBe(id);
  });
});
