// The cold batches that tell REQUEST_COUNT's candidates apart (coldBatchSize), each batch's peak
// read as the inference reads it (within its range).
import { describe, expect, it } from 'vitest';
import { coldBatchSize, requestCountWorkers, type ColdSizing } from '../../../src/calibrate/infer.js';
import type { ScaleUp } from '../../../src/calibrate/observations.js';

// Two active workers of 3 slots, at most 4 workers; the burst's workers came at once.
const sizing: ColdSizing = { restWorkers: 2, jobsPerWorker: 3, cap: 4, startsPerGap: 4, atOnce: true, jobMs: 600, queueDelayMs: undefined };
const burst: ScaleUp = { source: 'burst', jobs: 40, workersBefore: 2, workersAfter: 4 };
const batch = (jobs: number, workersAfter: number, low: number, high: number, point: number): ScaleUp => ({ source: 'cold batch', jobs, workersBefore: 2, workersAfter, peak: { low, high, point } });

describe('the next cold batch when workers come at once', () => {
  // 8 sent, 6 to 8 at once, 3 workers: REQUEST_COUNT 2 and 3 (or a worker for every job beyond the slots) both explain it.
  const both = batch(8, 3, 6, 8, 8);

  it('sized to tell the candidates apart at the peak a batch reaches: the more the batches fell short of their jobs, the more it sends', () => {
    const exact = coldBatchSize([burst, both], sizing);
    const short = coldBatchSize([burst, batch(8, 3, 6, 8, 6)], sizing);
    expect(short).toBeGreaterThan(exact);
    // At the peak it likely reaches (6 of 8: a quarter short), REQUEST_COUNT 2 and 3 predict different counts.
    const peak = Math.round(short * 0.75);
    expect(requestCountWorkers(2, { jobs: peak, workersBefore: 2 }, 4)).not.toBe(requestCountWorkers(3, { jobs: peak, workersBefore: 2 }, 4));
  });

  it('a size sent twice whose peaks left the same candidates is not sent a third time', () => {
    const first = coldBatchSize([burst, both], sizing);
    const told = batch(first, 2, 3, first, first);
    expect(coldBatchSize([burst, both, told], sizing)).toBe(first);
    expect(coldBatchSize([burst, both, told, told], sizing)).not.toBe(first);
  });

  it('while every batch so far went to the idle active workers and started none: one that fills their slots and starts workers', () => {
    const none = coldBatchSize([burst, batch(7, 2, 6, 7, 7)], sizing);
    expect(none).toBeGreaterThanOrEqual(sizing.restWorkers * sizing.jobsPerWorker + sizing.jobsPerWorker);
    // The same batch having started a worker: back to telling the candidates apart, a smaller batch.
    expect(coldBatchSize([burst, batch(7, 3, 6, 7, 7)], sizing)).toBeLessThan(none);
  });
});
