// The one abortable real-time wait and its two readings of an abort: the client's realSleep
// rejects with the signal's reason, the load engine's and worker's wait just ends early.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realSleep, sleepUntilAborted, waitRealMs } from '../../../src/client/sleep.js';
import { realSleep as realSleepFromBackoff } from '../../../src/client/backoff.js';
import { sleep as loadSleep } from '../../../src/load/iteration.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('waitRealMs', () => {
  it('resolves true once the time has passed, not before', async () => {
    let done: boolean | undefined;
    void waitRealMs(100).then((v) => (done = v));
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it('resolves false at once on abort and clears its timer', async () => {
    const ac = new AbortController();
    const p = waitRealMs(10_000, ac.signal);
    expect(vi.getTimerCount()).toBe(1);
    ac.abort();
    expect(await p).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('removes its abort listener when the time passes', async () => {
    const signal = new AbortController().signal;
    const removed = vi.spyOn(signal, 'removeEventListener');
    const p = waitRealMs(50, signal);
    await vi.advanceTimersByTimeAsync(50);
    expect(await p).toBe(true);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('an already aborted signal starts no timer', async () => {
    expect(await waitRealMs(10_000, AbortSignal.abort())).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the two readings of an abort', () => {
  it('realSleep (also exported by backoff) rejects with the reason', async () => {
    expect(realSleepFromBackoff).toBe(realSleep);
    const ac = new AbortController();
    const p = realSleep(10_000, ac.signal);
    const reason = new Error('stop now');
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    await expect(realSleep(5, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('sleepUntilAborted (the load engine\'s sleep) resolves early on abort and at once for ms <= 0', async () => {
    expect(loadSleep).toBe(sleepUntilAborted);
    const ac = new AbortController();
    let done = false;
    void sleepUntilAborted(10_000, ac.signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    ac.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    await sleepUntilAborted(0, new AbortController().signal);
    await sleepUntilAborted(-5, new AbortController().signal);
    expect(vi.getTimerCount()).toBe(0);
  });
});
