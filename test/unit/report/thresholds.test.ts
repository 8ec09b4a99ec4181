// k6-style threshold parsing and evaluation on a scenario result.
import { describe, expect, it } from 'vitest';
import { isQbenchError } from '../../../src/errors.js';
import { evaluateThreshold, parseThresholdExpression, validateThreshold } from '../../../src/report/thresholds.js';
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
      ['latency', 'p99<2000', /expected <aggregation><operator><number>/],
      ['latency', 'p(101)<2000', /outside 0\.\.100/],
      ['latncy', 'p(99)<2000', /unknown metric "latncy"/],
      ['http_req_failed', 'p(99)<1', /does not apply to a rate metric/],
      ['send_lateness{step:run}', 'p(99)<1', /per scenario, not per step/],
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

  it('evaluates latency percentiles from the merged step histograms', () => {
    const s = scenario();
    const runP99 = s.steps.find((x) => x.step === 'run')!.latency.percentiles.p99;
    const r = evaluateThreshold(s, { metric: 'latency{step:run}', expression: `p(99)<${runP99 + 1}` });
    expect(r.passed).toBe(true);
    expect(r.observed).toBeCloseTo(runP99, 2);
    expect(evaluateThreshold(s, { metric: 'latency{step:run}', expression: `p(99)<${runP99 - 1}` }).passed).toBe(false);
    const all = evaluateThreshold(s, { metric: 'latency', expression: 'count==4000' });
    expect(all).toMatchObject({ observed: 4000, passed: true });
  });

  it('evaluates rates and counters from the outcome counts', () => {
    const s = scenario();
    const total = s.steps.reduce((a, x) => a + x.counts['2xx'] + x.counts['429'] + x.counts['5xx'], 0);
    const n429 = s.steps.reduce((a, x) => a + x.counts['429'], 0);
    const r = evaluateThreshold(s, { metric: 'rate_limited', expression: 'rate<0.5' });
    expect(r.observed).toBeCloseTo(n429 / total, 6);
    expect(evaluateThreshold(s, { metric: 'http_reqs', expression: 'rate>0' }).observed).toBeCloseTo(total / (s.durationMs / 1000), 6);
  });

  it('fails a threshold whose metric has no data instead of passing it silently', () => {
    const r = evaluateThreshold(scenario(), { metric: 'latency{step:nope}', expression: 'p(99)<1', abortOnFail: true });
    expect(r).toEqual({ metric: 'latency{step:nope}', expression: 'p(99)<1', observed: null, passed: false, abortOnFail: true });
  });
});
