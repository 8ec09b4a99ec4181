// The fuzzer against the clean in-process emulator: a small fixed-seed run of every property
// passes (no false findings) and stays under the §8 rates (no 429).
// QBENCH_FUZZ_RUNS=<n> runs a larger clean run on demand (n cases per validation property).
import { describe, expect, it } from 'vitest';
import { FuzzSection } from '../../../src/result/model.js';
import type { FuzzRunOptions } from '../../../src/fuzz/runner.js';
import { fuzz as fuzzOnEmulator, onDemandRuns } from './fuzz-harness.js';
import type { FaultName } from '../../../src/emulator/faults.js';

/** Command sequences per model run in this file (overridable per test). */
const MODEL_RUNS = 4;
const fuzz = (faults: FaultName[], o: Partial<FuzzRunOptions>) => fuzzOnEmulator(faults, o, MODEL_RUNS);

describe('qbench fuzz on the clean emulator', () => {
  it('every property holds on a small fixed-seed run, within the §8 rates', async () => {
    const r = await fuzz([], {});
    expect(FuzzSection.parse(r.section)).toBeTruthy();
    expect(r.section.properties.map((p) => p.name)).toEqual([
      'job-request-validation', 'status-ttl-query', 'payload-caps', 'template-validation', 'pod-input-validation', 'job-state-machine',
    ]);
    for (const p of r.section.properties) {
      expect(p.status, `${p.name}: ${p.finding?.expected ?? p.error ?? ''} / ${p.finding?.observed ?? ''} / ${p.finding?.counterexample ?? ''}`).toBe('pass');
      expect(p.runs).toBeGreaterThan(0);
    }
    expect(r.rateLimited).toBe(0);
    expect(r.requests).toBeGreaterThan(100);
  });

  it.skipIf(onDemandRuns === 0)('a larger run on demand (QBENCH_FUZZ_RUNS)', { timeout: 600_000 }, async () => {
    const r = await fuzz([], { numRuns: onDemandRuns, modelRuns: Math.max(10, Math.round(onDemandRuns / 10)), maxCommands: 20, maxDurationMs: 540_000 });
    for (const p of r.section.properties) expect(p.status, `${p.name}: ${p.finding?.counterexample ?? p.error ?? ''}`).toBe('pass');
  });
});

