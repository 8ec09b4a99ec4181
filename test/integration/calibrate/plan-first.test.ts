// The plan and its cost are printed before anything is sent, with --yes too: a local target
// takes a snapshot of what qbench calibrate had printed when its first request arrived, then
// refuses every request (401), which ends the run.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';

const server = createServer();
let dir = '';
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('qbench calibrate --yes', () => {
  it('prints the plan, the job budget and the worker-seconds bound before its first request', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qbench-plan-first-'));
    let out = '';
    let atFirstRequest: string | undefined;
    let requests = 0;
    server.on('request', (req, res) => {
      requests += 1;
      atFirstRequest ??= out;
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), isTty: false, env: { QBENCH_API_KEY: 'calibrate-key' }, signal: new AbortController().signal };
    const code = await main(['calibrate', '--target', `http://127.0.0.1:${port}/v2/ep`, '--yes', '--max-jobs', '50', '--max-duration', '20s', '--warm-jobs', '3', '--cold-starts', '1', '--burst-jobs', '2', '--stream-jobs', '1', '--out', path.join(dir, 'out')], io);
    expect(requests, out).toBeGreaterThan(0);
    expect(code, out).not.toBe(0);
    expect(atFirstRequest).toMatch(/7 jobs planned, never more than 50 \(--max-jobs, a second burst included\), at most 20 s \(--max-duration\)/);
    expect(atFirstRequest).toMatch(/at most \d+ worker-seconds: 5 workers/);
  });
});
