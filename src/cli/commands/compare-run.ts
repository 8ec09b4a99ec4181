// The work of `qbench compare` (declared in compare.ts): read both results, compare them and
// print (and write) the comparison.
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { compareResults, parseMaxRegression } from '../../report/compare.js';
import { DEFAULT_MAX_REGRESSION } from '../../report/compare-limits.js';
import { readResult } from '../../result/read-result.js';
import { renderComparisonConsole } from '../../report/render/console.js';
import { renderJson } from '../../report/render/json.js';
import { renderComparisonMarkdown } from '../../report/render/markdown.js';
import { writeComparisonReports } from '../../report/write-all.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import type { COMPARE_OPTIONS } from './compare.js';

export async function runCompare(a: Flags<typeof COMPARE_OPTIONS>, io: CliIo): Promise<ExitCode> {
  const margins = a.maxRegression && a.maxRegression.length > 0 ? parseMaxRegression(a.maxRegression) : { ...DEFAULT_MAX_REGRESSION };
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
}
