// queue.rate.purge-queue against a fake target that does not advertise requests_per_worker and
// applies §8's dynamic rule (100 per running worker): while workers run it admits more than the
// base, which is no violation; the check waits for a window with none running and judges there,
// or ends inconclusive naming the running count. A real violation (no worker running, no 429)
// fails with the purge that should have drawn the 429 as its reproduction, not a /health read.
// The fake's rate window is 1.5 s of real time (the target advertises it), so each run is short.
import { afterEach, describe, expect, it } from 'vitest';
import { Probe, runChecks, specLimits, type Target } from '../../../src/conformance/index.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { startFakeTarget, type FakeTarget } from './fake-target.js';

const KEY = 'sk-test-rate-quiet-0123456789';
const WINDOW_MS = 1_500;
const BASE = 2;
let fake: FakeTarget | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

interface Script {
  /** Workers /health shows running, by how many purges were admitted so far. */
  running(purgesAdmitted: number): number;
  /** A broken limiter that never answers 429. */
  readonly noLimit?: boolean;
}

async function run(script: Script) {
  const admittedAt: number[] = [];
  let purges = 0;
  let admittedTotal = 0;
  fake = await startFakeTarget({
    'GET /v2/ep/health': () => ({ status: 200, json: { jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: script.running(admittedTotal) } } }),
    'POST /v2/ep/purge-queue': () => {
      purges += 1;
      const now = performance.now();
      while (admittedAt.length > 0 && (admittedAt[0] as number) <= now - WINDOW_MS) admittedAt.shift();
      const limit = Math.max(BASE, script.running(admittedTotal) * 100);
      if (script.noLimit !== true && admittedAt.length >= limit) return { status: 429, json: { error: 'rate limited' } };
      admittedAt.push(now);
      admittedTotal += 1;
      return { status: 200, json: { removed: 0, status: 'completed' } };
    },
  });
  const target: Target = {
    kind: 'remote', queueUrl: fake.url, endpointId: 'ep', apiKeyEnv: 'MY_KEY', timeScale: 1,
    limits: { ...specLimits(), rateWindowRealMs: WINDOW_MS }, spareEndpoints: [], callbackHost: null, allowBillable: false, faults: [],
  };
  const [r] = await runChecks(conformanceSuite, target, new Probe({ queueUrl: fake.url, apiKey: KEY, apiKeyEnv: 'MY_KEY' }), { profile: 'quick', only: ['queue.rate.purge-queue'] });
  return { result: r!, purges: () => purges };
}

describe('queue.rate.purge-queue on a target that does not advertise requests_per_worker', () => {
  it('workers running throughout: inconclusive with the running count, once (no retry), never a failure', { timeout: 30_000 }, async () => {
    const { result, purges } = await run({ running: () => 3 });
    expect(result.verdict.status).toBe('inconclusive');
    if (result.verdict.status !== 'inconclusive') throw new Error('unreachable');
    expect(result.verdict.reason).toMatch(/no 429 in 5 requests while 3 running workers/);
    expect(result.verdict.reason).toMatch(/3 workers were still running after waiting \d+ s for a window with none/);
    // One window of 5 purges: the wait for a quiet window stands for the retry.
    expect(purges()).toBe(5);
    expect(result.measured?.['effective']).toBeUndefined();
  });

  it('workers falling idle after the first window: judged in a quiet window, where the base holds', { timeout: 30_000 }, async () => {
    const { result } = await run({ running: (admitted) => (admitted < 5 ? 3 : 0) });
    expect(result.verdict.status, JSON.stringify(result.verdict)).toBe('pass');
    expect(result.measured).toMatchObject({ effective: BASE, admitted: BASE, runningWorkers: 0 });
  });

  it('no worker running and no 429: fails, reproduced by the first purge past the limit', { timeout: 30_000 }, async () => {
    const { result } = await run({ running: () => 0, noLimit: true });
    expect(result.verdict.status).toBe('fail');
    if (result.verdict.status !== 'fail') throw new Error('unreachable');
    expect(result.verdict.expected).toContain('at most 2 admitted in one window (no worker running');
    expect(result.verdict.curl).toContain(`-X POST '${fake!.url}/v2/ep/purge-queue'`);
    expect(result.verdict.exchanges.map((x) => new URL(x.request.url).pathname)).toEqual(['/v2/ep/health', '/v2/ep/purge-queue']);
  });
});
