// One fuzz run against a fresh in-process emulator (with faults), closed after each test:
// the fixed seed and budgets the fuzz integration tests share.
import { afterEach } from 'vitest';
import { resolveFuzzTarget, type ResolvedFuzzTarget } from '../../../src/fuzz/resolve-target.js';
import { runFuzz, type FuzzRunOptions } from '../../../src/fuzz/runner.js';
import type { FaultName } from '../../../src/emulator/faults.js';

export const SEED = 20261122;
/** QBENCH_FUZZ_RUNS > 0 turns on the larger on-demand runs. */
export const onDemandRuns = Number(process.env['QBENCH_FUZZ_RUNS'] ?? 0);

let resolved: ResolvedFuzzTarget | undefined;
afterEach(async () => {
  await resolved?.close();
  resolved = undefined;
});

/** The emulator the latest fuzz() started (closed after each test). */
export const current = (): ResolvedFuzzTarget | undefined => resolved;

export async function fuzz(faults: FaultName[], o: Partial<FuzzRunOptions>, modelRuns: number) {
  resolved = await resolveFuzzTarget({ target: 'emulator', faults });
  return runFuzz({
    target: resolved.target,
    seed: SEED,
    numRuns: 40,
    modelRuns,
    maxCommands: 8,
    // Generous: the budget bounds a slow CI machine, it is not what the test measures.
    maxDurationMs: 20_000,
    rateFraction: 0.5,
    ...o,
  });
}
