// `qbench compare <baseline.json> <candidate.json> [--max-regression p99=10%]` (issue 7): per
// scenario and step, the change in each percentile (bootstrap CI from the histograms), throughput
// and error rates; exit 1 on a significant regression over the margin. Prints the table; --out
// writes every format.
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { COMPARE_LIMITS, DEFAULT_MAX_REGRESSION, compareResults, parseMaxRegression } from '../../report/compare.js';
import { readResult } from '../../report/read-result.js';
import { renderComparisonConsole } from '../../report/render/console.js';
import { renderJson } from '../../report/render/json.js';
import { renderComparisonMarkdown } from '../../report/render/markdown.js';
import { writeComparisonReports } from '../../report/write-all.js';
import type { CommandModule } from '../command.js';
import { parseFlags } from '../flags.js';

const Args = z.object({
  baseline: z.string().min(1),
  candidate: z.string().min(1),
  'max-regression': z.array(z.string()).optional(),
  latency: z.enum(['corrected', 'service'], { error: '--latency must be corrected or service' }).default('corrected'),
  confidence: z
    .number({ error: '--confidence must be a number' })
    .min(0.5, { error: '--confidence must be from 0.5 to 0.999' })
    .max(0.999, { error: '--confidence must be from 0.5 to 0.999' })
    .default(COMPARE_LIMITS.defaultConfidenceLevel),
  iterations: z
    .number({ error: '--iterations must be a number' })
    .int({ error: '--iterations must be a whole number' })
    .min(100, { error: `--iterations must be from 100 to ${COMPARE_LIMITS.maxIterations}` })
    .max(COMPARE_LIMITS.maxIterations, { error: `--iterations must be from 100 to ${COMPARE_LIMITS.maxIterations}` })
    .default(COMPARE_LIMITS.defaultIterations),
  seed: z.number({ error: '--seed must be a number' }).int({ error: '--seed must be a whole number' }).default(COMPARE_LIMITS.defaultSeed),
  out: z.string().min(1).optional(),
  format: z.enum(['console', 'md', 'json'], { error: '--format must be console, md or json' }).default('console'),
});

const defaults = Object.entries(DEFAULT_MAX_REGRESSION)
  .map(([k, v]) => `${k}=${v}%`)
  .join(',');

export const compareCommand: CommandModule = {
  command: 'compare <baseline> <candidate>',
  describe: 'Compare a candidate run with a baseline: percentile changes with bootstrap confidence intervals, throughput and error rates; exit 1 on a significant regression',
  builder: (y) =>
    y
      .positional('baseline', { type: 'string', describe: 'The baseline result.json' })
      .positional('candidate', { type: 'string', describe: 'The candidate result.json' })
      .option('max-regression', {
        type: 'string',
        array: true,
        describe: `Allowed worsening per metric, e.g. p99=10% (latency, percent), error_rate=1% (percentage points), throughput=5% (drop). Metrics: p50 p90 p95 p99 p999 mean throughput error_rate rate_429. Default ${defaults}`,
      })
      .option('latency', { type: 'string', choices: ['corrected', 'service'], describe: 'Which latency to compare (default corrected: from the intended start)' })
      .option('confidence', { type: 'number', describe: `Confidence level of the intervals (default ${COMPARE_LIMITS.defaultConfidenceLevel})` })
      .option('iterations', { type: 'number', describe: `Bootstrap resamples per percentile (default ${COMPARE_LIMITS.defaultIterations}, at most ${COMPARE_LIMITS.maxIterations})` })
      .option('seed', { type: 'number', describe: `Seed of the resampling (default ${COMPARE_LIMITS.defaultSeed}); the same seed gives the same intervals` })
      .option('out', { type: 'string', describe: 'Directory to write every format into (JSON, HTML, JUnit, markdown, text)' })
      .option('format', { type: 'string', choices: ['console', 'md', 'json'], describe: 'What to print on stdout (default console)' })
      .example('$0 compare base.json cand.json --max-regression p99=10%', 'fail on a significant p99 regression over 10%'),
  run: async (argv, io): Promise<ExitCode> => {
    const a = parseFlags('compare', Args, argv);
    const margins = a['max-regression'] && a['max-regression'].length > 0 ? parseMaxRegression(a['max-regression']) : { ...DEFAULT_MAX_REGRESSION };
    const [baseline, candidate] = await Promise.all([readResult(a.baseline), readResult(a.candidate)]);
    const comparison = compareResults(baseline, candidate, {
      baselineFile: a.baseline,
      candidateFile: a.candidate,
      maxRegressionPct: margins,
      latency: a.latency,
      confidenceLevel: a.confidence,
      iterations: a.iterations,
      seed: a.seed,
    });
    io.stdout(a.format === 'json' ? renderJson(comparison) : a.format === 'md' ? renderComparisonMarkdown(comparison) : renderComparisonConsole(comparison, { color: io.isTty }));
    if (a.out !== undefined) {
      const w = await writeComparisonReports(comparison, a.out);
      io.stderr(`wrote ${w.json}, ${w.html}, ${w.junit}, ${w.markdown}, ${w.console}\n`);
    }
    return comparison.verdict.exitCode === EXIT.OK ? EXIT.OK : (comparison.verdict.exitCode as ExitCode);
  },
};
