// The fuzzer's rate budget (src/fuzz/rate-budget.ts): a token bucket per operation that never
// admits more than its share of the §8 rate in any window, on a scaled window too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../../src/spec/index.js';
import { RateBudget, TokenBucket } from '../../../src/fuzz/rate-budget.js';

describe('the fuzzer stays below the §8 rates', () => {
  it('a token bucket never admits more than burst + rate x window in any window', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(RATE_LIMITS)),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 300 }),
        (rule, gapsMs) => {
          let now = 0;
          const budget = new RateBudget({ fraction: 0.5, windowMs: RATE_WINDOW_MS });
          const rate = budget.ratePerSec(rule.operation);
          const bucket = new TokenBucket(rate, budget.bucket(rule.operation).burst, () => now);
          const admitted: number[] = [];
          for (const gap of gapsMs) {
            now += gap;
            if (bucket.tryTake().ok) admitted.push(now);
          }
          for (let i = 0; i < admitted.length; i++) {
            const start = admitted[i]!;
            const inWindow = admitted.filter((t) => t >= start && t < start + RATE_WINDOW_MS).length;
            // Never the documented count: at most the burst plus half the rate over one window.
            expect(inWindow).toBeLessThanOrEqual(Math.max(1, Math.floor(rule.requestsPerWindow * 0.75)) + 1);
            expect(inWindow).toBeLessThanOrEqual(rule.requestsPerWindow);
          }
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });

  it('scales with the target rate window (the emulator can scale its windows)', () => {
    const real = new RateBudget({ fraction: 0.5, windowMs: RATE_WINDOW_MS });
    const fast = new RateBudget({ fraction: 0.5, windowMs: RATE_WINDOW_MS / 60 });
    expect(fast.ratePerSec('run') / real.ratePerSec('run')).toBeCloseTo(60);
    expect(real.ratePerSec('run')).toBeCloseTo((RATE_LIMITS.run.requestsPerWindow * 0.5 * 1000) / RATE_WINDOW_MS);
    // Operations §8 does not list borrow a documented one's rate.
    expect(real.ratePerSec('retry')).toBe(real.ratePerSec('cancel'));
    expect(real.ratePerSec('health')).toBe(real.ratePerSec('status'));
  });

  it('refuses nonsense settings', () => {
    expect(() => new RateBudget({ fraction: 0, windowMs: RATE_WINDOW_MS })).toThrow(RangeError);
    expect(() => new RateBudget({ fraction: 1.5, windowMs: RATE_WINDOW_MS })).toThrow(RangeError);
    expect(() => new TokenBucket(0, 1)).toThrow(RangeError);
  });
});
