// The work of `qbench report` (declared in report.ts): read the result (or rebuild it from a
// journal) and render one format or every one.
import { writeFile } from 'node:fs/promises';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { QbenchError, usageError } from '../../errors.js';
import { readRunSource } from '../../journal/source.js';
import { renderConsole } from '../../report/render/console.js';
import { renderHtml } from '../../report/render/html.js';
import { renderJson } from '../../report/render/json.js';
import { renderJunit } from '../../report/render/junit.js';
import { renderMarkdown } from '../../report/render/markdown.js';
import { writeAllReports } from '../../report/write-all.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import { FORMATS, type Format, type REPORT_OPTIONS } from './report.js';

export async function runReport(a: Flags<typeof REPORT_OPTIONS>, io: CliIo): Promise<ExitCode> {
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
}
