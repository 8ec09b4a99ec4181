// The result of `qbench compare`: per scenario and step, the change in each latency
// percentile (with a bootstrap confidence interval from the HDR histograms), in throughput and
// in error rates; per LLM path and load level, the same for TTFT, ITL, TPOT and e2e, with output
// tokens/s and goodput; and the verdict against the allowed regression margins. Versioned like the result.
import { z } from 'zod';
import { COMPARE_METRICS } from './compare-metrics.js';
import { LlmLoad, LlmPath, SCHEMA_VERSION } from './model.js';

export { COMPARE_METRICS, LLM_COMPARE_METRICS, LOAD_COMPARE_METRICS } from './compare-metrics.js';

export const COMPARISON_SCHEMA_VERSION = SCHEMA_VERSION;

export const CompareMetric = z.enum(COMPARE_METRICS);
export type CompareMetric = z.infer<typeof CompareMetric>;

export const RunRef = z.strictObject({
  file: z.string(),
  startedAt: z.string(),
  qbenchVersion: z.string(),
  target: z.string(),
  labels: z.record(z.string(), z.string()).optional(),
});
export type RunRef = z.infer<typeof RunRef>;

export const MetricChange = z.strictObject({
  metric: CompareMetric,
  /** 'ms' for latency, 'per_sec' for throughput, tokens/s and goodput, 'ratio' for error rates (0..1). */
  unit: z.enum(['ms', 'per_sec', 'ratio']),
  baseline: z.number().nullable(),
  candidate: z.number().nullable(),
  /** Relative change in percent (latency, throughput); for rates the change in percentage points. */
  changePct: z.number().nullable(),
  /** Confidence interval of changePct (bootstrap for percentiles, normal approximation for rates). */
  ci: z.strictObject({ lowPct: z.number(), highPct: z.number(), level: z.number() }).nullable(),
  /** The interval excludes "no change". */
  significant: z.boolean(),
  /** Allowed worsening (percent, or percentage points for rates); null: reported only. */
  maxRegressionPct: z.number().nullable(),
  /** Worse than the margin and significant. */
  regression: z.boolean(),
  /** Better, and significant. */
  improvement: z.boolean(),
  /** Why it has no interval and is never significant: a run with too few requests to place the percentile. */
  unjudged: z.string().optional(),
});
export type MetricChange = z.infer<typeof MetricChange>;

export const StepComparison = z.strictObject({
  step: z.string(),
  baselineCount: z.number().int().nonnegative(),
  candidateCount: z.number().int().nonnegative(),
  metrics: z.array(MetricChange),
});
export type StepComparison = z.infer<typeof StepComparison>;

export const ScenarioComparison = z.strictObject({
  name: z.string(),
  /** Present in one run only: reported, never a regression. */
  presence: z.enum(['both', 'baseline-only', 'candidate-only']),
  steps: z.array(StepComparison),
  /** Either run's measurement was invalid: its latency says nothing about the target. */
  invalid: z.array(z.string()),
  /**
   * Either run's scenario was inconclusive (it could not set up what it judges, e.g. a rate
   * window other traffic used): compared all the same, but its counts may include what it did not send.
   */
  inconclusive: z.array(z.string()).optional(),
});
export type ScenarioComparison = z.infer<typeof ScenarioComparison>;

/** Metrics whose drop is the regression (every other metric regresses upwards). */
export const HIGHER_IS_BETTER: ReadonlySet<CompareMetric> = new Set<CompareMetric>(['throughput', 'tokens_per_sec', 'goodput']);

/** One LLM path at one load level (`qbench llm`), matched between the runs by path and level. */
export const LlmLevelComparison = z.strictObject({
  path: LlmPath,
  /** The level in words, the key it was matched by: "rate 4/s", "concurrency 8" (with the sweep role when a run repeats a level). */
  level: z.string(),
  load: LlmLoad,
  /** Present in one run only: reported, never a regression. */
  presence: z.enum(['both', 'baseline-only', 'candidate-only']),
  /** Requests sent (completed and failed). */
  baselineCount: z.number().int().nonnegative(),
  candidateCount: z.number().int().nonnegative(),
  metrics: z.array(MetricChange),
  /** Either run's generator fell behind its schedule: its figures say nothing about the target. */
  invalid: z.array(z.string()),
});
export type LlmLevelComparison = z.infer<typeof LlmLevelComparison>;

export const QbenchComparison = z.strictObject({
  schemaVersion: z.string().regex(/^\d+\.\d+\.\d+$/),
  kind: z.literal('qbench-comparison'),
  createdAt: z.string(),
  baseline: RunRef,
  candidate: RunRef,
  options: z.strictObject({
    latency: z.enum(['corrected', 'service']),
    maxRegressionPct: z.partialRecord(CompareMetric, z.number()),
    confidenceLevel: z.number().gt(0).lt(1),
    iterations: z.number().int().positive(),
    seed: z.number().int(),
  }),
  scenarios: z.array(ScenarioComparison),
  /** Both results carry an `llm` section: its levels compared. */
  llm: z.array(LlmLevelComparison).optional(),
  verdict: z.strictObject({
    status: z.enum(['pass', 'fail', 'invalid']),
    exitCode: z.number().int(),
    reasons: z.array(z.string()),
  }),
});
export type QbenchComparison = z.infer<typeof QbenchComparison>;
