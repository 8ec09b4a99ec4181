// The cost of a load run from the emulator's billing meter before and after: differences,
// cost per 1,000 jobs and per million tokens, a meter reset during the run, and the one line
// every renderer prints.
import { describe, expect, it } from 'vitest';
import { runCost } from '../../../src/load/run-cost.js';
import { costLine } from '../../../src/report/render/format.js';
import type { EndpointCountersFacts } from '../../../src/target/index.js';

function facts(o: { completed: number; failed?: number; billedS: number; activeS: number; costUsd: number | null; workerStarts: number; tokens?: number; coldStarts?: number }): EndpointCountersFacts {
  return {
    health: { jobs: { completed: o.completed, failed: o.failed ?? 0 } },
    billing: {
      gpuTypeId: 'L4', gpuCount: 1, price: o.costUsd === null ? null : { flexPerS: 0.00019, activePerS: 0.00013, source: 'default price table of 2026-11-25' },
      workerStarts: o.workerStarts, coldStarts: o.coldStarts ?? o.workerStarts, throttledStarts: 0, peakWorkers: 2,
      throttledS: 0, initializingS: 2 * o.workerStarts, idleS: 0, runningS: 0,
      billedS: o.billedS, activeS: o.activeS, flexS: o.billedS - o.activeS, tokens: o.tokens ?? 0, costUsd: o.costUsd,
    },
  };
}

describe('runCost', () => {
  it('takes the differences over the run and prices per 1,000 jobs and per million tokens', () => {
    const c = runCost('ep', facts({ completed: 10, billedS: 20, activeS: 20, costUsd: 0.0026, workerStarts: 1 }), facts({ completed: 60, failed: 2, billedS: 120, activeS: 40, costUsd: 0.0026 + 0.0178, workerStarts: 4, tokens: 5000 }));
    expect(c).toMatchObject({ endpointId: 'ep', jobs: 52, billedS: 100, activeS: 20, flexS: 80, coldStarts: 3, initializingS: 6, tokens: 5000 });
    expect(c.costUsd).toBeCloseTo(0.0178, 12);
    expect(c.costPer1000JobsUsd).toBeCloseTo((0.0178 / 52) * 1000, 12);
    expect(c.costPerMillionTokensUsd).toBeCloseTo((0.0178 / 5000) * 1e6, 12);
  });
  it('a meter reset during the run: the end totals are the run', () => {
    const c = runCost('ep', facts({ completed: 90, billedS: 300, activeS: 0, costUsd: 0.05, workerStarts: 9 }), facts({ completed: 5, billedS: 12, activeS: 0, costUsd: 0.002, workerStarts: 1 }));
    expect(c).toMatchObject({ jobs: 5, billedS: 12, costUsd: 0.002 });
  });
  it('no price or no job: no per-job figure, and the line says so', () => {
    const c = runCost('ep', facts({ completed: 0, billedS: 0, activeS: 0, costUsd: null, workerStarts: 0 }), facts({ completed: 0, billedS: 7, activeS: 0, costUsd: null, workerStarts: 1 }));
    expect(c).toMatchObject({ costUsd: null, costPer1000JobsUsd: null, costPerMillionTokensUsd: null, priceSource: null });
    expect(costLine(c)).toMatch(/^cost on the emulated deployment of ep: no price for 7 billed worker-s \(active 0, flex 7\) on 1x L4 · 1 cold start, 2 s starting \(unbilled\)$/);
  });
  it('the line names cost, per-1,000-jobs and per-million-tokens figures and the price source', () => {
    const c = runCost('ep', facts({ completed: 0, billedS: 0, activeS: 0, costUsd: 0, workerStarts: 0 }), facts({ completed: 100, billedS: 50, activeS: 10, costUsd: 0.0087, workerStarts: 2, tokens: 20_000 }));
    expect(costLine(c)).toBe('cost on the emulated deployment of ep: $0.008700 for 50 billed worker-s (active 10, flex 40) on 1x L4 · 2 cold starts, 4 s starting (unbilled) · $0.08700 per 1,000 jobs (100 ended) · $0.4350 per million tokens (20,000 streamed) (prices: default price table of 2026-11-25)');
  });
});
