// `simulate` on small scenarios whose every figure is worked out by hand from the stated settings
// (constant timings, replayed arrivals), the same seed giving the same figures, a seed moving the
// timing samples, and bad twins or settings named. No socket: the emulator's endpoint runs on the
// virtual clock.
import { describe, expect, it } from 'vitest';
import { isQbenchError } from '../../../src/errors.js';
import { DEFAULT_PRICES } from '../../../src/deployment/index.js';
import { parseTrafficProfile, parseTwin, simulate, trafficFromFlags, type ScalingSettings } from '../../../src/sim/index.js';

const L4 = DEFAULT_PRICES['L4'] as { flexPerS: number; activePerS: number };
const constant = (ms: number) => ({ kind: 'constant' as const, ms });

/** A twin with constant cold start and execution, no overhead or dispatch, priced as L4. */
function constantTwin(coldStartMs: number, executionMs: number) {
  return parseTwin({ endpoints: ['ep'], deployments: { ep: { gpuTypeId: 'L4', timing: { coldStart: constant(coldStartMs), execution: constant(executionMs) } } } });
}

const replay = (timesS: number[], durationS?: number) => parseTrafficProfile({ ...(durationS === undefined ? {} : { durationS }), arrivals: { kind: 'replay', timesS } });

describe('simulate: hand-checked scenarios', () => {
  it('one active worker, jobs at 5, 6 and 30 s of 10 s each: the second waits 9 s behind the first', () => {
    const settings: ScalingSettings = { workersMin: 1, workersMax: 1, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4 };
    const f = simulate({ twin: constantTwin(2_000, 10_000), settings, traffic: replay([5, 6, 30]), seed: 1 });
    // The active worker starts at 0, is ready at 2 s. Job 1: 5..15 s; job 2 waits 6..15, runs 15..25; job 3: 30..40.
    expect(f.jobs).toEqual({ arrived: 3, completed: 3, notCompleted: 0 });
    expect(f.simulatedMs).toBe(40_000);
    // Nearest rank over e2e [10, 19, 10] s and delay [0, 9, 0] s.
    expect(f.e2e).toEqual({ p50Ms: 10_000, p90Ms: 19_000, p95Ms: 19_000, p99Ms: 19_000, maxMs: 19_000 });
    expect(f.delay).toEqual({ p50Ms: 0, p90Ms: 9_000, p95Ms: 9_000, p99Ms: 9_000, maxMs: 9_000 });
    expect(f.coldStarts).toBe(1);
    expect(f.coldStartJobShare).toBe(0);
    expect(f.peakWorkers).toBe(1);
    // Billed from ready (2 s) to the end (40 s): 38 s active, of which 30 s running and 8 s idle.
    expect(f.workerSeconds).toEqual({ total: 38, active: 38, flex: 0, idle: 8 });
    expect(f.cost.total).toBeCloseTo(38 * L4.activePerS, 12);
    expect(f.cost.active).toBeCloseTo(38 * L4.activePerS, 12);
    expect(f.cost.idle).toBeCloseTo(8 * L4.activePerS, 12);
    expect(f.cost.flex).toBe(0);
  });

  it('QUEUE_DELAY 1 s from no worker: the check after the job waited over 1 s starts one, the job meets its cold start', () => {
    const settings: ScalingSettings = { workersMin: 0, workersMax: 2, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 1 };
    const f = simulate({ twin: constantTwin(2_000, 10_000), settings, traffic: replay([0]), seed: 1 });
    // At the 1 s check the job has waited exactly 1 s (not more); at 2 s a worker starts, ready at 4 s; the job runs 4..14 s.
    expect(f.e2e.p50Ms).toBe(14_000);
    expect(f.delay.p50Ms).toBe(4_000);
    expect(f.coldStarts).toBe(1);
    expect(f.coldStartJobShare).toBe(1);
    expect(f.simulatedMs).toBe(14_000);
    // A flex worker billed from ready to the end of the drain: 10 s, all running.
    expect(f.workerSeconds).toEqual({ total: 10, active: 0, flex: 10, idle: 0 });
    expect(f.cost.total).toBeCloseTo(10 * L4.flexPerS, 12);
  });

  it('REQUEST_COUNT 1: three jobs at once start three workers (within max 3); idle flex workers stop after the idle timeout and are billed to their stop', () => {
    const settings: ScalingSettings = { workersMin: 0, workersMax: 3, idleTimeoutS: 3, scalerType: 'REQUEST_COUNT', scalerValue: 1 };
    const traffic = parseTrafficProfile({ durationS: 60, arrivals: { kind: 'replay', timesS: [0] }, bursts: [{ atS: 0, count: 2 }] });
    const f = simulate({ twin: constantTwin(1_000, 4_000), settings, traffic, seed: 1 });
    // Each job: cold start 1 s, run 1..5 s; every worker idles 5..8 s and stops; the traffic lasts to 60 s.
    expect(f.jobs.completed).toBe(3);
    expect(f.e2e.maxMs).toBe(5_000);
    expect(f.coldStarts).toBe(3);
    expect(f.peakWorkers).toBe(3);
    expect(f.simulatedMs).toBe(60_000);
    expect(f.workerSeconds).toEqual({ total: 21, active: 0, flex: 21, idle: 9 });
  });
});

describe('simulate: determinism and seeds', () => {
  const twin = parseTwin({
    endpoints: ['ep'],
    deployments: {
      ep: {
        timing: {
          coldStart: { kind: 'lognormal', medianMs: 5_000, sigma: 0.3 },
          execution: { kind: 'lognormal', medianMs: 800, sigma: 0.4 },
          overhead: { kind: 'lognormal', medianMs: 100, sigma: 0.3 },
          dispatch: { kind: 'lognormal', medianMs: 50, sigma: 0.3 },
        },
      },
    },
  });
  const settings: ScalingSettings = { workersMin: 1, workersMax: 8, idleTimeoutS: 10, scalerType: 'QUEUE_DELAY', scalerValue: 2 };
  const traffic = trafficFromFlags({ ratePerSec: 5, durationMs: 600_000 });

  it('the same seed gives the same figures; another seed other samples', () => {
    const a = simulate({ twin, settings, traffic, seed: 42 });
    expect(simulate({ twin, settings, traffic, seed: 42 })).toEqual(a);
    const b = simulate({ twin, settings, traffic, seed: 43 });
    expect(b.e2e.p50Ms).not.toBe(a.e2e.p50Ms);
    expect(a.jobs.arrived).toBeGreaterThan(2_500);
    expect(a.jobs.completed).toBe(a.jobs.arrived);
    expect(a.events).toBeGreaterThan(3 * a.jobs.arrived);
    // Worker-seconds split: total = active + flex, and idle within the total.
    expect(a.workerSeconds.active + a.workerSeconds.flex).toBeCloseTo(a.workerSeconds.total, 6);
    expect(a.workerSeconds.idle).toBeLessThanOrEqual(a.workerSeconds.total);
    expect(a.cost.active + a.cost.flex).toBeCloseTo(a.cost.total, 9);
  });

  it('forgetting ended jobs (the default) changes no figure against keeping them for their retention, only the timer events', () => {
    // 40 simulated minutes: the first jobs' 30-minute retention runs out (and its timers fire) before the end.
    const long = trafficFromFlags({ ratePerSec: 0.5, durationMs: 2_400_000 });
    for (const s of [settings, { ...settings, scalerType: 'REQUEST_COUNT' as const, scalerValue: 1, workersMin: 0 }]) {
      const { events: forgetEvents, ...forgotten } = simulate({ twin, settings: s, traffic: long, seed: 7 });
      const { events: keepEvents, ...kept } = simulate({ twin, settings: s, traffic: long, seed: 7, retainEndedJobs: true });
      expect(forgotten).toEqual(kept);
      expect(forgotten.jobs.completed).toBeGreaterThan(1_000);
      // Retention was on: each job that ended in the first 10 minutes fired its expiry timer.
      expect(keepEvents - forgetEvents).toBeGreaterThan(250);
    }
  });

  it('keepLatencies returns every completed job\'s e2e and delayTime, sorted, whose nearest-rank quantiles are the run\'s own, and changes no other figure', () => {
    const { latencies, ...kept } = simulate({ twin, settings, traffic, seed: 5, keepLatencies: true });
    const plain = simulate({ twin, settings, traffic, seed: 5 });
    expect(kept).toEqual(plain);
    if (latencies === undefined) throw new Error('no latencies returned');
    expect(plain.latencies).toBeUndefined();
    for (const [xs, q] of [[latencies.e2eMs, plain.e2e], [latencies.delayMs, plain.delay]] as const) {
      expect(xs.length).toBe(plain.jobs.completed);
      for (let i = 1; i < xs.length; i += 1) expect(xs[i] as number).toBeGreaterThanOrEqual(xs[i - 1] as number);
      expect(xs[Math.ceil(0.5 * xs.length) - 1]).toBe(q.p50Ms);
      expect(xs[Math.ceil(0.99 * xs.length) - 1]).toBe(q.p99Ms);
      expect(xs[xs.length - 1]).toBe(q.maxMs);
    }
  });

  it('a queue-bound setting (one worker at most) has a higher p99 e2e than a roomy one', () => {
    const tight = simulate({ twin, settings: { ...settings, workersMax: 1 }, traffic, seed: 42 });
    const roomy = simulate({ twin, settings, traffic, seed: 42 });
    expect(tight.e2e.p99Ms as number).toBeGreaterThan(roomy.e2e.p99Ms as number);
    expect(tight.peakWorkers).toBe(1);
  });
});

describe('simulate: bad input', () => {
  const settings: ScalingSettings = { workersMin: 0, workersMax: 2, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4 };
  const traffic = replay([0]);

  it('an endpoint the twin does not serve is named', () => {
    expect(() => simulate({ twin: constantTwin(1, 1), endpointId: 'other', settings, traffic, seed: 1 })).toThrow(/endpoint "other" is not in the twin; it serves ep/);
  });

  it('settings out of range are named with the range (exit 2)', () => {
    try {
      simulate({ twin: constantTwin(1, 1), settings: { ...settings, workersMin: 3, idleTimeoutS: 0 }, traffic, seed: 1 });
      throw new Error('expected an error');
    } catch (e) {
      expect(isQbenchError(e, 'QB_ERR_CONFIG')).toBe(true);
      expect((e as Error).message).toMatch(/idleTimeoutS must be 1..3600/);
      expect((e as Error).message).toMatch(/workersMin must not exceed workersMax/);
    }
  });

  it('a twin that is not an object is refused', () => {
    expect(() => parseTwin([], 'twin.json')).toThrow(/twin.json: a twin is an emulator config/);
  });
});
