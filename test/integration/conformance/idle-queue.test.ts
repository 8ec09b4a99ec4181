// sustainedIdleQueue (suites/conformance/lib/queue.ts): /health counting jobs queued while a
// worker sits idle and nothing runs is evidence only when it lasts (no client's traffic explains
// it then); one reading that differs (a job seen running, the queue empty) ends the suspicion.
import { afterEach, describe, expect, it } from 'vitest';
import { Probe, specLimits, timeModel, type CheckContext } from '../../../src/conformance/index.js';
import type { HealthRecord } from '../../../src/spec/index.js';
import { health, sustainedIdleQueue } from '../../../suites/conformance/lib/queue.js';
import { startFakeTarget, type FakeTarget } from './fake-target.js';

let fake: FakeTarget | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const record = (inQueue: number, inProgress: number, idle: number, running: number): HealthRecord =>
  ({ jobs: { completed: 0, failed: 0, inProgress, inQueue, retried: 0 }, workers: { idle, running } });

/** A context on a fake whose /health answers `readings` in turn (the last one from then on). */
async function contextFor(readings: readonly HealthRecord[]): Promise<{ ctx: CheckContext; reads: () => number }> {
  let n = 0;
  fake = await startFakeTarget({ 'GET /v2/ep/health': () => ({ status: 200, json: readings[Math.min(n++, readings.length - 1)] }) });
  const unused = () => Promise.reject(new Error('not used here'));
  const ctx: CheckContext = {
    target: { kind: 'remote', queueUrl: fake.url, endpointId: 'ep', apiKeyEnv: 'K', timeScale: 60, limits: specLimits(), spareEndpoints: [], callbackHost: null, allowBillable: false, faults: [] },
    http: new Probe({ queueUrl: fake.url, apiKey: 'sk-test-idle-queue-0123', apiKeyEnv: 'K' }),
    time: timeModel(60),
    signal: new AbortController().signal,
    measure: () => undefined,
    dedicatedEndpoint: () => null,
    rateWindow: unused,
    rateWindowUse: unused,
    burst: unused,
  };
  return { ctx, reads: () => n };
}

describe('sustainedIdleQueue', () => {
  it('answers every reading once queued jobs beside an idle worker and nothing running last (3 s real at least, 5 readings)', { timeout: 20_000 }, async () => {
    const { ctx, reads } = await contextFor([record(1, 0, 1, 0)]);
    const started = performance.now();
    const readings = await sustainedIdleQueue(ctx, 'ep', await health(ctx, 'ep'));
    expect(readings).not.toBeNull();
    expect(readings!.length).toBeGreaterThanOrEqual(5);
    expect(reads()).toBe(readings!.length);
    expect(performance.now() - started).toBeGreaterThanOrEqual(3_000);
  });

  it('drops the suspicion at the first reading that differs', { timeout: 20_000 }, async () => {
    const { ctx, reads } = await contextFor([record(1, 0, 1, 0), record(1, 0, 1, 0), record(0, 1, 0, 1)]);
    expect(await sustainedIdleQueue(ctx, 'ep', await health(ctx, 'ep'))).toBeNull();
    expect(reads()).toBe(3);
  });

  it('does not suspect a queue beside busy or absent workers', { timeout: 20_000 }, async () => {
    for (const r of [record(2, 1, 0, 1), record(1, 0, 0, 0), record(0, 0, 1, 0)]) {
      const { ctx, reads } = await contextFor([r]);
      expect(await sustainedIdleQueue(ctx, 'ep', await health(ctx, 'ep'))).toBeNull();
      expect(reads()).toBe(1);
      await fake?.close();
      fake = undefined;
    }
  });
});
