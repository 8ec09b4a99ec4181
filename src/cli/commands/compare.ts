// `qbench compare <baseline.json> <candidate.json> [--max-regression p99=10%]`: per
// scenario and step, and per LLM path and load level, the change in each percentile (bootstrap CI
// from the histograms), throughput, tokens/s, goodput and error rates; exit 1 on a significant
// regression over the margin. Prints the table; --out
// writes every format.
import { z } from 'zod';
import { COMPARE_LIMITS, DEFAULT_MAX_REGRESSION } from '../../report/compare-limits.js';
import { LLM_COMPARE_METRICS, LOAD_COMPARE_METRICS } from '../../result/compare-metrics.js';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';

const defaults = Object.entries(DEFAULT_MAX_REGRESSION)
  .map(([k, v]) => `${k}=${v}%`)
  .join(',');

const ITERATIONS = `must be a whole number from 100 to ${COMPARE_LIMITS.maxIterations}`;
const CONFIDENCE = 'must be a number from 0.5 to 0.999';

export const COMPARE_OPTIONS = {
  baseline: option({ flag: 'baseline', positional: true, schema: z.string().min(1), help: 'The baseline result.json' }),
  candidate: option({ flag: 'candidate', positional: true, schema: z.string().min(1), help: 'The candidate result.json' }),
  maxRegression: option({
    flag: 'max-regression',
    kind: 'strings',
    schema: z.array(z.string()).optional(),
    help: `Allowed worsening per metric, e.g. p99=10% (latency, percent), error_rate=1% (percentage points), throughput=5% (drop); for qbench llm results ttft_p99=10%, tokens_per_sec=5% and goodput=5% (drops). Load metrics: ${LOAD_COMPARE_METRICS.join(' ')}. LLM metrics: ${LLM_COMPARE_METRICS.join(' ')}`,
    defaultHelp: defaults,
  }),
  latency: option({ flag: 'latency', choices: ['corrected', 'service'], schema: z.enum(['corrected', 'service'], { error: 'must be corrected or service' }), default: 'corrected', help: 'Which latency of the load steps to compare (corrected: from the intended start); LLM token metrics are as qbench llm measured them' }),
  confidence: option({ flag: 'confidence', kind: 'number', schema: z.number({ error: CONFIDENCE }).min(0.5, { error: CONFIDENCE }).max(0.999, { error: CONFIDENCE }), default: COMPARE_LIMITS.defaultConfidenceLevel, help: 'Confidence level of the intervals' }),
  iterations: option({
    flag: 'iterations',
    kind: 'number',
    schema: z.number({ error: ITERATIONS }).int({ error: ITERATIONS }).min(100, { error: ITERATIONS }).max(COMPARE_LIMITS.maxIterations, { error: ITERATIONS }),
    default: COMPARE_LIMITS.defaultIterations,
    help: `Bootstrap resamples per percentile (at most ${COMPARE_LIMITS.maxIterations})`,
  }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }), default: COMPARE_LIMITS.defaultSeed, help: 'Seed of the resampling; the same seed gives the same intervals' }),
  out: option({ flag: 'out', schema: z.string().min(1).optional(), help: 'Directory to write every format into (JSON, HTML, JUnit, markdown, text)' }),
  format: option({ flag: 'format', choices: ['console', 'md', 'json'], schema: z.enum(['console', 'md', 'json'], { error: 'must be console, md or json' }), default: 'console', help: 'What to print on stdout' }),
} satisfies OptionSet;

export const compareCommand = defineCommand({
  options: COMPARE_OPTIONS,
  builder: (y) =>
    y
      .example('$0 compare base.json cand.json --max-regression p99=10%', 'fail on a significant p99 regression over 10%')
      .example('$0 compare llm-base.json llm-cand.json --max-regression ttft_p90=10%,goodput=5%', 'two LLM results: fail on a significant TTFT p90 rise over 10% or a goodput drop over 5%'),
  run: lazyRun(async () => (await import('./compare-run.js')).runCompare),
});
