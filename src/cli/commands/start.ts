// `qbench start` (what `npm start` runs): the main job on the embedded emulator. It runs the
// quick conformance profile, a short mix of the shipped load scenarios and a short fuzz, each
// against its own in-process emulator (so no part's traffic skews another's counts), merges
// the three into one QbenchResult, writes every report format and prints the HTML path.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { usageError } from '../../errors.js';
import { NO_EXPECTATIONS, buildConformanceSection, runChecks, startEmulatorTarget } from '../../conformance/index.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { resolveFuzzTarget, runFuzz } from '../../fuzz/index.js';
import { resolveTarget } from '../../load/target.js';
import { runLoad } from '../../load/run-load.js';
import {
  SCHEMA_VERSION, buildMeta, computeOverall, renderConsole, writeAllReports,
  type ConformanceSection, type FuzzSection, type LoadScenarioResult, type QbenchResult, type TargetInfo,
} from '../../report/index.js';
import type { CliIo, CommandModule } from '../command.js';

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

/** A short fuzz: enough cases to touch every bound, bounded in time. */
const FUZZ_BUDGET = { numRuns: 30, modelRuns: 4, maxCommands: 8, maxDurationMs: 20_000, rateFraction: 0.5 } as const;

const StartArgs = z.object({
  out: z.string().optional(),
  parts: z
    .array(z.string())
    .default([...PARTS])
    .transform((a) => a.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0)),
  strict: z.boolean().default(false),
  seed: z.number({ error: '--seed must be a number' }).int({ error: '--seed must be a whole number' }).min(0, { error: '--seed must be 0..2147483647' }).max(2 ** 31 - 1, { error: '--seed must be 0..2147483647' }).default(42),
});

function suitesLoadDir(): string {
  // src/cli/commands -> repo root (also from dist/src/cli/commands, where suites/ sits beside src/).
  const here = path.dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${path.sep}dist${path.sep}`) ? '../../../..' : '../../..';
  return path.resolve(here, up, 'suites', 'load');
}

async function runConformancePart(io: CliIo): Promise<{ section: ConformanceSection; target: TargetInfo }> {
  const t = await startEmulatorTarget({});
  try {
    io.stdout(`[check] quick conformance profile against the emulator (time scale ${t.target.timeScale})\n`);
    const results = await runChecks(conformanceSuite, t.target, t.probe, {
      profile: 'quick',
      only: [],
      skip: [],
      concurrency: 4,
      expectations: NO_EXPECTATIONS,
      signal: io.signal,
      onResult: (r) => {
        if (r.verdict.status !== 'pass') io.stdout(`[check] ${r.verdict.status.toUpperCase()} ${r.id}\n`);
      },
    });
    const section = buildConformanceSection(conformanceSuite, results, 'quick');
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

async function runLoadPart(io: CliIo): Promise<LoadScenarioResult[]> {
  const scenarios: LoadScenarioResult[] = [];
  for (const { file, params, timeScale, scaleRateWindows } of LOAD_MIX) {
    if (io.signal.aborted) break;
    const resolved = await resolveTarget({ target: 'emulator', emulator: { timeScale, scaleRateWindows } });
    try {
      const r = await runLoad({
        files: [path.join(suitesLoadDir(), file)],
        target: resolved.target,
        params,
        signal: io.signal,
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

async function runFuzzPart(io: CliIo, seed: number): Promise<FuzzSection> {
  const resolved = await resolveFuzzTarget({ target: 'emulator' });
  try {
    io.stdout(`[fuzz] seed ${seed}, ${FUZZ_BUDGET.numRuns} cases per property, ${FUZZ_BUDGET.modelRuns} command sequences\n`);
    const run = await runFuzz({
      target: resolved.target,
      seed,
      ...FUZZ_BUDGET,
      signal: io.signal,
      onEvent: (e) => {
        if (e.kind === 'end') io.stdout(`[fuzz] ${e.property.status.toUpperCase()} ${e.property.name} (${e.property.runs} runs)\n`);
      },
    });
    return run.section;
  } finally {
    await resolved.close();
  }
}

export const startCommand: CommandModule = {
  command: 'start',
  describe: 'Run the main job on the embedded emulator (quick conformance, a short load mix, a short fuzz) and write every report',
  builder: (y) =>
    y
      .option('out', { type: 'string', describe: 'Report directory (default reports/<timestamp>/ and reports/latest)' })
      .option('parts', { type: 'array', string: true, describe: `Which parts to run: ${PARTS.join(', ')} (default all)` })
      .option('seed', { type: 'number', describe: 'Fuzz seed (default 42)' })
      .option('strict', { type: 'boolean', default: false, describe: 'An inconclusive check or scenario (could not set up what it judges) fails the run: for gating on a private endpoint' }),
  run: async (argv, io): Promise<ExitCode> => {
    const parsed = StartArgs.safeParse(argv);
    if (!parsed.success) throw usageError(`invalid options for qbench start:\n${z.prettifyError(parsed.error)}`);
    const a = parsed.data;
    const unknown = a.parts.filter((p) => !(PARTS as readonly string[]).includes(p));
    if (unknown.length > 0) throw usageError(`--parts: unknown part ${unknown.join(', ')}; choose from ${PARTS.join(', ')}`);
    const parts = new Set(a.parts as Part[]);
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
    const conformance = await attempt('check', () => runConformancePart(io));
    const load = await attempt('load', () => runLoadPart(io));
    const fuzz = await attempt('fuzz', () => runFuzzPart(io, a.seed));
    const endedAt = new Date();
    const target: TargetInfo = conformance?.target ?? { kind: 'emulator', queueUrl: 'in-process', endpointId: 'qbench', timeScale: 1 };
    const partial = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'qbench-result' as const,
      meta: buildMeta({ command: ['qbench', 'start', ...process.argv.slice(3)], startedAt, endedAt, target, labels: { job: 'start', parts: [...parts].join(',') } }),
      ...(conformance ? { conformance: conformance.section } : {}),
      ...(load ? { load: { scenarios: load } } : {}),
      ...(fuzz ? { fuzz } : {}),
    };
    const result: QbenchResult = { ...partial, overall: computeOverall(partial, { interrupted: io.signal.aborted, internalErrors, strict: a.strict }) };
    const written = await writeAllReports(result, a.out);
    io.stdout(`\n${renderConsole(result, { color: io.isTty })}\n`);
    io.stdout(`JSON: ${written.json}\nJUnit: ${written.junit}\nMarkdown: ${written.markdown}\n`);
    io.stdout(`HTML report: ${written.html}\n`);
    return (result.overall.exitCode as ExitCode) ?? EXIT.INTERNAL;
  },
};
