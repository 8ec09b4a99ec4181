// queue.retention.runsync over a slow round trip: a 404 for the probe "just before" the window
// ends is a violation only when the job cannot have been older than the window when the probe
// arrived (its age is at most the probe's answer time minus the submission's send time). A
// probe whose answer came back past the window is no evidence: inconclusive. Time scale 120:
// the 60 s window is 500 ms real and its 15 s slack 125 ms, more than a loaded host stalls.
import { afterEach, describe, expect, it } from 'vitest';
import { Probe, runChecks, specLimits, type Target } from '../../../src/conformance/index.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { startFakeTarget, type FakeTarget } from './fake-target.js';

const KEY = 'sk-test-retention-0123456789';
const SCALE = 120;
let fake: FakeTarget | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A target whose /runsync completes at once and whose /status always answers `status`, `delayMs` late. */
async function verdict(status: number, delayMs: number): Promise<{ status: string; reason?: string }> {
  fake = await startFakeTarget({
    'GET /v2/ep/health': () => ({ status: 200, json: { jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } } }),
    'POST /v2/ep/runsync': () => ({ status: 200, json: { id: 'sync-1', status: 'COMPLETED', output: 'sync-kept' } }),
    'GET /v2/ep/status/sync-1': () => ({ status, json: status === 200 ? { id: 'sync-1', status: 'COMPLETED', output: 'sync-kept' } : { error: 'not found' }, delayMs }),
  });
  const target: Target = {
    kind: 'remote', queueUrl: fake.url, endpointId: 'ep', apiKeyEnv: 'MY_KEY', timeScale: SCALE, limits: specLimits(),
    spareEndpoints: [], callbackHost: null, allowBillable: false, faults: [],
  };
  const [r] = await runChecks(conformanceSuite, target, new Probe({ queueUrl: fake.url, apiKey: KEY, apiKeyEnv: 'MY_KEY' }), { profile: 'full', only: ['queue.retention.runsync'] });
  return r!.verdict;
}

describe('queue.retention.runsync and the probe round trip', () => {
  it('fails on a 404 that came back well inside the window', { timeout: 60_000 }, async () => {
    // Probe sent 45 s (375 ms real) after completion and answered at once: the job was at most ~46 s old.
    expect((await verdict(404, 0)).status).toBe('fail');
  });
  it('is inconclusive on a 404 whose answer came back past the window', { timeout: 60_000 }, async () => {
    // 200 ms real late = 24 emulated s: the probe may have arrived after the 60 s window.
    const v = await verdict(404, 200);
    expect(v.status).toBe('inconclusive');
    expect(v.reason).toMatch(/round trip ended .* past the 60 s window/);
  });
});
