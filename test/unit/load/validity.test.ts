// The generator's self-validation of a closed loop: a CPU-bound generator makes the run INVALID
// (it caps the throughput measured), unless the scenario's verdict rests on neither throughput
// nor latency and says so (validity.cpuBoundInvalidates: false).
import { describe, expect, it } from 'vitest';
import { Aggregator } from '../../../src/load/aggregate.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { computeValidity } from '../../../src/load/validity.js';

const quietLoop = { count: 100, min: 0, mean: 1, stddev: 0, p50: 1, p90: 1, p95: 1, p99: 1, p999: 1, max: 1 };

function closedLoop(validity: Record<string, unknown>) {
  return parseScenario({ name: 'bisect', executor: 'iterations', iterations: 1, vus: 1, validity, steps: [{ kind: 'health' }] });
}

function judge(validity: Record<string, unknown>, cpuPercent: number, scheduleMs = 5_000) {
  return computeValidity({ scenario: closedLoop(validity), agg: new Aggregator(1), expectedIterations: undefined, targetRatePerSec: undefined, scheduleMs, eventLoopDelayMs: quietLoop, cpuPercent, threads: 1, availableCores: 2 });
}

describe('closed-loop validity and the generator CPU', () => {
  it('a generator at 97% of its one core makes the run INVALID, naming the CPU', () => {
    const v = judge({}, 97);
    expect(v.valid).toBe(false);
    expect(v.reasons.join(' ')).toMatch(/generator CPU 97% of 100% available: the generator was CPU-bound/);
  });

  it('below 95%, or in a run under 2 s, the CPU says nothing', () => {
    expect(judge({}, 90).valid).toBe(true);
    expect(judge({}, 99, 1_500).valid).toBe(true);
  });

  it('a scenario whose verdict is a byte count keeps its run valid when its generator is CPU-bound', () => {
    expect(judge({ cpuBoundInvalidates: false }, 99)).toMatchObject({ valid: true, reasons: [] });
  });
});
