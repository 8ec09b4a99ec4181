// The §8 scenarios against the emulator: each passes on the documented limits and its
// verdict flips when the emulator is configured with that limit changed. Windows run on the
// emulator's scaled clock (timeScale 20: a 10 s window lasts 500 ms) so each run is short.
// Verdicts here rest on counts (admissions bounded by send and answer times), not on timing.
import { describe, expect, it } from 'vitest';
import { finding, runSuite } from './suite-harness.js';

const SCALED = { timeScale: 20, scaleRateWindows: true } as const;
// The verdict's admission brackets hold whatever the send jitter; on the shared test machine
// the generator itself may lag, which would only mark the run INVALID: relaxed here.
const RELAXED = { set: [['validity', { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 }]] as [string, unknown][] };

describe('rate-limit scenario (§8 rate column)', () => {
  it('passes on the documented /purge-queue limit and fails when the emulator allows more', async () => {
    const ok = await runSuite('rate-limit.ts', SCALED, { op: 'purge-queue' }, RELAXED);
    expect(ok.scenarios[0]!.verdict.status).toBe('pass');
    const changed = await runSuite('rate-limit.ts', { ...SCALED, limits: { rates: { 'purge-queue': { requestsPerWindow: 4 } } } }, { op: 'purge-queue' }, RELAXED);
    const s = changed.scenarios[0]!;
    expect(s.verdict.status).toBe('fail');
    expect(finding(s, /most \/purge-queue requests admitted/)?.passed).toBe(false);
    expect(changed.result.overall.exitCode).toBe(1);
  });

  it('/cancel: a limit configured below §8 fails the verdict, naming what was admitted', async () => {
    const changed = await runSuite('rate-limit.ts', { ...SCALED, limits: { rates: { cancel: { requestsPerWindow: 50 } } } }, { op: 'cancel' }, RELAXED);
    const f = finding(changed.scenarios[0], /most \/cancel requests admitted/);
    expect(f?.passed).toBe(false);
    expect(f?.expected).toMatch(/^100 /);
  });
});

