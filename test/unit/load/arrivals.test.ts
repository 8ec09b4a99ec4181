// Open-loop arrival schedules (src/load/arrivals.ts): uniform and ramped starts follow the
// rate's integral, Poisson is deterministic per seed, and shards split the global schedule exactly.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expectedCount, inverseCumulative, schedule, type RateSegment } from '../../../src/load/arrivals.js';

const collect = (segments: RateSegment[], arrivals: 'uniform' | 'poisson', shardIndex = 0, shardCount = 1, seed = 7) =>
  [...schedule({ segments, arrivals, seed, shardIndex, shardCount })];

describe('arrival schedules', () => {
  it('uniform constant rate: exactly rate * duration starts, evenly spaced', () => {
    const got = collect([{ durationMs: 2000, fromRatePerSec: 100, toRatePerSec: 100 }], 'uniform');
    expect(got).toHaveLength(200);
    expect(got[1]!.offsetMs - got[0]!.offsetMs).toBeCloseTo(10, 9);
    expect(got.at(-1)!.offsetMs).toBeLessThan(2000);
  });

  it('a linear ramp follows the integral of the rate', () => {
    const seg: RateSegment[] = [{ durationMs: 10_000, fromRatePerSec: 0, toRatePerSec: 100 }];
    const got = collect(seg, 'uniform');
    expect(got.length).toBe(Math.ceil(expectedCount(seg)));
    // Half-way in time only a quarter of the starts are due (area of a triangle).
    expect(got.filter((x) => x.offsetMs < 5000).length).toBeCloseTo(125, -1);
  });

  it('shards take every Nth start of the global schedule: the union is exactly the global schedule', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.constantFrom<'uniform' | 'poisson'>('uniform', 'poisson'), fc.integer({ min: 1, max: 500 }), (n, arrivals, rate) => {
        const seg: RateSegment[] = [{ durationMs: 1000, fromRatePerSec: rate, toRatePerSec: rate / 2 }];
        const global = collect(seg, arrivals);
        const parts = Array.from({ length: n }, (_, i) => collect(seg, arrivals, i, n));
        const merged = parts.flat().sort((a, b) => a.index - b.index);
        expect(merged).toEqual(global);
        // Shares differ by at most one iteration: the rate is split exactly.
        const sizes = parts.map((p) => p.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 40 },
    );
  });

  it('poisson arrivals: mean count near rate * duration, deterministic per seed', () => {
    const seg: RateSegment[] = [{ durationMs: 20_000, fromRatePerSec: 500, toRatePerSec: 500 }];
    const a = collect(seg, 'poisson', 0, 1, 42);
    const b = collect(seg, 'poisson', 0, 1, 42);
    expect(a).toEqual(b);
    // 10,000 expected; a Poisson count has sd 100, so 5 sd is 500.
    expect(Math.abs(a.length - 10_000)).toBeLessThan(500);
  });

  it('inverse cumulative skips zero-rate pauses and ends with the profile', () => {
    const seg: RateSegment[] = [
      { durationMs: 1000, fromRatePerSec: 10, toRatePerSec: 10 },
      { durationMs: 1000, fromRatePerSec: 0, toRatePerSec: 0 },
      { durationMs: 1000, fromRatePerSec: 10, toRatePerSec: 10 },
    ];
    expect(inverseCumulative(seg, 10)).toBeCloseTo(2000, 6);
    expect(inverseCumulative(seg, 20)).toBeUndefined();
  });
});
