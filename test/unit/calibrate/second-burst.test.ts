// The second burst sent when the active workers took the first whole before the scaler acted:
// sized to keep their slots taken past the longest plausible scaler reaction, with the plan's
// burst on top to wait for the scaler, never beyond what the budget spares.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secondBurstSize } from '../../../src/calibrate/infer.js';

describe('the second burst', () => {
  it('outlasts the longest plausible reaction with the plan burst left waiting, or spends what the budget spares and says it falls short', () => {
    fc.assert(
      fc.property(
        fc.record({ slots: fc.integer({ min: 1, max: 18 }), jobMs: fc.integer({ min: 50, max: 60_000 }), longestWaitMs: fc.integer({ min: 0, max: 20_000 }), waitingJobs: fc.integer({ min: 0, max: 60 }), affordable: fc.integer({ min: 0, max: 400 }) }),
        (s) => {
          const b = secondBurstSize(s);
          expect(b.jobs).toBeLessThanOrEqual(s.affordable);
          // QUEUE_DELAY 6 s and its 1 s check, or twice the longest wait seen without a start; one check more.
          expect(b.reactionMs).toBe(Math.max(7_000, 2 * s.longestWaitMs) + 1_000);
          if (!b.capped) {
            // The slots stay taken past the reaction, and the plan's burst still waits behind them.
            expect(b.coversMs).toBeGreaterThanOrEqual(b.reactionMs);
            expect(b.jobs - s.slots - s.slots * Math.floor(b.reactionMs / s.jobMs)).toBeGreaterThanOrEqual(s.waitingJobs);
          } else expect(b.jobs).toBe(s.affordable);
        },
      ),
      { seed: 31, numRuns: 500 },
    );
  });

  it('seed 13 of the proof: 4 slots at 306 ms a job take 112 jobs past an 8 s reaction; a budget sparing 69 covers 5 s', () => {
    const b = secondBurstSize({ slots: 4, jobMs: 306, longestWaitMs: 2_500, waitingJobs: 40, affordable: 69 });
    expect(b).toMatchObject({ jobs: 69, reactionMs: 8_000, capped: true });
    expect(b.coversMs).toBeCloseTo((65 / 4) * 306, 6);
    expect(secondBurstSize({ slots: 4, jobMs: 306, longestWaitMs: 2_500, waitingJobs: 40, affordable: 500 })).toMatchObject({ jobs: 4 * 27 + 4 + 40, capped: false });
  });
});
