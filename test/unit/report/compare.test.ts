// compare: a bootstrap interval on each percentile difference, computed from the histograms,
// flags an injected 30% p99 regression and does not flag two samples of the same distribution.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/exit-codes.js';
import { compareResults, normalQuantile, parseMaxRegression } from '../../../src/report/compare.js';
import { QbenchComparison } from '../../../src/result/compare-model.js';
import { renderComparisonMarkdown } from '../../../src/report/render/markdown.js';
import { sampleResult } from '../result/sample-result.js';

const SAMPLES = 5_000;
const opts = { baselineFile: 'base.json', candidateFile: 'cand.json', iterations: 1_000 };
const metric = (c: QbenchComparison, scenario: string, step: string, m: string) =>
  c.scenarios.find((s) => s.name === scenario)!.steps.find((s) => s.step === step)!.metrics.find((x) => x.metric === m)!;

describe('compare', () => {
  const baseline = sampleResult({ seed: 11, samples: SAMPLES });

  it('flags an injected 30% p99 regression as significant, and leaves p50 alone', () => {
    // samples above the generating distribution's 98th percentile are 30% slower: p99 moves ~30%, p50 does not
    const candidate = sampleResult({ seed: 12, samples: SAMPLES, tailFactor: 1.3 });
    const c = compareResults(baseline, candidate, { ...opts, maxRegressionPct: parseMaxRegression(['p99=10%', 'p50=10%']) });
    const p99 = metric(c, 'steady-run', 'run', 'p99');
    // the compared values are the ones the reports show
    for (const m of ['p50', 'p90', 'p95', 'p99', 'p999'] as const) {
      expect(metric(c, 'steady-run', 'run', m).baseline).toBe(baseline.load!.scenarios[0]!.steps[0]!.latency.percentiles[m]);
      expect(metric(c, 'steady-run', 'run', m).candidate).toBe(candidate.load!.scenarios[0]!.steps[0]!.latency.percentiles[m]);
    }
    expect(p99.changePct).toBeGreaterThan(20);
    expect(p99.ci!.lowPct).toBeGreaterThan(10);
    expect(p99.significant).toBe(true);
    expect(p99.regression).toBe(true);
    expect(metric(c, 'steady-run', 'run', 'p50').regression).toBe(false);
    expect(c.verdict).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED });
    expect(c.verdict.reasons.join('\n')).toMatch(/steady-run\/run p99: .* over the allowed 10%/);
    expect(QbenchComparison.parse(c)).toEqual(c);
    // the markdown summary leads with the verdict and the regressed row
    const md = renderComparisonMarkdown(c);
    expect(md.split('\n')[0]).toBe('## ❌ qbench compare: FAIL (exit 1)');
    expect(md).toMatch(/\| steady-run\/run \| p99 \| .* \| 10% \| ❌ regression \|/);
  });

  it('does not flag two runs of the same configuration (two samples of one distribution)', () => {
    for (const seed of [21, 22, 23]) {
      const again = sampleResult({ seed, samples: SAMPLES });
      const c = compareResults(baseline, again, { ...opts, maxRegressionPct: parseMaxRegression(['p50=10%,p90=10%,p95=10%,p99=10%,p999=10%,error_rate=1%']) });
      expect(c.verdict.status, c.verdict.reasons.join('\n')).toBe('pass');
      expect(c.verdict.exitCode).toBe(EXIT.OK);
      const p99 = metric(c, 'steady-run', 'run', 'p99');
      // the interval is about the sampling noise, so it straddles zero or sits well inside the margin
      expect(p99.ci!.lowPct).toBeLessThan(10);
      expect(p99.ci!.highPct).toBeGreaterThan(-10);
    }
  });

  it('is deterministic for a seed and reports every step with throughput and error rates', () => {
    const candidate = sampleResult({ seed: 5, samples: 1_000 });
    const a = compareResults(baseline, candidate, { ...opts, now: new Date(0) });
    const b = compareResults(baseline, candidate, { ...opts, now: new Date(0) });
    expect(a).toEqual(b);
    const steps = a.scenarios.flatMap((s) => s.steps.map((st) => `${s.name}/${st.step}`));
    expect(steps).toEqual(['steady-run/run', 'steady-run/status', 'gpu-stream/runsync']);
    expect(a.scenarios[0]!.steps[0]!.metrics.map((m) => m.metric)).toEqual(['p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'throughput', 'error_rate', 'rate_429']);
  });

  it('a slower whole distribution (×1.3) is flagged on every percentile', () => {
    const c = compareResults(baseline, sampleResult({ seed: 31, samples: SAMPLES, scale: 1.3 }), opts);
    for (const m of ['p50', 'p99']) expect(metric(c, 'gpu-stream', 'runsync', m).regression).toBe(true);
  });

  it('does not count a regression in an invalid measurement; says INVALID', () => {
    const c = compareResults(baseline, sampleResult({ seed: 12, samples: SAMPLES, scale: 1.5, invalid: true }), opts);
    expect(c.verdict.status).toBe('invalid');
    expect(c.verdict.exitCode).toBe(EXIT.INVALID_MEASUREMENT);
  });

  it('parses --max-regression and names bad values', () => {
    expect(parseMaxRegression(['p99=10%', 'p50=5,error_rate=0.5%'])).toEqual({ p99: 10, p50: 5, error_rate: 0.5 });
    expect(() => parseMaxRegression(['p98=10%', 'p99=ten'])).toThrow(/--max-regression: "p98=10%": unknown metric "p98".*"p99=ten": expected <metric>=<percent>/);
  });

  it('refuses bounds and results with nothing in common', () => {
    expect(() => compareResults(baseline, baseline, { ...opts, iterations: 5 })).toThrow(/--iterations must be an integer from 100/);
    const empty = { ...baseline, load: { scenarios: [] } };
    expect(() => compareResults(baseline, empty, opts)).toThrow(/nothing to compare/);
  });

  it('normal quantiles are right', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
  });
});
