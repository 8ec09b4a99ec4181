// Worker starts read off /health polls after an idle gap: starts begun on one scaling decision
// give each worker's duration whatever order they end in; starts spread over several polls are
// paired first in, first out; after a worker stops, only the starts seen before it are read on.
import { describe, expect, it } from 'vitest';
import { StartTracker } from '../../../src/calibrate/phases.js';
import type { HealthRecord } from '../../../src/spec/index.js';

const health = (initializing: number, running: number, idle = 0, throttled?: number): HealthRecord => ({
  jobs: { completed: 0, failed: 0, inProgress: running, inQueue: 0, retried: 0 },
  workers: { idle, running, initializing, ...(throttled !== undefined ? { throttled } : {}) },
});

/** Feed `polls` 10 real ms apart, from a pool at rest (nothing up) at 0 ms. */
function track(polls: readonly HealthRecord[]): StartTracker {
  const t = new StartTracker(0, 0);
  polls.forEach((h, i) => t.observe(h, { fromMs: i * 10, toMs: (i + 1) * 10 }));
  return t;
}

describe('StartTracker', () => {
  it('three workers started on one decision: each duration from the common start, a full start ending last', () => {
    const t = track([health(3, 0), health(2, 1), health(2, 1), health(0, 3)]);
    expect(t.startCount).toBe(3);
    expect(t.startSpans).toBe(1);
    expect(t.firstStart).toEqual({ fromMs: 0, toMs: 10 });
    // Starts in (0, 10), mid 5; ready in (10, 20) once and (30, 40) twice.
    expect(t.durationsMs()).toEqual([10, 30, 30]);
  });

  it('counts the workers still starting, and when the last one came up', () => {
    const t = track([health(3, 0), health(2, 1)]);
    expect(t.pending).toBe(2);
    expect(t.lastReadyMs).toBe(15);
    t.observe(health(0, 1, 2), { fromMs: 20, toMs: 30 });
    expect(t.pending).toBe(0);
    expect(t.lastReadyMs).toBe(25);
  });

  it('starts over two polls are paired first in, first out: the sum of the durations is kept', () => {
    // One start in (0, 10); a second in (10, 20) that is fast and ends in (20, 30); the first ends in (40, 50).
    const t = track([health(1, 0), health(2, 0), health(1, 1), health(1, 1), health(0, 2)]);
    expect(t.startSpans).toBe(2);
    const d = t.durationsMs();
    expect(d).toEqual([20, 30]);
    // True durations 40 (5 -> 45) and 10 (15 -> 25): the same sum.
    expect(d.reduce((a, b) => a + b, 0)).toBe(50);
  });

  it('a worker that appeared already running took half the span it appeared in', () => {
    const t = track([health(0, 1)]);
    expect(t.durationsMs()).toEqual([5]);
  });

  it('after a worker stops no new start is read, and the starts seen before are read to their end from the starting count', () => {
    // Two start, one is ready in (10, 20) and stops in (20, 30); a new worker then could hide
    // behind it (up and ready say nothing), but the starting count falls only in (40, 50).
    const t = track([health(2, 0), health(1, 1), health(1, 0), health(1, 1), health(0, 2)]);
    expect(t.startCount).toBe(2);
    expect(t.durationsMs()).toEqual([10, 40]);
    expect(t.stopSeen).toBe(true);
    expect(t.pending).toBe(0);
  });

  it('a full start outlasting a fast one whose worker stops by its idle timeout is still timed', () => {
    // Two start at once: a fast one ready in (10, 20), idle, stopped in (30, 40); the full one ready in (60, 70).
    const t = track([health(2, 0), health(1, 0, 1), health(1, 0, 1), health(1, 0, 0), health(1, 0, 0), health(1, 0, 0), health(0, 0, 1)]);
    expect(t.durationsMs()).toEqual([10, 60]);
    expect(t.pending).toBe(0);
    // Without a starting count, nothing after the stop can be read.
    const bare = new StartTracker(0, 0);
    [{ idle: 0, running: 0 }, { idle: 1, running: 0 }, { idle: 0, running: 0 }].forEach((w, i) => bare.observe({ jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: w }, { fromMs: i * 10, toMs: (i + 1) * 10 }));
    expect(bare.pending).toBe(0);
  });

  it('a /health without an initializing count cannot time starts, and says so', () => {
    const t = new StartTracker(0, 0);
    t.observe({ jobs: { completed: 0, failed: 0, inProgress: 1, inQueue: 0, retried: 0 }, workers: { idle: 0, running: 1 } }, { fromMs: 0, toMs: 10 });
    expect(t.timesStarts).toBe(false);
    expect(track([health(1, 0)]).timesStarts).toBe(true);
  });

  it('workers left over from before (the floor) are not starts', () => {
    const t = new StartTracker(1, 1);
    t.observe(health(1, 0, 1), { fromMs: 0, toMs: 10 });
    t.observe(health(0, 1, 1), { fromMs: 10, toMs: 20 });
    expect(t.durationsMs()).toEqual([10]);
  });

  it('a start seen throttled waits for capacity first: the wait from its sighting to leaving the count, the cold start from there to ready', () => {
    // Two start in (0, 10): one throttled, one initializing; the unthrottled one is ready in (10, 20);
    // the throttled one leaves the count in (30, 40) and is ready in (50, 60).
    const t = track([health(1, 0, 0, 1), health(0, 1, 0, 1), health(0, 1, 0, 1), health(1, 1, 0, 0), health(1, 1, 0, 0), health(0, 2, 0, 0)]);
    expect(t.timesThrottle).toBe(true);
    expect(t.startCount).toBe(2);
    expect(t.throttledCount).toBe(1);
    expect(t.throttleWaitsMs()).toEqual([30]);
    // Cold starts: 5 -> 15 (unthrottled) and 35 -> 55 (after the wait), not 5 -> 55.
    expect(t.durationsMs()).toEqual([10, 20]);
  });

  it('a new throttled start and a wait ending in the same span: the count alone says both', () => {
    const t = new StartTracker(1, 0, 1);
    // One throttled worker up before; in (0, 10) it leaves the count (initializing) while a new one arrives throttled.
    t.observe(health(1, 0, 0, 1), { fromMs: 0, toMs: 10 });
    expect(t.throttledCount).toBe(0);
    expect(t.startCount).toBe(1);
    // The count did not move, so no wait is seen ending: the new start reads as unthrottled.
    expect(t.durationsMs()).toEqual([]);
    t.observe(health(0, 1, 0, 1), { fromMs: 10, toMs: 20 });
    expect(t.durationsMs()).toEqual([10]);
  });

  it('a /health without a throttled count times a throttled start whole, as a cold start', () => {
    const t = track([health(1, 0), health(1, 0), health(0, 1)]);
    expect(t.timesThrottle).toBe(false);
    expect(t.throttledCount).toBe(0);
    expect(t.durationsMs()).toEqual([20]);
  });
});
