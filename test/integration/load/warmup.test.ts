// The generator's warm-up: what it plans per scenario, that no warm-up request reaches the
// target (the server's counts equal the schedule's), and that the result reports it.
import { afterEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/load/engine.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { plannedWarmup, WARMUP_MIN_RATE_PER_SEC } from '../../../src/load/warmup.js';
import { RELAXED_VALIDITY, startTinyServer, tinyTarget, type TinyServer } from './tiny-server.js';

let server: TinyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const target = tinyTarget;
const relaxed = RELAXED_VALIDITY;

describe('warm-up plan', () => {
  it('rehearses only where a thread must start >= 1,000 iterations/s, and preconnects what the peak needs', () => {
    const slow = parseScenario({ name: 's', executor: 'constant-arrival-rate', ratePerSec: WARMUP_MIN_RATE_PER_SEC - 1, durationMs: 1000, steps: [{ kind: 'health' }] });
    expect(plannedWarmup(slow, 1, 1000)).toEqual({ preconnect: 50, localIterations: 0 });
    const fast = parseScenario({ name: 'f', executor: 'ramping-arrival-rate', stages: [{ durationMs: 1000, targetRatePerSec: 40_000 }, { durationMs: 1000, targetRatePerSec: 10 }], steps: [{ kind: 'health' }] });
    // Peak 40,000/s over 2 threads: 20,000/s each; one second of it is capped at 30,000.
    expect(plannedWarmup(fast, 2, 50)).toEqual({ preconnect: 50, localIterations: 20_000 });
    expect(plannedWarmup(fast, 1, 5000)).toEqual({ preconnect: 2000, localIterations: 30_000 });
    const closed = parseScenario({ name: 'c', executor: 'constant-concurrency', vus: 8, durationMs: 1000, steps: [{ kind: 'health' }] });
    expect(plannedWarmup(closed, 1, 1000)).toEqual({ preconnect: 8, localIterations: 0 });
    const off = parseScenario({ name: 'o', executor: 'constant-arrival-rate', ratePerSec: 5000, durationMs: 1000, steps: [{ kind: 'health' }], warmup: { preconnect: false, localIterations: 7 } });
    expect(plannedWarmup(off, 1, 100)).toEqual({ preconnect: 0, localIterations: 7 });
  });
});

describe('warm-up run', () => {
  it('rehearses against a local sink: the target sees exactly the schedule, the result reports the warm-up', async () => {
    server = await startTinyServer();
    let userCode = 0;
    const s = parseScenario({
      name: 'fast',
      executor: 'constant-arrival-rate',
      ratePerSec: 2000,
      durationMs: 500,
      connections: 8,
      steps: [
        {
          kind: 'runsync',
          input: () => {
            userCode++;
            return { n: 1 };
          },
        },
        {
          kind: 'custom',
          name: 'mine',
          fn: () => {
            userCode++;
            return Promise.resolve();
          },
        },
      ],
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    expect(server.counts.get('runsync')).toBe(1000);
    expect(r.steps.find((x) => x.step === 'runsync')?.counts['2xx']).toBe(1000);
    // Input factories and custom steps ran for the real iterations only.
    expect(userCode).toBe(2000);
    const w = r.validity.warmup!;
    expect(w.connectionsOpened).toBe(8);
    // Two rehearsal passes of half a second's worth each, of the 2,000/s peak.
    expect(w.localIterations).toBe(2000);
    expect(w.localMs).toBeGreaterThan(0);
  });

  it('a slow scenario only preconnects', async () => {
    server = await startTinyServer();
    const s = parseScenario({ name: 'slow', executor: 'constant-arrival-rate', ratePerSec: 50, durationMs: 200, connections: 4, steps: [{ kind: 'health' }], validity: relaxed });
    const r = await runScenario(s, { target: target(server.url) });
    expect(server.counts.get('health')).toBe(10);
    expect(r.validity.warmup).toMatchObject({ connectionsOpened: 3, localIterations: 0, localMs: 0 });
  });
});
