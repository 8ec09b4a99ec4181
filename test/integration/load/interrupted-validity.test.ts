// An interrupted open-loop run (Ctrl-C, or an aborting threshold) is judged on the time its
// schedule ran up to the stop: the iterations still draining after it are not generator time, so
// a run that sent every start due by then is not INVALID for "not holding the rate". No network:
// the scenario's one step is a custom function that sends nothing.
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/load/engine.js';
import { parseScenario } from '../../../src/load/scenario.js';

/** Never contacted: the step below sends no request. */
const NOWHERE = { kind: 'remote', queueUrl: 'http://127.0.0.1:9', endpointId: 'ep', timeScale: 1 } as const;

describe('an interrupted load run', () => {
  it('is judged on the time up to the interrupt, not on the drain of its last iterations', async () => {
    const interrupt = new AbortController();
    let started = 0;
    // 20/s for 10 s, stopped at the 10th start (0.45 s in); each iteration takes 1.5 s and does
    // not stop early, so the run ends about 1.5 s after the interrupt. Judged on that span, the
    // 10 starts would be 10 of about 39 due (26%); judged on the time up to the interrupt they
    // are all that was due. The pace rule is the default's, at a relaxed bar (50%): it fails
    // here only if the generator had started its first 10 more than 0.45 s late.
    const scenario = parseScenario({
      name: 'interrupted',
      executor: 'constant-arrival-rate',
      ratePerSec: 20,
      durationMs: 10_000,
      gracefulStopMs: 5_000,
      steps: [
        {
          kind: 'custom',
          name: 'slow',
          fn: async () => {
            if (++started === 10) interrupt.abort(new Error('received SIGINT'));
            await new Promise<void>((resolve) => setTimeout(resolve, 1_500));
          },
        },
      ],
      validity: { maxSendLatenessP99Ms: 5_000, maxEventLoopDelayP99Ms: 5_000, minAchievedRatio: 0.5 },
    });
    const r = await runScenario(scenario, { target: NOWHERE, signal: interrupt.signal });
    expect(r.iterations?.started).toBe(10);
    // The whole run lasted past the drain: the span the bug would have used.
    expect(r.durationMs).toBeGreaterThanOrEqual(1_500);
    expect(r.validity.reasons).toEqual([]);
    expect(r.validity.valid).toBe(true);
    expect(r.validity.achievedRatePerSec).toBeGreaterThan(10);
    expect(r.verdict.status).toBe('info');
    expect(r.verdict.summary).toMatch(/interrupted before the end/);
  });
});
