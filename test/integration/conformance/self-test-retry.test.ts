// The self-test runs a fault missed while faults shared the host once more, alone: a first
// emulator that lacks the fault (what a check that could not set up looks like from the table)
// leaves it missed, the second run on the faulty emulator catches it, and the row says so.
import { describe, expect, it } from 'vitest';
import { runSelfTest, startEmulatorTarget } from '../../../src/conformance/index.js';
import type { FaultName } from '../../../src/emulator/faults.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';

describe('runSelfTest', () => {
  it('runs a missed fault again alone and keeps that run', { timeout: 120_000 }, async () => {
    const started: (readonly FaultName[])[] = [];
    const rows: string[] = [];
    const report = await runSelfTest(conformanceSuite, {
      skipClean: true,
      faults: ['graphql-auth-off'],
      // The first start "loses" the fault: a clean emulator.
      startTarget: (faults) => {
        started.push(faults);
        return startEmulatorTarget({ faults: started.length === 1 ? [] : faults });
      },
      onRow: (r) => rows.push(`${r.fault}:${r.caughtBy.length > 0 ? 'caught' : 'missed'}:${r.retriedAlone === true ? 'again' : 'first'}`),
    });
    expect(started).toEqual([['graphql-auth-off'], ['graphql-auth-off']]);
    expect(rows).toEqual(['graphql-auth-off:caught:again']);
    expect(report.allCaught).toBe(true);
    expect(report.rows[0]?.retriedAlone).toBe(true);
  });

  it('reports a fault missed twice as missed', { timeout: 120_000 }, async () => {
    const report = await runSelfTest(conformanceSuite, { skipClean: true, faults: ['graphql-auth-off'], startTarget: () => startEmulatorTarget({}) });
    expect(report.allCaught).toBe(false);
    expect(report.rows[0]).toMatchObject({ fault: 'graphql-auth-off', caughtBy: [], retriedAlone: true });
  });

  it('with firstCatch, stops a fault\'s run at its first catch, trying the checks whose first clause is the fault\'s before the others', { timeout: 120_000 }, async () => {
    // Every §3.1 check reading a job's state catches status-lowercase (16 of them in the full
    // table); a §2.1 fault is caught by a check whose first clause is in §2.1.
    const full = await runSelfTest(conformanceSuite, { skipClean: true, faults: ['status-lowercase'] });
    const first = await runSelfTest(conformanceSuite, { skipClean: true, faults: ['status-lowercase'], firstCatch: true });
    expect(full.rows[0]!.caughtBy.length).toBeGreaterThan(1);
    expect(first.rows[0]!.caughtBy).toHaveLength(1);
    expect(full.rows[0]!.caughtBy).toContain(first.rows[0]!.caughtBy[0]);
    expect(first.rows[0]!.ran).toBeLessThan(full.rows[0]!.ran);
    const caught = conformanceSuite.checks.find((c) => c.id === first.rows[0]!.caughtBy[0])!;
    expect(caught.clauses[0]).toMatch(/^3\.1/);
  });
});
