// `qbench merge <a.json> <b.json> ... -o all.json`: combine shards of the same scenarios
// losslessly (histograms merged, counts summed, series aligned), re-evaluate thresholds on the
// merged whole, and exit with the merged verdict. A shard whose process died is named by its
// directory (or its missing result.json): its journal is rebuilt and merged as a partial shard.
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { type ExitCode } from '../../exit-codes.js';
import { QbenchError } from '../../errors.js';
import { mergeResults } from '../../report/merge.js';
import { readRunSource } from '../../journal/source.js';
import { renderConsole } from '../../report/render/console.js';
import { renderJson } from '../../report/render/json.js';
import { writeAllReports } from '../../report/write-all.js';
import { defineCommand } from '../command.js';
import { option } from '../options.js';

export const mergeCommand = defineCommand({
  command: 'merge <results..>',
  describe: 'Merge results of the same scenarios from several generators (shards) losslessly; thresholds are evaluated on the whole',
  options: {
    results: option({ flag: 'results', positional: true, kind: 'strings', schema: z.array(z.string().min(1)).min(1, { error: 'must name the result files to merge' }), help: 'Two or more result.json files or run directories (a shard that died is rebuilt from its journal.ndjson and merged as partial)' }),
    out: option({ flag: 'out', alias: 'o', schema: z.string({ error: 'is required: where to write the merged result (-o <file>)' }).min(1), help: 'Where to write the merged result.json (required)' }),
    reports: option({ flag: 'reports', schema: z.string().min(1).optional(), help: 'Also write every report format of the merged result into this directory' }),
  },
  builder: (y) =>
    y
      .example('$0 merge gen-a/result.json gen-b/result.json -o all.json', 'merge two shards')
      .example('$0 merge shard-*/result.json -o merged.json --reports merged', 'merge the shards of one --shard run and write every report'),
  run: async ({ results, out, reports }, io) => {
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
  },
});
