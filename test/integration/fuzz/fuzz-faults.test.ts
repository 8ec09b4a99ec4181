// The fuzzer against the in-process emulator with fault switches: each fault that breaks a
// rule the fuzzer covers is found, with a shrunk case, its seed and path (replayable) and a
// curl line that names the key only as $QBENCH_API_KEY. The faults that need long emulated
// waits to show (ttl, retention, execution timeout, purge of a running job) run on demand
// with QBENCH_FUZZ_RUNS set.
import { describe, expect, it } from 'vitest';
import type { FuzzRunOptions } from '../../../src/fuzz/runner.js';
import { SEED, current, fuzz as fuzzOnEmulator, onDemandRuns } from './fuzz-harness.js';
import type { FaultName } from '../../../src/emulator/faults.js';

/** Command sequences per model run in this file (overridable per test). */
const MODEL_RUNS = 6;
const fuzz = (faults: FaultName[], o: Partial<FuzzRunOptions>) => fuzzOnEmulator(faults, o, MODEL_RUNS);

/** fault -> the property that must catch it. */
const CAUGHT: readonly [FaultName, string][] = [
  ['policy-bounds-unchecked', 'job-request-validation'],
  ['missing-input-accepted', 'job-request-validation'],
  ['wait-bounds-unchecked', 'job-request-validation'],
  ['run-answer-wrong-status', 'job-request-validation'],
  ['payload-cap-off', 'payload-caps'],
  ['template-update-accepts-category', 'template-validation'],
  ['template-name-not-unique', 'template-validation'],
  ['template-defaults-missing', 'template-validation'],
  ['retry-from-completed', 'job-state-machine'],
  ['retry-from-cancelled', 'job-state-machine'],
  ['health-miscount', 'job-state-machine'],
  ['cancel-does-not-stop-running', 'job-state-machine'],
  ['purge-wrong-status-word', 'job-state-machine'],
  ['wrong-sync-id-prefix', 'job-state-machine'],
  ['unknown-job-ok', 'job-state-machine'],
  ['unknown-endpoint-ok', 'job-state-machine'],
  ['timing-fields-missing', 'job-state-machine'],
  ['auth-off', 'job-state-machine'],
];

describe('qbench fuzz finds each fault it covers', () => {
  const SLOW: readonly [FaultName, string][] = [
    ['purge-removes-running', 'job-state-machine'],
    ['retry-new-id', 'job-state-machine'],
    ['ttl-ignored', 'job-state-machine'],
    ['execution-timeout-ignored', 'job-state-machine'],
    ['retention-halved', 'job-state-machine'],
    ['runsync-long-retention', 'job-state-machine'],
    ['status-ttl-ignored', 'job-state-machine'],
  ];

  it.each(onDemandRuns > 0 ? [...CAUGHT, ...SLOW] : CAUGHT)('%s is caught by %s', { timeout: 120_000 }, async (fault, property) => {
    const r = await fuzz([fault], { properties: [property], numRuns: 100, modelRuns: onDemandRuns > 0 ? 60 : 30, maxDurationMs: onDemandRuns > 0 ? 90_000 : 10_000 });
    const p = r.section.properties[0];
    expect(p?.name).toBe(property);
    expect(p?.status).toBe('fail');
    const f = p?.finding;
    expect(f).toBeDefined();
    expect(f?.seed).toBe(SEED);
    expect(f?.counterexample.length).toBeGreaterThan(0);
    expect(f?.exchanges.length).toBeGreaterThan(0);
    // A curl command, fed a big body by a shell recipe when the case carried one.
    expect(f?.curl).toMatch(/^(\{ printf .+; \} \| )?curl /);
    // The request that shows auth-off is the one sent without a key; every other names it as a variable.
    if (fault !== 'auth-off') expect(f?.curl).toContain('$QBENCH_API_KEY');
    expect(JSON.stringify(f)).not.toContain(current()?.target.apiKey);
  });

  it('replays a finding from its seed and path alone', async () => {
    const first = await fuzz(['missing-input-accepted'], { properties: ['job-request-validation'], numRuns: 100 });
    const f = first.section.properties[0]?.finding;
    expect(f).toBeDefined();
    await current()?.close();
    const again = await fuzz(['missing-input-accepted'], { properties: ['job-request-validation'], seed: f!.seed, path: f!.path });
    const g = again.section.properties[0]?.finding;
    expect(g?.counterexample).toBe(f!.counterexample);
    expect(again.section.properties[0]?.runs).toBe(1);
  });
});
