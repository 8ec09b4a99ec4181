// `qbench merge <a.json> <b.json> ... -o all.json`: combine shards of the same scenarios
// losslessly (histograms merged, counts summed, series aligned), re-evaluate thresholds on the
// merged whole, and exit with the merged verdict. A shard whose process died is named by its
// directory (or its missing result.json): its journal is rebuilt and merged as a partial shard.
import { z } from 'zod';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';

export const MERGE_OPTIONS = {
  results: option({ flag: 'results', positional: true, kind: 'strings', schema: z.array(z.string().min(1)).min(1, { error: 'must name the result files to merge' }), help: 'Two or more result.json files or run directories (a shard that died is rebuilt from its journal.ndjson and merged as partial)' }),
  out: option({ flag: 'out', alias: 'o', schema: z.string({ error: 'is required: where to write the merged result (-o <file>)' }).min(1), help: 'Where to write the merged result.json (required)' }),
  reports: option({ flag: 'reports', schema: z.string().min(1).optional(), help: 'Also write every report format of the merged result into this directory' }),
} satisfies OptionSet;

export const mergeCommand = defineCommand({
  options: MERGE_OPTIONS,
  builder: (y) =>
    y
      .example('$0 merge gen-a/result.json gen-b/result.json -o all.json', 'merge two shards')
      .example('$0 merge shard-*/result.json -o merged.json --reports merged', 'merge the shards of one --shard run and write every report'),
  run: lazyRun(async () => (await import('./merge-run.js')).runMerge),
});
