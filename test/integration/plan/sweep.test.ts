// The sweep's threads change nothing but the time: the same settings and seeds on two worker
// threads (started under the test runner's TypeScript loader) give the very figures, in grid
// order, that one thread gives; progress counts every simulation once.
import { describe, expect, it } from 'vitest';
import { planEndpoint, planGrid } from '../../../src/plan/run-plan.js';
import { runSweep, sweepHere, type SweepInput } from '../../../src/plan/sweep.js';
import { parseTwin, trafficFromFlags } from '../../../src/sim/index.js';

const twin = parseTwin({
  endpoints: ['sweep'],
  deployments: { sweep: { gpuTypeId: 'L4', timing: { coldStart: { kind: 'lognormal', medianMs: 2_000, sigma: 0.5 }, execution: { kind: 'lognormal', medianMs: 400, sigma: 0.4 } } } },
});

describe('runSweep', () => {
  it('answers on two threads exactly what one thread answers, in grid order', async () => {
    const endpointId = planEndpoint(twin, undefined);
    const grid = planGrid(twin, endpointId, { workersMin: [0, 1], workersMax: [2, 3], idleTimeoutS: [5, 30], scalerType: ['QUEUE_DELAY', 'REQUEST_COUNT'], scalerValue: [1] });
    const input: SweepInput = { twin, endpointId, traffic: trafficFromFlags({ ratePerSec: 2, durationMs: 120_000 }), settings: grid.settings, seeds: [7, 8] };
    const progress: number[] = [];
    const threaded = await runSweep(input, { threads: 2, onProgress: (done) => progress.push(done) });
    const single = sweepHere(input);
    expect(threaded.threads).toBe(2);
    expect(threaded.runs).toHaveLength(grid.settings.length);
    expect(threaded.runs).toEqual(single.runs);
    expect(threaded.runs.flat().map((f) => f.seed)).toEqual(grid.settings.flatMap(() => [7, 8]));
    expect(progress.at(-1)).toBe(grid.settings.length * 2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  }, 60_000);

  it('a simulation that cannot run fails the sweep with its own error code', async () => {
    const unpriced = parseTwin({ endpoints: ['x'], deployments: { x: { gpuTypeId: 'L4', prices: { L4: { flexPerS: 0.0002, activePerS: 0.0001 } } } } });
    const input: SweepInput = { twin: unpriced, endpointId: 'y', traffic: trafficFromFlags({ ratePerSec: 1, durationMs: 10_000 }), settings: planGrid(unpriced, 'x', { workersMax: [1], workersMin: [0], idleTimeoutS: [5], scalerType: ['QUEUE_DELAY'], scalerValue: [1] }).settings, seeds: [1, 2] };
    await expect(runSweep(input, { threads: 2 })).rejects.toMatchObject({ code: 'QB_ERR_CONFIG', message: expect.stringMatching(/endpoint "y" is not in the twin/) });
  }, 60_000);
});
