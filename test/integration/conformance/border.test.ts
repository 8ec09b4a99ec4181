// The conformance suite at the border: the built CLI's `qbench emulate` in a process of its own,
// a pass-through proxy adding 25 ms (+0..10 ms jitter) each way, and the built `qbench check`
// pointed at the proxy's URL, as a user would. A clean target gives no failure: the whole quick
// profile (but six rate checks, below) on one shared endpoint, then a representative subset (queue-holding, ttl, health-count,
// rate and concurrency checks, --only, to fit the test budget) among its leftovers; the subset
// twice in a row with spare endpoints, the second run inheriting the first one's leftovers; and
// opaque (no /_qbench). border-faults.test.ts proves every fault is still caught.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startEmulate as startEmulateWithKey, stopEmulate, type EmulateProcess } from './border-emulate.js';
import { startProxy, type Proxy } from './border-proxy.js';

const run = promisify(execFile);
const KEY = 'qbench-border-key';
const KEY_ENV = 'QBENCH_BORDER_KEY';
const PROXY = { delayMs: 25, jitterMs: 10 } as const;
const SPARES = ['spare-1', 'spare-2', 'spare-3', 'spare-4', 'spare-5', 'spare-6', 'spare-7', 'spare-8', 'spare-9', 'spare-10'];

/** Checks that hold the queue, wait on ttl or count on /health, and two bursts that meet in one window. */
const SHARED_SUBSET = [
  'queue.ttl.in-progress', 'queue.ttl.completed', 'queue.execution-timeout.queue-time-not-counted', 'queue.purge.running-completes',
  'queue.health.counts', 'queue.rate.requests', 'queue.concurrency.requests', 'queue.cancel.queued',
];
/**
 * Left out of the whole profile's run: six of its eight rate checks. Each takes a 10 s window of
 * the shared endpoint in turn (about 15 s each, most of the run); queue.rate.run and
 * queue.rate.requests stand for their burst and judging by URL here, and all eight run on a clean
 * emulator in clean-emulator.test.ts and against the faults by URL in border-faults.test.ts.
 */
const WHOLE_SKIPS = ['queue.rate.runsync', 'queue.rate.status', 'queue.rate.stream', 'queue.rate.cancel', 'queue.rate.openai', 'queue.rate.purge-queue'];
/** Quick answers that need no /_qbench: the opaque target at time scale 1. */
const OPAQUE_SUBSET = ['queue.run.answer', 'queue.status.record', 'queue.health.answer', 'queue.auth.missing-or-wrong-key-401', 'queue.request.input-required', 'queue.retry.refused-states'];

type Emulator = EmulateProcess;
const startEmulate = (args: readonly string[]) => startEmulateWithKey(KEY, args);

interface CheckRun {
  readonly code: number;
  readonly out: string;
  readonly failed: string[];
  readonly passed: number;
  readonly inconclusive: number;
}

async function check(proxy: Proxy, args: readonly string[]): Promise<CheckRun> {
  const argv = [BIN, 'check', '--target', proxy.url, '--endpoint', 'demo', '--api-key-env', KEY_ENV, '--profile', 'quick', ...args];
  const r = await run(process.execPath, argv, { cwd: ROOT, env: { ...process.env, [KEY_ENV]: KEY }, maxBuffer: 16 * 1024 * 1024 }).then(
    (x) => ({ code: 0, out: x.stdout + x.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
  const lines = r.out.split('\n');
  return {
    ...r,
    failed: lines.filter((l) => /^(FAIL|ERROR)\s/.test(l)),
    passed: lines.filter((l) => l.startsWith('PASS ')).length,
    inconclusive: lines.filter((l) => l.startsWith('INCONCLUSIVE ')).length,
  };
}


describe('qbench check by URL, behind a proxy', () => {
  describe('time scale 60, one shared endpoint', () => {
    let emu: Emulator | undefined;
    let proxy: Proxy | undefined;
    beforeAll(async () => {
      // The emulator serves `demo` only: every check of the run shares it.
      emu = await startEmulate(['--time-scale', '60', '--endpoint', 'demo']);
      proxy = await startProxy({ upstream: emu.url, ...PROXY });
    }, 30_000);
    afterAll(async () => {
      await proxy?.close();
      await stopEmulate(emu);
    });

    it('the whole quick profile, then the subset among its leftovers: no failure', { timeout: 330_000 }, async () => {
      const p = proxy as Proxy;
      const whole = await check(p, ['--rest-url', p.url, '--graphql-url', `${p.url}/graphql`, '--skip', WHOLE_SKIPS.join(',')]);
      expect(whole.failed, whole.out).toEqual([]);
      expect(whole.code, whole.out).toBe(0);
      // Every check of the profile ran (queue, REST and GraphQL) and nearly all were judged; an
      // inconclusive one (a rate window another check used) is said, not failed. The only skip
      // allowed: a rate burst that a loaded host sent too slowly to place in one 10 s window.
      expect(whole.out, whole.out).toMatch(/ 0 error,/);
      const skips = whole.out.split('\n').filter((l) => l.startsWith('SKIP '));
      for (const l of skips) expect(l, whole.out).toMatch(/queue\.rate\..*too close to the \d+ ms window to judge the count/);
      expect(skips.length, whole.out).toBeLessThanOrEqual(2);
      expect(whole.inconclusive, whole.out).toBeLessThanOrEqual(2);
      expect(whole.passed, whole.out).toBeGreaterThanOrEqual(60);
      // The subset again on the same endpoint, among the whole run's leftovers.
      const r = await check(p, ['--only', SHARED_SUBSET.join(',')]);
      expect(r.failed, r.out).toEqual([]);
      expect(r.code, r.out).toBe(0);
      expect(r.passed + r.inconclusive).toBe(SHARED_SUBSET.length);
      // Most checks set up and judged; an inconclusive one is said, not failed.
      expect(r.passed, r.out).toBeGreaterThanOrEqual(SHARED_SUBSET.length - 2);
    });
  });

  it('time scale 60 with spare endpoints, twice (the second run inherits the first one\'s leftovers on the main endpoint and on the spares): no failure', { timeout: 200_000 }, async () => {
    const emu = await startEmulate(['--time-scale', '60', ...['demo', ...SPARES].flatMap((e) => ['--endpoint', e])]);
    const proxy = await startProxy({ upstream: emu.url, ...PROXY });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await check(proxy, ['--only', SHARED_SUBSET.join(','), ...SPARES.flatMap((s) => ['--spare-endpoint', s])]);
        expect(r.failed, r.out).toEqual([]);
        expect(r.code, r.out).toBe(0);
        expect(r.passed + r.inconclusive).toBe(SHARED_SUBSET.length);
        // Most checks set up and judged; an inconclusive one is said, not failed.
        expect(r.passed, r.out).toBeGreaterThanOrEqual(SHARED_SUBSET.length - 2);
      }
    } finally {
      await proxy.close();
      await stopEmulate(emu);
    }
  });

  it('opaque (no /_qbench) at time scale 1: no failure', { timeout: 120_000 }, async () => {
    const emu = await startEmulate(['--endpoint', 'demo']);
    const proxy = await startProxy({ upstream: emu.url, ...PROXY, opaque: true });
    try {
      const r = await check(proxy, ['--only', OPAQUE_SUBSET.join(',')]);
      expect(r.out).toMatch(/target remote /);
      expect(r.failed, r.out).toEqual([]);
      expect(r.code, r.out).toBe(0);
      expect(r.passed, r.out).toBe(OPAQUE_SUBSET.length);
    } finally {
      await proxy.close();
      await stopEmulate(emu);
    }
  });
});
