// The results the JUnit tests render: one with every kind of test case and hostile content
// (control characters, markup, a key in a response body), and a comparison with regressions.
import { registerSecret } from '../../../src/errors.js';
import { compareResults } from '../../../src/report/compare.js';
import type { QbenchComparison } from '../../../src/result/compare-model.js';
import type { QbenchResult } from '../../../src/result/model.js';
import { sampleResult } from '../result/sample-result.js';

export function hostileJunitResult(secret: string): QbenchResult {
  registerSecret(secret);
  const r = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 300 });
  const failing = r.conformance!.checks.find((c) => c.verdict.status === 'fail')!;
  if (failing.verdict.status === 'fail') failing.verdict.exchanges[0]!.response!.body = `<b>&"\u0001\u0007 ${secret}`;
  r.load!.scenarios[0]!.thresholds.push({ metric: 'run.latency', expression: 'p(99.9)<1', observed: 250.5, passed: false, abortOnFail: true });
  r.load!.scenarios[1]!.validity.valid = false;
  r.load!.scenarios[1]!.validity.reasons = ['event loop blocked'];
  return r;
}

export function regressedComparison(): QbenchComparison {
  const slow = sampleResult({ seed: 8, samples: 3_000, tailFactor: 1.3 });
  return compareResults(sampleResult({ seed: 7, samples: 3_000 }), slow, { baselineFile: 'a.json', candidateFile: 'b.json', iterations: 300 });
}
