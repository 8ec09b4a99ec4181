// An in-process emulator (scaled clock, port 0) with reference worker
// PROCESSES (`qbench worker` in their own Node process) attached over the worker protocol:
// sync and streaming handlers, batch take, cancel through job-stop, a worker SIGKILLed
// mid-job, stopPod recycling, execution timeout on an external job, and a mixed pool of
// simulated and external workers under a constant arrival rate (no job lost or duplicated).
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { EXECUTION_TIMEOUT_MS, TTL_MS } from '../../../src/spec/index.js';
import { attached, client, KEY, killWorkers, recordingProxy, spawnWorker, until, type RecordingProxy } from './helpers.js';

// Emulated ms per real ms: a 5 s (emulated) execution timeout passes in 0.5 s real.
const TIME_SCALE = 10;
// Real ms between worker pings; a worker silent for 3 of them is lost (1.5 s real): short for
// the SIGKILL test, long enough that a live worker on a busy 2-core machine is not taken as lost.
const PING_MS = 500;
const MISSED_PINGS_LOST = 3;
const ECHO = 'fixtures/emulator/echo-handler.ts';
const MOCK = 'fixtures/workers/mock-worker.ts';
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

let em: EmulatorHandle | undefined;
let proxy: RecordingProxy | undefined;
let tmp: string | undefined;
afterEach(async () => {
  await killWorkers();
  await proxy?.close();
  proxy = undefined;
  await em?.close();
  em = undefined;
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

async function emulator(extra: Record<string, unknown> = {}): Promise<{ em: EmulatorHandle; api: ReturnType<typeof client> }> {
  em = await startEmulator({ apiKey: KEY, port: 0, externalWorkers: true, timeScale: TIME_SCALE, workerPingIntervalMs: PING_MS, workerTakeLongPollMs: 1_000, ...extra });
  return { em, api: client(em) };
}

/** The mock worker's env: delays in emulated seconds, fast pings. */
const mockEnv = (extra: Record<string, string> = {}) => ({ QBENCH_TIME_SCALE: String(TIME_SCALE), RUNPOD_PING_INTERVAL: String(PING_MS), ...extra });

describe('reference worker processes on the emulator', () => {
  it('a sync handler: /runsync completes with its output, executionTime and workerId; health counts the worker', async () => {
    const { em, api } = await emulator();
    spawnWorker({ url: em.url, workerId: 'proc-sync', handler: ECHO, env: mockEnv() });
    await until(() => attached(em, 'proc-sync'), 'the worker to attach');
    const health = (await api('GET', '/v2/demo/health')).body['workers'] as Record<string, number>;
    expect(health['idle']! + health['running']!).toBe(1);
    const r = await api('POST', '/v2/demo/runsync', { input: { n: 7 } });
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: { echo: { n: 7 } }, workerId: 'proc-sync' });
    expect(typeof r.body['executionTime']).toBe('number');
  });

  it('a streaming (async generator) handler: chunks reach /stream in order; the output is the list', async () => {
    const { em, api } = await emulator();
    spawnWorker({ url: em.url, workerId: 'proc-stream', handler: ECHO, env: mockEnv() });
    const id = (await api('POST', '/v2/demo/run', { input: { chunks: ['one', 'two', 'three'] } })).body['id'] as string;
    await until(async () => (await api('GET', `/v2/demo/status/${id}`)).body['status'] === 'COMPLETED', 'the streamed job to complete');
    expect((await api('GET', `/v2/demo/stream/${id}`)).body).toEqual({ status: 'COMPLETED', stream: [{ output: 'one' }, { output: 'two' }, { output: 'three' }] });
    expect((await api('GET', `/v2/demo/status/${id}`)).body).toMatchObject({ output: ['one', 'two', 'three'], workerId: 'proc-stream' });
  });

  it('concurrency 3 takes a batch through job-take-batch and runs the three jobs at once', async () => {
    const { em, api } = await emulator();
    proxy = await recordingProxy(em.url);
    // Queued before the worker starts, so its first take finds all three.
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', '/v2/demo/run', { input: { mock_delay: 10, mock_return: i } })).body['id'] as string);
    spawnWorker({ url: proxy.url, workerId: 'proc-batch', handler: MOCK, concurrency: 3, env: mockEnv() });
    await until(async () => {
      const s = await Promise.all(ids.map(async (id) => (await api('GET', `/v2/demo/status/${id}`)).body['status']));
      return s.every((x) => x === 'IN_PROGRESS');
    }, 'three jobs running at once');
    expect(em.core.endpoints.get('demo')?.pool.workers.get('proc-batch')?.jobs.size).toBe(3);
    expect(proxy.calls.some((c) => /^GET \/v2\/demo\/job-take-batch\/proc-batch\?.*batch_size=3.* -> 200$/.test(c))).toBe(true);
    for (const [i, id] of ids.entries()) {
      await until(async () => (await api('GET', `/v2/demo/status/${id}`)).body['status'] === 'COMPLETED', 'each job to complete');
      expect((await api('GET', `/v2/demo/status/${id}`)).body['output']).toBe(i);
    }
  });

  it('progress shows in /status; cancel of a running job reaches the worker process through job-stop: its handler stops and its slot frees', async () => {
    const { em, api } = await emulator();
    proxy = await recordingProxy(em.url);
    const w = spawnWorker({ url: proxy.url, workerId: 'proc-cancel', handler: MOCK, env: mockEnv() });
    // A progress update halfway through 20 emulated s (2 s real): shown for 1 s before the end.
    const prog = (await api('POST', '/v2/demo/run', { input: { mock_progress: ['halfway'], mock_delay: 20 } })).body['id'] as string;
    await until(async () => (await api('GET', `/v2/demo/status/${prog}`)).body['output'] === 'halfway', 'the progress update in /status');
    await until(async () => (await api('GET', `/v2/demo/status/${prog}`)).body['status'] === 'COMPLETED', 'the progress job to complete');
    // 600 emulated s = 60 s real: only a stop ends it within the test.
    const id = (await api('POST', '/v2/demo/run', { input: { mock_delay: 600 } })).body['id'] as string;
    await until(async () => (await api('GET', `/v2/demo/status/${id}`)).body['status'] === 'IN_PROGRESS', 'the job to start');
    expect((await api('POST', `/v2/demo/cancel/${id}`)).body).toEqual({ id, status: 'CANCELLED' });
    // Concurrency 1: the next job runs only once the cancelled handler has stopped.
    const next = await api('POST', '/v2/demo/runsync', { input: { mock_return: 'after-cancel' } });
    expect(next.body).toMatchObject({ status: 'COMPLETED', output: 'after-cancel', workerId: 'proc-cancel' });
    expect(proxy.calls.some((c) => /^GET \/v2\/demo\/job-stop\/proc-cancel\?.* -> 200$/.test(c))).toBe(true);
    expect((await api('GET', `/v2/demo/status/${id}`)).body['status']).toBe('CANCELLED');
    w.proc.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    expect(w.output()).toMatch(/stopped after 3 jobs \(2 completed, 0 failed, 1 stopped\)/);
  });

  it('a worker SIGKILLed mid-job is lost after 3 silent ping intervals: its job ends FAILED saying so, and it leaves the pool', async () => {
    const { em, api } = await emulator();
    const w = spawnWorker({ url: em.url, workerId: 'proc-doomed', handler: MOCK, env: mockEnv() });
    const id = (await api('POST', '/v2/demo/run', { input: { mock_delay: 600 } })).body['id'] as string;
    await until(async () => (await api('GET', `/v2/demo/status/${id}`)).body['status'] === 'IN_PROGRESS', 'the job to start');
    w.proc.kill('SIGKILL');
    expect((await w.exited).signal).toBe('SIGKILL');
    await until(async () => TERMINAL.has((await api('GET', `/v2/demo/status/${id}`)).body['status'] as string), 'the lost job to end');
    const s = (await api('GET', `/v2/demo/status/${id}`)).body;
    expect(s).toMatchObject({ status: 'FAILED', workerId: 'proc-doomed', error: expect.stringMatching(/worker proc-doomed lost/) as unknown });
    // The worker's last call came at or after the take (job start), and it is declared lost only
    // once silent for more than 3 intervals (emulated clock): the job ran at least that long.
    expect(s['executionTime']).toBeGreaterThan(MISSED_PINGS_LOST * PING_MS * TIME_SCALE);
    expect(attached(em, 'proc-doomed')).toBe(false);
    const health = (await api('GET', '/v2/demo/health')).body as { workers: Record<string, number>; jobs: Record<string, number> };
    expect(health.workers['idle']! + health.workers['running']!).toBe(0);
    expect(health.jobs['failed']).toBe(1);
  });

  it('a job returning stopPod (mock_refresh) recycles the worker: --exit-on-refresh exits, the default starts a fresh worker id', async () => {
    const { em, api } = await emulator();
    const quitter = spawnWorker({ url: em.url, workerId: 'proc-quit', handler: MOCK, env: mockEnv(), args: ['--exit-on-refresh'] });
    await until(() => attached(em, 'proc-quit'), 'the first worker to attach');
    const r = await api('POST', '/v2/demo/runsync', { input: { mock_refresh: true, mock_return: 'last' } });
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: 'last', workerId: 'proc-quit' });
    expect((await quitter.exited).code).toBe(0);
    expect(quitter.output()).toMatch(/proc-quit: recycled \(stopPod\) after 1 jobs/);

    spawnWorker({ url: em.url, workerId: 'proc-cycle', handler: MOCK, env: mockEnv() });
    const first = await api('POST', '/v2/demo/runsync', { input: { mock_refresh: true, mock_return: 1 } });
    expect(first.body).toMatchObject({ status: 'COMPLETED', output: 1, workerId: 'proc-cycle' });
    const second = await api('POST', '/v2/demo/runsync', { input: { mock_return: 2 } });
    expect(second.body).toMatchObject({ status: 'COMPLETED', output: 2, workerId: 'proc-cycle-r1' });
    // The recycled worker holds nothing and takes nothing again.
    expect(em.core.endpoints.get('demo')?.pool.workers.get('proc-cycle')?.jobs.size ?? 0).toBe(0);
  });

  it('execution timeout and ttl apply to external jobs: TIMED_OUT, then deleted; the worker is told to stop each time and takes the next job', async () => {
    const { em, api } = await emulator();
    spawnWorker({ url: em.url, workerId: 'proc-slow', handler: MOCK, env: mockEnv() });
    const id = (await api('POST', '/v2/demo/run', { input: { mock_delay: 600 }, policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } })).body['id'] as string;
    await until(async () => TERMINAL.has((await api('GET', `/v2/demo/status/${id}`)).body['status'] as string), 'the job to time out');
    const s = (await api('GET', `/v2/demo/status/${id}`)).body;
    expect(s).toMatchObject({ status: 'TIMED_OUT', workerId: 'proc-slow' });
    expect(s['executionTime']).toBeGreaterThanOrEqual(EXECUTION_TIMEOUT_MS.min);
    const next = await api('POST', '/v2/demo/runsync', { input: { mock_return: 'next' } });
    expect(next.body).toMatchObject({ status: 'COMPLETED', output: 'next', workerId: 'proc-slow' });
    // ttl (from submission) ends a running external job too: it is deleted (404).
    const doomed = (await api('POST', '/v2/demo/run', { input: { mock_delay: 600 }, policy: { ttl: TTL_MS.min } })).body['id'] as string;
    await until(async () => (await api('GET', `/v2/demo/status/${doomed}`)).status === 404, 'the ttl to delete the running job');
    const after = await api('POST', '/v2/demo/runsync', { input: { mock_return: 'after-ttl' } });
    expect(after.body).toMatchObject({ status: 'COMPLETED', output: 'after-ttl', workerId: 'proc-slow' });
  });
});

describe('a mixed pool under a constant arrival rate', () => {
  it('simulated and external workers share the queue; every job ends once, COMPLETED with its own output, run exactly once', async () => {
    tmp = mkdtempSync(join(tmpdir(), 'qbench-workers-'));
    const execLog = join(tmp, 'exec.log');
    const { em, api } = await emulator({ simulatedWorkers: true, limits: { enabled: false }, workers: { min: 1, max: 1, jobsPerWorker: 2, coldStartMs: 0 } });
    const externals = ['proc-mix-a', 'proc-mix-b'];
    for (const id of externals) spawnWorker({ url: em.url, workerId: id, handler: MOCK, concurrency: 2, env: mockEnv({ QBENCH_EXEC_LOG: execLog }) });
    await until(() => externals.every((id) => attached(em, id)), 'both external workers to attach');

    // 30 jobs/s for 3 s, each 3 emulated s (0.3 s real): about 9 running at once, more than the
    // simulated worker's 2 slots, so external workers take a share. Paced against the real clock.
    const RATE_PER_SEC = 30;
    const DURATION_MS = 3_000;
    const total = (RATE_PER_SEC * DURATION_MS) / 1_000;
    const t0 = performance.now();
    const submitted: { id: string; tag: string }[] = [];
    for (let i = 0; i < total; i++) {
      const dueMs = (i * 1_000) / RATE_PER_SEC - (performance.now() - t0);
      if (dueMs > 0) await new Promise((r) => setTimeout(r, dueMs));
      const tag = `job-${i}`;
      const r = await api('POST', '/v2/demo/run', { input: { mock_delay: 3, mock_return: tag } });
      expect(r.status).toBe(200);
      submitted.push({ id: r.body['id'] as string, tag });
    }
    expect(new Set(submitted.map((s) => s.id)).size).toBe(total);

    const final = new Map<string, Record<string, unknown>>();
    await until(async () => {
      for (const s of submitted) {
        if (final.has(s.id)) continue;
        const b = (await api('GET', `/v2/demo/status/${s.id}`)).body;
        if (TERMINAL.has(b['status'] as string)) final.set(s.id, b);
      }
      return final.size === total;
    }, 'every job to end', 30_000);

    const runs = new Map<string, string[]>();
    for (const line of readFileSync(execLog, 'utf8').split('\n').filter(Boolean)) {
      const [worker, jobId] = line.split(' ') as [string, string];
      runs.set(jobId, [...(runs.get(jobId) ?? []), worker]);
    }
    let onExternal = 0;
    for (const s of submitted) {
      const b = final.get(s.id)!;
      expect(b).toMatchObject({ status: 'COMPLETED', output: s.tag });
      const workerId = b['workerId'] as string;
      if (externals.includes(workerId)) {
        onExternal += 1;
        expect(runs.get(s.id)).toEqual([workerId]);
      } else {
        expect(runs.get(s.id)).toBeUndefined();
      }
    }
    // Every logged execution belongs to a submitted job.
    for (const jobId of runs.keys()) expect(final.has(jobId)).toBe(true);
    expect(onExternal).toBeGreaterThan(0);
    expect(onExternal).toBeLessThan(total);
    const counts = (await api('GET', '/v2/demo/health')).body['jobs'] as Record<string, number>;
    expect(counts['completed']).toBe(total);
  }, 60_000);
});
