// `qbench compare`: a candidate run against a baseline, per scenario and step, and per LLM path
// and load level (compare-llm.ts). Each latency percentile gets a bootstrap confidence interval of
// its relative change, resampled from the decoded HDR histograms (fixed seed, bounded iterations),
// so noise is not called a regression; error and 429 rates get a two-proportion interval
// (compare-stats.ts). A regression is a significant change that is worse than its margin.
import { QbenchError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { SECOND_MS } from '../spec/index.js';
import {
  COMPARE_METRICS,
  COMPARISON_SCHEMA_VERSION,
  HIGHER_IS_BETTER,
  QbenchComparison,
  type CompareMetric,
  type MetricChange,
  type RunRef,
  type ScenarioComparison,
  type StepComparison,
} from '../result/compare-model.js';
import { decodeHistogram } from '../result/histogram.js';
import type { LoadScenarioResult, QbenchResult, StepResult } from '../result/model.js';
import { COMPARE_LIMITS, DEFAULT_MAX_REGRESSION } from './compare-limits.js';
import { compareLlmSections, levelOf } from './compare-llm.js';
import { histogramMetric, onceMetric, rateMetric, type Ctx, type Statistic } from './compare-stats.js';
import { seededRng } from './random.js';
import { fmtChange, fmtMs, fmtRate, fmtRatio } from './render/format.js';

export { COMPARE_LIMITS, DEFAULT_MAX_REGRESSION };
export { normalQuantile } from './compare-stats.js';

export interface CompareOptions {
  baselineFile: string;
  candidateFile: string;
  maxRegressionPct?: Partial<Record<CompareMetric, number>>;
  latency?: 'corrected' | 'service';
  confidenceLevel?: number;
  iterations?: number;
  seed?: number;
  now?: Date;
}

const STEP_STATISTICS: readonly (readonly [CompareMetric, Statistic])[] = [
  ['p50', { percentile: 50 }],
  ['p90', { percentile: 90 }],
  ['p95', { percentile: 95 }],
  ['p99', { percentile: 99 }],
  ['p999', { percentile: 99.9 }],
  ['mean', 'mean'],
];
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
const totalOf = (s: StepResult): number => s.counts['2xx'] + s.counts['429'] + s.counts['4xx'] + s.counts['5xx'] + s.counts.network_error;

/**
 * Parse --max-regression values: `p99=10%`, `p50=5`, `error_rate=0.5%` (percentage points),
 * several flags or comma-separated. Every problem is reported at once, naming the flag.
 */
export function parseMaxRegression(values: readonly string[]): Partial<Record<CompareMetric, number>> {
  const out: Partial<Record<CompareMetric, number>> = {};
  const problems: string[] = [];
  for (const item of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)) {
    const m = /^([a-z0-9_]+)\s*=\s*(\d+(?:\.\d+)?)\s*%?$/i.exec(item);
    if (!m?.[1] || m[2] === undefined) {
      problems.push(`"${item}": expected <metric>=<percent>, e.g. p99=10%`);
      continue;
    }
    const metric = m[1].toLowerCase();
    if (!(COMPARE_METRICS as readonly string[]).includes(metric)) {
      problems.push(`"${item}": unknown metric "${metric}"; allowed: ${COMPARE_METRICS.join(', ')}`);
      continue;
    }
    const pct = Number(m[2]);
    if (!(pct >= 0 && pct <= 1_000)) {
      problems.push(`"${item}": the margin must be between 0 and 1000 percent`);
      continue;
    }
    out[metric as CompareMetric] = pct;
  }
  if (problems.length > 0) throw new QbenchError('QB_ERR_USAGE', `--max-regression: ${problems.join('; ')}`, { problems });
  return out;
}

function compareStep(step: string, sb: LoadScenarioResult | undefined, sc: LoadScenarioResult | undefined, ctx: Ctx, latency: 'corrected' | 'service'): StepComparison {
  const b = sb?.steps.find((x) => x.step === step);
  const c = sc?.steps.find((x) => x.step === step);
  const hist = (s: LoadScenarioResult | undefined, st: StepResult | undefined) =>
    st && s ? decodeHistogram((latency === 'corrected' ? st.latency : st.serviceTime).histogram, `${s.name}.${step}`) : undefined;
  const [hb, hc] = [hist(sb, b), hist(sc, c)];
  const nb = b ? totalOf(b) : 0;
  const nc = c ? totalOf(c) : 0;
  const perSec = (s: LoadScenarioResult | undefined, n: number) => (s && s.durationMs > 0 ? n / (s.durationMs / SECOND_MS) : null);
  const errors = (st: StepResult | undefined) => (st ? st.counts['4xx'] + st.counts['5xx'] + st.counts.network_error : 0);
  return {
    step,
    baselineCount: nb,
    candidateCount: nc,
    metrics: [
      ...STEP_STATISTICS.map(([metric, stat]) => histogramMetric(metric, stat, hb, hc, ctx)),
      onceMetric('throughput', b ? perSec(sb, b.counts['2xx']) : null, c ? perSec(sc, c.counts['2xx']) : null, ctx),
      rateMetric('error_rate', errors(b), nb, errors(c), nc, ctx),
      rateMetric('rate_429', b?.counts['429'] ?? 0, nb, c?.counts['429'] ?? 0, nc, ctx),
    ],
  };
}

function runRef(r: QbenchResult, file: string): RunRef {
  return {
    file,
    startedAt: r.meta.startedAt,
    qbenchVersion: r.meta.qbenchVersion,
    target: `${r.meta.target.kind} ${r.meta.target.queueUrl}`,
    ...(r.meta.labels ? { labels: r.meta.labels } : {}),
  };
}

/** Compare two results. Deterministic for a given seed. */
export function compareResults(baseline: QbenchResult, candidate: QbenchResult, options: CompareOptions): QbenchComparison {
  const iterations = options.iterations ?? COMPARE_LIMITS.defaultIterations;
  const level = options.confidenceLevel ?? COMPARE_LIMITS.defaultConfidenceLevel;
  if (!Number.isInteger(iterations) || iterations < 100 || iterations > COMPARE_LIMITS.maxIterations) {
    throw new QbenchError('QB_ERR_USAGE', `--iterations must be an integer from 100 to ${COMPARE_LIMITS.maxIterations}, got ${iterations}`);
  }
  if (!(level >= 0.5 && level < 1)) throw new QbenchError('QB_ERR_USAGE', `--confidence must be at least 0.5 and below 1, got ${level}`);
  const seed = options.seed ?? COMPARE_LIMITS.defaultSeed;
  const latency = options.latency ?? 'corrected';
  const margins = options.maxRegressionPct ?? DEFAULT_MAX_REGRESSION;
  const ctx: Ctx = { margins, level, iterations, rng: seededRng(seed) };

  const bs = baseline.load?.scenarios ?? [];
  const cs = candidate.load?.scenarios ?? [];
  const names = [...new Set([...bs.map((s) => s.name), ...cs.map((s) => s.name)])];
  const scenarios: ScenarioComparison[] = names.map((name) => {
    const sb = bs.find((s) => s.name === name);
    const sc = cs.find((s) => s.name === name);
    const presence = sb && sc ? 'both' : sb ? 'baseline-only' : 'candidate-only';
    const invalid = [
      ...(sb && !sb.validity.valid ? [`${name}: the baseline measurement is invalid (${sb.validity.reasons.join('; ') || 'generator could not keep up'})`] : []),
      ...(sc && !sc.validity.valid ? [`${name}: the candidate measurement is invalid (${sc.validity.reasons.join('; ') || 'generator could not keep up'})`] : []),
    ];
    const inconclusive = [
      ...(sb?.verdict.status === 'inconclusive' ? [`${name}: the baseline scenario was inconclusive (${sb.verdict.summary}); its figures may include traffic it did not send`] : []),
      ...(sc?.verdict.status === 'inconclusive' ? [`${name}: the candidate scenario was inconclusive (${sc.verdict.summary}); its figures may include traffic it did not send`] : []),
    ];
    const stepNames = presence === 'both' ? [...new Set([...(sb?.steps ?? []).map((s) => s.step), ...(sc?.steps ?? []).map((s) => s.step)])] : [];
    return { name, presence, steps: stepNames.map((st) => compareStep(st, sb, sc, ctx, latency)), invalid, ...(inconclusive.length > 0 ? { inconclusive } : {}) };
  });

  const llm = compareLlmSections(baseline.llm, candidate.llm, ctx);
  const llmCompared = (llm ?? []).filter((l) => l.presence === 'both').length;
  if (!scenarios.some((s) => s.presence === 'both') && llmCompared === 0) {
    const levels = (r: QbenchResult) => (r.llm ? `, LLM levels [${r.llm.runs.map((x) => `${x.path} ${levelOf(x.load)}`).join(', ')}]` : '');
    throw new QbenchError(
      'QB_ERR_USAGE',
      `nothing to compare: ${options.baselineFile} has scenarios [${bs.map((s) => s.name).join(', ')}]${levels(baseline)}, ${options.candidateFile} has [${cs.map((s) => s.name).join(', ')}]${levels(candidate)}; compare needs at least one load scenario, or one LLM path at one load level, in both`,
    );
  }
  const regressionLine = (where: string, m: MetricChange): string => {
    const u = m.unit === 'ratio' ? ' pts' : '%';
    const fmt = (v: number | null) => (m.unit === 'ms' ? fmtMs(v) : m.unit === 'per_sec' ? fmtRate(v) : fmtRatio(v));
    const allowed = `${HIGHER_IS_BETTER.has(m.metric) ? 'drop of ' : ''}${m.maxRegressionPct}${u}`;
    return `${where} ${m.metric}: ${fmt(m.baseline)} → ${fmt(m.candidate)} (${fmtChange(m.changePct, u)}${m.ci ? `, ${Math.round(level * 100)}% CI ${fmtChange(m.ci.lowPct, u)} … ${fmtChange(m.ci.highPct, u)}` : ''}) is over the allowed ${allowed}`;
  };
  const regressions: string[] = [];
  for (const s of scenarios) {
    if (s.invalid.length > 0) continue;
    for (const st of s.steps) for (const m of st.metrics.filter((x) => x.regression)) regressions.push(regressionLine(`${s.name}/${st.step}`, m));
  }
  for (const l of llm ?? []) {
    if (l.invalid.length > 0) continue;
    for (const m of l.metrics.filter((x) => x.regression)) regressions.push(regressionLine(`llm ${l.path} ${l.level}`, m));
  }
  const invalid = [...scenarios.flatMap((s) => s.invalid), ...(llm ?? []).flatMap((l) => l.invalid)];
  const notes = scenarios.flatMap((s) => s.inconclusive ?? []);
  const compared = scenarios.filter((s) => s.presence === 'both').length;
  const verdict =
    regressions.length > 0
      ? { status: 'fail' as const, exitCode: EXIT.TARGET_FAILED, reasons: [...regressions, ...invalid, ...notes] }
      : invalid.length > 0
        ? { status: 'invalid' as const, exitCode: EXIT.INVALID_MEASUREMENT, reasons: [...invalid, ...notes] }
        : {
            status: 'pass' as const,
            exitCode: EXIT.OK,
            reasons: [`no significant regression over the margins in ${[...(compared > 0 || llmCompared === 0 ? [plural(compared, 'scenario')] : []), ...(llmCompared > 0 ? [plural(llmCompared, 'LLM level')] : [])].join(' and ')}`, ...notes],
          };
  return QbenchComparison.parse({
    schemaVersion: COMPARISON_SCHEMA_VERSION,
    kind: 'qbench-comparison',
    createdAt: (options.now ?? new Date()).toISOString(),
    baseline: runRef(baseline, options.baselineFile),
    candidate: runRef(candidate, options.candidateFile),
    options: { latency, maxRegressionPct: margins, confidenceLevel: level, iterations, seed },
    scenarios,
    ...(llm !== undefined ? { llm } : {}),
    verdict,
  });
}
