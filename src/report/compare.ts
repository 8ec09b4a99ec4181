// `qbench compare`: a candidate run against a baseline, per scenario and step. Each
// latency percentile gets a bootstrap confidence interval of its relative change, resampled from
// the decoded HDR histograms (fixed seed, bounded iterations), so noise is not called a regression;
// error and 429 rates get a two-proportion interval. A regression is a significant change that is
// worse than its margin.
import { QbenchError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { SECOND_MS } from '../spec/index.js';
import {
  COMPARE_METRICS,
  COMPARISON_SCHEMA_VERSION,
  QbenchComparison,
  type CompareMetric,
  type MetricChange,
  type RunRef,
  type ScenarioComparison,
  type StepComparison,
} from '../result/compare-model.js';
import { bucketsOf, decodeHistogram, type Histogram } from '../result/histogram.js';
import type { LoadScenarioResult, QbenchResult, StepResult } from '../result/model.js';
import { COMPARE_LIMITS, DEFAULT_MAX_REGRESSION } from './compare-limits.js';
import { beta, normal, seededRng, type Rng } from './random.js';
import { fmtChange, fmtMs, fmtRate, fmtRatio } from './render/format.js';

export { COMPARE_LIMITS, DEFAULT_MAX_REGRESSION };

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

const PERCENTILE_OF: Readonly<Partial<Record<CompareMetric, number>>> = { p50: 50, p90: 90, p95: 95, p99: 99, p999: 99.9 };

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

/** Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0 || p >= 1) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/** The 1-based rank of the p-th percentile of n values: rounded up, ignoring floating-point dust (as HdrHistogram does). */
function rankOf(p: number, n: number): number {
  const x = (p / 100) * n;
  return Math.min(n, Math.max(1, Math.ceil(x - x * 1e-12)));
}

/** A histogram as an inverse CDF: value (ms) at a cumulative fraction u in [0, 1]. */
class Quantiles {
  private readonly values: Float64Array;
  private readonly cumulative: Float64Array;
  readonly count: number;

  constructor(h: Histogram) {
    const buckets = bucketsOf(h);
    this.values = new Float64Array(buckets.map((b) => b.valueUs / 1_000));
    this.cumulative = new Float64Array(buckets.length);
    let sum = 0;
    buckets.forEach((b, i) => {
      sum += b.count;
      this.cumulative[i] = sum;
    });
    this.count = sum;
  }

  /** The k-th smallest value (1-based rank). */
  atRank(rank: number): number {
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cumulative[mid] ?? 0) >= rank) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo] ?? 0;
  }

  at(u: number): number {
    return this.atRank(Math.min(this.count, Math.max(1, Math.ceil(u * this.count))));
  }

  /** The percentile of this sample, the way HdrHistogram's getValueAtPercentile computes it. */
  percentile(p: number): number {
    return this.atRank(rankOf(p, this.count));
  }

  /**
   * One bootstrap replicate of the p-th percentile. Resampling n values from the empirical
   * distribution and taking the k-th smallest is the same as mapping the k-th order statistic
   * of n uniforms, which is Beta(k, n - k + 1), through the inverse CDF: exact, and O(log n)
   * per replicate instead of O(n).
   */
  resamplePercentile(p: number, rng: Rng): number {
    const n = this.count;
    const k = rankOf(p, n);
    return this.at(beta(rng, k, n - k + 1));
  }

  mean(): number {
    let s = 0;
    let prev = 0;
    this.values.forEach((v, i) => {
      const c = (this.cumulative[i] ?? 0) - prev;
      prev = this.cumulative[i] ?? 0;
      s += v * c;
    });
    return this.count > 0 ? s / this.count : 0;
  }

  stddev(): number {
    const m = this.mean();
    let s = 0;
    let prev = 0;
    this.values.forEach((v, i) => {
      const c = (this.cumulative[i] ?? 0) - prev;
      prev = this.cumulative[i] ?? 0;
      s += (v - m) ** 2 * c;
    });
    return this.count > 1 ? Math.sqrt(s / (this.count - 1)) : 0;
  }
}

const quantileOf = (sorted: number[], q: number): number => {
  if (sorted.length === 0) return 0;
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] ?? 0) + ((sorted[hi] ?? 0) - (sorted[lo] ?? 0)) * (pos - lo);
};

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Percentile bootstrap interval of the relative change (percent) of one statistic. */
function bootstrapChange(iterations: number, level: number, draw: () => [number, number]): { lowPct: number; highPct: number } {
  const changes: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const [b, c] = draw();
    if (b > 0) changes.push((c / b - 1) * 100);
  }
  changes.sort((x, y) => x - y);
  const alpha = (1 - level) / 2;
  return { lowPct: round(quantileOf(changes, alpha)), highPct: round(quantileOf(changes, 1 - alpha)) };
}

interface Ctx {
  margins: Partial<Record<CompareMetric, number>>;
  level: number;
  iterations: number;
  rng: Rng;
}

function latencyMetrics(b: Histogram | undefined, c: Histogram | undefined, ctx: Ctx): MetricChange[] {
  const qb = b && b.totalCount > 0 ? new Quantiles(b) : undefined;
  const qc = c && c.totalCount > 0 ? new Quantiles(c) : undefined;
  const out: MetricChange[] = [];
  for (const metric of ['p50', 'p90', 'p95', 'p99', 'p999', 'mean'] as const) {
    const margin = ctx.margins[metric] ?? null;
    const p = PERCENTILE_OF[metric];
    const base = qb ? (p === undefined ? qb.mean() : qb.percentile(p)) : null;
    const cand = qc ? (p === undefined ? qc.mean() : qc.percentile(p)) : null;
    let ci: MetricChange['ci'] = null;
    if (qb && qc && base !== null && base > 0) {
      const draw: () => [number, number] =
        p === undefined
          ? (() => {
              const [sb, sc] = [qb.stddev() / Math.sqrt(qb.count), qc.stddev() / Math.sqrt(qc.count)];
              const [mb, mc] = [qb.mean(), qc.mean()];
              return () => [mb + sb * normal(ctx.rng), mc + sc * normal(ctx.rng)];
            })()
          : () => [qb.resamplePercentile(p, ctx.rng), qc.resamplePercentile(p, ctx.rng)];
      ci = { ...bootstrapChange(ctx.iterations, ctx.level, draw), level: ctx.level };
    }
    const changePct = base !== null && cand !== null && base > 0 ? round((cand / base - 1) * 100) : null;
    const significant = ci !== null && (ci.lowPct > 0 || ci.highPct < 0);
    out.push({
      metric,
      unit: 'ms',
      baseline: base === null ? null : round(base),
      candidate: cand === null ? null : round(cand),
      changePct,
      ci,
      significant,
      maxRegressionPct: margin,
      regression: significant && ci !== null && ci.lowPct > 0 && margin !== null && changePct !== null && changePct > margin,
      improvement: significant && ci !== null && ci.highPct < 0,
    });
  }
  return out;
}

const totalOf = (s: StepResult): number => s.counts['2xx'] + s.counts['429'] + s.counts['4xx'] + s.counts['5xx'] + s.counts.network_error;

/** Change of a proportion in percentage points with a normal-approximation interval. */
function rateMetric(metric: 'error_rate' | 'rate_429', hb: number, nb: number, hc: number, nc: number, ctx: Ctx): MetricChange {
  const margin = ctx.margins[metric] ?? null;
  const pb = nb > 0 ? hb / nb : null;
  const pc = nc > 0 ? hc / nc : null;
  let ci: MetricChange['ci'] = null;
  let changePct: number | null = null;
  if (pb !== null && pc !== null) {
    changePct = round((pc - pb) * 100, 4);
    // add-one smoothing keeps the interval honest when a side saw zero errors
    const [sb, sc] = [(hb + 1) / (nb + 2), (hc + 1) / (nc + 2)];
    const se = Math.sqrt((sb * (1 - sb)) / nb + (sc * (1 - sc)) / nc) * 100;
    const z = normalQuantile(1 - (1 - ctx.level) / 2);
    ci = { lowPct: round(changePct - z * se, 4), highPct: round(changePct + z * se, 4), level: ctx.level };
  }
  const significant = ci !== null && (ci.lowPct > 0 || ci.highPct < 0);
  return {
    metric,
    unit: 'ratio',
    baseline: pb === null ? null : round(pb, 6),
    candidate: pc === null ? null : round(pc, 6),
    changePct,
    ci,
    significant,
    maxRegressionPct: margin,
    regression: significant && ci !== null && ci.lowPct > 0 && margin !== null && changePct !== null && changePct > margin,
    improvement: significant && ci !== null && ci.highPct < 0,
  };
}

function throughputMetric(b: number | null, c: number | null, ctx: Ctx): MetricChange {
  const margin = ctx.margins.throughput ?? null;
  const changePct = b !== null && c !== null && b > 0 ? round((c / b - 1) * 100) : null;
  // one number per run: no distribution to resample; only an explicit margin judges it
  const drop = changePct !== null && margin !== null && -changePct > margin;
  return {
    metric: 'throughput',
    unit: 'per_sec',
    baseline: b === null ? null : round(b),
    candidate: c === null ? null : round(c),
    changePct,
    ci: null,
    significant: drop,
    maxRegressionPct: margin,
    regression: drop,
    improvement: false,
  };
}

function compareStep(step: string, sb: LoadScenarioResult | undefined, sc: LoadScenarioResult | undefined, ctx: Ctx, latency: 'corrected' | 'service'): StepComparison {
  const b = sb?.steps.find((x) => x.step === step);
  const c = sc?.steps.find((x) => x.step === step);
  const hist = (s: LoadScenarioResult | undefined, st: StepResult | undefined) =>
    st && s ? decodeHistogram((latency === 'corrected' ? st.latency : st.serviceTime).histogram, `${s.name}.${step}`) : undefined;
  const nb = b ? totalOf(b) : 0;
  const nc = c ? totalOf(c) : 0;
  const perSec = (s: LoadScenarioResult | undefined, n: number) => (s && s.durationMs > 0 ? n / (s.durationMs / SECOND_MS) : null);
  const errors = (st: StepResult | undefined) => (st ? st.counts['4xx'] + st.counts['5xx'] + st.counts.network_error : 0);
  return {
    step,
    baselineCount: nb,
    candidateCount: nc,
    metrics: [
      ...latencyMetrics(hist(sb, b), hist(sc, c), ctx),
      throughputMetric(b ? perSec(sb, b.counts['2xx']) : null, c ? perSec(sc, c.counts['2xx']) : null, ctx),
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

  if (!scenarios.some((s) => s.presence === 'both')) {
    throw new QbenchError(
      'QB_ERR_USAGE',
      `nothing to compare: ${options.baselineFile} has scenarios [${bs.map((s) => s.name).join(', ')}], ${options.candidateFile} has [${cs.map((s) => s.name).join(', ')}]; compare needs at least one load scenario in both`,
    );
  }
  const regressions: string[] = [];
  for (const s of scenarios) {
    if (s.invalid.length > 0) continue;
    for (const st of s.steps) {
      for (const m of st.metrics.filter((x) => x.regression)) {
        const u = m.unit === 'ratio' ? ' pts' : '%';
        const fmt = (v: number | null) => (m.unit === 'ms' ? fmtMs(v) : m.unit === 'per_sec' ? fmtRate(v) : fmtRatio(v));
        regressions.push(
          `${s.name}/${st.step} ${m.metric}: ${fmt(m.baseline)} → ${fmt(m.candidate)} (${fmtChange(m.changePct, u)}${m.ci ? `, ${Math.round(level * 100)}% CI ${fmtChange(m.ci.lowPct, u)} … ${fmtChange(m.ci.highPct, u)}` : ''}) is over the allowed ${m.maxRegressionPct}${u}`,
        );
      }
    }
  }
  const invalid = scenarios.flatMap((s) => s.invalid);
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
            reasons: [`no significant regression over the margins in ${compared} scenario${compared === 1 ? '' : 's'}`, ...notes],
          };
  return QbenchComparison.parse({
    schemaVersion: COMPARISON_SCHEMA_VERSION,
    kind: 'qbench-comparison',
    createdAt: (options.now ?? new Date()).toISOString(),
    baseline: runRef(baseline, options.baselineFile),
    candidate: runRef(candidate, options.candidateFile),
    options: { latency, maxRegressionPct: margins, confidenceLevel: level, iterations, seed },
    scenarios,
    verdict,
  });
}
