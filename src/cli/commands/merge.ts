// `qbench merge <a.json> <b.json> ... -o all.json` (issue 7): combine shards of the same scenarios
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
import type { CommandModule } from '../command.js';
import { parseFlags } from '../flags.js';

const Args = z.object({
  results: z.array(z.string().min(1)).min(1, { error: 'name the result files to merge' }),
  out: z.string({ error: '-o/--out <file> is required: where to write the merged result' }).min(1),
  reports: z.string().min(1).optional(),
});

export const mergeCommand: CommandModule = {
  command: 'merge <results..>',
  describe: 'Merge results of the same scenarios from several generators (shards) losslessly; thresholds are evaluated on the whole',
  builder: (y) =>
    y
      .positional('results', { type: 'string', array: true, describe: 'Two or more result.json files or run directories (a shard that died is rebuilt from its journal.ndjson and merged as partial)' })
      .option('out', { alias: 'o', type: 'string', describe: 'Where to write the merged result.json (required)' })
      .option('reports', { type: 'string', describe: 'Also write every report format of the merged result into this directory' })
      .example('$0 merge gen-a/result.json gen-b/result.json -o all.json', 'merge two shards')
      .example('$0 merge shard-*/result.json -o merged.json --reports merged', 'merge the shards of one --shard run and write every report'),
  run: async (argv, io) => {
    const { results, out, reports } = parseFlags('merge', Args, { results: argv['results'], out: argv['out'], reports: argv['reports'] });
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
};
