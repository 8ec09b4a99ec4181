// The result the browser test renders: real runs against the in-process emulator (the shipped
// §8 rate-limit load scenario for /cancel with rate windows on a 10x clock, about 5 s, and a
// slice of the conformance suite against an emulator with one fault switched on, about 3 s, so
// a real failure with its exchange and curl line is shown), plus the synthetic sample's fuzz and
// GPU-scenario sections so every part of the page is drawn.
import { fileURLToPath } from 'node:url';
import { buildConformanceSection, runChecks, startEmulatorTarget } from '../../src/conformance/index.js';
import { runLoad } from '../../src/load/run-load.js';
import { conformanceSuite } from '../../suites/conformance/index.js';
import { resolveTarget } from '../../src/load/target.js';
import { QbenchResult, type ConformanceSection } from '../../src/result/model.js';
import { computeOverall } from '../../src/result/overall.js';
import { RATE_WINDOW_MS } from '../../src/spec/index.js';
import { sampleResult } from '../unit/result/sample-result.js';

const RATE_LIMIT_SCENARIO = fileURLToPath(new URL('../../suites/load/rate-limit.ts', import.meta.url));

/** Emulated ms per real ms; with scaleRateWindows the 10 s §8 window lasts 1 s of real time. */
const TIME_SCALE = 10;

/** A few fast check groups; the fault makes /retry of a COMPLETED job succeed, which §3.1 forbids. */
const CHECKS = ['queue.retry.*', 'queue.auth.*', 'queue.status.*', 'queue.cancel.*'];

async function realConformance(): Promise<ConformanceSection> {
  const t = await startEmulatorTarget({ faults: ['retry-from-completed'] });
  try {
    const results = await runChecks(conformanceSuite, t.target, t.probe, { profile: 'quick', concurrency: 4, only: CHECKS });
    return buildConformanceSection(conformanceSuite, results, 'quick');
  } finally {
    await t.close();
  }
}

export async function browserTestResult(): Promise<QbenchResult> {
  const conformance = await realConformance();
  const resolved = await resolveTarget({ target: 'emulator', emulator: { timeScale: TIME_SCALE, scaleRateWindows: true } });
  try {
    const real = await runLoad({ files: [RATE_LIMIT_SCENARIO], target: resolved.target, params: { op: 'cancel' }, command: ['qbench', 'load', 'suites/load/rate-limit.ts', '--param', 'op=cancel'] });
    const sample = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 2_000 });
    const gpu = sample.load!.scenarios.find((s) => s.name === 'gpu-stream')!;
    const partial: Omit<QbenchResult, 'overall'> = {
      ...real,
      // the windows run on the scaled clock (scaleRateWindows): say so, so the §8 limit lines are per real second
      meta: { ...real.meta, target: { ...real.meta.target, rateWindowRealMs: RATE_WINDOW_MS / TIME_SCALE } },
      conformance,
      fuzz: sample.fuzz!,
      load: { scenarios: [...(real.load?.scenarios ?? []), gpu] },
    };
    return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
  } finally {
    await resolved.close();
  }
}
