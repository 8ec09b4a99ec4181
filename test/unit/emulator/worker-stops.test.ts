// The book of stops owed to external workers (src/emulator/queue/worker-stops.ts): first delivery at
// once, re-delivery only after the interval, per worker; held calls wake on a new stop, time
// out on the clock, and are released for good by close.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { WorkerStops } from '../../../src/emulator/queue/worker-stops.js';

const REDELIVER_MS = 250;

describe('WorkerStops', () => {
  it('answers a new stop at once, then again only every re-delivery interval, for its own worker only', () => {
    const stops = new WorkerStops(new ManualClock(0));
    stops.add('j1', 'w1', 0);
    stops.add('j2', 'w2', 0);
    expect(stops.takeDue('w1', 10, REDELIVER_MS)).toEqual({ jobIds: ['j1'], nextDueAtMs: 10 + REDELIVER_MS });
    expect(stops.takeDue('w1', 10 + REDELIVER_MS - 1, REDELIVER_MS)).toEqual({ jobIds: [], nextDueAtMs: 10 + REDELIVER_MS });
    stops.add('j3', 'w1', 100);
    expect(stops.takeDue('w1', 200, REDELIVER_MS)).toEqual({ jobIds: ['j3'], nextDueAtMs: 10 + REDELIVER_MS });
    expect(stops.takeDue('w1', 10 + REDELIVER_MS, REDELIVER_MS).jobIds).toEqual(['j1']);
    expect(stops.ofWorker('w2').map((s) => s.jobId)).toEqual(['j2']);
    stops.dropWorker('w1');
    expect(stops.takeDue('w1', 1_000, REDELIVER_MS)).toEqual({ jobIds: [], nextDueAtMs: Infinity });
    expect(stops.remove('j2')?.workerId).toBe('w2');
    expect(stops.size).toBe(0);
  });

  it("a held call wakes when a stop is added for its worker, not another's; it ends on the clock; close releases all", async () => {
    const clock = new ManualClock(0);
    const stops = new WorkerStops(clock);
    const never = new AbortController().signal;
    let woke = false;
    const held = stops.wait('w1', 1_000, never).then(() => (woke = true));
    stops.add('j9', 'w2', 0);
    await Promise.resolve();
    expect(woke).toBe(false);
    stops.add('j1', 'w1', 0);
    await held;
    expect(stops.held).toBe(0);

    const timed = stops.wait('w1', 1_000, never);
    expect(stops.held).toBe(1);
    clock.advance(1_000);
    await timed;
    expect(stops.held).toBe(0);

    const ac = new AbortController();
    const aborted = stops.wait('w1', 1_000, ac.signal);
    ac.abort();
    await aborted;
    const closing = stops.wait('w3', 1_000, never);
    stops.close();
    await closing;
    expect(stops.held).toBe(0);
    expect(stops.isClosed).toBe(true);
    expect(stops.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});
