// The cold batches for a scaler that waits (QUEUE_DELAY) when the burst did not show workersMax
// (the workers up ran it before the scaler started any): each batch asks for twice the most
// workers seen (at least one more) until one comes back short, which shows workersMax; then
// batches go back to the planned starts within it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coldBatchSize, waitingCapShown, type ColdSizing } from '../../../src/calibrate/infer.js';
import type { ScaleUp } from '../../../src/calibrate/observations.js';

/** What QUEUE_DELAY ends with after a cold batch: a worker for each jobsPerWorker of the jobs beyond the active share, within the cap. */
function queueDelayUp(jobs: number, activeShare: number, s: ColdSizing, cap: number): ScaleUp {
  const asked = Math.ceil(Math.max(0, jobs - activeShare) / s.jobsPerWorker);
  return { source: 'cold batch', jobs, workersBefore: s.restWorkers, workersAfter: Math.min(cap, s.restWorkers + asked) };
}

describe('cold batches for a scaler that waits, workersMax not yet shown', () => {
  it('ask for twice the most workers seen until a batch comes back short: that batch shows workersMax', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 2 }), (cap, jobsPerWorker, startsPerGap, restWorkers) => {
        fc.pre(restWorkers <= cap);
        const s: ColdSizing = { restWorkers, jobsPerWorker, cap: Math.max(1, restWorkers), startsPerGap, atOnce: false, jobMs: 0, queueDelayMs: undefined, capUnseen: true };
        const burst: ScaleUp = { source: 'burst', jobs: 40, workersBefore: Math.max(1, restWorkers), workersAfter: Math.max(1, restWorkers) };
        const ups: ScaleUp[] = [burst];
        const active = restWorkers * jobsPerWorker;
        let asked = 0;
        for (let i = 0; i < 12 && waitingCapShown(ups, s) === undefined; i += 1) {
          const n = coldBatchSize(ups, s);
          const wants = (n - active) / jobsPerWorker;
          // Twice the most seen, at least one more.
          const most = Math.max(...ups.map((u) => u.workersAfter));
          expect(restWorkers + wants).toBe(Math.max(most + 1, 2 * most, restWorkers + 1));
          expect(wants).toBeGreaterThan(asked);
          asked = wants;
          ups.push(queueDelayUp(n, active, s, cap));
        }
        expect(waitingCapShown(ups, s)).toBe(cap);
        // Shown: the planned starts within it.
        expect(coldBatchSize(ups, s)).toBe(coldBatchSize(ups, { ...s, capUnseen: false }));
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('a batch that got every worker its waiting jobs asked for does not show workersMax', () => {
    const s: ColdSizing = { restWorkers: 0, jobsPerWorker: 3, cap: 1, startsPerGap: 4, atOnce: false, jobMs: 300, queueDelayMs: undefined, capUnseen: true };
    expect(waitingCapShown([{ source: 'cold batch', jobs: 12, workersBefore: 0, workersAfter: 4 }], s)).toBeUndefined();
    expect(waitingCapShown([{ source: 'cold batch', jobs: 15, workersBefore: 0, workersAfter: 4 }], s)).toBe(4);
    // The burst's peak is no such reading.
    expect(waitingCapShown([{ source: 'burst', jobs: 40, workersBefore: 1, workersAfter: 1 }], s)).toBeUndefined();
  });

  it('with active workers up, only the jobs past their share of the reaction ask for workers', () => {
    // 2 active workers, 1 job each, 500 ms a job: 2 x ceil((7 s + 1 s) / 0.5 s) = 32 jobs are theirs.
    const s: ColdSizing = { restWorkers: 2, jobsPerWorker: 1, cap: 2, startsPerGap: 3, atOnce: false, jobMs: 500, queueDelayMs: undefined, capUnseen: true };
    // Twice the 2 seen: 2 flex workers.
    expect(coldBatchSize([{ source: 'burst', jobs: 40, workersBefore: 2, workersAfter: 2 }], s)).toBe(32 + 2);
    expect(waitingCapShown([{ source: 'cold batch', jobs: 35, workersBefore: 2, workersAfter: 5 }], s)).toBeUndefined();
    expect(waitingCapShown([{ source: 'cold batch', jobs: 35, workersBefore: 2, workersAfter: 4 }], s)).toBe(4);
  });
});
