// The work of `qbench calibrate` (declared in calibrate.ts): print the plan and its cost, ask
// before sending, run the phases (and with --llm the LLM probe) within the budget and write the
// twin and its report.
import { registerSecret, usageError } from '../../errors.js';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { apiKeyEnvName, parseTarget, requireEndpoint, URL_TARGET_GRAMMAR } from '../../target/index.js';
import { describeDist, describeLlmFit, describePrecision } from '../../calibrate/report-html.js';
import { loadInputClasses } from '../../calibrate/inputs.js';
import { DEFAULT_ASSUMPTIONS, estimateCost, formatPlan, planCalibration } from '../../calibrate/plan.js';
import { runCalibration, writeCalibration } from '../../calibrate/run-calibration.js';
import { probeRequests } from '../../calibrate/llm-probe.js';
import { timestampDirName } from '../../report/write-all.js';
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import { givenSettings, type CALIBRATE_OPTIONS } from './calibrate.js';

export async function runCalibrate(f: Flags<typeof CALIBRATE_OPTIONS>, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const spec = parseTarget(f.target, f.endpoint);
  if (spec.kind !== 'url') throw usageError(`--target: calibrate measures a deployment by URL: ${URL_TARGET_GRAMMAR}`);
  const endpointId = requireEndpoint(spec);
  const keyEnv = apiKeyEnvName(f.apiKeyEnv, io.env);
  const apiKey = io.env[keyEnv];
  if (apiKey === undefined || apiKey === '') throw usageError(`no API key: set ${keyEnv} (or name another variable with --api-key-env)`);
  registerSecret(apiKey);
  const inputs = await loadInputClasses(f.input, f.classField);
  const timeScale = f.timeScale;
  const llmProbe = { promptLengths: f.llmPromptTokens, concurrency: f.llmStreams };
  const plan = planCalibration({
    classes: inputs.classes.length,
    warmJobs: f.warmJobs,
    coldStarts: f.coldStarts,
    coldBatch: f.coldBatch,
    burstJobs: f.burstJobs,
    streamJobs: f.streamJobs,
    maxJobs: f.maxJobs,
    maxDurationMs: f.maxDurationMs,
    llmRequests: f.llm ? probeRequests(llmProbe) : 0,
    ...(f.llm ? { llmProbe } : {}),
    ...(f.precision !== undefined ? { precision: f.precision / 100 } : {}),
  });
  const given = givenSettings(f, endpointId);
  const assumed = <T>(v: T | undefined, fallback: T) => (v === undefined ? { value: fallback, source: 'service default' as const } : { value: v, source: 'given' as const });
  const cost = estimateCost(plan, {
    workersMax: assumed(given.workersMax, DEFAULT_ASSUMPTIONS.workersMax),
    idleTimeoutS: assumed(given.idleTimeoutS, DEFAULT_ASSUMPTIONS.idleTimeoutS),
    gpuTypeId: given.gpuTypeId,
    gpuCount: given.gpuCount ?? 1,
    pricePerS: f.pricePerS,
  });
  const where = `${spec.queueUrl}/v2/${endpointId}`;
  io.stdout(formatPlan(where, plan, cost, given.gpuCount ?? 1));
  if (!f.yes) {
    if (io.ask === undefined) throw usageError('stdin is not a terminal, so nothing can confirm the plan: add --yes to start the calibration without a prompt');
    const answer = await io.ask('Send these jobs? [y/N] ');
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.stdout('calibration not started: nothing was sent\n');
      return EXIT.OK;
    }
  }
  const report = await runCalibration({
    queueUrl: spec.queueUrl,
    endpointId,
    apiKey,
    classes: inputs.classes,
    classField: inputs.classField,
    plan,
    cost,
    given,
    timeScale: timeScale === undefined ? { value: 1, source: 'default' } : { value: timeScale, source: 'given' },
    healthPollMs: f.healthPollMs ?? Math.max(5, Math.round(250 / (timeScale ?? 1))),
    seed: f.seed,
    command: invocation.commandLine,
    signal: io.signal,
    log: (line) => io.stderr(`${line}\n`),
    llmScheduling: { ...(f.llmScheduler !== undefined ? { scheduler: f.llmScheduler } : {}), ...(f.llmBatchTokens !== undefined ? { maxBatchedTokens: f.llmBatchTokens } : {}) },
  });
  const out = f.out ?? `reports/calibrate-${timestampDirName(report.startedAt)}`;
  const written = await writeCalibration(report, out);
  io.stdout(`\n${report.budget.jobsSent} jobs sent (at most ${plan.maxJobs}), ${(report.budget.realMs / 1000).toFixed(1)} s\n`);
  for (const s of report.settings) io.stdout(`  ${s.name.padEnd(14)} ${String(s.value).padEnd(12)} ${s.source}\n`);
  for (const fit of report.fits) io.stdout(`  ${`${fit.part}${fit.classId !== undefined ? `[${fit.classId}]` : ''}`.padEnd(20)} n=${String(fit.n).padEnd(4)} KS ${fit.gof.ks.toFixed(3)} ${describeDist(fit.dist)}\n${''.padEnd(28)}${describePrecision(fit)}\n`);
  if (report.llm !== undefined) io.stdout(`  ${'llm engine'.padEnd(20)} ${describeLlmFit(report.llm)}\n`);
  for (const n of report.notes) io.stdout(`  note: ${n}\n`);
  io.stdout(`\nwrote ${written.emulatorConfig}, ${written.json}, ${written.html}\nserve the twin: qbench emulate --emulator-config ${written.emulatorConfig}\n`);
  if (report.llm !== undefined) io.stdout(`plan on it: qbench plan --twin ${written.emulatorConfig} --llm --rate <requests/s> --prompt-tokens <n> --output-tokens <n> --slo 'p99(ttft)<2s'\n`);
  if (f.llm && report.llm === undefined) {
    io.stderr('qbench calibrate: --llm: the LLM probe did not finish: no engine was fitted (see the notes)\n');
    return EXIT.INVALID_MEASUREMENT;
  }
  if (report.jobs.completed === 0 && report.llm === undefined) {
    io.stderr('qbench calibrate: no job completed: nothing was measured (see the notes and phases in the report)\n');
    return EXIT.INVALID_MEASUREMENT;
  }
  return EXIT.OK;
}
