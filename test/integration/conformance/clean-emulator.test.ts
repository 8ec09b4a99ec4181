// The quick profile against the clean in-process emulator passes every check: no
// spec check fails or errors, no compat finding, nothing skipped. Time-dependent checks run
// on the emulator's scaled clock (60x); their tolerances are stated in each check.
import { describe, expect, it } from 'vitest';
import { buildResult, runChecks, startEmulatorTarget } from '../../../src/conformance/index.js';
import { QbenchResult } from '../../../src/result/model.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';

/** The quick profile takes about a minute here; the bound leaves room for a loaded 2-core host. */
const RUN_BUDGET_MS = 170_000;

describe('conformance suite against the clean emulator', () => {
  it('passes every check of the quick profile', { timeout: RUN_BUDGET_MS + 10_000 }, async () => {
    const t = await startEmulatorTarget();
    try {
      const startedAt = new Date();
      const results = await runChecks(conformanceSuite, t.target, t.probe, { profile: 'quick', concurrency: 6 });
      const bad = results.filter((r) => r.verdict.status !== 'pass').map((r) => ({ id: r.id, verdict: r.verdict }));
      expect(bad).toEqual([]);
      expect(results).toHaveLength(conformanceSuite.checks.length);
      const result = buildResult({
        suite: conformanceSuite, results, profile: 'quick', command: ['qbench', 'check', '--target', 'emulator'], startedAt, endedAt: new Date(),
        target: { kind: 'emulator', queueUrl: t.target.queueUrl, endpointId: t.target.endpointId, timeScale: t.target.timeScale },
      });
      expect(QbenchResult.safeParse(result).success).toBe(true);
      expect(result.overall.exitCode).toBe(0);
      // What the payload checks measured: the emulator reads MB as 10^6.
      expect(results.find((r) => r.id === 'queue.payload.run-cap')?.measured?.['mbReading']).toBe('decimal (10^6)');
    } finally {
      await t.close();
    }
  });
});
