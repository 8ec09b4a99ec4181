// Live-run thresholds (src/load/thresholds.ts): the metric vocabulary of a step flow, every
// problem reported at once, evaluation on merged data, and abortOnFail with its delay.
import { describe, expect, it } from 'vitest';
import { Aggregator } from '../../../src/load/aggregate.js';
import { ShardRecorder } from '../../../src/load/recorder.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { abortingThreshold, evaluate, knownMetrics, parseThresholds } from '../../../src/load/thresholds.js';
import { isQbenchError } from '../../../src/errors.js';

const scenario = (thresholds: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  parseScenario({ name: 't', executor: 'iterations', iterations: 1, steps: [{ kind: 'run', input: {}, follow: 'poll' }, { kind: 'health' }], thresholds, ...extra });

/** An aggregator fed from one shard: `statuses` answered at 10 ms each, 5 ms late. */
function aggregatorWith(statuses: (number | null)[]): Aggregator {
  const agg = new Aggregator(1);
  const rec = new ShardRecorder(0, 0, agg);
  statuses.forEach((status, i) => {
    const t = 100 + i;
    rec.iterationScheduled(t, t + 5, true);
    rec.request({ metric: 'run', intendedMs: t, sentMs: t + 5, endMs: t + 10, status });
  });
  rec.roll(10_000, true);
  agg.finish();
  return agg;
}

describe('thresholds', () => {
  it('names every metric of the flow, follow-up steps included', () => {
    const m = knownMetrics(scenario({}));
    for (const name of ['run.latency', 'status.latency', 'health.status_429.rate', 'run.errors.rate', 'iterations', 'dropped_iterations', 'send_lateness']) expect(m.has(name)).toBe(true);
    expect(m.has('run.attempts')).toBe(false);
    expect(knownMetrics(scenario({}, { on429: { mode: 'backoff' } })).has('run.attempts')).toBe(true);
  });

  it('reports every problem at once: unknown metric (with the known list), bad expression, aggregate of the wrong kind', () => {
    let err: unknown;
    try {
      parseThresholds(scenario({ 'rn.latency': ['p(99)<1'], 'run.latency': ['p99 < 1', 'rate<0.1'], 'run.status_429.rate': ['p(101)<1'] }));
    } catch (e) {
      err = e;
    }
    expect(isQbenchError(err, 'QB_ERR_SCENARIO')).toBe(true);
    const msg = (err as Error).message;
    expect(msg).toMatch(/unknown metric "rn.latency"; known metrics: .*run\.latency/);
    expect(msg).toMatch(/threshold "p99 < 1": expected <aggregation><operator><number>/);
    expect(msg).toMatch(/threshold "rate<0.1" on run.latency: rate does not apply to a trend metric/);
    expect(msg).toMatch(/threshold "p\(101\)<1": percentile 101 is outside \(0, 100\]/);
  });

  it('evaluates rates, percentiles and counts from merged data; no data fails', () => {
    const agg = aggregatorWith([200, 200, 200, 429]);
    const ts = parseThresholds(scenario({ 'run.status_429.rate': ['rate<0.3', 'rate<0.2'], 'run.latency': ['p(99)<=10.1', 'max<1'], 'run.reqs': ['count==4'], 'health.latency': ['p(50)<1'] }));
    const r = ts.map((t) => evaluate(t, agg, 1000));
    expect(r.map((x) => x.passed)).toEqual([true, false, true, false, true, false]);
    expect(r[0]!.observed).toBe(0.25);
    expect(r[5]!.observed).toBeNull();
  });

  it('abortOnFail fires only after its delay, and only on data', () => {
    const agg = aggregatorWith([429, 429]);
    const ts = parseThresholds(scenario({ 'run.status_429.rate': [{ threshold: 'rate<0.5', abortOnFail: true, delayAbortEvalMs: 2000 }], 'health.errors.rate': [{ threshold: 'rate<0.5', abortOnFail: true }] }));
    expect(abortingThreshold(ts, agg, 1000)).toBeUndefined();
    expect(abortingThreshold(ts, agg, 2500)?.metric).toBe('run.status_429.rate');
  });
});
