// Real workers attached over the worker protocol (job-take, job-stream, job-done,
// job-stop, ping) as external workers of the emulator's pool, driven by the reference
// worker of src/worker; plus the raw protocol answers (204 when idle, batch takes).
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { emulatorUrls, runWorker, type WorkerHandler, type WorkerStats } from '../../../src/worker/index.js';
import { main } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { KEY, until } from './helpers.js';
import { ManualClock } from '../../../src/emulator/clock.js';
import { WORKER_PROTOCOL } from '../../../src/spec/index.js';

let em: EmulatorHandle;
let stop: AbortController;
let worker: Promise<WorkerStats> | undefined;
afterEach(async () => {
  stop.abort();
  await worker;
  worker = undefined;
  await em.close();
});

const h = { authorization: KEY, 'content-type': 'application/json' };
const api = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${em.url}${path}`, { method, headers: h, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
};

async function start(handler: WorkerHandler, concurrency = 1): Promise<void> {
  em = await startEmulator({ apiKey: KEY, externalWorkers: true });
  stop = new AbortController();
  worker = runWorker({ urls: emulatorUrls(em.url, 'demo', 'w-1'), apiKey: KEY, workerId: 'w-1', handler, concurrency, signal: stop.signal, stopPollMs: 20, pingIntervalMs: 50 });
}

const statusOf = async (id: string) => (await api('GET', `/v2/demo/status/${id}`)).body;

describe('external workers (worker protocol)', () => {
  it('a job runs on the external worker and completes with its output', async () => {
    await start((job) => Promise.resolve({ doubled: (job.input['n'] as number) * 2 }));
    const r = await api('POST', '/v2/demo/runsync', { input: { n: 21 } });
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: { doubled: 42 }, workerId: 'w-1' });
    const health = (await api('GET', '/v2/demo/health')).body as { workers: { idle: number } };
    expect(health.workers.idle).toBe(1);
  });

  it('no simulated worker runs jobs when external workers are on', async () => {
    em = await startEmulator({ apiKey: KEY, externalWorkers: true });
    stop = new AbortController();
    const id = (await api('POST', '/v2/demo/run', { input: {} })).body['id'] as string;
    expect((await statusOf(id))['status']).toBe('IN_QUEUE');
    const w = (await api('GET', '/v2/demo/health')).body['workers'] as Record<string, number>;
    expect(w['idle']! + w['running']! + w['initializing']!).toBe(0);
  });

  it('a generator handler streams chunks through job-stream', async () => {
    await start(async function* gen(job) {
      for (const c of job.input['chunks'] as string[]) yield await Promise.resolve(c);
    });
    const id = (await api('POST', '/v2/demo/run', { input: { chunks: ['a', 'b', 'c'] } })).body['id'] as string;
    await until(async () => (await statusOf(id))['status'] === 'COMPLETED', 'the job to complete');
    const s = (await api('GET', `/v2/demo/stream/${id}`)).body;
    expect(s).toEqual({ status: 'COMPLETED', stream: [{ output: 'a' }, { output: 'b' }, { output: 'c' }] });
    expect((await statusOf(id))['output']).toEqual(['a', 'b', 'c']);
  });

  it('a throwing handler fails the job with its message; progress shows while running', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    await start(async (_job, ctx) => {
      await ctx.progress('halfway');
      await gate;
      throw new Error('model exploded');
    });
    const id = (await api('POST', '/v2/demo/run', { input: {} })).body['id'] as string;
    await until(async () => (await statusOf(id))['output'] === 'halfway', 'the progress update');
    expect((await statusOf(id))['status']).toBe('IN_PROGRESS');
    release();
    await until(async () => (await statusOf(id))['status'] === 'FAILED', 'the failure');
    expect((await statusOf(id))['error']).toBe('model exploded');
  });

  it('cancel reaches a running job through job-stop and aborts its handler', async () => {
    let aborted = false;
    await start(
      (_job, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('stopped'));
          });
        }),
    );
    const id = (await api('POST', '/v2/demo/run', { input: {} })).body['id'] as string;
    await until(async () => (await statusOf(id))['status'] === 'IN_PROGRESS', 'the job to start');
    expect((await api('POST', `/v2/demo/cancel/${id}`)).body).toEqual({ id, status: 'CANCELLED' });
    await until(() => aborted, 'the handler to be aborted');
    // The worker is free again: the next job runs.
    expect((await statusOf(id))['status']).toBe('CANCELLED');
    stop.abort();
    expect((await worker)?.stopped).toBe(1);
  });

  it('concurrency > 1 takes jobs in batches', async () => {
    const gates: (() => void)[] = [];
    await start(() => new Promise((r) => gates.push(() => r('ok'))), 3);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', '/v2/demo/run', { input: {} })).body['id'] as string);
    await until(() => gates.length === 3, 'three jobs running at once');
    expect(((await api('GET', '/v2/demo/health')).body['jobs'] as Record<string, number>)['inProgress']).toBe(3);
    for (const g of gates) g();
    for (const id of ids) await until(async () => (await statusOf(id))['status'] === 'COMPLETED', 'completion');
  });
});

describe('worker protocol answers', () => {
  it('job-take answers 204 when nothing is queued (after a bounded wait); job-stop 204; ping 200; unknown job 404', async () => {
    em = await startEmulator({ apiKey: KEY, externalWorkers: true, workerTakeLongPollMs: 100, workerStopLongPollMs: 100 });
    stop = new AbortController();
    const take = await fetch(`${em.url}/v2/demo/job-take/raw-1?gpu=x&job_in_progress=0`, { headers: { authorization: KEY } });
    expect(take.status).toBe(204);
    expect((await fetch(`${em.url}/v2/demo/job-stop/raw-1?gpu=x`, { headers: { authorization: KEY } })).status).toBe(204);
    expect((await fetch(`${em.url}/v2/demo/ping/raw-1?job_id=`, { headers: { authorization: KEY } })).status).toBe(200);
    const done = await fetch(`${em.url}/v2/demo/job-done/raw-1/nope?isStream=false`, { method: 'POST', headers: { authorization: KEY }, body: '{"output":1}' });
    expect(done.status).toBe(404);
    expect((await fetch(`${em.url}/v2/demo/job-take/raw-1`, { headers: { authorization: 'wrong' } })).status).toBe(401);
  });

  it('job-take-batch answers a list with the job fields (input, webhook, policy)', async () => {
    em = await startEmulator({ apiKey: KEY, externalWorkers: true });
    stop = new AbortController();
    await api('POST', '/v2/demo/run', { input: { a: 1 }, webhook: 'http://127.0.0.1:9/x' });
    await api('POST', '/v2/demo/run', { input: { a: 2 } });
    const r = await fetch(`${em.url}/v2/demo/job-take-batch/raw-2?batch_size=5`, { headers: { authorization: KEY } });
    const list = (await r.json()) as { id: string; input: unknown; webhook?: string }[];
    expect(list.map((j) => j.input)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(list[0]?.webhook).toBe('http://127.0.0.1:9/x');
    const res = await fetch(`${em.url}/v2/demo/job-done/raw-2/${list[1]?.id}?isStream=false`, { method: 'POST', headers: { authorization: KEY, 'content-type': 'application/x-www-form-urlencoded' }, body: '{"output":"fine"}' });
    expect(res.status).toBe(200);
    expect((await statusOf(list[1]!.id))).toMatchObject({ status: 'COMPLETED', output: 'fine', workerId: 'raw-2' });
  });
});

describe('external worker liveness', () => {
  it('a worker silent for 3 ping intervals is lost: its running job fails and it leaves the pool', async () => {
    const clock = new ManualClock(0);
    em = await startEmulator({ apiKey: KEY, externalWorkers: true, workerTakeLongPollMs: 0 }, { clock });
    stop = new AbortController();
    const id = (await api('POST', '/v2/demo/run', { input: {} })).body['id'] as string;
    const take = await fetch(`${em.url}/v2/demo/job-take/silent-1`, { headers: { authorization: KEY } });
    expect(((await take.json()) as { id: string }).id).toBe(id);
    clock.advance(3 * WORKER_PROTOCOL.defaultPingIntervalMs);
    expect((await statusOf(id))['status']).toBe('IN_PROGRESS');
    clock.advance(WORKER_PROTOCOL.defaultPingIntervalMs);
    expect(await statusOf(id)).toMatchObject({ status: 'FAILED', error: expect.stringContaining('lost') });
    const w = (await api('GET', '/v2/demo/health')).body['workers'] as Record<string, number>;
    expect(w['idle']! + w['running']!).toBe(0);
  });

  it('a worker that keeps pinging stays', async () => {
    const clock = new ManualClock(0);
    em = await startEmulator({ apiKey: KEY, externalWorkers: true, workerTakeLongPollMs: 0 }, { clock });
    stop = new AbortController();
    const id = (await api('POST', '/v2/demo/run', { input: {} })).body['id'] as string;
    await (await fetch(`${em.url}/v2/demo/job-take/pinger`, { headers: { authorization: KEY } })).text();
    for (let i = 0; i < 6; i++) {
      clock.advance(WORKER_PROTOCOL.defaultPingIntervalMs);
      expect((await fetch(`${em.url}/v2/demo/ping/pinger?job_id=${id}`, { headers: { authorization: KEY } })).status).toBe(200);
    }
    expect((await statusOf(id))['status']).toBe('IN_PROGRESS');
  });
});

describe('qbench worker', () => {
  it('runs a handler module against the emulator until aborted', async () => {
    em = await startEmulator({ apiKey: KEY, externalWorkers: true });
    stop = new AbortController();
    const out: string[] = [];
    const done = main(['worker', '--handler', 'fixtures/emulator/echo-handler.ts', '--url', em.url, '--api-key', KEY, '--worker-id', 'cli-1'], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      isTty: false,
      env: {},
      signal: stop.signal,
    });
    const r = await api('POST', '/v2/demo/runsync', { input: { hello: 'x' } });
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: { echo: { hello: 'x' } }, workerId: 'cli-1' });
    stop.abort();
    expect(await done).toBe(EXIT.OK);
    expect(out.join('')).toMatch(/stopped after 1 jobs \(1 completed/);
  });

  it('bad flags are usage errors', async () => {
    em = await startEmulator({ apiKey: KEY });
    stop = new AbortController();
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => err.push(t), isTty: false, env: {}, signal: stop.signal };
    expect(await main(['worker', '--handler', 'x.ts', '--url', em.url, '--api-key', KEY, '--concurrency', '0'], io)).toBe(EXIT.USAGE);
    expect(await main(['worker', '--handler', 'x.ts'], io)).toBe(EXIT.USAGE);
    expect(await main(['worker', '--handler', 'no/such/module.ts', '--url', em.url, '--api-key', KEY], io)).toBe(EXIT.USAGE);
    expect(err.join('')).toMatch(/--concurrency.*RUNPOD_WEBHOOK_GET_JOB.*cannot load/s);
  });
});
