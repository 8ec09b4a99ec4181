// The result the browser test renders: a real `qbench load` run (runLoad) of the shipped §8
// rate-limit scenario for /cancel against the in-process emulator (rate windows on a 10x clock,
// about 5 s), with the synthetic sample's conformance, fuzz and GPU-scenario sections added so
// every part of the page is drawn.
import { fileURLToPath } from 'node:url';
import { runLoad } from '../../src/load/run-load.js';
import { resolveTarget } from '../../src/load/target.js';
import { QbenchResult } from '../../src/report/model.js';
import { computeOverall } from '../../src/report/overall.js';
import { RATE_WINDOW_MS } from '../../src/spec/index.js';
import { sampleResult } from '../unit/report/sample-result.js';

const RATE_LIMIT_SCENARIO = fileURLToPath(new URL('../../suites/load/rate-limit.ts', import.meta.url));

/** Emulated ms per real ms; with scaleRateWindows the 10 s §8 window lasts 1 s of real time. */
const TIME_SCALE = 10;

export async function browserTestResult(): Promise<QbenchResult> {
  const resolved = await resolveTarget({ target: 'emulator', emulator: { timeScale: TIME_SCALE, scaleRateWindows: true } });
  try {
    const real = await runLoad({ files: [RATE_LIMIT_SCENARIO], target: resolved.target, params: { op: 'cancel' }, command: ['qbench', 'load', 'suites/load/rate-limit.ts', '--param', 'op=cancel'] });
    const sample = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 2_000 });
    const gpu = sample.load!.scenarios.find((s) => s.name === 'gpu-stream')!;
    const partial: Omit<QbenchResult, 'overall'> = {
      ...real,
      // the windows run on the scaled clock (scaleRateWindows): say so, so the §8 limit lines are per real second
      meta: { ...real.meta, target: { ...real.meta.target, rateWindowRealMs: RATE_WINDOW_MS / TIME_SCALE } },
      conformance: sample.conformance!,
      fuzz: sample.fuzz!,
      load: { scenarios: [...(real.load?.scenarios ?? []), gpu] },
    };
    return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
  } finally {
    await resolved.close();
  }
}
