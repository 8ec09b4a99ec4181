// `qbench start` (what `npm start` runs): the main job on the embedded emulator. It runs the
// quick conformance profile, a short mix of the shipped load scenarios and a short fuzz, each
// against its own in-process emulator (so no part's traffic skews another's counts), merges
// the three into one QbenchResult, writes every report format and prints the HTML path.
// From qbench.config it takes the conformance selection, the load scenarios (which replace the
// shipped mix), the fuzz budgets and the report directory; no target (it is always the emulator).
import path from 'node:path';
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { usageError } from '../../errors.js';
import {
  NO_EXPECTATIONS, buildConformanceSection, buildCoverage, loadExpectations, runChecks, selectChecks, shippedSuite, startEmulatorTarget, unknownPatterns,
  type Suite,
} from '../../conformance/index.js';
import type { LoadedExpectations } from '../../conformance/expectations.js';
import { allProperties, resolveFuzzTarget, runFuzz } from '../../fuzz/index.js';
import { resolveTarget } from '../../load/target.js';
import { runLoad, type ScenarioEntry } from '../../load/run-load.js';
import {
  SCHEMA_VERSION, buildMeta, computeOverall,
  type ConformanceSection, type FuzzSection, type LoadScenarioResult, type QbenchResult, type TargetInfo,
} from '../../result/index.js';
import { renderConsole } from '../../report/render/console.js';
import { defineCommand, type CliIo } from '../command.js';
import { loadOptions } from '../load-options.js';
import { option, type Flags } from '../options.js';
import { configOnly, conformanceOptions, fuzzBudgetOptions } from '../suite-options.js';
import { commaList, outOption } from '../target-options.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun, type RunWatch } from '../watch.js';
import { PACKAGE_ROOT } from '../../user-module.js';

const PARTS = ['check', 'load', 'fuzz'] as const;
type Part = (typeof PARTS)[number];

/**
 * The load mix: short runs of shipped scenarios, each on its own emulator. Rate scenarios run
 * with scaled rate windows (a 10 s window lasts 1 s); the GPU scenario runs at real time
 * because it compares client-observed tokens/s (real) with the worker-reported figure.
 */
const LOAD_MIX: readonly { file: string; params: Record<string, string>; timeScale: number; scaleRateWindows: boolean }[] = [
  { file: 'rate-limit.ts', params: { op: 'cancel' }, timeScale: 10, scaleRateWindows: true },
  { file: 'concurrency-cap.ts', params: { op: 'runsync' }, timeScale: 10, scaleRateWindows: true },
  { file: 'gpu-throughput.ts', params: { levels: '1,2,4', phaseMs: '1500', tokens: '48' }, timeScale: 1, scaleRateWindows: false },
  { file: 'mixed-soak.ts', params: { rate: '40', duration: '5000' }, timeScale: 10, scaleRateWindows: true },
];

interface FuzzBudget {
  readonly numRuns: number;
  readonly modelRuns: number;
  readonly maxCommands: number;
  readonly maxDurationMs: number;
  readonly rateFraction: number;
}

/** A short fuzz: enough cases to touch every bound, bounded in time (the config file's fuzz section replaces it). */
const FUZZ_BUDGET: FuzzBudget = { numRuns: 30, modelRuns: 4, maxCommands: 8, maxDurationMs: 20_000, rateFraction: 0.5 };

const SEED = 'must be 0..2147483647';

const START_OPTIONS = {
  out: outOption,
  parts: option({ flag: 'parts', kind: 'strings', schema: commaList, help: `Which parts to run: ${PARTS.join(', ')}`, defaultHelp: 'all' }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).min(0, { error: SEED }).max(2 ** 31 - 1, { error: SEED }), default: 42, help: 'Fuzz seed' }),
  strict: option({ flag: 'strict', kind: 'boolean', schema: z.boolean(), default: false, help: 'An inconclusive check or scenario (could not set up what it judges) fails the run: for gating on a private endpoint' }),
  // From the config file only.
  profile: configOnly(conformanceOptions.profile),
  only: configOnly(conformanceOptions.only),
  skip: configOnly(conformanceOptions.skip),
  expect: configOnly(conformanceOptions.expect),
  runs: configOnly(fuzzBudgetOptions.runs, FUZZ_BUDGET.numRuns),
  modelRuns: configOnly(fuzzBudgetOptions.modelRuns, FUZZ_BUDGET.modelRuns),
  maxCommands: configOnly(fuzzBudgetOptions.maxCommands, FUZZ_BUDGET.maxCommands),
  maxDurationMs: configOnly(fuzzBudgetOptions.maxDurationMs, `${FUZZ_BUDGET.maxDurationMs}ms`),
  configScenarios: loadOptions.configScenarios,
};
type StartArgs = Flags<typeof START_OPTIONS>;

interface ConformanceSettings {
  readonly profile: 'quick' | 'full';
  readonly only: readonly string[];
  readonly skip: readonly string[];
  readonly expectations: LoadedExpectations;
}

async function runConformancePart(io: CliIo, conformanceSuite: Suite, settings: ConformanceSettings, watch: RunWatch): Promise<{ section: ConformanceSection; target: TargetInfo }> {
  const t = await startEmulatorTarget({});
  try {
    watch.facts('conformance', { profile: settings.profile, coverage: buildCoverage(conformanceSuite) });
    watch.plan('conformance', selectChecks(conformanceSuite, settings).map((c) => c.id));
    io.stdout(`[check] ${settings.profile} conformance profile against the emulator (time scale ${t.target.timeScale})\n`);
    const results = await runChecks(conformanceSuite, t.target, t.probe, {
      profile: settings.profile,
      only: settings.only,
      skip: settings.skip,
      concurrency: 4,
      expectations: settings.expectations,
      signal: io.signal,
      onResult: (r) => {
        watch.check(r);
        if (r.verdict.status !== 'pass') io.stdout(`[check] ${r.verdict.status.toUpperCase()} ${r.id}\n`);
      },
    });
    const section = buildConformanceSection(conformanceSuite, results, settings.profile);
    const s = section.summary;
    io.stdout(`[check] ${s.pass} pass, ${s.fail} fail, ${s.skip} skip, ${s.error} error\n`);
    return {
      section,
      target: { kind: 'emulator', queueUrl: t.target.queueUrl, endpointId: t.target.endpointId, restUrl: t.emulator.url, graphqlUrl: `${t.emulator.url}/graphql`, timeScale: t.target.timeScale },
    };
  } finally {
    await t.close();
  }
}

/** The config file's scenarios run together on one emulator, as `qbench load --target emulator` runs them. */
function loadRuns(fromConfig: readonly ScenarioEntry[] | undefined): { files: readonly (string | ScenarioEntry)[]; params: Record<string, string>; emulator: Record<string, unknown> }[] {
  if (fromConfig) return [{ files: fromConfig, params: {}, emulator: {} }];
  return LOAD_MIX.map(({ file, params, timeScale, scaleRateWindows }) => ({ files: [path.join(PACKAGE_ROOT, 'suites', 'load', file)], params, emulator: { timeScale, scaleRateWindows } }));
}

async function runLoadPart(io: CliIo, fromConfig: readonly ScenarioEntry[] | undefined, watch: RunWatch): Promise<LoadScenarioResult[]> {
  const scenarios: LoadScenarioResult[] = [];
  for (const { files, params, emulator } of loadRuns(fromConfig)) {
    if (io.signal.aborted) break;
    const resolved = await resolveTarget({ target: 'emulator', emulator });
    try {
      const r = await runLoad({
        files,
        target: resolved.target,
        params,
        signal: io.signal,
        observer: watch.load,
        log: (l) => io.stdout(`[load] ${l}\n`),
        onScenarioDone: (s) => io.stdout(`[load] ${s.verdict.status.toUpperCase()} ${s.name}: ${s.verdict.summary}\n`),
      });
      scenarios.push(...(r.load?.scenarios ?? []));
    } finally {
      await resolved.close();
    }
  }
  return scenarios;
}

async function runFuzzPart(io: CliIo, seed: number, budget: FuzzBudget, watch: RunWatch): Promise<FuzzSection> {
  const resolved = await resolveFuzzTarget({ target: 'emulator' });
  try {
    watch.facts('fuzz', { seed, numRuns: budget.numRuns });
    watch.plan('fuzz', allProperties(budget).map((p) => p.name));
    io.stdout(`[fuzz] seed ${seed}, ${budget.numRuns} cases per property, ${budget.modelRuns} command sequences\n`);
    const run = await runFuzz({
      target: resolved.target,
      seed,
      ...budget,
      signal: io.signal,
      onEvent: (e) => {
        if (e.kind === 'end') watch.property(e.property);
        if (e.kind === 'end') io.stdout(`[fuzz] ${e.property.status.toUpperCase()} ${e.property.name} (${e.property.runs} runs)\n`);
      },
    });
    return run.section;
  } finally {
    await resolved.close();
  }
}

/** Check the parts and the conformance selection (of flags and config file), naming every problem at once; the fuzz budget. */
function checkSettings(a: StartArgs, conformanceSuite: Suite): FuzzBudget {
  const problems: string[] = [];
  const unknown = a.parts.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) problems.push(`--parts: unknown part ${unknown.join(', ')}; choose from ${PARTS.join(', ')}`);
  const patterns = unknownPatterns(conformanceSuite, [...a.only, ...a.skip]);
  if (patterns.length > 0) problems.push(`conformance.only/skip: ${patterns.join(', ')} match no check id and no tag`);
  if (problems.length > 0) throw usageError(`invalid options for qbench start:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
  return { ...FUZZ_BUDGET, numRuns: a.runs, modelRuns: a.modelRuns, maxCommands: a.maxCommands, maxDurationMs: a.maxDurationMs };
}

export const startCommand = defineCommand({
  command: 'start',
  describe: 'Run the main job on the embedded emulator (quick conformance, a short load mix, a short fuzz) and write every report',
  options: START_OPTIONS,
  run: async (a, io, invocation): Promise<ExitCode> => {
    const conformanceSuite = await shippedSuite();
    const budget = checkSettings(a, conformanceSuite);
    const parts = new Set((a.parts.length > 0 ? a.parts : PARTS) as Part[]);
    const startedAt = new Date();
    const internalErrors: string[] = [];
    const attempt = async <T>(name: Part, fn: () => Promise<T>): Promise<T | undefined> => {
      if (!parts.has(name) || io.signal.aborted) return undefined;
      try {
        return await fn();
      } catch (e) {
        internalErrors.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
        io.stderr(`qbench start: the ${name} part failed: ${e instanceof Error ? e.message : String(e)}\n`);
        return undefined;
      }
    };
    const expectations = a.expect !== undefined ? await loadExpectations(a.expect) : NO_EXPECTATIONS;
    const inProcess: TargetInfo = { kind: 'emulator', queueUrl: 'in-process', endpointId: 'qbench', timeScale: 1 };
    const dir = await runReportDir(startedAt, a.out);
    const watch = await watchRun({ dir, command: 'start', argv: invocation.commandLine, options: { parts: [...parts], seed: a.seed, profile: a.profile, strict: a.strict }, target: inProcess, env: io.env, log: (l) => io.stderr(`${l}\n`) });
    const conformance = await attempt('check', () => runConformancePart(io, conformanceSuite, { profile: a.profile, only: a.only, skip: a.skip, expectations }, watch));
    const load = await attempt('load', () => runLoadPart(io, a.configScenarios, watch));
    const fuzz = await attempt('fuzz', () => runFuzzPart(io, a.seed, budget, watch));
    const endedAt = new Date();
    const target: TargetInfo = conformance?.target ?? inProcess;
    const partial = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'qbench-result' as const,
      meta: buildMeta({ command: invocation.commandLine, startedAt, endedAt, target, labels: { job: 'start', parts: [...parts].join(',') } }),
      ...(conformance ? { conformance: conformance.section } : {}),
      ...(load ? { load: { scenarios: load } } : {}),
      ...(fuzz ? { fuzz } : {}),
    };
    const result: QbenchResult = { ...partial, overall: computeOverall(partial, { interrupted: io.signal.aborted, internalErrors, strict: a.strict }) };
    await watch.finish(result);
    const written = await writeAllReports(result, dir, { updateLatest: a.out === undefined });
    io.stdout(`\n${renderConsole(result, { color: io.isTty })}\n`);
    io.stdout(`JSON: ${written.json}\nJUnit: ${written.junit}\nMarkdown: ${written.markdown}\n`);
    io.stdout(`HTML report: ${written.html}\n`);
    return (result.overall.exitCode as ExitCode) ?? EXIT.INTERNAL;
  },
});
