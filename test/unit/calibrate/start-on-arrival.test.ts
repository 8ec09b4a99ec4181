// startOnArrival from the cold batches' reactions, over generated observations: a truth that
// starts a worker at once for a job finding none gives reactions near 0, one that waits for a
// QUEUE_DELAY scaler gives reactions in (value, value + check]; each is read within ± its poll
// error. Whatever the errors, a decision is never the wrong one; with errors within 150 ms
// (poll spans a /health poll of 300 ms gives) it is always made.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inferStartOnArrival, QUEUE_DELAY_CHECK_MS, startOnArrivalFromCounts } from '../../../src/calibrate/infer.js';
import type { ColdReaction } from '../../../src/calibrate/observations.js';

const SEED = Number(process.env['FC_SEED'] ?? Date.now() % 2 ** 31);
console.log(`start-on-arrival fast-check seed ${SEED} (FC_SEED=${SEED} reruns it)`);
const RUNS = 1_000;

/** One reading: the true reaction moved by `at` (-1..1) of its error, never below 0 (coldReaction clamps there). */
const read = (trueMs: number, errorMs: number, at: number): ColdReaction => ({ ms: Math.max(0, trueMs + at * errorMs), errorMs });

// Each draw: the true reaction's place (0..1), the reading's error and where in it the reading fell.
const draws = fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 1_000 }), fc.double({ min: -1, max: 1, noNaN: true })), { minLength: 1, maxLength: 10 });

describe('startOnArrival over generated cold reactions', () => {
  it('on arrival (a worker within 150 ms of the job): never measured false; measured true whenever the errors are within 150 ms', () => {
    fc.assert(
      fc.property(draws, fc.integer({ min: 0, max: 30 }), (ds, slackMs) => {
        const reactions = ds.map(([u, errorMs, at]) => read(u * 150, Math.min(errorMs, 400), at));
        const g = inferStartOnArrival(reactions, slackMs);
        expect(g?.value).not.toBe(false);
        if (reactions.every((r) => r.errorMs <= 150)) expect(g).toMatchObject({ value: true });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('a QUEUE_DELAY check (reactions in (value, value + check]): never measured true; measured false whenever the errors are within 150 ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), draws, fc.integer({ min: 0, max: 30 }), (value, ds, slackMs) => {
        const reactions = ds.map(([u, errorMs, at]) => read(value * 1_000 + Math.max(1, u * QUEUE_DELAY_CHECK_MS), errorMs, at));
        const g = inferStartOnArrival(reactions, slackMs);
        expect(g?.value).not.toBe(true);
        if (reactions.every((r) => r.errorMs <= 150)) expect(g).toMatchObject({ value: false });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('no reading, or as many each way, leaves it unmeasured; the detail gives the readings', () => {
    expect(inferStartOnArrival([], 0)).toBeUndefined();
    expect(inferStartOnArrival([{ ms: 100, errorMs: 50 }, { ms: 2_500, errorMs: 50 }], 0)).toBeUndefined();
    expect(inferStartOnArrival([{ ms: 100, errorMs: 50 }, { ms: 700, errorMs: 600 }], 0)?.detail).toMatch(/within 1000 ms of the first job of 1 of 2 cold batch\(es\).*1 reading\(s\) too wide to tell/);
  });
});

describe('startOnArrival beside REQUEST_COUNT from the workers batches ended with', () => {
  const up = (jobs: number, workersBefore: number, workersAfter: number) => ({ source: 'cold batch' as const, jobs, workersBefore, workersAfter });

  it('a worker at once for each job beyond the free slots starts what REQUEST_COUNT at the jobs per worker starts: a tie, said so', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 6 }), (before, jpw, sizes) => {
        const cap = 6;
        const ups = sizes.map((n) => up(n, before, Math.min(cap, before + Math.ceil(Math.max(0, n - before * jpw) / jpw))));
        const guess = startOnArrivalFromCounts(ups, cap, jpw);
        expect(guess).toMatchObject({ value: false, tied: true });
        expect(guess?.detail).toMatch(/do not tell the two apart/);
      }),
      { seed: 12, numRuns: 200 },
    );
  });
});
