// Write every report format of a run into one directory: `qbench check`, `qbench load`
// and `qbench start` call writeAllReports; the default is reports/<timestamp>/ plus reports/latest.
import { cp, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QbenchError } from '../errors.js';
import type { QbenchComparison } from '../result/compare-model.js';
import type { QbenchResult } from '../result/model.js';
import { RESULT_FILE } from '../result/read-result.js';
import { renderComparisonConsole, renderConsole } from './render/console.js';
import { renderComparisonHtml, renderHtml } from './render/html.js';
import { renderJson } from './render/json.js';
import { renderComparisonJunit, renderJunit } from './render/junit.js';
import { renderComparisonMarkdown, renderMarkdown } from './render/markdown.js';
import { freshDir, runReportDir, timestampDirName } from './report-dir.js';

export { runReportDir, timestampDirName };

export const REPORT_FILES = {
  json: RESULT_FILE,
  html: 'report.html',
  junit: 'junit.xml',
  markdown: 'summary.md',
  console: 'summary.txt',
} as const;

export const COMPARISON_FILES = {
  json: 'comparison.json',
  html: 'comparison.html',
  junit: 'comparison-junit.xml',
  markdown: 'comparison.md',
  console: 'comparison.txt',
} as const;

export interface WrittenReports {
  dir: string;
  json: string;
  html: string;
  junit: string;
  markdown: string;
  console: string;
  /** reports/latest, when it was updated. */
  latest?: string;
}

export interface WriteAllOptions {
  /** Where reports/<timestamp>/ and reports/latest live (default ./reports). */
  reportsRoot?: string;
  /** Update <reportsRoot>/latest (default: only when outDir is not given). */
  updateLatest?: boolean;
}

async function writeSet(
  dir: string,
  files: Record<keyof typeof REPORT_FILES, string>,
  contents: Record<keyof typeof REPORT_FILES, () => string>,
): Promise<Omit<WrittenReports, 'latest'>> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new QbenchError('QB_ERR_USAGE', `cannot create the report directory ${dir}: ${e instanceof Error ? e.message : String(e)}`, { dir });
  }
  const out = { dir } as Omit<WrittenReports, 'latest'>;
  for (const key of Object.keys(files) as (keyof typeof REPORT_FILES)[]) {
    const file = path.join(dir, files[key]);
    await writeFile(file, contents[key]());
    out[key] = file;
  }
  return out;
}

/** `base`, or `base-2`, `base-3`... when runs started in the same second: a run never overwrites another's reports. */
/** Point <root>/latest at `dir`: a relative symlink, or a copy where links are not allowed. */
async function updateLatest(root: string, dir: string): Promise<string> {
  const latest = path.join(root, 'latest');
  const existing = await lstat(latest).catch(() => undefined);
  if (existing) await rm(latest, { recursive: true, force: true });
  try {
    await symlink(path.relative(root, dir), latest, 'dir');
  } catch {
    await cp(dir, latest, { recursive: true });
  }
  return latest;
}

/** Write JSON, HTML, JUnit, markdown and the console summary of a run. */
export async function writeAllReports(result: QbenchResult, outDir?: string, options: WriteAllOptions = {}): Promise<WrittenReports> {
  const root = path.resolve(options.reportsRoot ?? 'reports');
  const dir = outDir !== undefined ? path.resolve(outDir) : await freshDir(path.join(root, timestampDirName(result.meta.startedAt)));
  const written = await writeSet(dir, REPORT_FILES, {
    json: () => renderJson(result),
    html: () => renderHtml(result),
    junit: () => renderJunit(result),
    markdown: () => renderMarkdown(result, { htmlReportPath: REPORT_FILES.html }),
    console: () => renderConsole(result),
  });
  if (options.updateLatest ?? outDir === undefined) return { ...written, latest: await updateLatest(root, dir) };
  return written;
}

/** Write every format of a comparison into `dir`. */
export async function writeComparisonReports(c: QbenchComparison, dir: string): Promise<WrittenReports> {
  return writeSet(path.resolve(dir), COMPARISON_FILES, {
    json: () => renderJson(c),
    html: () => renderComparisonHtml(c),
    junit: () => renderComparisonJunit(c),
    markdown: () => renderComparisonMarkdown(c),
    console: () => renderComparisonConsole(c),
  });
}
