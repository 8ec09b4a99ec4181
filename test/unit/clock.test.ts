// The emulator's clock (src/emulator/clock.ts): the timer heap's order, the manual clock that
// tests move by hand, and the scaled clock that runs emulated time faster than real time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, ScaledClock, TimerHeap } from '../../src/emulator/clock.js';

describe('TimerHeap', () => {
  it('pops in (due, insertion) order whatever was pushed and removed', () => {
    fc.assert(
      // A far horizon of 300 ms: pushes land in both of its heaps, before and after pops.
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.boolean())), fc.integer({ min: 0, max: 20 }), (ops, popFirst) => {
        const heap = new TimerHeap(300);
        const early: number[] = [];
        const kept: { due: number; seq: number }[] = [];
        ops.forEach(([due, remove], seq) => {
          const e = heap.push(due, () => {});
          if (remove) heap.remove(e);
          else kept.push({ due, seq });
        });
        kept.sort((a, b) => a.due - b.due || a.seq - b.seq);
        // Pop some, push more (due after them, measured from a moved floor), then drain.
        for (let i = 0; i < popFirst; i += 1) {
          const e = heap.pop();
          if (e) early.push(e.dueAtMs);
        }
        const rest = kept.slice(early.length);
        const floor = early.length > 0 ? (early[early.length - 1] as number) : 0;
        ops.forEach(([due, remove], i) => {
          const e = heap.push(floor + due, () => {});
          if (remove) heap.remove(e);
          else rest.push({ due: floor + due, seq: ops.length + i });
        });
        rest.sort((a, b) => a.due - b.due || a.seq - b.seq);
        expect(early).toEqual(kept.slice(0, early.length).map((k) => k.due));
        const popped: number[] = [];
        for (let e = heap.pop(); e; e = heap.pop()) popped.push(e.dueAtMs);
        expect(popped).toEqual(rest.map((k) => k.due));
      }),
    );
  });
});

describe('ManualClock', () => {
  it('fires timers at their own due time, in order, and not cancelled ones', () => {
    const clock = new ManualClock(1000);
    const seen: [string, number][] = [];
    clock.setTimer(30, () => seen.push(['c', clock.now()]));
    clock.setTimer(10, () => {
      seen.push(['a', clock.now()]);
      clock.setTimer(5, () => seen.push(['b', clock.now()]));
    });
    const gone = clock.setTimer(20, () => seen.push(['x', clock.now()]));
    gone.cancel();
    clock.advance(100);
    expect(seen).toEqual([['a', 1010], ['b', 1015], ['c', 1030]]);
    expect(clock.now()).toBe(1100);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('sleep rejects when aborted and leaves no timer behind', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const p = clock.sleep(1000, ac.signal);
    ac.abort();
    await expect(p).rejects.toThrow();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('ScaledClock', () => {
  it('runs emulated time scale times faster than real time', async () => {
    const clock = new ScaledClock(100);
    const realStart = performance.now();
    const emuStart = clock.now();
    await clock.sleep(2000); // 2 s emulated = 20 ms real at scale 100
    const realElapsed = performance.now() - realStart;
    const emuElapsed = clock.now() - emuStart;
    // The timer never fires early; a loaded 2-core machine may fire it late, so only the
    // lower bound is tight. The ratio is exact up to the microseconds between the two
    // readings at each end (under 5% of a 20 ms interval).
    expect(emuElapsed).toBeGreaterThanOrEqual(2000);
    expect(emuElapsed / realElapsed).toBeGreaterThan(95);
    expect(emuElapsed / realElapsed).toBeLessThan(105);
    clock.dispose();
  });

  /** Hold the event loop for `ms` real ms: the host timer due meanwhile fires late. */
  const block = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it('a timer callback reads now() as its due time, so a chain of steps keeps its drawn durations however late the host runs it', async () => {
    const clock = new ScaledClock(10, 0);
    const seen: number[] = [];
    let firstDue = NaN;
    await new Promise<void>((resolve) => {
      firstDue = clock.setTimer(100, () => {
        seen.push(clock.now());
        block(25); // 250 emulated ms late for every timer due meanwhile
        clock.setTimer(100, () => {
          seen.push(clock.now());
          clock.defer(() => {
            seen.push(clock.now());
            resolve();
          }, undefined);
        });
      }).dueAtMs;
    });
    // Host lateness would make each gap at least 250 ms; event time keeps the 100 ms drawn.
    expect(seen[0]).toBe(firstDue);
    expect((seen[1] as number) - (seen[0] as number)).toBe(100);
    // What the callback deferred runs at its event time.
    expect(seen[2]).toBe(seen[1]);
    clock.dispose();
  });

  it('never answers an earlier time than one it has answered: a late timer after a read stamps at least that read', async () => {
    const clock = new ScaledClock(10, 0);
    const fired = new Promise<number>((resolve) => clock.setTimer(50, () => resolve(clock.now())));
    block(20); // the timer is now 150 emulated ms late
    const read = clock.now();
    expect(read).toBeGreaterThan(50);
    const atFire = await fired;
    expect(atFire).toBeGreaterThanOrEqual(read);
    // Outside a callback the clock is the host's again.
    expect(clock.now()).toBeGreaterThanOrEqual(atFire);
    clock.dispose();
  });

  it('a chain of timers due at once yields to I/O: a host callback runs before 50,000 zero-delay links end', async () => {
    const clock = new ScaledClock(10, 0);
    let links = 0;
    let linksWhenHostRan = -1;
    await new Promise<void>((resolve) => {
      const link = () => {
        links += 1;
        // Queued by the first link: it runs at the host's next check phase.
        if (links === 1) setImmediate(() => (linksWhenHostRan = links));
        if (links < 50_000) clock.setTimer(0, link);
        else resolve();
      };
      clock.setTimer(0, link);
    });
    expect(links).toBe(50_000);
    expect(linksWhenHostRan).toBeGreaterThan(0);
    expect(linksWhenHostRan).toBeLessThan(50_000);
    clock.dispose();
  });

  it('refuses a non-positive scale', () => {
    expect(() => new ScaledClock(0)).toThrow(RangeError);
  });
});
