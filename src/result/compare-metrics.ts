// The metric names `qbench compare --max-regression` accepts, apart from the comparison's schema
// so that the command's option declarations read them without loading zod schemas.

/** Metrics of a load step a --max-regression margin may name. */
export const LOAD_COMPARE_METRICS = ['p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'throughput', 'error_rate', 'rate_429'] as const;
/** Metrics of an LLM load level (`qbench llm`) a margin may name; error_rate is shared with the load steps. */
export const LLM_COMPARE_METRICS = [
  'ttft_p50',
  'ttft_p90',
  'ttft_p99',
  'itl_p50',
  'itl_p90',
  'itl_p99',
  'tpot_p50',
  'tpot_p90',
  'tpot_p99',
  'e2e_p50',
  'e2e_p90',
  'e2e_p99',
  'tokens_per_sec',
  'goodput',
] as const;
/** Metrics a --max-regression margin may name. */
export const COMPARE_METRICS = [...LOAD_COMPARE_METRICS, ...LLM_COMPARE_METRICS] as const;
