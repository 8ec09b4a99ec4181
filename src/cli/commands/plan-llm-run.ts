// The work of `qbench plan --llm` (declared in plan.ts): check the flags of an LLM plan, read the
// twin and its engine, plan warm workers and per-worker concurrency for the token SLOs on the
// virtual clock (src/plan/llm-plan.ts), and write the answer with every report.
import { usageError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { endpointDeployment } from '../../emulator/config.js';
import { planLlm } from '../../plan/llm-plan.js';
import { llmPlanSection } from '../../plan/llm-plan-result.js';
import { LLM_SLO_FORMS } from '../../plan/slo.js';
import { loadTwin } from '../../sim/index.js';
import type { LlmTraffic } from '../../sim/llm-simulate.js';
import { MAX_RATE_PER_SEC } from '../../sim/traffic.js';
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import { LLM_PLAN_LIMITS, type PLAN_OPTIONS } from './plan.js';
import { writePlanResult } from './plan-run.js';

/** Arrivals simulated when --duration is not given; the first tenth of the span is not measured (the workers fill up). */
export const LLM_PLAN_DEFAULT_DURATION_S = 600;
const WARMUP_SHARE = 0.1;
const DEFAULT_WORKERS = [1, 2, 3, 4, 5, 6, 7, 8];
const DEFAULT_JOBS_PER_WORKER = [1, 2, 4, 8, 16, 32, 64];

/** What is wrong with the flags of an LLM plan, one line a flag, naming it and what it takes. */
function llmFlagProblems(f: Flags<typeof PLAN_OPTIONS>): string[] {
  const problems: string[] = [];
  const notWithLlm: Array<[string, unknown]> = [
    ['--traffic', f.traffic],
    ['--workers-max', f.workersMax],
    ['--idle-timeout', f.idleTimeoutS],
    ['--scaler-type', f.scalerType],
    ['--scaler-value', f.scalerValue],
    ['--seeds', f.seeds],
    ['--threads', f.threads],
    ['--calibration', f.calibration],
  ];
  for (const [flag, v] of notWithLlm) if (v !== undefined) problems.push(`${flag}: not with --llm (an LLM plan keeps --workers-min workers warm, tries --jobs-per-worker, and simulates one seed, --seed, of --rate for --duration)`);
  if (f.ratePerSec === undefined) problems.push(`--rate: with --llm, the requests per second (above 0, at most ${MAX_RATE_PER_SEC})`);
  if (f.promptTokens === undefined) problems.push(`--prompt-tokens: with --llm, the prompt tokens of every request (1 to ${LLM_PLAN_LIMITS.tokens})`);
  if (f.outputTokens === undefined) problems.push(`--output-tokens: with --llm, the output tokens of every request (1 to ${LLM_PLAN_LIMITS.tokens})`);
  if (f.workersMin?.includes(0) === true) problems.push('--workers-min: with --llm, the warm workers tried, each 1 or more');
  for (const s of f.slos) {
    if (s.kind === 'llm' || (s.kind === 'latency' && s.metric === 'e2e')) continue;
    problems.push(`--slo "${s.text}" judges the queue's jobs, not tokens: ${LLM_SLO_FORMS}`);
  }
  return problems;
}

export async function runLlmPlan(f: Flags<typeof PLAN_OPTIONS>, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const problems = llmFlagProblems(f);
  if (problems.length > 0) throw usageError(`invalid options for qbench plan --llm:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
  const twin = await loadTwin(f.twin);
  const endpointId = f.endpoint ?? twin.endpoints[0] ?? '';
  if (!twin.endpoints.includes(endpointId)) throw usageError(`--twin-endpoint: the twin ${f.twin} serves no endpoint "${endpointId}" (it serves ${twin.endpoints.join(', ')})`);
  const engine = endpointDeployment(twin, endpointId).engine;
  if (engine === undefined) throw usageError(`--llm: the twin's endpoint "${endpointId}" has no engine (deployments.${endpointId}.engine): give one, or fit it with qbench calibrate --llm`);
  const promptTokens = f.promptTokens as number;
  const outputTokens = f.outputTokens as number;
  if (promptTokens + outputTokens > engine.maxModelLen) {
    throw usageError(`invalid options for qbench plan --llm:\n  ✖ --prompt-tokens + --output-tokens: ${promptTokens + outputTokens} tokens, above the engine's maxModelLen of ${engine.maxModelLen} (the engine refuses such a request)`);
  }
  const durationS = (f.durationMs ?? LLM_PLAN_DEFAULT_DURATION_S * 1_000) / 1_000;
  const traffic: LlmTraffic = { ratePerSec: f.ratePerSec as number, durationS, warmupS: durationS * WARMUP_SHARE, promptTokens, outputTokens, path: 'chat' };
  const workers = f.workersMin ?? DEFAULT_WORKERS;
  const jobsPerWorker = f.jobsPerWorker ?? DEFAULT_JOBS_PER_WORKER;
  const startedAt = new Date();
  const wallStart = performance.now();
  const plan = planLlm({ twin, endpointId, traffic, slos: f.slos.map((s) => s.text), workers, concurrency: jobsPerWorker, seed: f.seed });
  const llmPlan = llmPlanSection({ plan, twin, twinFile: f.twin, traffic, workers, jobsPerWorker, budgetPerHourUsd: f.budgetPerHourUsd, seed: f.seed, wallMs: performance.now() - wallStart });
  return writePlanResult({ llmPlan }, endpointId, startedAt, f, io, invocation);
}
