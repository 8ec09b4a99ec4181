// The §8 capacity scenarios against the emulator: each passes on the documented limits and its
// verdict flips when the emulator is configured with that limit changed. Windows run on the
// emulator's scaled clock (timeScale 20: a 10 s window lasts 500 ms) so each run is short.
// Verdicts here rest on counts (admissions bounded by send and answer times), not on timing.
import { describe, expect, it } from 'vitest';
import { finding, runSuite } from './suite-harness.js';

const SCALED = { timeScale: 20, scaleRateWindows: true } as const;

describe('concurrency-cap scenario (§8 concurrency column)', () => {
  it('admits exactly the configured cap of held /runsync requests, and flags a cap other than §8', async () => {
    const cfg = { timeScale: 10, limits: { rates: { runsync: { concurrency: 12 } } } };
    const documented = await runSuite('concurrency-cap.ts', cfg, { op: 'runsync' });
    expect(documented.scenarios[0]!.verdict.status).toBe('fail');
    expect(finding(documented.scenarios[0], /admitted while/)?.observed).toMatch(/^12 held together/);
    const advertised = await runSuite('concurrency-cap.ts', cfg, { op: 'runsync', expect: 'advertised' });
    expect(advertised.scenarios[0]!.verdict.status).toBe('pass');
  });

  it('the no-concurrency-cap fault makes it fail: everything is admitted', async () => {
    const r = await runSuite('concurrency-cap.ts', { timeScale: 10, limits: { rates: { stream: { concurrency: 6 } } }, faults: ['no-concurrency-cap'] }, { op: 'stream', expect: 'advertised' });
    expect(r.scenarios[0]!.verdict.status).toBe('fail');
  });
});

describe('worker-scaled-limit scenario (§8 dynamic rule)', () => {
  const base = { ...SCALED, limits: { requestsPerWorker: 20, rates: { status: { requestsPerWindow: 30 } } } };
  it('the effective limit follows max(base, running * requests_per_worker)', async () => {
    const r = await runSuite('worker-scaled-limit.ts', base, { expect: 'advertised', workers: '3' });
    const s = r.scenarios[0]!;
    expect(s.verdict.findings.map((f) => f.passed)).toEqual([true, true, true, true, true, true]);
    expect(s.verdict.status).toBe('pass');
    expect(s.verdict.summary).toMatch(/requests_per_worker estimate 20/);
  });

  it('fails when the target ignores running workers (requests_per_worker 0)', async () => {
    const r = await runSuite('worker-scaled-limit.ts', { ...base, limits: { ...base.limits, requestsPerWorker: 0 } }, { expect: 'advertised', workers: '3', rpw: '20' });
    expect(finding(r.scenarios[0], /"busy workers"/)?.passed).toBe(false);
    expect(finding(r.scenarios[0], /"no busy workers"/)?.passed).toBe(true);
  });
});
