// The emulator's §8 sliding-window rate limiter and concurrency cap: never more than the limit
// in any window, Retry-After until the oldest admission leaves it, slots held until release.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EndpointRateLimiter, rulesWithOverrides, SlidingWindowLog } from '../../../src/emulator/queue/rate-limiter.js';
import { RATE_WINDOW_MS } from '../../../src/spec/index.js';

function limiter(now: () => number, limit: number, concurrency: number | null = null, late = false) {
  const rules = rulesWithOverrides({ cancel: { requestsPerWindow: limit, concurrency } });
  return new EndpointRateLimiter({ nowMs: now, scale: () => 1, enabled: () => true, requestsPerWorker: () => 0, rules: () => rules, late, noConcurrencyCap: false });
}

describe('sliding-window rate limiter', () => {
  it('never admits more than the limit in any window, and admits whenever the window has room', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 300 }), (limit, gaps) => {
        let now = 0;
        const l = limiter(() => now, limit);
        const admitted: number[] = [];
        for (const g of gaps) {
          now += g;
          const inWindow = admitted.filter((t) => t > now - RATE_WINDOW_MS).length;
          const a = l.admit('cancel', 0);
          // Exact: refused iff the window (now - 10 s, now] already holds `limit` admissions.
          expect(a.ok).toBe(inWindow < limit);
          if (a.ok) {
            admitted.push(now);
            a.release();
          }
        }
        for (const t of admitted) expect(admitted.filter((u) => u > t - RATE_WINDOW_MS && u <= t).length).toBeLessThanOrEqual(limit);
      }),
    );
  });

  it('Retry-After covers the time until the oldest admission leaves the window', () => {
    let now = 0;
    const l = limiter(() => now, 2);
    l.admit('cancel', 0);
    now = 3000;
    l.admit('cancel', 0);
    const r = l.admit('cancel', 0);
    expect(r).toMatchObject({ ok: false, reason: 'rate', retryAfterSec: 7 });
  });

  it('the concurrency cap counts requests until release', () => {
    const l = limiter(() => 0, 100, 2);
    const a = l.admit('cancel', 0);
    const b = l.admit('cancel', 0);
    expect(l.admit('cancel', 0)).toMatchObject({ ok: false, reason: 'concurrency' });
    if (a.ok) {
      a.release();
      a.release(); // idempotent
    }
    expect(l.admit('cancel', 0).ok).toBe(true);
    expect(l.admit('cancel', 0).ok).toBe(false);
    expect(b.ok).toBe(true);
  });

  it("'rate-limit-late' admits 10% more", () => {
    const l = limiter(() => 0, 100, null, true);
    let n = 0;
    while (l.admit('cancel', 0).ok && n < 1000) n += 1;
    expect(n).toBe(110);
  });

  it('the window log grows and keeps order', () => {
    const log = new SlidingWindowLog();
    for (let i = 0; i < 100; i++) log.push(i);
    log.evict(105, 10);
    expect(log.size).toBe(4);
    expect(log.oldest()).toBe(96);
  });
});
