// The work of `qbench merge` (declared in merge.ts): read every shard (rebuilding a dead one
// from its journal), merge, write the merged result and its reports.
import { writeFile } from 'node:fs/promises';
import { type ExitCode } from '../../exit-codes.js';
import { QbenchError } from '../../errors.js';
import { mergeResults } from '../../report/merge.js';
import { readRunSource } from '../../journal/source.js';
import { renderConsole } from '../../report/render/console.js';
import { renderJson } from '../../report/render/json.js';
import { writeAllReports } from '../../report/write-all.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import type { MERGE_OPTIONS } from './merge.js';

export async function runMerge({ results, out, reports }: Flags<typeof MERGE_OPTIONS>, io: CliIo): Promise<ExitCode> {
  const inputs = await Promise.all(
    results.map(async (source) => {
      const read = await readRunSource(source);
      if (read.journal !== undefined) io.stderr(`${source}: no result.json, rebuilt from ${read.journal}${read.result.incomplete ? ` (partial: ${read.result.incomplete.note})` : ''}\n`);
      return { result: read.result, source };
    }),
  );
  const merged = mergeResults(inputs, { command: ['qbench', 'merge', ...results, '-o', out] });
  try {
    await writeFile(out, renderJson(merged));
  } catch (e) {
    throw new QbenchError('QB_ERR_USAGE', `qbench merge: cannot write ${out}: ${e instanceof Error ? e.message : String(e)}`);
  }
  io.stdout(renderConsole(merged, { color: io.isTty }));
  io.stdout(`merged ${results.length} results into ${out}\n`);
  if (reports !== undefined) io.stdout(`reports: ${(await writeAllReports(merged, reports)).dir}\n`);
  return merged.overall.exitCode as ExitCode;
}
