// The defaults and bounds of `qbench compare`, apart from the engine so that the command's
// option declarations read them without loading it.
import type { CompareMetric } from '../result/compare-model.js';

/** Margins used when --max-regression is not given: percent for latency, points for error rates. */
export const DEFAULT_MAX_REGRESSION: Readonly<Partial<Record<CompareMetric, number>>> = { p50: 10, p99: 10, error_rate: 1, ttft_p50: 10, ttft_p99: 10, itl_p99: 10 };

export const COMPARE_LIMITS = {
  defaultIterations: 2_000,
  maxIterations: 100_000,
  defaultConfidenceLevel: 0.95,
  defaultSeed: 1,
} as const;
