// A batch's peak read within its range (startOnArrivalFromCounts), and where a job's end lies
// from the polls that saw it start and end (endWithin).
import { describe, expect, it } from 'vitest';
import { startOnArrivalFromCounts } from '../../../src/calibrate/infer.js';
import { endWithin } from '../../../src/calibrate/phases.js';
import type { ScaleUp } from '../../../src/calibrate/observations.js';

const burst: ScaleUp = { source: 'burst', jobs: 40, workersBefore: 2, workersAfter: 4 };
const batch = (jobs: number, workersAfter: number, low: number, high: number, point: number): ScaleUp => ({ source: 'cold batch', jobs, workersBefore: 2, workersAfter, peak: { low, high, point } });

describe('a worker for every job beyond the free slots beside REQUEST_COUNT, read within each peak', () => {
  it('a batch whose jobs did not all reach the queue at once: explained with the jobs its peak places, not those sent', () => {
    // 10 sent, 7 to 9 at once, 3 workers: with 6 free slots a worker at once for the 7th to 9th (3 per worker) makes 3; counted as sent it would make 4.
    const ups = [burst, batch(10, 3, 7, 9, 8)];
    const guess = startOnArrivalFromCounts(ups, 4, 3);
    expect(guess?.tied).toBe(true);
    expect(guess?.values).toContain(3);
  });
});

describe('where a job ends, from the polls that saw it start and end', () => {
  const ctx = { originMs: 1_000, timeScale: 60 };

  it('the span it was seen ended in, narrowed to the span it was seen started in plus its executionTime', () => {
    // Ended between real 1,000 and 1,006; started between 1,000 and 1,003 with 120 target ms (2 real) of execution: ended within 1,002-1,005.
    expect(endWithin({ fromMs: 1_000, toMs: 1_003 }, { fromMs: 1_000, toMs: 1_006 }, 120, ctx)).toEqual({ endWithin: { fromMs: 120, toMs: 300 } });
    // Seen started and ended on one poll: it started within that span too.
    expect(endWithin(undefined, { fromMs: 1_000, toMs: 1_006 }, 240, ctx)).toEqual({ endWithin: { fromMs: 240, toMs: 360 } });
  });

  it('spans that do not meet (a late answer): the end\'s span alone; no end seen: nothing', () => {
    expect(endWithin({ fromMs: 990, toMs: 991 }, { fromMs: 1_000, toMs: 1_006 }, 60, ctx)).toEqual({ endWithin: { fromMs: 0, toMs: 360 } });
    expect(endWithin({ fromMs: 990, toMs: 991 }, undefined, 60, ctx)).toEqual({});
  });
});
