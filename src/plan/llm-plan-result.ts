// An LLM plan (llm-plan.ts) as the result model's `llmPlan` section: every setting simulated with
// its SLO figures, the choice within the budget, why each cheaper setting misses (an SLO's figure
// against its limit, requests left unfinished, or more output tokens offered than the workers
// decode), and, when nothing meets the SLOs, what would be needed.
import { endpointDeployment, type EmulatorConfig } from '../emulator/config.js';
import type { LlmEngine } from '../deployment/index.js';
import type { LlmPlanPoint as ResultPoint, LlmPlanSection, LlmPlanSlo } from '../result/model.js';
import type { LlmTraffic } from '../sim/llm-simulate.js';
import { peakDecodeTokensPerSec, type LlmPlan, type LlmPlanPoint } from './llm-plan.js';

export interface LlmPlanSectionInput {
  readonly plan: LlmPlan;
  readonly twin: EmulatorConfig;
  readonly twinFile: string;
  readonly traffic: LlmTraffic;
  readonly workers: readonly number[];
  readonly jobsPerWorker: readonly number[];
  readonly budgetPerHourUsd?: number | undefined;
  readonly seed: number;
  readonly wallMs: number;
}

/** Cheaper settings listed with why they miss, fewest workers last. */
const NEAR_MISSES = 8;

const ms = (v: number): string => (v >= 10_000 ? `${(v / 1_000).toFixed(1)} s` : v >= 1_000 ? `${(v / 1_000).toFixed(2)} s` : `${v.toFixed(v >= 100 ? 0 : 1)} ms`);

export function describeEngine(e: LlmEngine): string {
  const batch = e.streamBatch.max === 1 ? 'a token per chunk' : `chunks of ${e.streamBatch.min} growing x${e.streamBatch.growthFactor} to ${e.streamBatch.max} tokens`;
  return `decode ${e.decodeTokensPerSec.toFixed(1)} tok/s alone, contention ${e.decodeContention.toFixed(3)} per stream; prefill ${Math.round(e.prefillTokensPerSec)} tok/s + ${e.prefillBaseMs.toFixed(1)} ms (${e.scheduler}); ${batch}`;
}

/** Why one setting misses, in words: each SLO missed with its figure, requests left unfinished, or overload. */
function missesOf(p: LlmPlanPoint, offeredTokensPerSec: number, engine: LlmEngine): string[] {
  if (p.overloaded) {
    const peak = p.workers * peakDecodeTokensPerSec(engine, p.jobsPerWorker);
    return [`overloaded (${offeredTokensPerSec.toFixed(0)} output tok/s offered, ${p.workers} worker(s) of concurrency ${p.jobsPerWorker} decode at most ${peak.toFixed(0)})`];
  }
  const out = p.verdicts.filter((v) => !v.holds).map((v) => `misses ${v.slo.text} at ${v.valueMs === undefined ? 'no figure' : ms(v.valueMs)}`);
  if (p.completedShare < 1) out.push(`leaves ${((1 - p.completedShare) * 100).toFixed(1)}% of the measured requests unfinished within the simulated span`);
  return out;
}

/** What would be needed when no setting meets the SLOs: more workers, or what no worker count changes. */
function neededOf(i: LlmPlanSectionInput, engine: LlmEngine, offeredTokensPerSec: number, overBudget: LlmPlanPoint | undefined): string[] {
  const { plan, traffic } = i;
  if (overBudget !== undefined) {
    return [`${overBudget.workers} worker(s) of concurrency ${overBudget.jobsPerWorker} meet every SLO at $${overBudget.costPerHourUsd.toFixed(2)}/h, above the budget of $${(i.budgetPerHourUsd ?? 0).toFixed(2)}/h: raise --budget`];
  }
  const most = Math.max(...i.workers);
  const out: string[] = [];
  const peakOne = Math.max(...i.jobsPerWorker.map((c) => peakDecodeTokensPerSec(engine, c)));
  if (offeredTokensPerSec > most * peakOne) {
    out.push(`${offeredTokensPerSec.toFixed(0)} output tok/s offered (${traffic.ratePerSec} requests/s x ${traffic.outputTokens} tokens); one worker decodes at most ${peakOne.toFixed(0)}: at least ${Math.ceil(offeredTokensPerSec / peakOne)} workers (--workers-min up to that)`);
  }
  // The SLOs the best-served setting (most workers, lowest concurrency) still misses: an ITL or
  // TTFT floor of the engine itself, which no worker count lowers.
  const best = plan.points.filter((p) => p.workers === most && !p.overloaded).sort((a, b) => a.jobsPerWorker - b.jobsPerWorker)[0];
  for (const v of best?.verdicts ?? []) {
    if (v.holds || v.valueMs === undefined) continue;
    const floor = v.slo.metric === 'itl' || v.slo.metric === 'tpot' ? ' (the engine decodes a token every ' + ms(1_000 / engine.decodeTokensPerSec) + ' alone; chunk batching spreads the gaps a client reads)' : '';
    out.push(`${v.slo.text}: ${ms(v.valueMs)} even with ${most} worker${most === 1 ? '' : 's'} of concurrency ${best?.jobsPerWorker ?? '?'}${floor}: more workers${v.slo.metric === 'ttft' || v.slo.metric === 'e2e' ? ' (--workers-min)' : ''}, a lower concurrency (--jobs-per-worker), or a faster engine`);
  }
  if (out.length === 0) out.push(`no setting of up to ${most} workers meets ${plan.points[0]?.verdicts.map((v) => v.slo.text).join(', ') ?? 'the SLOs'}: try more workers (--workers-min)`);
  return out;
}

function resultPoint(p: LlmPlanPoint, budget: number | undefined): ResultPoint {
  const n = (v: number | undefined): number | null => (v === undefined ? null : v);
  return {
    workers: p.workers,
    jobsPerWorker: p.jobsPerWorker,
    ttft: { p50Ms: n(p.ttftP50Ms), p99Ms: n(p.ttftP99Ms) },
    itl: { p50Ms: n(p.itlP50Ms), p99Ms: n(p.itlP99Ms) },
    outputTokensPerSec: p.outputTokensPerSec,
    completedShare: p.completedShare,
    sloFigures: p.verdicts.map((v) => n(v.valueMs)),
    meets: p.verdicts.map((v) => v.holds),
    overloaded: p.overloaded,
    costPerHourUsd: p.costPerHourUsd,
    costPerMillionOutputTokensUsd: n(p.costPerMillionOutputTokensUsd),
    withinBudget: budget === undefined || p.costPerHourUsd <= budget,
  };
}

export function llmPlanSection(i: LlmPlanSectionInput): LlmPlanSection {
  const { plan, traffic } = i;
  const d = endpointDeployment(i.twin, plan.endpointId);
  const engine = d.engine as LlmEngine;
  const offered = traffic.ratePerSec * traffic.outputTokens;
  const first = plan.points[0];
  const slos: LlmPlanSlo[] = (first?.verdicts ?? []).map((v) => ({ text: v.slo.text, metric: v.slo.metric, percentile: v.slo.percentile, thresholdMs: v.slo.limitMs, inclusive: v.slo.inclusive }));
  const withinBudget = plan.choice !== undefined && (i.budgetPerHourUsd === undefined || plan.choice.costPerHourUsd <= i.budgetPerHourUsd);
  const chosen = withinBudget && plan.choice !== undefined ? plan.points.indexOf(plan.choice) : null;
  const overBudget = !withinBudget ? plan.choice : undefined;
  const nearMisses =
    chosen === null
      ? []
      : plan.points
          .map((p, k) => ({ p, k }))
          .filter(({ p }) => p.costPerHourUsd < (plan.choice as LlmPlanPoint).costPerHourUsd)
          .sort((a, b) => b.p.workers - a.p.workers || a.p.jobsPerWorker - b.p.jobsPerWorker)
          .slice(0, NEAR_MISSES)
          .map(({ p, k }) => ({ point: k, misses: missesOf(p, offered, engine) }));
  const answer = chosen === null && overBudget !== undefined ? `${plan.answer}; above the budget of $${(i.budgetPerHourUsd ?? 0).toFixed(2)}/h` : plan.answer;
  return {
    twin: { file: i.twinFile, endpointId: plan.endpointId, gpuTypeId: plan.gpuTypeId, gpuCount: d.gpuCount, pricePerWorkerHourUsd: plan.pricePerWorkerHourUsd, engine: describeEngine(engine) },
    traffic: { ratePerSec: traffic.ratePerSec, durationS: traffic.durationS, warmupS: traffic.warmupS, promptTokens: traffic.promptTokens, outputTokens: traffic.outputTokens, path: traffic.path },
    slos,
    ...(i.budgetPerHourUsd !== undefined ? { budgetPerHourUsd: i.budgetPerHourUsd } : {}),
    seed: i.seed,
    grid: { workers: [...i.workers], jobsPerWorker: [...i.jobsPerWorker] },
    points: plan.points.map((p) => resultPoint(p, i.budgetPerHourUsd)),
    chosen,
    answer,
    nearMisses,
    needed: chosen === null ? neededOf(i, engine, offered, overBudget) : [],
    sweep: { simulations: plan.points.filter((p) => !p.overloaded).length, wallMs: i.wallMs },
  };
}
