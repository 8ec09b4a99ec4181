// The §8 scenarios against the emulator: each passes on the documented limits and its
// verdict flips when the emulator is configured with that limit changed. Windows run on the
// emulator's scaled clock (timeScale 20: a 10 s window lasts 500 ms) so each run is short.
// Verdicts here rest on counts (admissions bounded by send and answer times), not on timing.
import { describe, expect, it } from 'vitest';
import { finding, runSuite } from './suite-harness.js';

const SCALED = { timeScale: 20, scaleRateWindows: true } as const;

describe('rate-limit scenario (§8 rate column)', () => {
  it('passes on the documented /purge-queue limit and fails when the emulator allows more', async () => {
    const ok = await runSuite('rate-limit.ts', SCALED, { op: 'purge-queue' });
    expect(ok.scenarios[0]!.verdict.status).toBe('pass');
    const changed = await runSuite('rate-limit.ts', { ...SCALED, limits: { rates: { 'purge-queue': { requestsPerWindow: 4 } } } }, { op: 'purge-queue' });
    const s = changed.scenarios[0]!;
    expect(s.verdict.status).toBe('fail');
    expect(finding(s, /most \/purge-queue requests admitted/)?.passed).toBe(false);
    expect(changed.result.overall.exitCode).toBe(1);
  });

  it('/cancel: admitted per window follows the configured limit (expect=advertised passes at 50)', async () => {
    const changed = await runSuite('rate-limit.ts', { ...SCALED, limits: { rates: { cancel: { requestsPerWindow: 50 } } } }, { op: 'cancel' });
    expect(finding(changed.scenarios[0], /most \/cancel requests admitted/)?.passed).toBe(false);
    const advertised = await runSuite('rate-limit.ts', { ...SCALED, limits: { rates: { cancel: { requestsPerWindow: 50 } } } }, { op: 'cancel', expect: 'advertised' });
    expect(finding(advertised.scenarios[0], /most \/cancel requests admitted/)?.passed).toBe(true);
  });
});

