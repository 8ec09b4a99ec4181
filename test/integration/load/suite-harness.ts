// Runs a shipped load scenario file against an in-process emulator configured for the test
// (time scale, scaled rate windows, lowered limits, faults) and returns the scenario results.
import { startEmulator, type EmulatorConfigInput, type EmulatorHandle } from '../../../src/emulator/index.js';
import type { LoadTarget } from '../../../src/load/context.js';
import { runLoad } from '../../../src/load/run-load.js';
import { readTargetFacts } from '../../../src/target/index.js';
import type { ScenarioOverrides } from '../../../src/load/loader.js';
import type { LoadScenarioResult, QbenchResult } from '../../../src/result/model.js';
import { startProxy } from '../conformance/border-proxy.js';

export const API_KEY = 'qbench-load-test-key';

export async function withEmulator<T>(config: Partial<EmulatorConfigInput>, fn: (target: LoadTarget, emu: EmulatorHandle) => Promise<T>): Promise<T> {
  const emu = await startEmulator({ apiKey: API_KEY, ...config });
  try {
    const { info } = await readTargetFacts(emu.url, { apiKey: API_KEY, unreachable: 'error' });
    return await fn({ kind: 'emulator', queueUrl: emu.url, endpointId: emu.config.endpoints[0] ?? 'demo', apiKey: API_KEY, timeScale: emu.clock.scale, info }, emu);
  } finally {
    await emu.close();
  }
}

export async function runSuite(
  file: string,
  config: Partial<EmulatorConfigInput>,
  params: Record<string, string> = {},
  overrides: ScenarioOverrides = {},
): Promise<{ result: QbenchResult; scenarios: LoadScenarioResult[] }> {
  return withEmulator(config, async (target) => {
    const result = await runLoad({ files: [`suites/load/${file}`], target, params, overrides });
    return { result, scenarios: result.load?.scenarios ?? [] };
  });
}

export const finding = (s: LoadScenarioResult | undefined, label: RegExp) => s?.verdict.findings.find((f) => label.test(f.label));

/**
 * The emulator behind a proxy that answers 404 for /_qbench/* (an opaque target). `info` tells
 * the scenario only what the test chooses (by default that the rate windows run on the scaled
 * clock, so it knows their length); the emulator's counters and controls are out of reach.
 */
export async function withOpaque<T>(emuTarget: LoadTarget, fn: (target: LoadTarget) => Promise<T>, info: Record<string, unknown> = { scaleRateWindows: true }): Promise<T> {
  const proxy = await startProxy({ upstream: emuTarget.queueUrl, delayMs: 0, jitterMs: 0, opaque: true });
  try {
    return await fn({ ...emuTarget, queueUrl: proxy.url, info });
  } finally {
    await proxy.close();
  }
}
