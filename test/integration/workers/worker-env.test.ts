// `qbench emulate --print-worker-env <endpoint>`: the environment a worker process
// needs, each RUNPOD_WEBHOOK_* URL with its `?` already in it (WIRE-COMPAT); a worker process
// started with only that environment attaches and runs jobs; the key is printed there and
// nowhere else (not in the emulator's startup lines, not in the worker's output).
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { attached, client, KEY, killWorkers, spawnWorker, until } from './helpers.js';

let em: EmulatorHandle | undefined;
afterEach(async () => {
  await killWorkers();
  await em?.close();
  em = undefined;
});

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTty: false, env: {}, signal: new AbortController().signal });
  return { code, stdout, stderr };
}

/** `export NAME='value'` lines -> {NAME: value}; every line must have that form. */
function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n').filter(Boolean)) {
    const m = /^export ([A-Z_]+)='([^']*)'$/.exec(line);
    if (!m) throw new Error(`not an export line: ${line}`);
    env[m[1]!] = m[2]!;
  }
  return env;
}

describe('qbench emulate --print-worker-env', () => {
  it('prints every variable, each URL with its ?, and a worker started with only that environment runs jobs', async () => {
    em = await startEmulator({ apiKey: KEY, port: 0, externalWorkers: true, timeScale: 10, workerPingIntervalMs: 1_000 });
    const port = String(new URL(em.url).port);
    const r = await run(['emulate', '--print-worker-env', 'demo', '--worker-id', 'env-w1', '--api-key', KEY, '--port', port, '--external-workers', '--time-scale', '10', '--worker-ping-interval-ms', '1000']);
    expect(r.code).toBe(EXIT.OK);
    const env = parseExports(r.stdout);
    expect(Object.keys(env).sort()).toEqual(
      ['QBENCH_TIME_SCALE', 'RUNPOD_AI_API_KEY', 'RUNPOD_ENDPOINT_ID', 'RUNPOD_PING_INTERVAL', 'RUNPOD_POD_ID', 'RUNPOD_SKIP_AUTO_SYSTEM_CHECKS', 'RUNPOD_SKIP_GPU_CHECK', 'RUNPOD_WEBHOOK_GET_JOB', 'RUNPOD_WEBHOOK_PING', 'RUNPOD_WEBHOOK_POST_OUTPUT', 'RUNPOD_WEBHOOK_POST_STREAM'].sort(),
    );
    expect(env['RUNPOD_WEBHOOK_GET_JOB']).toBe(`${em.url}/v2/demo/job-take/$ID?gpu=emulated`);
    expect(env['RUNPOD_WEBHOOK_POST_OUTPUT']).toBe(`${em.url}/v2/demo/job-done/env-w1/$ID?gpu=emulated`);
    expect(env['RUNPOD_WEBHOOK_POST_STREAM']).toBe(`${em.url}/v2/demo/job-stream/env-w1/$ID?gpu=emulated`);
    for (const k of ['RUNPOD_WEBHOOK_GET_JOB', 'RUNPOD_WEBHOOK_POST_OUTPUT', 'RUNPOD_WEBHOOK_POST_STREAM', 'RUNPOD_WEBHOOK_PING']) expect(env[k]).toContain('?');
    expect(env).toMatchObject({ RUNPOD_POD_ID: 'env-w1', RUNPOD_AI_API_KEY: KEY, RUNPOD_ENDPOINT_ID: 'demo', RUNPOD_PING_INTERVAL: '1000', QBENCH_TIME_SCALE: '10', RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true', RUNPOD_SKIP_GPU_CHECK: 'true' });

    // No --url, no --api-key, nothing inherited: exactly the printed environment.
    const w = spawnWorker({ url: undefined, workerId: 'env-w1', handler: 'fixtures/workers/mock-worker.ts', env, inheritEnv: false });
    await until(() => attached(em!, 'env-w1'), 'the worker to attach from its environment');
    const api = client(em);
    const done = await api('POST', '/v2/demo/runsync', { input: { mock_return: ['a', 'b'], mock_delay: 1 } });
    expect(done.body).toMatchObject({ status: 'COMPLETED', output: ['a', 'b'], workerId: 'env-w1' });
    const failed = await api('POST', '/v2/demo/runsync', { input: { mock_error: true } });
    expect(failed.body).toMatchObject({ status: 'FAILED', error: 'handler raised an error (mock_error)' });
    w.proc.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    expect(w.output()).toMatch(/env-w1: stopped after 2 jobs \(1 completed, 1 failed/);
    expect(w.output()).not.toContain(KEY);
  });

  it('refuses a ping interval the official worker cannot keep (below 1000 ms), naming the flag and the range', async () => {
    const r = await run(['emulate', '--print-worker-env', 'demo', '--api-key', KEY, '--port', '8000', '--worker-ping-interval-ms', '500']);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/--worker-ping-interval-ms must be from 1000 to 90000 for a worker environment, got 500/);
    expect(r.stdout).toBe('');
    const ok = await run(['emulate', '--print-worker-env', 'demo', '--api-key', KEY, '--port', '8000', '--worker-ping-interval-ms', '1000']);
    expect(ok.code).toBe(EXIT.OK);
    expect(parseExports(ok.stdout)).toMatchObject({ RUNPOD_PING_INTERVAL: '1000', RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true', RUNPOD_SKIP_GPU_CHECK: 'true' });
  });

  it('refuses an endpoint not served and port 0; the emulator startup lines never show the key', async () => {
    const bad = await run(['emulate', '--print-worker-env', 'nope', '--api-key', KEY]);
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.stderr).toMatch(/--print-worker-env: endpoint "nope" is not served; served: demo/);
    const zero = await run(['emulate', '--print-worker-env', 'demo', '--api-key', KEY, '--port', '0']);
    expect(zero.code).toBe(EXIT.USAGE);
    expect(zero.stderr).toMatch(/--print-worker-env needs a fixed --port/);
    expect(zero.stderr).not.toContain(KEY);

    const stop = new AbortController();
    let out = '';
    const served = main(['emulate', '--api-key', KEY, '--port', '0', '--external-workers'], { stdout: (t) => (out += t), stderr: (t) => (out += t), isTty: false, env: {}, signal: stop.signal });
    await until(() => out.includes('ready on'), 'the emulator to start');
    stop.abort();
    expect(await served).toBe(EXIT.OK);
    expect(out).not.toContain(KEY);
  });
});
