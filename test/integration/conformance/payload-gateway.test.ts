// The payload-cap check when something between qbench and the target answers for it: a gateway
// status (502) for a body past the cap is not the target's refusal, so the verdict is
// inconclusive; a target that accepts that body itself (200) still fails the check.
import { afterEach, describe, expect, it } from 'vitest';
import { Probe, runChecks, specLimits, type Target } from '../../../src/conformance/index.js';
import { RUN_PAYLOAD } from '../../../src/spec/index.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { startFakeTarget, type FakeTarget } from './fake-target.js';

const KEY = 'sk-test-payload-0123456789';
let fake: FakeTarget | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function verdictWhenPastCap(status: number): Promise<{ status: string; reason?: string }> {
  fake = await startFakeTarget({
    'GET /v2/ep/health': () => ({ status: 200, json: { jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } } }),
    'POST /v2/ep/run': (_req, body) => (Buffer.byteLength(body) > RUN_PAYLOAD.binaryBytes ? { status, json: { error: 'past the cap' } } : { status: 200, json: { id: 'j', status: 'IN_QUEUE' } }),
  });
  const target: Target = {
    kind: 'remote', queueUrl: fake.url, endpointId: 'ep', apiKeyEnv: 'MY_KEY', timeScale: 1, limits: specLimits(),
    spareEndpoints: [], callbackHost: null, allowBillable: false, faults: [],
  };
  const [r] = await runChecks(conformanceSuite, target, new Probe({ queueUrl: fake.url, apiKey: KEY, apiKeyEnv: 'MY_KEY' }), { profile: 'full', only: ['queue.payload.run-cap'] });
  return r!.verdict;
}

describe('queue.payload.run-cap behind a gateway', () => {
  it('is inconclusive when a gateway answered 502 for the body past the cap', { timeout: 60_000 }, async () => {
    const v = await verdictWhenPastCap(502);
    expect(v.status).toBe('inconclusive');
    expect(v.reason).toMatch(/gateway/);
  });
  it('fails when the target itself accepts the body past the cap', { timeout: 60_000 }, async () => {
    expect((await verdictWhenPastCap(200)).status).toBe('fail');
  });
  it('passes when the target refuses it with 413', { timeout: 60_000 }, async () => {
    expect((await verdictWhenPastCap(413)).status).toBe('pass');
  });
});
