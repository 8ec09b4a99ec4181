// The engine against a tiny local server: what it counts must match what the server saw.
// No wall-clock assertion: validity limits are relaxed where the shared 2-core machine can
// stall the generator, because these tests check counting and logic, not timing.
import { afterEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/load/engine.js';
import { parseScenario } from '../../../src/load/scenario.js';
import type { IterationContext } from '../../../src/load/context.js';
import { isQbenchError } from '../../../src/errors.js';
import { RELAXED_VALIDITY, startTinyServer, tinyTarget, type TinyServer } from './tiny-server.js';

let server: TinyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const target = tinyTarget;
const relaxed = RELAXED_VALIDITY;

describe('load engine', () => {
  it('closed loop: an iteration still running at the end is aborted after the graceful stop, not waited for', async () => {
    server = await startTinyServer();
    let aborted = 0;
    const s = parseScenario({
      name: 'never-ends',
      executor: 'constant-concurrency',
      vus: 2,
      durationMs: 200,
      gracefulStopMs: 100,
      steps: [
        {
          kind: 'custom',
          name: 'hang',
          // Sends one request, then waits for the abort (a stream whose job never starts).
          fn: async (it: IterationContext) => {
            await it.request('hang', { method: 'GET', path: '/health' });
            await new Promise<void>((resolve) => it.signal.addEventListener('abort', () => resolve(), { once: true }));
            aborted++;
          },
        },
      ],
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    expect(aborted).toBe(2);
    expect(r.steps.find((x) => x.step === 'hang')!.counts['2xx']).toBe(2);
  });

  it('open loop: run then poll, counts per step equal the server counts, thresholds evaluated', async () => {
    server = await startTinyServer({ pollsToComplete: 2 });
    const s = parseScenario({
      name: 'run-poll',
      executor: 'constant-arrival-rate',
      ratePerSec: 100,
      durationMs: 1000,
      steps: [{ kind: 'run', input: { x: 1 }, follow: 'poll', pollIntervalMs: 5 }],
      thresholds: { 'run.status_2xx.rate': ['rate>0.99'], 'status.latency': ['p(99)<0.001'], iterations: ['count==100'] },
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    const run = r.steps.find((x) => x.step === 'run')!;
    const status = r.steps.find((x) => x.step === 'status')!;
    expect(run.counts['2xx']).toBe(100);
    expect(server.counts.get('run')).toBe(100);
    expect(status.counts['2xx']).toBe(server.counts.get('status'));
    expect(status.counts['2xx']).toBe(200);
    expect(r.steps.find((x) => x.step === 'iteration')).toBeUndefined();
    expect(r.thresholds.map((t) => t.passed)).toEqual([true, false, true]);
    expect(r.verdict.status).toBe('fail');
    expect(r.validity.sendLateness.percentiles.count).toBe(100);
    expect(r.series.find((x) => x.step === 'run')!.points.reduce((a, p) => a + p.counts['2xx'], 0)).toBe(100);
  });

  it('count-and-stop on 429: the iteration ends at the 429, nothing follows it', async () => {
    server = await startTinyServer({ acceptPerOp: 30 });
    const s = parseScenario({
      name: 'stop-on-429',
      executor: 'iterations',
      iterations: 50,
      vus: 5,
      steps: [{ kind: 'run', input: {} }, { kind: 'health' }],
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    const run = r.steps.find((x) => x.step === 'run')!;
    expect(run.counts['2xx']).toBe(30);
    expect(run.counts['429']).toBe(20);
    expect(r.steps.find((x) => x.step === 'health')!.counts['2xx'] + r.steps.find((x) => x.step === 'health')!.counts['429']).toBe(30);
  });

  it('backoff on 429 records attempts per logical request and gives up after maxAttempts', async () => {
    server = await startTinyServer({ acceptPerOp: 5 });
    const s = parseScenario({
      name: 'backoff',
      executor: 'iterations',
      iterations: 8,
      vus: 8,
      steps: [{ kind: 'runsync', input: {} }],
      on429: { mode: 'backoff', backoff: { baseMs: 1, capMs: 4, maxAttempts: 3 } },
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    const st = r.steps[0]!;
    expect(st.counts['2xx']).toBe(5);
    // 3 logical requests got 429 on all 3 attempts.
    expect(st.counts['429']).toBe(9);
    expect(st.attempts!.gaveUp).toBe(3);
    expect(st.attempts!.maxAttempts).toBe(3);
    expect(st.attempts!.histogram.count).toBe(8);
  });

  it('the in-flight cap drops iterations and the run is INVALID, saying why', async () => {
    server = await startTinyServer({ delayMs: 400 });
    const s = parseScenario({
      name: 'cap',
      executor: 'constant-arrival-rate',
      ratePerSec: 50,
      durationMs: 400,
      maxInFlight: 5,
      steps: [{ kind: 'health' }],
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    expect(r.validity.droppedIterations).toBeGreaterThan(0);
    expect(r.validity.valid).toBe(false);
    expect(r.verdict.status).toBe('invalid');
    expect(r.validity.reasons.join(' ')).toMatch(/maxInFlight 5/);
    expect(server.maxInFlight).toBeLessThanOrEqual(5);
  });

  it('client-side queueing (few connections) shows in corrected latency, not in service time', async () => {
    server = await startTinyServer({ delayMs: 20 });
    const s = parseScenario({
      name: 'queueing',
      executor: 'constant-arrival-rate',
      ratePerSec: 100,
      durationMs: 400,
      connections: 1,
      steps: [{ kind: 'health' }],
      validity: relaxed,
    });
    const r = await runScenario(s, { target: target(server.url) });
    const h = r.steps[0]!;
    // One connection, 20 ms per answer, 10 ms between starts: the queue grows by one every
    // answer, so late requests wait hundreds of ms while each is served in ~20 ms.
    expect(h.latency.percentiles.p99).toBeGreaterThan(4 * h.serviceTime.percentiles.p99);
    expect(server.maxInFlight).toBe(1);
  });

  it('an unknown threshold metric is a scenario error listing the known ones', async () => {
    const s = parseScenario({ name: 'bad', executor: 'iterations', iterations: 1, steps: [{ kind: 'health' }], thresholds: { 'helth.latency': ['p(99)<1'] } });
    const err = await runScenario(s, { target: target('http://127.0.0.1:9') }).catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_SCENARIO')).toBe(true);
    expect((err as Error).message).toMatch(/unknown metric "helth.latency".*health\.latency/s);
  });
});
