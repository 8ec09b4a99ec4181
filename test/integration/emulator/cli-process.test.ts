// `qbench emulate` as its own process keeps serving after requests that throw inside the
// emulator: a preloaded fixture makes JSON.stringify throw on one job's record, so /status
// (with and without a body), /requests and that job's webhook all fail internally. Each such
// request gets a 500 `{error}`, the incidents are counted in /_qbench/info and logged on
// stderr without the key, and the process answers the next request.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, until } from './helpers.js';

const KEY = 'cli-process-key-9182';
/** A job whose record contains this cannot be serialized in the emulator process (fixtures/stringify-throws.ts). */
const MARKER = 'qbench-test-unserializable';
const procs: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  await killAll(procs);
});

describe('qbench emulate (separate process)', () => {
  it('answers 500 to requests that throw inside it, counts them, and keeps serving', { timeout: 60_000 }, async () => {
    const args = ['--import', 'tsx', '--import', './test/integration/emulator/fixtures/stringify-throws.ts', 'src/cli/bin.ts', 'emulate', '--port', '0', '--host', '127.0.0.1', '--api-key', KEY];
    const proc = spawn(process.execPath, args, { cwd: process.cwd(), env: { ...process.env, QBENCH_TEST_UNSERIALIZABLE_MARKER: MARKER }, stdio: ['ignore', 'pipe', 'pipe'] });
    procs.push(proc);
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    await until(() => /ready on \S+/.test(out) || proc.exitCode !== null, 'the ready line', 30_000);
    const url = (/ready on (\S+)/.exec(out) ?? [])[1] as string;
    expect(url, err).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const auth = { authorization: KEY };

    const run = await fetch(`${url}/v2/demo/run`, { method: 'POST', headers: auth, body: JSON.stringify({ input: { mock_return: MARKER }, webhook: 'http://127.0.0.1:9/hook' }) });
    const { id } = (await run.json()) as { id: string };
    // Until the job completes its record holds no output and serializes fine.
    await until(async () => (await fetch(`${url}/v2/demo/status/${id}`, { headers: auth })).status === 500, 'the completed job to fail serialization', 10_000);
    for (const [method, path, body] of [
      ['POST', `/v2/demo/status/${id}`, '{}'],
      ['GET', '/v2/demo/requests', undefined],
    ] as const) {
      const r = await fetch(url + path, { method, headers: auth, ...(body === undefined ? {} : { body }) });
      expect(r.status, `${method} ${path}`).toBe(500);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(((await r.json()) as { error: string }).error).toMatch(/^internal emulator error/);
    }
    expect((await fetch(`${url}/v2/demo/health`, { headers: auth })).status).toBe(200);
    const info = (await (await fetch(`${url}/_qbench/info`, { headers: auth })).json()) as { internalErrors: { request: number; webhook: number; total: number } };
    expect(info.internalErrors.request).toBeGreaterThanOrEqual(3);
    expect(info.internalErrors.webhook).toBe(1);
    expect(proc.exitCode).toBeNull();
    expect(err).toMatch(/internal error \(request POST \/v2\/demo\/status\//);
    expect(err).not.toContain(KEY);
    expect(out).not.toContain(KEY);
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
