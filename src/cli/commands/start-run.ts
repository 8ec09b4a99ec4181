// The work of `qbench start` (declared in start.ts): the conformance, load and fuzz parts, each
// on its own in-process emulator, merged into one result with every report.
import path from 'node:path';
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
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun, type RunWatch } from '../watch.js';
import { parseMetricsFlags } from '../../metrics/endpoints.js';
import { PACKAGE_ROOT } from '../../user-module.js';
import { FUZZ_BUDGET, PARTS, type FuzzBudget, type Part, type START_OPTIONS } from './start.js';

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

export async function runStart(a: StartArgs, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const conformanceSuite = await shippedSuite();
  const budget = checkSettings(a, conformanceSuite);
  const metrics = parseMetricsFlags(a.metrics);
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
  const watch = await watchRun({ dir, command: 'start', argv: invocation.commandLine, options: { parts: [...parts], seed: a.seed, profile: a.profile, strict: a.strict }, target: inProcess, env: io.env, log: (l) => io.stderr(`${l}\n`), metrics });
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
}
