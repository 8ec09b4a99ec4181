// `qbench report <result.json|dir> [--html|--junit|--md|--json|--console] [out]`: re-render a
// saved result in one format (to a file, or stdout), or every format into a directory. A run
// directory whose process died (a journal, no result.json) is rebuilt from its journal, and
// every format is written back into it unless [out] or a format is named.
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { QbenchError, usageError } from '../../errors.js';
import { readRunSource } from '../../journal/source.js';
import { renderConsole } from '../../report/render/console.js';
import { renderHtml } from '../../report/render/html.js';
import { renderJson } from '../../report/render/json.js';
import { renderJunit } from '../../report/render/junit.js';
import { renderMarkdown } from '../../report/render/markdown.js';
import { writeAllReports } from '../../report/write-all.js';
import { defineCommand } from '../command.js';
import { option } from '../options.js';

const FORMATS = ['html', 'junit', 'md', 'json', 'console'] as const;
type Format = (typeof FORMATS)[number];

const format = (flag: Format, help: string) => option({ flag, kind: 'boolean', schema: z.boolean().optional(), help });

export const reportCommand = defineCommand({
  command: 'report <result> [out]',
  describe: 'Re-render a saved result: one format to [out] (or stdout), or every format into the directory [out]',
  options: {
    result: option({ flag: 'result', positional: true, schema: z.string().min(1), help: "A result.json written by qbench check, load, start or merge, or a run's report directory (rebuilt from its journal.ndjson when the process died before writing result.json)" }),
    out: option({ flag: 'out', positional: true, schema: z.string().min(1).optional(), help: 'Output file for one format; output directory when no format is named' }),
    html: format('html', 'Single-file HTML report'),
    junit: format('junit', 'JUnit XML (every check and threshold a test case)'),
    md: format('md', 'Markdown summary (CI job summary, pull-request comment)'),
    json: format('json', 'The result model as JSON'),
    console: format('console', 'The end-of-run summary table'),
    exitCode: option({ flag: 'exit-code', kind: 'boolean', schema: z.boolean().optional(), help: "Exit with the result's own exit code (re-gate a saved run in CI)" }),
  },
  builder: (y) =>
    y
      .example('$0 report reports/latest/result.json --html report.html', 'write the HTML report')
      .example('$0 report result.json --md >> "$GITHUB_STEP_SUMMARY"', 'markdown summary to stdout')
      .example('$0 report result.json out/', 'every format into out/')
      .example('$0 report reports/k9', 'a run killed before its end: rebuild every report from reports/k9/journal.ndjson'),
  run: async (a, io) => {
    const chosen = FORMATS.filter((f) => a[f] === true);
    if (chosen.length > 1) throw usageError(`qbench report: name one format, got ${chosen.map((f) => `--${f}`).join(' ')}; with no format and an [out] directory every format is written`);
    const source = await readRunSource(a.result);
    const result = source.result;
    const own: ExitCode = a.exitCode ? (result.overall.exitCode as ExitCode) : EXIT.OK;
    const format: Format | undefined = chosen[0];
    if (source.journal !== undefined) io.stderr(`rebuilt from ${source.journal}${result.incomplete ? `: incomplete, ${result.incomplete.note}` : ''}\n`);
    if (format === undefined) {
      if (a.out === undefined && source.journal !== undefined) {
        const written = await writeAllReports(result, source.dir, { updateLatest: false });
        io.stdout(renderConsole(result, { color: io.isTty }));
        io.stdout(`\nwrote ${written.json}\nwrote ${written.html}\nwrote ${written.junit}\nwrote ${written.markdown}\nwrote ${written.console}\n`);
        return own;
      }
      if (a.out === undefined) {
        io.stdout(renderConsole(result, { color: io.isTty }));
        return own;
      }
      const written = await writeAllReports(result, a.out, { updateLatest: false });
      io.stdout(`wrote ${written.json}\nwrote ${written.html}\nwrote ${written.junit}\nwrote ${written.markdown}\nwrote ${written.console}\n`);
      return own;
    }
    const text =
      format === 'html'
        ? renderHtml(result)
        : format === 'junit'
          ? renderJunit(result)
          : format === 'md'
            ? renderMarkdown(result)
            : format === 'json'
              ? renderJson(result)
              : renderConsole(result, { color: a.out === undefined && io.isTty });
    if (a.out === undefined) {
      io.stdout(text);
      return own;
    }
    try {
      await writeFile(a.out, text);
    } catch (e) {
      throw new QbenchError('QB_ERR_USAGE', `qbench report: cannot write ${a.out}: ${e instanceof Error ? e.message : String(e)}`);
    }
    io.stderr(`wrote ${a.out}\n`);
    return own;
  },
});
