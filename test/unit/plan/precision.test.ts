// The plan carries the twin's precision: the fitted parts' 95% intervals read from a calibration
// report, the twin at the slow and the fast end of them, and the chosen setting re-simulated at
// both ends on the same seeds, with a warning where the choice would change inside the intervals.
import { describe, expect, it } from 'vitest';
import { quantileMs, sampleMs, seededRng, type Distribution } from '../../../src/deployment/index.js';
import { fitSamples, precisionOf } from '../../../src/calibrate/fit.js';
import { partIntervals, scaleDistribution, twinAtEnd } from '../../../src/plan/precision.js';
import { runPlan } from '../../../src/plan/run-plan.js';
import { parseSlo, type Slo } from '../../../src/plan/slo.js';
import { endpointDeployment } from '../../../src/emulator/config.js';
import { PlanSection } from '../../../src/result/model.js';
import { planConsoleLines } from '../../../src/report/render/plan.js';
import { parseTwin, trafficFromFlags } from '../../../src/sim/index.js';

const execution = { kind: 'lognormal', medianMs: 1_000, sigma: 0.3 } as const;
const coldStart = { kind: 'mixture', p: 0.6, first: { kind: 'constant', ms: 1_500 }, second: { kind: 'lognormal', medianMs: 20_000, sigma: 0.2 } } as const;
const twin = parseTwin({ endpoints: ['t'], deployments: { t: { gpuTypeId: 'L4', workersMax: 3, idleTimeoutS: 30, timing: { execution, coldStart } } } });
const report = {
  kind: 'qbench-calibration',
  fits: [
    { part: 'execution', dist: execution, precision: { medianLowMs: 900, medianHighMs: 1_150 } },
    // A mixture's interval is of its larger part's median (here the fast part's, 1.5 s), as fit.ts gives it.
    { part: 'coldStart', dist: coldStart, precision: { medianLowMs: 1_500 * 0.8, medianHighMs: 1_500 * 1.3, share: { p: 0.6, low: 0.45, high: 0.74 } } },
    // Not a part the planner simulates: left out.
    { part: 'chunkGap', dist: { kind: 'constant', ms: 40 }, precision: { medianLowMs: 38, medianHighMs: 42 } },
  ],
};

describe('the twin at the ends of its intervals', () => {
  it('reads each simulated part\'s interval as factors of its fitted median', () => {
    const iv = partIntervals(report, 'calibration.json');
    expect(iv.map((x) => x.part)).toEqual(['execution', 'coldStart']);
    expect(iv[0]).toMatchObject({ lowFactor: 0.9, highFactor: 1.15 });
    expect(iv[1]?.lowFactor).toBeCloseTo(0.8, 9);
    expect(iv[1]?.share).toEqual({ p: 0.6, low: 0.45, high: 0.74 });
    expect(() => partIntervals({ kind: 'qbench-result' }, 'x.json')).toThrow(/x\.json: not a calibration report/);
  });

  it('a mixture\'s factors are of the part its interval is of (fit.ts precisionOf), whatever the share: each end a few percent from that part\'s median', () => {
    for (const p of [0.3, 0.5, 0.7]) {
      const dist: Distribution = { kind: 'mixture', p, first: { kind: 'lognormal', medianMs: 1_500, sigma: 0.15 }, second: { kind: 'lognormal', medianMs: 25_000, sigma: 0.1 } };
      const rng = seededRng(Math.round(p * 10));
      const samples = Array.from({ length: 120 }, () => sampleMs(dist, rng));
      const fit = fitSamples(samples, { mixture: true });
      const precision = precisionOf(fit.dist, samples);
      const [iv] = partIntervals({ kind: 'qbench-calibration', fits: [{ part: 'coldStart', dist: fit.dist, precision }] }, 'calibration.json');
      // Each end within the part's own interval: a few percent from 1, not the ratio of a part's median to the mixture's.
      expect(iv?.lowFactor, `p ${p}`).toBeGreaterThan(0.85);
      expect(iv?.lowFactor, `p ${p}`).toBeLessThan(1);
      expect(iv?.highFactor, `p ${p}`).toBeGreaterThan(1);
      expect(iv?.highFactor, `p ${p}`).toBeLessThan(1.15);
    }
  });

  it('the wait for capacity at its interval\'s ends and the chance of waiting at the matching end of its own: high at the slow end, low at the fast', () => {
    const throttle = { probability: 0.1, duration: { kind: 'lognormal', medianMs: 8_000, sigma: 0.3 } } as const;
    const t = parseTwin({ endpoints: ['t'], deployments: { t: { gpuTypeId: 'L4', workersMax: 3, timing: { execution, throttle } } } });
    const cal = { kind: 'qbench-calibration', fits: [{ part: 'throttle', dist: throttle.duration, precision: { medianLowMs: 6_000, medianHighMs: 10_000 } }], throttle: { probability: 0.1, low: 0.05, high: 0.18 } };
    const iv = partIntervals(cal, 'calibration.json');
    expect(iv).toEqual([{ part: 'throttle', classId: undefined, lowFactor: 0.75, highFactor: 1.25, share: { p: 0.1, low: 0.05, high: 0.18 } }]);
    const at = (end: 'slow' | 'fast') => endpointDeployment(twinAtEnd(t, 't', iv, end), 't')?.timing?.throttle;
    expect(at('slow')).toEqual({ probability: 0.18, duration: { kind: 'lognormal', medianMs: 10_000, sigma: 0.3 } });
    expect(at('fast')).toEqual({ probability: 0.05, duration: { kind: 'lognormal', medianMs: 6_000, sigma: 0.3 } });
  });

  it('scales every duration of a distribution, a mixture\'s share replaced', () => {
    expect(scaleDistribution(execution, 2)).toEqual({ kind: 'lognormal', medianMs: 2_000, sigma: 0.3 });
    expect(scaleDistribution(coldStart, 0.5, 0.4)).toEqual({ kind: 'mixture', p: 0.4, first: { kind: 'constant', ms: 750 }, second: { kind: 'lognormal', medianMs: 10_000, sigma: 0.2 } });
  });

  it('the slow end takes each median high and a mixture\'s fast share low; the fast end the opposite', () => {
    const iv = partIntervals(report, 'calibration.json');
    const slow = endpointDeployment(twinAtEnd(twin, 't', iv, 'slow'), 't').timing;
    const fast = endpointDeployment(twinAtEnd(twin, 't', iv, 'fast'), 't').timing;
    expect(quantileMs(slow.execution as typeof execution, 0.5)).toBeCloseTo(1_150, 6);
    expect(quantileMs(fast.execution as typeof execution, 0.5)).toBeCloseTo(900, 6);
    expect(slow.coldStart).toMatchObject({ p: 0.45 });
    expect(fast.coldStart).toMatchObject({ p: 0.74 });
  });
});

describe('a plan with the calibration\'s precision', () => {
  const traffic = trafficFromFlags({ ratePerSec: 1.5, durationMs: 3_600_000 });
  const axes = { workersMin: [0], workersMax: [1, 2, 3, 4], idleTimeoutS: [30], scalerType: ['QUEUE_DELAY' as const], scalerValue: [1] };
  const plan = (slo: Slo) => runPlan({ twinFile: 'emulator.json', twin, traffic, slos: [slo], axes, seeds: 2, threads: 1, precision: { file: 'calibration.json', intervals: partIntervals(report, 'calibration.json') } });

  it('gives the chosen setting\'s figure as an interval, fast end below slow end, the same seeds', async () => {
    const p = await plan(parseSlo('p99(e2e)<60s') as Slo);
    expect(p.chosen).not.toBeNull();
    const figure = p.points[p.chosen!]!.sloFigures[0]!;
    const ends = p.precision?.chosen;
    expect(ends).toBeDefined();
    expect(ends!.fast[0]!).toBeLessThanOrEqual(figure);
    expect(ends!.slow[0]!).toBeGreaterThanOrEqual(figure);
    expect(ends!.slow[0]!).toBeGreaterThan(ends!.fast[0]!);
    expect(p.precision?.source).toBe('calibration.json');
  }, 60_000);

  it('warns when the chosen setting misses at the slow end, with the advice that settles it', async () => {
    // One setting, and an SLO 1% above its own figure: at the slow end (execution 15% slower,
    // cold starts 30% slower and more often full) it misses.
    const one = { ...axes, workersMax: [3] };
    const own = await runPlan({ twinFile: 'emulator.json', twin, traffic, slos: [parseSlo('p99(e2e)<60s') as Slo], axes: one, seeds: 2, threads: 1 });
    expect(own.precision).toBeUndefined();
    const figure = own.points[0]!.sloFigures[0]!;
    const tight = await runPlan({ twinFile: 'emulator.json', twin, traffic, slos: [parseSlo(`p99(e2e)<${Math.ceil(figure * 1.01)}ms`) as Slo], axes: one, seeds: 2, threads: 1, precision: { file: 'calibration.json', intervals: partIntervals(report, 'calibration.json') } });
    expect(tight.chosen).toBe(0);
    expect(tight.precision?.chosen?.meetsAtSlow).toBe(false);
    expect(tight.precision?.warnings).toEqual([expect.stringMatching(/^at the slow end of the calibration's 95% intervals the chosen setting misses p99\(e2e\)</), expect.stringMatching(/calibrate with more jobs/)]);
    // The section validates, and the report gives the figure with its interval and the warnings.
    expect(PlanSection.safeParse(tight).error).toBeUndefined();
    const text = planConsoleLines(tight, (x) => x).join('\n');
    expect(text).toMatch(/p99\(e2e\)<\d+ms\s+[\d.,]+ (ms|s) \([\d.,]+ (ms|s) \.\. [\d.,]+ (ms|s)\)/);
    expect(text).toMatch(/figures in brackets: the fast \.\. slow end of the 95% intervals of calibration\.json \(execution x0\.90\.\.x1\.15, coldStart x0\.80\.\.x1\.30\)/);
    expect(text).toMatch(/warning: at the slow end/);
  }, 60_000);
});
