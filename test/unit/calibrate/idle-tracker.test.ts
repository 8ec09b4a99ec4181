// The idle timeout read worker by worker off /health polls after a cold batch: once nothing is
// queued each worker goes idle once and each stop is a worker whose timeout ran out, in the order
// they went idle; active workers go idle too but never stop, and stops seen while other workers
// still run or start are read as well.
import { describe, expect, it } from 'vitest';
import { IdleTracker, idleTimeoutPairs } from '../../../src/calibrate/phases.js';
import type { HealthRecord } from '../../../src/spec/index.js';

const health = (o: { idle?: number; running?: number; initializing?: number; inQueue?: number }): HealthRecord => ({
  jobs: { completed: 0, failed: 0, inProgress: o.running ?? 0, inQueue: o.inQueue ?? 0, retried: 0 },
  workers: { idle: o.idle ?? 0, running: o.running ?? 0, initializing: o.initializing ?? 0 },
});

/** Feed `polls` 10 real ms apart from 0 ms (the batch sent at 0 into `before`); each poll says whether every job of the batch has started. */
function track(before: HealthRecord, polls: readonly (readonly [HealthRecord, boolean])[]): IdleTracker {
  const t = new IdleTracker(before, 0);
  polls.forEach(([h, allStarted], i) => t.observe(h, (i + 1) * 10, allStarted));
  return t;
}

describe('idleTimeoutPairs', () => {
  const span = (mid: number) => ({ fromMs: mid - 5, toMs: mid + 5 });

  it('pairs each stop with the idle start one timeout before it, skipping an active worker that went idle between two flex ones', () => {
    // Flex workers idle at 10 and 30 and an active one at 20; a timeout of 100 stops the flex ones at 110 and 130.
    expect(idleTimeoutPairs([span(10), span(20), span(30)], [span(110), span(130)])).toEqual([100, 100]);
  });

  it('an active worker that ran the last job does not shorten the reading', () => {
    // Flex workers idle at 10 and 20, the active one last at 60; stops at 110 and 120.
    expect(idleTimeoutPairs([span(10), span(20), span(60)], [span(110), span(120)])).toEqual([100, 100]);
  });

  it('one stop after active workers went idle and a flex worker came up later with nothing to run: the flex worker is the one that stopped', () => {
    // Active workers idle at 10, the flex worker ready at 50; a timeout of 60 stops it at 110 (the
    // actives, had the timeout been 100, would be as consistent, but a flex worker never stays up).
    expect(idleTimeoutPairs([span(10), span(10), { ...span(50), flex: true }], [span(110)])).toEqual([60]);
  });

  it('a single stop after several workers went idle, none known to be flex: the latest idle start is taken (an active worker that went idle last can only shorten it)', () => {
    expect(idleTimeoutPairs([span(10), span(40)], [span(140)])).toEqual([100]);
  });

  it('no stop or no idle start before it: no sample', () => {
    expect(idleTimeoutPairs([span(10)], [])).toEqual([]);
    expect(idleTimeoutPairs([span(50)], [span(40)])).toEqual([]);
  });
});

describe('IdleTracker', () => {
  it('reads a timeout shorter than the batch: a worker that stops while another still runs and one still starts', () => {
    const t = track(health({}), [
      [health({ initializing: 3, inQueue: 4 }), false],
      [health({ running: 2, initializing: 1 }), true],
      // One worker ends its jobs in (20, 30) and stops in (40, 50): 20 ms.
      [health({ running: 1, idle: 1, initializing: 1 }), true],
      [health({ running: 1, idle: 1, initializing: 1 }), true],
      [health({ running: 1, initializing: 1 }), true],
      // The last start comes up with nothing to run in (50, 60), the other runner ends in (60, 70).
      [health({ running: 1, idle: 1 }), true],
      [health({ idle: 2 }), true],
      [health({ idle: 1 }), true],
      [health({}), true],
    ]);
    expect(t.samplesMs()).toEqual([20, 20, 20]);
  });

  it('with an active worker up that runs the last job, reads each flex worker from its own idle start', () => {
    // Flex workers go idle in (20, 30) and (40, 50), the active one last in (50, 60); the flex ones stop in (100, 110) and (120, 130).
    const polls: [HealthRecord, boolean][] = [
      [health({ running: 3 }), true],
      [health({ running: 3 }), true],
      [health({ running: 2, idle: 1 }), true],
      [health({ running: 2, idle: 1 }), true],
      [health({ running: 1, idle: 2 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 2 }), true],
      [health({ idle: 2 }), true],
      [health({ idle: 1 }), true],
    ];
    expect(track(health({ idle: 1 }), polls).samplesMs()).toEqual([80, 80]);
  });

  it('a worker that comes up after the jobs have ended is a flex worker: the stop is read from its idle start, not the active workers\'', () => {
    const polls: [HealthRecord, boolean][] = [
      [health({ running: 2, initializing: 1 }), true],
      // The active workers end their jobs in (10, 20); the flex worker comes up in (30, 40) and stops in (70, 80).
      [health({ idle: 2, initializing: 1 }), true],
      [health({ idle: 2, initializing: 1 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 3 }), true],
      [health({ idle: 2 }), true],
    ];
    expect(track(health({ idle: 2 }), polls).samplesMs()).toEqual([40]);
  });

  it('reads no idle start while a job of the batch waits in the queue (an idle worker then has one to take)', () => {
    const t = track(health({ idle: 1 }), [
      [health({ idle: 1, inQueue: 1 }), false],
      [health({ running: 1 }), true],
      [health({ idle: 1 }), true],
      [health({}), true],
    ]);
    // Idle in (20, 30), stopped in (30, 40); the idle worker of the first poll is not read as going idle there.
    expect(t.samplesMs()).toEqual([10]);
  });
});
