// The scaler's value from what calibration reads, over generated deployments: REQUEST_COUNT from
// jobs sent at once (workers for ceil(jobs / value), within workersMax), QUEUE_DELAY from cold
// reactions in (value, value + check] read within their poll spans. Whenever the batches tell the
// truth from every other value it is inferred; otherwise the guess says which values it could not
// tell apart, the truth among them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inferScaler, QUEUE_DELAY_CHECK_MS, requestCountWorkers, type ScalerEvidence } from '../../../src/calibrate/infer.js';
import type { BurstObservation, ScaleUp } from '../../../src/calibrate/observations.js';

const SEED = Number(process.env['FC_SEED'] ?? Date.now() % 2 ** 31);
console.log(`scaler-inference fast-check seed ${SEED} (FC_SEED=${SEED} reruns it)`);
const RUNS = 500;

const burst = (jobs: number, peakWorkers: number, firstScaleUpMs: number): BurstObservation => ({
  jobs,
  workersBefore: 0,
  timeline: [],
  firstScaleUpMs,
  workersAtFirstScaleUp: peakWorkers,
  peakWorkers,
  peakAtMs: firstScaleUpMs,
  maxJobsPerRunningWorker: 1,
  throttledSeen: 0,
});

/** Values up to `top` that predict the same worker counts as `truth` for every batch (the cap as the inference sees it). */
function indistinguishable(truth: number, batches: readonly ScaleUp[], cap: number, top: number): number[] {
  return Array.from({ length: top }, (_, i) => i + 1).filter((u) => batches.every((b) => requestCountWorkers(u, b, cap) === requestCountWorkers(truth, b, cap)));
}

describe('REQUEST_COUNT value over generated batches and caps', () => {
  it('is the truth when the batches separate it from every other value, else ambiguous with the truth among the candidates', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (truth, cap, sizes, capGiven) => {
          const scaleUps: ScaleUp[] = sizes.map((jobs, i) => ({ source: i === 0 ? 'burst' : 'cold batch', jobs, workersBefore: 0, workersAfter: requestCountWorkers(truth, { jobs, workersBefore: 0 }, cap) }));
          const seenCap = capGiven ? cap : Math.max(...scaleUps.map((u) => u.workersAfter));
          const top = Math.max(...sizes);
          const e: ScalerEvidence = { coldReactions: [], scaleUps, cap: capGiven ? cap : undefined, slackMs: 0 };
          const g = inferScaler(burst(sizes[0] as number, scaleUps[0]?.workersAfter as number, 150), e);
          expect(g?.type).toBe('REQUEST_COUNT');
          // Values from the largest batch up act alike: the truth stands as that size among them.
          const same = indistinguishable(Math.min(truth, top), scaleUps, seenCap, top);
          if (same.length === 1 && truth < top) {
            expect(g?.value).toBe(truth);
            expect(g?.ambiguous).toBeUndefined();
          } else {
            expect(g?.ambiguous).toEqual(same);
            expect(g?.detail).toMatch(/ambiguous between/);
            expect(same).toContain(g?.value);
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('batches below the cap for every candidate (1 to 6 jobs with a cap of 7) separate values 1-5', () => {
    for (let truth = 1; truth <= 5; truth += 1) {
      const scaleUps: ScaleUp[] = [1, 2, 3, 4, 5, 6].map((jobs) => ({ source: 'cold batch', jobs, workersBefore: 0, workersAfter: Math.ceil(jobs / truth) }));
      const g = inferScaler(burst(6, Math.ceil(6 / truth), 150), { coldReactions: [], scaleUps, cap: 7, slackMs: 0 });
      expect(g).toMatchObject({ type: 'REQUEST_COUNT', value: truth });
      expect(g?.ambiguous).toBeUndefined();
    }
  });
});

describe('QUEUE_DELAY value over generated reactions', () => {
  it('the truth is always among the candidates; alone, it is the value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        // Each reading: where in (value, value + check] the check came, how far its spans reach, and where in them it was read.
        fc.array(fc.tuple(fc.double({ min: 0.001, max: 1, noNaN: true }), fc.integer({ min: 0, max: 600 }), fc.double({ min: -1, max: 1, noNaN: true })), { minLength: 1, maxLength: 12 }),
        (truth, draws) => {
          const coldReactions = draws.map(([u, errorMs, at]) => ({ ms: truth * 1_000 + u * QUEUE_DELAY_CHECK_MS + at * errorMs, errorMs }));
          const g = inferScaler(undefined, { coldReactions, scaleUps: [], cap: undefined, slackMs: 0 });
          expect(g?.type).toBe('QUEUE_DELAY');
          if (g?.ambiguous === undefined) expect(g?.value).toBe(truth);
          else {
            expect(g.ambiguous).toContain(truth);
            expect(g.ambiguous).toContain(g.value);
            expect(g.detail).toMatch(/ambiguous between/);
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('readings whose spans are short against the check tell the value', () => {
    const g = inferScaler(undefined, { coldReactions: [3_100, 3_400, 3_600, 3_900, 3_300, 3_700].map((ms) => ({ ms, errorMs: 80 })), scaleUps: [], cap: undefined, slackMs: 0 });
    expect(g).toMatchObject({ type: 'QUEUE_DELAY', value: 3 });
    expect(g?.ambiguous).toBeUndefined();
  });
});

describe('QUEUE_DELAY from the burst alone', () => {
  it('one reaction read within a poll: every whole delay whose (v, v + check] holds it within that error, ambiguous when more than one', () => {
    const e = { coldReactions: [], scaleUps: [], cap: undefined, slackMs: 180, burstErrorMs: 360 };
    const guess = inferScaler(burst(40, 4, 5_100), e);
    expect(guess).toMatchObject({ type: 'QUEUE_DELAY', value: 5, ambiguous: [4, 5] });
    expect(guess?.detail).toMatch(/ambiguous between 4 and 5 s.*--cold-starts/);
    // Read exactly, 5.3 s lies in (5, 6] only.
    const exact = inferScaler(burst(40, 4, 5_300), { ...e, slackMs: 0, burstErrorMs: 0 });
    expect(exact).toMatchObject({ type: 'QUEUE_DELAY', value: 5 });
    expect(exact?.ambiguous).toBeUndefined();
  });
});
