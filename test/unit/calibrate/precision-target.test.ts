// --precision: the samples a fitted part needs for a median within ±P or a share within ±2P
// points, checked against the intervals the report computes (fit.ts) on fresh draws; and a
// calibration that spends what --max-jobs leaves on them, never past it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fitSamples, precisionOf, wilson95 } from '../../../src/calibrate/fit.js';
import type { PartFit } from '../../../src/calibrate/part-fit.js';
import { drawsForShare, precisionNeed, samplesForRelative, shareHalfWidth, splitBudget } from '../../../src/calibrate/precision-target.js';
import { sampleMs, seededRng } from '../../../src/deployment/index.js';
import { calibrateTruth, PRECISE_PLAN_INPUT, PROOF_PLAN_INPUT, truthOf } from './twin-proof.js';

function part(name: PartFit['part'], samplesMs: number[], mixture = false): PartFit {
  const fit = fitSamples(samplesMs, { mixture });
  return { part: name, samplesMs, fit, precision: precisionOf(fit.dist, samplesMs), derivation: 'test' };
}

describe('samples for a stated precision', () => {
  it('a median within ±P needs (ln 1.05 / ln(1 + P))^2 times the samples for ±5%: the same at 5%, about 4x at 2.5%', () => {
    expect(samplesForRelative(100, 0.05)).toBe(100);
    expect(samplesForRelative(100, 0.025)).toBeGreaterThanOrEqual(390);
    expect(samplesForRelative(100, 0.025)).toBeLessThanOrEqual(400);
    expect(samplesForRelative(100, 0.1)).toBeLessThan(30);
  });

  it('drawsForShare is the fewest draws whose Wilson interval is within the points, for any share', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 0.99, noNaN: true }), fc.double({ min: 0.02, max: 0.2, noNaN: true }), (p, h) => {
        const n = drawsForShare(p, h);
        expect(shareHalfWidth(p, n)).toBeLessThanOrEqual(h);
        if (n > 1) expect(shareHalfWidth(p, n - 1)).toBeGreaterThan(h);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('the warm jobs it asks for bring a log-normal median within ±P (checked on fresh draws; sigma from 40 samples, so within 1.3 P)', () => {
    for (const [seed, sigma] of [[1, 0.1], [2, 0.3], [3, 0.5]] as const) {
      const rng = seededRng(seed);
      const draw = (n: number) => Array.from({ length: n }, () => sampleMs({ kind: 'lognormal', medianMs: 800, sigma }, rng));
      const first = draw(40);
      const need = precisionNeed([part('dispatch', first)], undefined, 0.03);
      // ±3% takes about (1.96 sigma / ln 1.03)^2 samples: 44 at sigma 0.1 (fewer than 40 more), 395 at 0.3.
      if (sigma === 0.1) expect(need.warmJobsPerClass).toBeLessThan(40);
      else expect(need.warmJobsPerClass, `sigma ${sigma}`).toBeGreaterThan(200);
      if (need.warmJobsPerClass === 0) continue;
      expect(need.short.join('; ')).toMatch(/^dispatch median ±\d+\.\d% from 40 samples: \d+ more$/);
      const all = [...first, ...draw(need.warmJobsPerClass)];
      const after = part('dispatch', all);
      expect(after.precision.medianRelative, `sigma ${sigma}: ${all.length} samples`).toBeLessThanOrEqual(0.03 * 1.3);
    }
  });

  it('a cold-start mixture asks for starts until its fast share is within ±2P points; throttling likewise, none seen throttled included; a constant part asks for none', () => {
    const rng = seededRng(5);
    const starts = Array.from({ length: 30 }, () => sampleMs({ kind: 'mixture', p: 0.3, first: { kind: 'lognormal', medianMs: 1_500, sigma: 0.15 }, second: { kind: 'lognormal', medianMs: 25_000, sigma: 0.1 } }, rng));
    const mix = part('coldStart', starts, true);
    expect(mix.fit.dist.kind).toBe('mixture');
    const share = mix.fit.dist.kind === 'mixture' ? mix.fit.dist.p : NaN;
    const need = precisionNeed([mix], undefined, 0.03);
    expect(need.coldStarts).toBe(drawsForShare(share, 0.06) - 30);
    expect(need.warmJobsPerClass).toBe(0);
    const throttle = { starts: 40, throttled: 4, probability: 0.1, ...wilson95(0.1, 40), detail: '' };
    expect(precisionNeed([], throttle, 0.03).coldStarts).toBe(drawsForShare(0.1, 0.06) - 40);
    // None throttled of 12: the chance is below 24% only; starts until it is below 6%.
    expect(precisionNeed([], { ...throttle, starts: 12, throttled: 0, probability: 0, ...wilson95(0, 12) }, 0.03).coldStarts).toBe(drawsForShare(0, 0.06) - 12);
    expect(drawsForShare(0, 0.06)).toBeGreaterThan(50);
    expect(precisionNeed([part('coldStart', [500, 500, 500])], undefined, 0.03).coldStarts).toBe(0);
  });

  it('the budget left is split between warm and cold in proportion to their need, all of both when it holds them', () => {
    expect(splitBudget(100, 30, 50)).toEqual({ warm: 30, cold: 50 });
    expect(splitBudget(100, 100, 300)).toEqual({ warm: 25, cold: 75 });
    expect(splitBudget(0, 10, 10)).toEqual({ warm: 0, cold: 0 });
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 500 }), fc.nat(400), fc.nat(400), (left, w, c) => {
        const s = splitBudget(left, w, c);
        expect(s.warm + s.cold).toBeLessThanOrEqual(Math.max(0, left));
        expect(s.warm).toBeLessThanOrEqual(w);
        expect(s.cold).toBeLessThanOrEqual(c);
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});

describe('a calibration with --precision', () => {
  it('spends what --max-jobs leaves on the parts short of it, never past the budget, and says what it reached', { timeout: 60_000 }, async () => {
    // Seed 12: a dispatch of sigma 0.27 and a cold-start mixture, both short of ±3% on the plan's 129 jobs.
    const truth = truthOf('12');
    const plain = await calibrateTruth(truth, PROOF_PLAN_INPUT);
    const precise = await calibrateTruth(truth, PRECISE_PLAN_INPUT);
    expect(precise.submitted).toBe(precise.report.budget.jobsSent);
    expect(precise.report.budget.jobsSent).toBeLessThanOrEqual(PRECISE_PLAN_INPUT.maxJobs);
    expect(precise.report.budget.jobsSent).toBeGreaterThan(plain.report.budget.jobsSent);
    const note = precise.report.notes.find((n) => n.startsWith('precision ±3% (--precision)'));
    // The note tells the truth: short parts named when any fit is still short, none otherwise.
    expect(note, precise.report.notes.join('\n')).toMatch(/\d+ warm and \d+ cold job\(s\) beyond the plan were sent/);
    const medianShort = precise.report.fits.filter((f) => ['dispatch', 'execution', 'overhead'].includes(f.part) && f.precision.medianRelative > 0.03).map((f) => f.part);
    if (note?.includes('every part it targets reached it') === true) expect(medianShort).toEqual([]);
    else for (const part of medianShort) expect(note).toContain(`${part} median`);
    // The phases it added are labelled so in the report's phase table.
    expect(precise.report.phases.filter((ph) => ph.reason?.startsWith('--precision 3%, round 1') === true).length).toBeGreaterThan(0);
    expect(plain.report.phases.some((ph) => ph.reason?.startsWith('--precision') === true)).toBe(false);
    const rel = (c: typeof plain, p: string) => c.report.fits.find((f) => f.part === p)?.precision.medianRelative ?? NaN;
    expect(rel(precise, 'dispatch')).toBeLessThan(rel(plain, 'dispatch'));
    expect(rel(precise, 'dispatch')).toBeLessThanOrEqual(0.03 * 1.3);
  });
});
