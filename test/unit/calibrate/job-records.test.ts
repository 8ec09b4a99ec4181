// What calibrate reads from job records and the /health polls beside them: a warm-phase job that
// met a worker's start (startDuring), the dispatch samples (dispatchSamples), the most requests a
// REQUEST_COUNT scaler counted during a batch (requestPeak, requestCountFits), and jobs side by
// side on one worker when a long dispatch keeps their runs apart (jobsPerWorkerFromRecords) or
// while jobs wait in the queue (jobsPerWorkerFromQueueWait).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { burstJobsPerWorker, dispatchSamples, drainedBelowCap, jobsPerWorkerFromQueueWait, jobsPerWorkerFromRecords, requestCountFits, requestPeak, upperHalfMedian, type SettingValue } from '../../../src/calibrate/infer.js';
import { startDuring } from '../../../src/calibrate/phases.js';
import type { JobSample, JobSpan, Observations } from '../../../src/calibrate/observations.js';
import type { TimedHealth } from '../../../src/calibrate/target.js';

const health = (atMs: number, w: { idle?: number; running?: number; initializing?: number; throttled?: number }): TimedHealth => ({
  health: { jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: w.idle ?? 0, running: w.running ?? 0, initializing: w.initializing ?? 0, throttled: w.throttled ?? 0 } },
  sentAtMs: atMs - 1,
  answeredAtMs: atMs + 1,
});

const obsOf = (jobs: JobSample[], timeScale = 1): Observations => ({ jobs, timeScale, rttRealMs: 0 }) as unknown as Observations;

const warmJob = (o: Partial<JobSample>): JobSample => ({ phase: 'warm', classId: 'default', status: 'COMPLETED', sentAtMs: 0, answeredAtMs: 0, e2eMs: 0, delayMs: 100, executionMs: 1_000, poolBefore: 'warm', ...o });

describe('a warm-phase job that met a worker start', () => {
  it('no poll showed a worker starting: none', () => {
    expect(startDuring([health(0, { idle: 1 }), health(100, { running: 1 })])).toBeUndefined();
  });

  it('a start seen (initializing or waiting for capacity): ready between the last poll that showed it and the next', () => {
    const points = [health(0, {}), health(100, { throttled: 1 }), health(200, { initializing: 1 }), health(300, { running: 1 })];
    expect(startDuring(points)).toEqual({ readyAtMs: 250 });
    expect(startDuring(points.slice(0, 3))).toEqual({ readyAtMs: undefined });
  });
});

describe('the dispatch samples', () => {
  it('five or more jobs found an idle worker: their delayTime alone', () => {
    const jobs = [...Array.from({ length: 5 }, (_, i) => warmJob({ delayMs: 100 + i })), warmJob({ delayMs: 9_000, metStart: true, workerReadyAtMs: 1_000, answeredAtMs: 2_500 })];
    expect(dispatchSamples(obsOf(jobs))).toEqual({ samplesMs: [100, 101, 102, 103, 104], warm: 5, afterStart: 0 });
  });

  it('fewer: a job that met a start gives the time from its worker ready to its own start (its end less executionTime)', () => {
    // Ready at 1,000 ms, ended at 2,500 after 1,000 ms of execution: started at 1,500, a 500 ms dispatch.
    const jobs = [warmJob({ delayMs: 120 }), warmJob({ delayMs: 9_000, metStart: true, workerReadyAtMs: 1_000, answeredAtMs: 2_500 }), warmJob({ delayMs: 9_000, metStart: true })];
    expect(dispatchSamples(obsOf(jobs))).toEqual({ samplesMs: [120, 500], warm: 1, afterStart: 1 });
    // At time scale 10 each real ms is 10 target ms; a negative reading (the poll's span) is 0.
    expect(dispatchSamples(obsOf([warmJob({ delayMs: 9_000, metStart: true, workerReadyAtMs: 100, answeredAtMs: 190 })], 10)).samplesMs).toEqual([0]);
  });
});

describe('the most requests a REQUEST_COUNT scaler counted during a batch', () => {
  const span = (joinMs: number, endMs: number, executionMs = 100): JobSpan => ({ endMs, executionMs, delayMs: endMs - executionMs - joinMs });

  it('jobs queued and in progress at once, whatever order they end in', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 150, max: 5_000 })), { minLength: 1, maxLength: 30 }), (xs) => {
        const spans = xs.map(([join, len]) => span(join, join + len));
        // The truth: the most spans covering one instant, counted at each join.
        const truth = Math.max(...spans.map((s) => spans.filter((o) => o.endMs - o.executionMs - o.delayMs <= s.endMs - s.executionMs - s.delayMs && s.endMs - s.executionMs - s.delayMs < o.endMs).length));
        const p = requestPeak(spans, 0, 0);
        expect(p).toEqual({ low: truth, high: truth, point: truth });
        const wide = requestPeak(spans, 50, 0);
        expect(wide.low).toBeLessThanOrEqual(truth);
        expect(wide.high).toBeGreaterThanOrEqual(truth);
      }),
      { seed: 5, numRuns: 200 },
    );
  });

  it('ends placed within poll spans: the peak at the true ends lies within low and high, and so does the likeliest', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 150, max: 2_000 }), fc.integer({ min: 0, max: 360 }), fc.integer({ min: 0, max: 360 })), { minLength: 1, maxLength: 20 }),
        (xs) => {
          const exact = xs.map(([join, len]) => span(join, join + len));
          const truth = requestPeak(exact, 0, 0).point;
          // Each end known only within a span around it (the answer says nothing more).
          const placed = xs.map(([join, len, before, after]): JobSpan => ({ ...span(join, join + len), endMs: join + len + after, endWithin: { fromMs: join + len - before, toMs: join + len + after } }));
          const p = requestPeak(placed, 1_000, 1_000);
          expect(p.low).toBeLessThanOrEqual(truth);
          expect(p.high).toBeGreaterThanOrEqual(truth);
          expect(p.point).toBeGreaterThanOrEqual(p.low);
          expect(p.point).toBeLessThanOrEqual(p.high);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('a job that may have ended before the next joined, or not: between 1 and 2', () => {
    // The first ends somewhere in [900, 1,100]; the second joins at 1,000.
    const first: JobSpan = { endMs: 1_100, executionMs: 500, delayMs: 400, endWithin: { fromMs: 900, toMs: 1_100 } };
    const second: JobSpan = { ...span(1_000, 1_500), endWithin: { fromMs: 1_500, toMs: 1_500 } };
    expect(requestPeak([first, second], 0, 0)).toMatchObject({ low: 1, high: 2 });
    // Wholly before: one at a time, whatever the answer's margin for a job placed within its polls.
    const before: JobSpan = { ...first, endWithin: { fromMs: 800, toMs: 950 } };
    expect(requestPeak([before, second], 500, 500, 20)).toEqual({ low: 1, high: 1, point: 1 });
  });

  it('short jobs through one active worker: fewer at once than were sent, and the scaler value that explains the workers is read from them', () => {
    // Seven jobs joining 300 ms apart, each done 200 ms later: never more than one at once.
    const spans = Array.from({ length: 7 }, (_, i) => span(i * 300, i * 300 + 200));
    const peak = requestPeak(spans, 0, 0);
    expect(peak.point).toBe(1);
    const up = { source: 'cold batch' as const, jobs: 7, workersBefore: 1, workersAfter: 1, peak };
    // Counted as sent, REQUEST_COUNT 2 would have started 4 workers; counted as queued, one is enough.
    expect(requestCountFits(2, up, 6)).toBe(true);
    expect(requestCountFits(2, { ...up, peak: undefined }, 6)).toBe(false);
  });
});

describe('jobs side by side on one worker', () => {
  const burstJob = (workerId: string, endMs: number, executionMs: number): JobSample => ({ phase: 'burst', classId: 'default', status: 'COMPLETED', sentAtMs: 0, answeredAtMs: endMs, e2eMs: 0, delayMs: 0, executionMs, poolBefore: 'busy', workerId });

  it('a dispatch ten times the execution: pairs that end together held two slots, though their 200 ms runs barely overlap', () => {
    // Two slots, 2,000 ms dispatch, 200 ms runs: each pair ends 180 ms apart (runs overlapping 20 ms), pairs 2,200 ms apart.
    const jobs = Array.from({ length: 8 }, (_, i) => burstJob('w1', 2_200 * (1 + (i >> 1)) + (i & 1) * 180, 200));
    expect(jobsPerWorkerFromRecords(jobs, 1, 10, 0, 0)).toBe(1);
    expect(jobsPerWorkerFromRecords(jobs, 1, 10, 0, 1_500)).toBe(2);
  });

  it('one job at a time, each dispatch at least the low quantile: never two', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1_500, max: 4_000 }), fc.integer({ min: 100, max: 3_000 })), { minLength: 2, maxLength: 20 }), (xs) => {
        let t = 0;
        const jobs = xs.map(([dispatch, exec]) => {
          t += dispatch + exec;
          return burstJob('w1', t, exec);
        });
        expect(jobsPerWorkerFromRecords(jobs, 1, 10, 0, 1_500)).toBe(1);
      }),
      { seed: 9, numRuns: 200 },
    );
  });
});

describe('jobs each worker held while burst jobs waited in the queue', () => {
  /**
   * A burst through `workers` ready workers of `slots` slots each: jobs join the queue in order,
   * a freed slot takes the next one at once, each runs its dispatch then its execution. Answers
   * the jobs' records (time scale 1, no round trip) and the dispatches drawn.
   */
  function burst(slots: number, workers: number, parts: readonly (readonly [number, number])[], joinGapMs: number) {
    const free: { worker: string; atMs: number }[] = [];
    for (let w = 0; w < workers; w += 1) for (let s = 0; s < slots; s += 1) free.push({ worker: `w${w}`, atMs: 0 });
    const jobs = parts.map(([dispatchMs, executionMs], i): JobSample => {
      const joinMs = i * joinGapMs;
      free.sort((a, b) => a.atMs - b.atMs);
      const slot = free[0] as { worker: string; atMs: number };
      const startMs = Math.max(joinMs, slot.atMs) + dispatchMs;
      slot.atMs = startMs + executionMs;
      return { phase: 'burst', classId: 'default', status: 'COMPLETED', sentAtMs: 0, answeredAtMs: slot.atMs, e2eMs: 0, delayMs: startMs - joinMs, executionMs, poolBefore: 'busy', workerId: slot.worker };
    });
    return { jobs, dispatchMs: parts.map(([d]) => d) };
  }

  it('the slots of each worker, whatever the dispatch beside the execution (a long one hides runs from each other and from /health)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.tuple(fc.integer({ min: 100, max: 2_000 }), fc.integer({ min: 200, max: 3_000 })), { minLength: 40, maxLength: 40 }),
        (slots, workers, parts) => {
          // Jobs joining 5 ms apart: the queue holds some for most of the burst.
          const b = burst(slots, workers, parts, 5);
          expect(jobsPerWorkerFromQueueWait(b.jobs, b.dispatchMs, 1, 0)).toBe(slots);
        },
      ),
      { seed: 17, numRuns: 200 },
    );
  });

  it('three slots behind a dispatch twice the execution: the runs seen side by side within a poll\'s margin do not show them, the waits do', () => {
    const b = burst(3, 2, Array.from({ length: 40 }, (_, i) => [380 + (i % 5) * 20, 200] as const), 5);
    // The margins of a burst read at time scale 60: a 60 ms round trip, 360 ms polls.
    expect(jobsPerWorkerFromRecords(b.jobs, 1, 60, 360, 300)).toBeLessThan(3);
    expect(jobsPerWorkerFromQueueWait(b.jobs, b.dispatchMs, 1, 0)).toBe(3);
  });

  it('what sizes the cold batches: the larger of /health\'s jobs in progress per running worker and the waits', () => {
    const b = burst(3, 2, Array.from({ length: 40 }, (_, i) => [380 + (i % 5) * 20, 200] as const), 5);
    const warm = b.dispatchMs.map((delayMs) => warmJob({ delayMs }));
    const obs = { jobs: [...warm, ...b.jobs], burst: { maxJobsPerRunningWorker: 1.75 }, timeScale: 1, rttRealMs: 0 } as unknown as Observations;
    expect(burstJobsPerWorker(obs)).toBe(3);
    expect(burstJobsPerWorker({ ...obs, jobs: warm })).toBe(2);
  });

  it('no job waited for a slot, or no record names its worker: not read', () => {
    const spread = burst(3, 2, Array.from({ length: 10 }, () => [100, 200] as const), 1_000);
    expect(jobsPerWorkerFromQueueWait(spread.jobs, spread.dispatchMs, 1, 0)).toBeUndefined();
    const anonymous = burst(3, 2, Array.from({ length: 40 }, () => [100, 200] as const), 5);
    expect(jobsPerWorkerFromQueueWait(anonymous.jobs.map((j) => ({ ...j, workerId: undefined })), anonymous.dispatchMs, 1, 0)).toBeUndefined();
  });
});

describe('the idle timeout from samples that may fall short of it', () => {
  it('the median of the upper half: samples cut short by an active worker running the last job do not pull it down', () => {
    expect(upperHalfMedian([600, 4_000, 1_900])).toBe(2_950);
    expect(upperHalfMedian([25_100, 24_900, 17_000, 24_900, 19_500, 13_700])).toBe(24_900);
    expect(upperHalfMedian([5_000])).toBe(5_000);
  });
});

describe('the most workers a burst reached as the maximum', () => {
  const setting = (name: SettingValue['name'], value: number | string | boolean): SettingValue => ({ name, value, source: 'measured', detail: '' });
  const settingsOf = (type: string, v: number, atOnce = false) => [setting('workersMax', 2), setting('scalerType', type), setting('scalerValue', v), setting('jobsPerWorker', 3), setting('startOnArrival', atOnce)];
  const obsWith = (delaysMs: number[]) =>
    ({
      jobs: delaysMs.map((delayMs) => warmJob({ phase: 'burst', delayMs })),
      burst: { jobs: 40, workersBefore: 0, peakWorkers: 2 },
      timeScale: 60,
      rttRealMs: 1,
      pollRealMs: 5,
    }) as unknown as Observations;

  it('QUEUE_DELAY: a lower bound when no job waited past the delay and a check (with the polls\' error), the cap when one did', () => {
    expect(drainedBelowCap(settingsOf('QUEUE_DELAY', 3), obsWith([1_000, 4_000]))).toMatch(/no job of the burst of 40 waited past QUEUE_DELAY's 3 s/);
    expect(drainedBelowCap(settingsOf('QUEUE_DELAY', 3), obsWith([1_000, 9_000]))).toBeUndefined();
  });

  it('REQUEST_COUNT: a lower bound when ceil(jobs / value) is no more than the workers reached; a worker at once for every job beyond the slots shows the cap', () => {
    expect(drainedBelowCap(settingsOf('REQUEST_COUNT', 20), obsWith([]))).toMatch(/asks REQUEST_COUNT 20 for 2 worker/);
    expect(drainedBelowCap(settingsOf('REQUEST_COUNT', 4), obsWith([]))).toBeUndefined();
    expect(drainedBelowCap(settingsOf('REQUEST_COUNT', 20, true), obsWith([]))).toBeUndefined();
  });
});
