// The work of `qbench plan` (declared in plan.ts): read the twin and the traffic, sweep the
// grid on worker threads, and write the answer with every report. --llm: plan-llm-run.ts.
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { usageError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { collectMachineInfo, buildMeta } from '../../result/machine.js';
import { SCHEMA_VERSION, type QbenchResult } from '../../result/model.js';
import { computeOverall } from '../../result/overall.js';
import { renderConsole } from '../../report/render/console.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { runPlan } from '../../plan/run-plan.js';
import { loadTrafficProfile, loadTwin, trafficFromFlags } from '../../sim/index.js';
import { readPartIntervals, type PartInterval } from '../../plan/precision.js';
import { SLO_FORMS, type Slo } from '../../plan/slo.js';
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import { PLAN_DEFAULTS, type PLAN_OPTIONS } from './plan.js';

/** Progress on stderr: in place on a terminal, every tenth otherwise. */
function progressPrinter(io: { stderr: (t: string) => void; isTty: boolean }) {
  const started = performance.now();
  let shownTenth = -1;
  return (done: number, total: number) => {
    const secs = ((performance.now() - started) / 1_000).toFixed(1);
    const line = `plan: ${done}/${total} simulations (${Math.floor((done / total) * 100)}%), ${secs} s`;
    if (io.isTty) {
      io.stderr(`\r${line}${done === total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth > shownTenth) {
      shownTenth = tenth;
      io.stderr(`${line}\n`);
    }
  };
}

/** The calibration report named, else calibration.json beside the twin (as `qbench calibrate` writes them), else none. */
async function calibrationOf(twinFile: string, given: string | undefined): Promise<{ file: string; intervals: PartInterval[] } | undefined> {
  if (given === 'none') return undefined;
  const file = given ?? path.join(path.dirname(twinFile), 'calibration.json');
  if (given === undefined && !existsSync(file)) return undefined;
  return { file, intervals: await readPartIntervals(file) };
}

export async function runPlanCommand(f: Flags<typeof PLAN_OPTIONS>, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  if (f.llm) return (await import('./plan-llm-run.js')).runLlmPlan(f, io, invocation);
  const llmOnly = [
    ['--prompt-tokens', f.promptTokens],
    ['--output-tokens', f.outputTokens],
    ['--jobs-per-worker', f.jobsPerWorker],
  ].flatMap(([flag, v]) => (v === undefined ? [] : [`${String(flag)} plans an LLM endpoint: add --llm`]));
  const tokenSlos = f.slos.flatMap((s) => {
    if (s.kind !== 'llm') return [];
    if (s.queueProblem !== undefined) return [`--slo ${s.queueProblem}; accepted: ${SLO_FORMS}`];
    return [`--slo "${s.text}" judges tokens: add --llm (with --prompt-tokens and --output-tokens), or judge the jobs with p<N>(e2e), p<N>(delay) or cold(share)`];
  });
  if (llmOnly.length + tokenSlos.length > 0) throw usageError(`invalid options for qbench plan:\n${[...llmOnly, ...tokenSlos].map((x) => `  ✖ ${x}`).join('\n')}`);
  const slos = f.slos.filter((s): s is Slo => s.kind !== 'llm');
  const fromFlags = f.ratePerSec !== undefined || f.durationMs !== undefined;
  if (f.traffic !== undefined && fromFlags) throw usageError('invalid options for qbench plan:\n  ✖ --traffic replaces --rate/--duration: give one or the other');
  if (f.traffic === undefined && (f.ratePerSec === undefined || f.durationMs === undefined)) {
    throw usageError('invalid options for qbench plan:\n  ✖ the traffic: --rate <jobs/s> with --duration <e.g. 1h>, or --traffic <profile.json>');
  }
  const twin = await loadTwin(f.twin);
  const precision = await calibrationOf(f.twin, f.calibration);
  const traffic = f.traffic !== undefined ? await loadTrafficProfile(f.traffic) : trafficFromFlags({ ratePerSec: f.ratePerSec ?? 0, durationMs: f.durationMs ?? 0 });
  const startedAt = new Date();
  const plan = await runPlan({
    twinFile: f.twin,
    twin,
    endpointId: f.endpoint,
    traffic,
    slos,
    budgetPerHourUsd: f.budgetPerHourUsd,
    axes: { workersMin: f.workersMin, workersMax: f.workersMax, idleTimeoutS: f.idleTimeoutS, scalerType: f.scalerType, scalerValue: f.scalerValue },
    seeds: f.seeds ?? PLAN_DEFAULTS.seeds,
    seedBase: f.seed,
    precision,
    threads: f.threads ?? availableParallelism(),
    onProgress: progressPrinter(io),
    signal: io.signal,
  });
  return writePlanResult({ plan }, plan.twin.endpointId, startedAt, f, io, invocation);
}

/** A plan's result (the queue's `plan` or `llmPlan`): judged, written in every format under --out, printed; its exit code. */
export async function writePlanResult(section: Pick<QbenchResult, 'plan' | 'llmPlan'>, endpointId: string, startedAt: Date, f: { readonly twin: string; readonly out?: string | undefined }, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const meta = buildMeta({
    command: invocation.commandLine,
    startedAt,
    endedAt: new Date(),
    target: { kind: 'simulation', queueUrl: path.resolve(f.twin), endpointId, timeScale: 1 },
    machine: collectMachineInfo(),
  });
  const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta, ...section };
  const result: QbenchResult = { ...partial, overall: computeOverall(partial) };
  const dir = await runReportDir(startedAt, f.out);
  const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
  io.stdout(renderConsole(result));
  io.stdout(`\nreports: ${written.dir}\n`);
  return result.overall.exitCode as ExitCode;
}
