// Proof that the suite catches broken implementations (issue 5): for every fault switch of the
// emulator's catalogue, an emulator with that one fault runs the quick-profile checks citing
// the fault's clause, and at least one of them must fail. (The clean emulator passing every
// check is clean-emulator.test.ts.) Faults run three at a time; rate-limit bursts stay serialized.
import { describe, expect, it } from 'vitest';
import { runSelfTest } from '../../../src/conformance/index.js';
import { FAULT_NAMES } from '../../../src/emulator/faults.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';

/** About two minutes here (retention and rate windows dominate); the bound allows a loaded host. */
const RUN_BUDGET_MS = 280_000;

describe('every emulator fault is caught', () => {
  it('has at least one failing check citing the broken clause, for each fault', { timeout: RUN_BUDGET_MS + 10_000 }, async () => {
    const report = await runSelfTest(conformanceSuite, { skipClean: true, parallel: 4 });
    expect(report.rows.map((r) => r.fault)).toEqual(FAULT_NAMES);
    const missed = report.rows.filter((r) => r.caughtBy.length === 0).map((r) => r.fault);
    expect(missed).toEqual([]);
    expect(report.allCaught).toBe(true);
    for (const r of report.rows) expect(r.ran, r.fault).toBeGreaterThan(0);
  });
});
