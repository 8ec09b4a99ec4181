// One threshold module for live runs and saved results: every threshold of a run, evaluated
// live by the engine and again on the saved result (after a JSON round trip), gives the same
// observed value and the same verdict, for trend, rate and counter metrics alike.
import { afterEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/load/engine.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { evaluateThresholds, scenarioMetric } from '../../../src/result/thresholds.js';
import type { LoadScenarioResult } from '../../../src/result/model.js';
import { RELAXED_VALIDITY, startTinyServer, tinyTarget, type TinyServer } from './tiny-server.js';

let server: TinyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('thresholds: live and saved verdicts agree', () => {
  it('every metric the saved result holds gives the live observed value and verdict', async () => {
    server = await startTinyServer({ pollsToComplete: 1, acceptPerOp: 60 });
    const s = parseScenario({
      name: 'live-saved',
      executor: 'constant-arrival-rate',
      ratePerSec: 100,
      durationMs: 1000,
      steps: [{ kind: 'run', input: { x: 1 }, follow: 'poll', pollIntervalMs: 5 }],
      thresholds: {
        'run.latency': ['p(99)<1e4', 'p(50)<0.001', 'avg<=1e3', 'max>0', 'med<1e4', 'min>=0', 'count>=100'],
        'status.service_time': ['p(90)<5000', 'count>1'],
        'run.status_429.rate': ['rate<0.3', 'rate>0.3'],
        'run.status_2xx.rate': ['rate>=0.6'],
        'run.errors.rate': ['rate<0.5'],
        'run.network_error.rate': ['rate==0'],
        'run.reqs': ['count==100', 'count!=100'],
        http_reqs: ['count>100'],
        dropped_iterations: ['count==0'],
        send_lateness: ['p(99)<5000'],
      },
      validity: RELAXED_VALIDITY,
    });
    const live = await runScenario(s, { target: tinyTarget(server.url) });
    const saved = JSON.parse(JSON.stringify(live)) as LoadScenarioResult;
    const specs = live.thresholds.map((t) => ({ metric: t.metric, expression: t.expression, abortOnFail: t.abortOnFail }));
    const again = evaluateThresholds(saved, specs);
    expect(live.thresholds.length).toBe(19);
    for (const [i, t] of live.thresholds.entries()) {
      expect(scenarioMetric(saved, t.metric), t.metric).toBeDefined();
      expect({ metric: t.metric, expression: t.expression, observed: again[i]!.observed, passed: again[i]!.passed }).toEqual({
        metric: t.metric, expression: t.expression, observed: t.observed, passed: t.passed,
      });
    }
    // Both verdicts occur, so agreement is not agreement on "all pass".
    expect(new Set(live.thresholds.map((t) => t.passed))).toEqual(new Set([true, false]));
  });
});
