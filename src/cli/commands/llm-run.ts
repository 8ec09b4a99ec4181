// The work of `qbench llm` (declared in llm.ts): read the workload, resolve the target, measure
// every path at every level, and write the LLM section with every report.
import { isQbenchError, usageError } from '../../errors.js';
import { emulatorConfigOf } from '../emulator-config-flags.js';
import type { ExitCode } from '../../exit-codes.js';
import { preflight } from '../../load/preflight.js';
import { runCost } from '../../load/run-cost.js';
import { resolveTarget } from '../../load/target.js';
import { readEndpointCounters } from '../../target/emulator-counters.js';
import { parseSlo, type Slo } from '../../load/llm/goodput.js';
import { runLlmLoad, type LlmMode } from '../../load/llm/run-llm.js';
import { TOKEN_APPROXIMATION, Workload, describeLengthDist, loadDataset, loadLengthDist, parseLengthDist, type LengthDist } from '../../load/llm/workload.js';
import { buildMeta, collectMachineInfo } from '../../result/machine.js';
import { SCHEMA_VERSION, type LlmSection, type QbenchResult } from '../../result/model.js';
import { computeOverall } from '../../result/overall.js';
import { runReportDir } from '../../report/report-dir.js';
import { apiKeyEnvName } from '../../target/index.js';
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import type { LLM_OPTIONS } from './llm.js';

const invalid = (lines: string[]) => usageError(`invalid options for qbench llm:\n${lines.map((l) => `  ✖ ${l}`).join('\n')}`);

function parseSlos(texts: readonly string[]): Slo[] {
  const problems: string[] = [];
  const out: Slo[] = [];
  for (const t of texts) {
    try {
      out.push(parseSlo(t));
    } catch (e) {
      if (!isQbenchError(e)) throw e;
      problems.push(`--slo ${e.message}`);
    }
  }
  if (problems.length > 0) throw invalid(problems);
  return out;
}

function modeOf(f: Flags<typeof LLM_OPTIONS>): LlmMode {
  const mode = f.mode ?? (f.ratePerSec !== undefined ? 'constant' : f.vus !== undefined ? 'concurrency' : undefined);
  if (mode === undefined) throw invalid(['the load: --rate <requests/s> (constant; --mode poisson for Poisson arrivals), --vus <in flight> (concurrency), or --mode sweep']);
  if ((mode === 'constant' || mode === 'poisson') && f.ratePerSec === undefined) throw invalid([`--mode ${mode} needs --rate <requests/s>`]);
  if ((mode === 'constant' || mode === 'poisson') && f.vus !== undefined) throw invalid([`--vus sets the concurrency and sweep modes; --mode ${mode} takes --rate`]);
  if ((mode === 'concurrency' || mode === 'sweep') && f.ratePerSec !== undefined) throw invalid([`--rate sets the constant and poisson modes; --mode ${mode} takes --vus`]);
  return mode;
}

export async function runLlmCommand(f: Flags<typeof LLM_OPTIONS>, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const mode = modeOf(f);
  const slos = parseSlos(f.slos);
  const promptDist = await loadLengthDist('--prompt-tokens', parseLengthDist('--prompt-tokens', f.promptTokens));
  const outputDist: LengthDist | undefined = f.outputTokens === undefined ? undefined : await loadLengthDist('--output-tokens', parseLengthDist('--output-tokens', f.outputTokens));
  const dataset = f.dataset === undefined ? undefined : { file: f.dataset, ...(await loadDataset(f.dataset)) };
  if (dataset && dataset.skipped > 0) io.stderr(`llm: --dataset ${f.dataset}: ${dataset.skipped} entries of another shape skipped, ${dataset.entries.length} used\n`);

  const emulatorConfig = await emulatorConfigOf(f, '--time-scale and --emulator-config');

  const apiKeyEnv = apiKeyEnvName(f.apiKeyEnv, io.env);
  const resolved = await resolveTarget({ target: f.target, endpointId: f.endpoint, apiKey: io.env[apiKeyEnv], emulator: emulatorConfig });
  const t = resolved.target;
  const startedAt = new Date();
  let section: LlmSection;
  try {
    await preflight(t, io.signal);
    // On an emulator, its billing meter before and after gives the run's cost.
    const meterBefore = t.info === undefined ? undefined : await readEndpointCounters(t.queueUrl, t.endpointId, t.apiKey);
    const measured = await runLlmLoad({
      queueUrl: t.queueUrl,
      endpointId: t.endpointId,
      apiKey: t.apiKey,
      timeScale: t.timeScale,
      paths: f.paths,
      api: f.api,
      stream: f.stream,
      model: f.model,
      ignoreEos: f.ignoreEos,
      logprobs: f.logprobs,
      timeoutMs: f.timeoutMs,
      mode,
      ratePerSec: f.ratePerSec,
      concurrency: f.vus,
      sweepSteps: f.sweepSteps,
      durationMs: f.durationMs ?? 30_000,
      maxRequests: f.maxRequests,
      maxInFlight: f.maxInFlight,
      slos,
      workload: () => new Workload({ seed: f.seed, promptTokens: promptDist, outputTokens: outputDist, dataset }),
      seed: f.seed,
      coldDelayMs: f.coldDelayMs,
      signal: io.signal,
      log: (line) => io.stderr(`${line}\n`),
    });
    section = {
      model: f.model ?? null,
      mode,
      workload: {
        prompt: dataset ? `dataset ${f.dataset} (${dataset.entries.length} entries, seeded order)` : describeLengthDist(promptDist),
        output: outputDist ? describeLengthDist(outputDist) : dataset ? "each dataset entry's own (its reply's length), else 128 tokens" : '128 tokens',
        ...(dataset ? { dataset: f.dataset } : {}),
        seed: f.seed,
        approximation: TOKEN_APPROXIMATION,
      },
      slos: slos.map((s) => s.text),
      runs: measured.runs,
      ...(measured.sweepAnswers ? { sweepAnswers: measured.sweepAnswers } : {}),
    };
    const meterAfter = meterBefore === undefined ? undefined : await readEndpointCounters(t.queueUrl, t.endpointId, t.apiKey);
    if (meterBefore && meterAfter) {
      const cost = runCost(t.endpointId, meterBefore, meterAfter);
      const tokens = measured.runs.reduce((a, r) => a + Math.round(r.throughput.outputTokensPerSec * (r.wallMs / 1000)), 0);
      section = { ...section, cost, costPerMillionOutputTokensUsd: cost.costUsd === null || tokens === 0 ? null : (cost.costUsd / tokens) * 1_000_000 };
    }
  } finally {
    await resolved.close();
  }
  const meta = buildMeta({
    command: invocation.commandLine,
    startedAt,
    endedAt: new Date(),
    target: { kind: t.kind, queueUrl: t.queueUrl, endpointId: t.endpointId, timeScale: t.timeScale },
    machine: collectMachineInfo(),
  });
  const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta, llm: section };
  const result: QbenchResult = { ...partial, overall: computeOverall(partial, { interrupted: io.signal.aborted }) };
  const dir = await runReportDir(startedAt, f.out);
  const [{ writeAllReports }, { renderConsole }] = await Promise.all([import('../../report/write-all.js'), import('../../report/render/console.js')]);
  const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
  io.stdout(renderConsole(result));
  io.stdout(`\nreports: ${written.dir}\n`);
  return result.overall.exitCode as ExitCode;
}
