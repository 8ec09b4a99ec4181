// k6-style threshold parsing and evaluation on a saved scenario result, in the load engine's
// metric vocabulary (<step>.latency, <step>.errors.rate, http_reqs...).
import { describe, expect, it } from 'vitest';
import { isQbenchError } from '../../../src/errors.js';
import { evaluateThreshold, parseThresholdExpression, validateThreshold } from '../../../src/result/thresholds.js';
import { sampleResult } from './sample-result.js';

const scenario = () => sampleResult({ samples: 2000 }).load!.scenarios[0]!;

describe('thresholds', () => {
  it('parses the k6 aggregations and operators', () => {
    expect(parseThresholdExpression('p(99.9) <= 2000')).toMatchObject({ aggregation: { kind: 'percentile', percentile: 99.9 }, operator: '<=', value: 2000 });
    expect(parseThresholdExpression('rate<0.01')).toMatchObject({ aggregation: { kind: 'rate' }, operator: '<', value: 0.01 });
    expect(parseThresholdExpression('avg>=1e3')).toMatchObject({ aggregation: { kind: 'avg' }, value: 1000 });
  });

  it('rejects malformed expressions, unknown metrics and mismatched aggregations, naming them', () => {
    for (const [metric, expr, re] of [
      ['run.latency', 'p99<2000', /expected <aggregation><operator><number>/],
      ['run.latency', 'p(101)<2000', /outside \(0, 100\]/],
      ['run.latncy', 'p(99)<2000', /unknown metric/],
      ['run.errors.rate', 'p(99)<1', /does not apply to a rate metric/],
      ['http_reqs', 'avg<1', /does not apply to a counter metric/],
    ] as const) {
      try {
        validateThreshold(metric, expr);
        expect.unreachable(`${metric} ${expr} should be refused`);
      } catch (e) {
        expect(isQbenchError(e, 'QB_ERR_SCENARIO')).toBe(true);
        expect((e as Error).message).toMatch(re);
      }
    }
  });

  it('evaluates latency percentiles from the step histogram', () => {
    const s = scenario();
    const runP99 = s.steps.find((x) => x.step === 'run')!.latency.percentiles.p99;
    const r = evaluateThreshold(s, { metric: 'run.latency', expression: `p(99)<${runP99 + 1}` });
    expect(r.passed).toBe(true);
    expect(r.observed).toBeCloseTo(runP99, 2);
    expect(evaluateThreshold(s, { metric: 'run.latency', expression: `p(99)<${runP99 - 1}` }).passed).toBe(false);
    expect(evaluateThreshold(s, { metric: 'status.service_time', expression: 'count==2000' })).toMatchObject({ observed: 2000, passed: true });
    // A bare name is a custom step's trend (as in a live run), which a saved result does not keep: no data fails.
    expect(evaluateThreshold(s, { metric: 'run', expression: `p(99)<${runP99 + 1}` })).toMatchObject({ observed: null, passed: false });
  });

  it('evaluates rates and counters from the outcome counts', () => {
    const s = scenario();
    const run = s.steps.find((x) => x.step === 'run')!;
    const total = run.counts['2xx'] + run.counts['429'] + run.counts['5xx'];
    const r = evaluateThreshold(s, { metric: 'run.status_429.rate', expression: 'rate<0.5' });
    expect(r.observed).toBeCloseTo(run.counts['429'] / total, 6);
    expect(evaluateThreshold(s, { metric: 'run.errors.rate', expression: 'rate<0.5' }).observed).toBeCloseTo((total - run.counts['2xx']) / total, 6);
    const all = s.steps.reduce((a, x) => a + x.counts['2xx'] + x.counts['429'] + x.counts['5xx'], 0);
    expect(evaluateThreshold(s, { metric: 'http_reqs', expression: 'rate>0' }).observed).toBeCloseTo(all / (s.durationMs / 1000), 6);
    expect(evaluateThreshold(s, { metric: 'run.reqs', expression: `count==${total}` }).passed).toBe(true);
  });

  it('fails a threshold whose metric has no data instead of passing it silently', () => {
    const r = evaluateThreshold(scenario(), { metric: 'nope.latency', expression: 'p(99)<1', abortOnFail: true });
    expect(r).toEqual({ metric: 'nope.latency', expression: 'p(99)<1', observed: null, passed: false, abortOnFail: true });
  });
});
