// The options of what a run selects and spends, declared once: the conformance selection
// (--profile, --only, --skip, --expect; `qbench check`) and the fuzz budget (--runs,
// --model-runs, --max-commands, --max-duration; `qbench fuzz`). `qbench start` takes the same
// settings from the config file only, with its own shorter budget (`configOnly`).
import { z } from 'zod';
import { DurationMs } from '../spec/index.js';
import { configRelativePath, option, wholeNumber, type OptionSpec } from './options.js';
import { commaList } from './target-options.js';

/** The same setting, taken from the config file only (no flag), with another default. */
export function configOnly<S extends z.ZodType>(o: OptionSpec<S>, defaultValue?: z.input<S>): OptionSpec<S> {
  const { flag: _flag, alias: _alias, help: _help, choices: _choices, default: ownDefault, ...rest } = o;
  const d = defaultValue ?? ownDefault;
  return { ...rest, ...(d !== undefined ? { default: d } : {}) };
}

const checkPatterns = (flag: 'only' | 'skip', what: string) =>
  option({ flag, kind: 'strings', schema: commaList, config: `conformance.${flag}`, help: `${what}: ids, id prefixes ending in *, or tags` });

export const conformanceOptions = {
  profile: option({
    flag: 'profile',
    schema: z.enum(['quick', 'full'], { error: 'must be quick or full' }),
    default: 'quick',
    config: 'conformance.profile',
    help: "quick or full. quick: checks that finish within 60 s of waiting at the target's time scale; full: all",
  }),
  only: checkPatterns('only', 'Run only these checks'),
  skip: checkPatterns('skip', 'Skip these checks'),
  expect: option({ flag: 'expect', schema: z.string().min(1).optional(), config: 'conformance.expectations', fromConfig: configRelativePath, help: 'Known-failures file (id, verdict, reason, optional expires)' }),
};

/** Upper bounds that keep any fuzz run finite. */
const MAX = { runs: 100_000, modelRuns: 10_000, maxCommands: 200, durationMs: 24 * 3_600_000 } as const;

const count = (max: number) => wholeNumber(1, max);

export const fuzzBudgetOptions = {
  runs: option({ flag: 'runs', kind: 'number', schema: count(MAX.runs), default: 100, config: 'fuzz.runs', help: 'Generated cases per validation property' }),
  modelRuns: option({ flag: 'model-runs', kind: 'number', schema: count(MAX.modelRuns), default: 15, config: 'fuzz.modelRuns', help: 'Command sequences of the state-machine run' }),
  maxCommands: option({ flag: 'max-commands', kind: 'number', schema: count(MAX.maxCommands), default: 12, config: 'fuzz.maxCommands', help: 'Most commands per sequence' }),
  maxDurationMs: option({
    flag: 'max-duration',
    schema: DurationMs.pipe(z.number().min(1_000, { error: 'must be at least 1s' }).max(MAX.durationMs, { error: 'must be at most 24h' })),
    default: '45s',
    config: 'fuzz.maxDuration',
    help: 'Wall-clock budget of the whole run, e.g. 45s, 5m',
  }),
};
