// The conformance checks and a shipped load scenario run unchanged
// against an emulator whose only workers are external: one reference worker process
// running the mock-worker handler (fixtures/workers/mock-worker.ts) on the scaled clock.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { connectTarget, runChecks, type Connected } from '../../../src/conformance/index.js';
import { readTargetFacts } from '../../../src/target/index.js';
import { runLoad } from '../../../src/load/run-load.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { attached, KEY, killWorkers, spawnWorker, until } from './helpers.js';

const TIME_SCALE = 60;
// Real ms between pings: a live worker is lost only after 3 s of silence.
const PING_MS = 1_000;
const ENDPOINT = 'qbench';
// Lifecycle checks that need a worker obeying the mock-worker inputs (delays, errors, streams).
const CHECKS = [
  'queue.runsync.answer',
  'queue.status.record',
  'queue.cancel.queued',
  'queue.cancel.running',
  'queue.retry.from-failed',
  'queue.execution-timeout',
  'queue.stream.chunks',
  'queue.stream.object-form-and-end',
];

let em: EmulatorHandle | undefined;
let conn: Connected | undefined;
afterEach(async () => {
  await killWorkers();
  await conn?.close();
  conn = undefined;
  await em?.close();
  em = undefined;
});

async function externalOnly(): Promise<EmulatorHandle> {
  em = await startEmulator({ apiKey: KEY, port: 0, endpoints: [ENDPOINT], externalWorkers: true, timeScale: TIME_SCALE, workerPingIntervalMs: PING_MS });
  const e = em;
  spawnWorker({ url: e.url, endpoint: ENDPOINT, workerId: 'ext-1', handler: 'fixtures/workers/mock-worker.ts', concurrency: 16, env: { QBENCH_TIME_SCALE: String(TIME_SCALE), RUNPOD_PING_INTERVAL: String(PING_MS) } });
  await until(() => attached(e, 'ext-1', ENDPOINT), 'the worker process to attach');
  return e;
}

describe('an emulator whose only workers are external worker processes', () => {
  it('passes a slice of the conformance suite (lifecycle checks that need a worker)', { timeout: 60_000 }, async () => {
    const e = await externalOnly();
    conn = await connectTarget({ queueUrl: e.url, endpointId: ENDPOINT, apiKey: KEY, apiKeyEnv: 'QBENCH_TEST_KEY', allowBillable: false, spareEndpoints: [] });
    const results = await runChecks(conformanceSuite, conn.target, conn.probe, { profile: 'quick', only: CHECKS, concurrency: 4 });
    expect(results.map((r) => r.id).sort()).toEqual([...CHECKS].sort());
    expect(results.filter((r) => r.verdict.status !== 'pass').map((r) => ({ id: r.id, verdict: r.verdict }))).toEqual([]);
    // Every job of those checks ran on the external worker: no simulated worker exists.
    const pool = [...(e.core.endpoints.get(ENDPOINT)?.pool.workers.values() ?? [])];
    expect(pool.map((w) => `${w.id}:${w.kind}`)).toEqual(['ext-1:external']);
  });

  it('runs the mixed-soak load scenario and meets its thresholds', { timeout: 60_000 }, async () => {
    const e = await externalOnly();
    const { info } = await readTargetFacts(e.url, { apiKey: KEY, unreachable: 'error' });
    // A 2 s soak on a shared 2-core machine: generator timing is not what is tested here.
    const relaxed: [string, unknown][] = [['validity', { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 }]];
    const result = await runLoad({
      files: ['suites/load/mixed-soak.ts'],
      target: { kind: 'emulator', queueUrl: e.url, endpointId: ENDPOINT, apiKey: KEY, timeScale: e.clock.scale, info },
      params: { rate: '10', duration: '2000' },
      overrides: { set: relaxed },
    });
    const s = result.load?.scenarios[0];
    expect(s?.thresholds.length).toBeGreaterThan(0);
    expect(s?.thresholds.filter((t) => !t.passed)).toEqual([]);
    expect(s?.verdict.status).toBe('pass');
    // The jobs ran on the external worker.
    const health = (await (await fetch(`${e.url}/v2/${ENDPOINT}/health`, { headers: { authorization: KEY } })).json()) as { jobs: { completed: number; failed: number } };
    expect(health.jobs.completed).toBeGreaterThan(0);
    expect(health.jobs.failed).toBe(0);
  });
});
