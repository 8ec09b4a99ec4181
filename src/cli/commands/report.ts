// `qbench report <result.json|dir> [--html|--junit|--md|--json|--console] [out]`: re-render a
// saved result in one format (to a file, or stdout), or every format into a directory. A run
// directory whose process died (a journal, no result.json) is rebuilt from its journal, and
// every format is written back into it unless [out] or a format is named.
import { z } from 'zod';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';

export const FORMATS = ['html', 'junit', 'md', 'json', 'console'] as const;
export type Format = (typeof FORMATS)[number];

const format = (flag: Format, help: string) => option({ flag, kind: 'boolean', schema: z.boolean().optional(), help });

export const REPORT_OPTIONS = {
  result: option({ flag: 'result', positional: true, schema: z.string().min(1), help: "A result.json written by qbench check, load, start or merge, or a run's report directory (rebuilt from its journal.ndjson when the process died before writing result.json)" }),
  out: option({ flag: 'out', positional: true, schema: z.string().min(1).optional(), help: 'Output file for one format; output directory when no format is named' }),
  html: format('html', 'Single-file HTML report'),
  junit: format('junit', 'JUnit XML (every check and threshold a test case)'),
  md: format('md', 'Markdown summary (CI job summary, pull-request comment)'),
  json: format('json', 'The result model as JSON'),
  console: format('console', 'The end-of-run summary table'),
  exitCode: option({ flag: 'exit-code', kind: 'boolean', schema: z.boolean().optional(), help: "Exit with the result's own exit code (re-gate a saved run in CI)" }),
} satisfies OptionSet;

export const reportCommand = defineCommand({
  options: REPORT_OPTIONS,
  builder: (y) =>
    y
      .example('$0 report reports/latest/result.json --html report.html', 'write the HTML report')
      .example('$0 report result.json --md >> "$GITHUB_STEP_SUMMARY"', 'markdown summary to stdout')
      .example('$0 report result.json out/', 'every format into out/')
      .example('$0 report reports/k9', 'a run killed before its end: rebuild every report from reports/k9/journal.ndjson'),
  run: lazyRun(async () => (await import('./report-run.js')).runReport),
});
