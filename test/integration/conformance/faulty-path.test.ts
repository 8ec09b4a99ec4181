// A correct target behind a faulty network path: the built `qbench emulate` (time scale 60) behind
// a TCP proxy that resets 1.5% of the answer pieces halfway and stalls another 1.5% for 3 s, the
// very first one (the start-up read) reset. The built CLI's quick profile by URL finds no failure:
// a lost answer is retried where the check allows, else the check is inconclusive naming the path
// fault. The proxy's seed is printed, and QBENCH_TEST_SEED replays a run.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulate, stopEmulate, type EmulateProcess } from './border-emulate.js';
import { runCheckCli } from './check-cli.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

const KEY = 'qbench-faulty-path-key';
const KEY_ENV = 'QBENCH_FAULTY_PATH_KEY';
const SEED = Number(process.env['QBENCH_TEST_SEED'] ?? Date.now() % 1_000_000);
const SPARES = Array.from({ length: 64 }, (_, i) => `spare-${i + 1}`);
/**
 * The checks most exposed to a lost answer, to fit the test budget: the held bursts, the stream read
 * whose chunks are handed out once, the waits that poll, a ttl deletion judged by the clock. The
 * whole quick profile takes four minutes here (QBENCH_FAULTY_PATH_FULL=1 runs it; bench/verdict-proof.ts
 * runs it three times with other seeds).
 */
const SUBSET = [
  'queue.concurrency.runsync', 'queue.concurrency.status', 'queue.concurrency.stream', 'queue.stream.*', 'queue.status.record', 'queue.runsync.answer', 'queue.run.answer', 'queue.cancel.running',
  'queue.retry.from-failed', 'queue.health.answer', 'queue.ttl.in-queue',
];
const SELECT = process.env['QBENCH_FAULTY_PATH_FULL'] === '1' ? [] : ['--only', SUBSET.join(',')];

let emu: EmulateProcess | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await stopEmulate(emu);
  proxy = undefined;
  emu = undefined;
});

describe('a correct target behind a path that resets and stalls connections', () => {
  it(`gives no failed check; lost answers are retried or named as path faults (seed ${SEED})`, { timeout: 300_000 }, async () => {
    emu = await startEmulate(KEY, ['--time-scale', '60', '--endpoint', 'demo', ...SPARES.flatMap((e) => ['--endpoint', e])]);
    const up = new URL(emu.url);
    proxy = await startFaultProxy({ upstream: { host: up.hostname, port: Number(up.port) }, resetRate: 0.015, stallRate: 0.015, stallMs: 3_000, resetFirst: true, seed: SEED });
    const r = await runCheckCli({ url: proxy.url, endpoint: 'demo', apiKey: KEY, keyEnv: KEY_ENV, args: [...SPARES.flatMap((e) => ['--spare-endpoint', e]), ...SELECT] });
    const failed = r.checks.filter((c) => c.verdict.status === 'fail' || c.verdict.status === 'error');
    expect(failed.map((c) => `${c.id}: ${JSON.stringify(c.verdict)}`), `seed ${SEED}; resets ${proxy.resets()}, stalls ${proxy.stalls()}\n${r.out}`).toEqual([]);
    expect(r.code, r.out).toBe(0);
    // The path did fault, the start-up read included: the proof is not vacuous.
    expect(proxy.resets()).toBeGreaterThan(1);
    expect(r.checks.filter((c) => c.verdict.status === 'pass').length).toBeGreaterThan(r.checks.length / 2);
  });
});
