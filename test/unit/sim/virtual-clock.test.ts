// The discrete-event clock: time jumps to the next due timer, timers run in (due, insertion)
// order, what an event defers runs before the next event (as a microtask would on the real-time
// clocks), and no host timer is ever armed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../../../src/emulator/clock.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('VirtualClock', () => {
  it('runs timers in due order at their own due times, same-time ones in the order they were set, cancelled ones never', () => {
    const clock = new VirtualClock(1_000);
    const seen: [string, number][] = [];
    clock.setTimer(30, () => seen.push(['c', clock.now()]));
    clock.setTimer(10, () => {
      seen.push(['a', clock.now()]);
      clock.setTimer(5, () => seen.push(['b', clock.now()]));
      clock.setTimer(20, () => seen.push(['c2', clock.now()]));
    });
    clock.setTimer(30, () => seen.push(['d', clock.now()]));
    clock.setTimer(20, () => seen.push(['x', clock.now()])).cancel();
    clock.run();
    expect(seen).toEqual([
      ['a', 1_010],
      ['b', 1_015],
      ['c', 1_030],
      ['d', 1_030],
      ['c2', 1_030],
    ]);
    expect(clock.now()).toBe(1_030);
    expect(clock.events).toBe(5);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs what an event deferred before the next event, even one due at the same time', () => {
    const clock = new VirtualClock(0);
    const seen: string[] = [];
    clock.setTimer(10, () => {
      seen.push('first');
      clock.defer((tag: string) => {
        seen.push(tag);
        clock.defer((t: string) => seen.push(t), 'deferred by the deferred');
      }, 'deferred');
    });
    clock.setTimer(10, () => seen.push('second'));
    clock.run();
    expect(seen).toEqual(['first', 'deferred', 'deferred by the deferred', 'second']);
  });

  it('stops at untilMs or when stop() answers true, and resumes from there', () => {
    const clock = new VirtualClock(0);
    let fired = 0;
    for (let i = 1; i <= 10; i += 1) clock.setTimer(i * 100, () => (fired += 1));
    clock.run(450);
    expect([fired, clock.now()]).toEqual([4, 400]);
    clock.run(Infinity, () => fired >= 7);
    expect([fired, clock.now()]).toEqual([7, 700]);
    expect(clock.nextDueMs()).toBe(800);
    clock.run();
    expect(fired).toBe(10);
    expect(clock.nextDueMs()).toBe(Infinity);
  });

  it('never arms a host timer, and reports a throwing timer without stopping the others', () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const clock = new VirtualClock(0);
    const errors: unknown[] = [];
    clock.onError = (e) => errors.push(e);
    let after = false;
    clock.setTimer(1_000_000, () => {
      throw new Error('boom');
    });
    clock.setTimer(2_000_000, () => (after = true));
    clock.run();
    expect(after).toBe(true);
    expect(errors).toHaveLength(1);
    expect(setTimeoutSpy).not.toHaveBeenCalled();
  });

  it('holds timers far apart and near together in one order (the near and far heaps)', () => {
    const clock = new VirtualClock(0);
    const seen: number[] = [];
    const dues = [3_600_000, 5, 120_000, 61_000, 59_000, 1_800_000, 10];
    for (const d of dues) clock.setTimer(d, () => seen.push(clock.now()));
    // After the first pops the floor moves: a timer set now 30 min ahead goes far, one 1 s ahead near.
    clock.run(10);
    clock.setTimer(1_800_000, () => seen.push(clock.now()));
    clock.setTimer(1_000, () => seen.push(clock.now()));
    clock.run();
    expect(seen).toEqual([5, 10, 1_010, 59_000, 61_000, 120_000, 1_800_000, 1_800_010, 3_600_000]);
  });
});
