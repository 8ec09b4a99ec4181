// The rate checks on the target as a user meets the real service: the built `qbench emulate` at
// time scale 1 behind a latency proxy that hides /_qbench (so requests_per_worker is unknown), its
// workers kept busy by another client. §8's dynamic rule then lifts the limit by an unknown amount:
// no failure, each rate check passes or is inconclusive naming the running workers. The same opaque
// target with the rate limiter 10% late and /health counting a phantom queued job, and no other
// traffic, fails both checks, each reproduced by the exchange that broke the rule.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, startEmulate, stopEmulate, type EmulateProcess } from './border-emulate.js';
import { startProxy, type Proxy } from './border-proxy.js';
import { otherClient } from './other-client.js';

const exec = promisify(execFile);
const KEY = 'qbench-busy-opaque-key';
const KEY_ENV = 'QBENCH_BUSY_KEY';
/** Rate checks whose bursts are small enough for one real 10 s window on a loaded host. */
const RATE_SUBSET = ['queue.rate.purge-queue', 'queue.rate.requests'];

let emu: EmulateProcess | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await stopEmulate(emu);
  proxy = undefined;
  emu = undefined;
});

async function opaqueTarget(args: readonly string[]): Promise<Proxy> {
  emu = await startEmulate(KEY, ['--endpoint', 'demo', ...args]);
  proxy = await startProxy({ upstream: emu.url, delayMs: 25, jitterMs: 10, opaque: true });
  return proxy;
}

async function check(p: Proxy, only: readonly string[]): Promise<{ code: number; out: string }> {
  const argv = [BIN, 'check', '--target', p.url, '--endpoint', 'demo', '--api-key-env', KEY_ENV, '--profile', 'quick', '--only', only.join(',')];
  return exec(process.execPath, argv, { cwd: ROOT, env: { ...process.env, [KEY_ENV]: KEY }, maxBuffer: 16 * 1024 * 1024 }).then(
    (x) => ({ code: 0, out: x.stdout + x.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
}

describe('rate checks on an opaque target at time scale 1', () => {
  it('with every worker busy with another client\'s jobs: no failure; each rate check passes or says why it could not judge', { timeout: 150_000 }, async () => {
    const p = await opaqueTarget([]);
    // 8 lanes of 2 s jobs for 5 workers: all of them run another client's job at every moment.
    const other = otherClient(emu!.url, KEY, 8, 2, 2_000);
    let r: { code: number; out: string };
    try {
      r = await check(p, RATE_SUBSET);
    } finally {
      expect(await other.stop()).toBeGreaterThan(0);
    }
    expect(r.out).toMatch(/target remote /);
    const lines = r.out.split('\n');
    expect(lines.filter((l) => /^(FAIL|ERROR)\s/.test(l)), r.out).toEqual([]);
    expect(r.code, r.out).toBe(0);
    for (const id of RATE_SUBSET) {
      const line = lines.find((l) => l.includes(` ${id} `)) ?? '';
      expect(line, r.out).toMatch(/^(PASS|INCONCLUSIVE) /);
      // Inconclusive only for the reason this target gives: workers running, their limit unknown.
      if (line.startsWith('INCONCLUSIVE')) expect(line).toMatch(/while \d+ running workers.*does not advertise requests_per_worker.*\d+ workers were still running after waiting \d+ s/);
    }
  });

  it('with a 10%-late limiter and a phantom queued job, and no other traffic: both checks fail on the violating exchange', { timeout: 90_000 }, async () => {
    const p = await opaqueTarget(['--fault', 'rate-limit-late', '--fault', 'health-miscount']);
    const r = await check(p, ['queue.rate.purge-queue', 'queue.health.counts']);
    expect(r.code, r.out).toBe(1);
    const block = (id: string) => r.out.slice(r.out.indexOf(`FAIL ${id} `)).split('\n\n')[0] ?? '';
    const rate = block('queue.rate.purge-queue');
    expect(rate, r.out).toMatch(/expected: at most 2 admitted in one window \(no worker running/);
    // The reproduction is the purge past the limit, not the /health read the check sent last.
    expect(rate).toMatch(/reproduce: curl .*-X POST '[^']*\/v2\/demo\/purge-queue'/);
    const counts = block('queue.health.counts');
    expect(counts, r.out).toMatch(/observed: inQueue 1, inProgress 0, workers idle \d+, running 0 in each of \d+ readings over \d+\.\d s/);
    expect(counts).toMatch(/reproduce: curl .*\/v2\/demo\/health'/);
  });
});
