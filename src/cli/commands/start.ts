// `qbench start` (what `npm start` runs): the main job on the embedded emulator. It runs the
// quick conformance profile, a short mix of the shipped load scenarios and a short fuzz, each
// against its own in-process emulator (so no part's traffic skews another's counts), merges
// the three into one QbenchResult, writes every report format and prints the HTML path.
// From qbench.config it takes the conformance selection, the load scenarios (which replace the
// shipped mix), the fuzz budgets and the report directory; no target (it is always the emulator).
import { z } from 'zod';
import { defineCommand, lazyRun } from '../command.js';
import { loadOptions } from '../load-options.js';
import { option } from '../options.js';
import { configOnly, conformanceOptions, fuzzBudgetOptions } from '../suite-options.js';
import { commaList, outOption } from '../target-options.js';

export const PARTS = ['check', 'load', 'fuzz'] as const;
export type Part = (typeof PARTS)[number];

export interface FuzzBudget {
  readonly numRuns: number;
  readonly modelRuns: number;
  readonly maxCommands: number;
  readonly maxDurationMs: number;
  readonly rateFraction: number;
}

/** A short fuzz: enough cases to touch every bound, bounded in time (the config file's fuzz section replaces it). */
export const FUZZ_BUDGET: FuzzBudget = { numRuns: 30, modelRuns: 4, maxCommands: 8, maxDurationMs: 20_000, rateFraction: 0.5 };

const SEED = 'must be 0..2147483647';

export const START_OPTIONS = {
  out: outOption,
  parts: option({ flag: 'parts', kind: 'strings', schema: commaList, help: `Which parts to run: ${PARTS.join(', ')}`, defaultHelp: 'all' }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).min(0, { error: SEED }).max(2 ** 31 - 1, { error: SEED }), default: 42, help: 'Fuzz seed' }),
  strict: option({ flag: 'strict', kind: 'boolean', schema: z.boolean(), default: false, help: 'An inconclusive check or scenario (could not set up what it judges) fails the run: for gating on a private endpoint' }),
  metrics: loadOptions.metrics,
  // From the config file only.
  profile: configOnly(conformanceOptions.profile),
  only: configOnly(conformanceOptions.only),
  skip: configOnly(conformanceOptions.skip),
  expect: configOnly(conformanceOptions.expect),
  runs: configOnly(fuzzBudgetOptions.runs, FUZZ_BUDGET.numRuns),
  modelRuns: configOnly(fuzzBudgetOptions.modelRuns, FUZZ_BUDGET.modelRuns),
  maxCommands: configOnly(fuzzBudgetOptions.maxCommands, FUZZ_BUDGET.maxCommands),
  maxDurationMs: configOnly(fuzzBudgetOptions.maxDurationMs, `${FUZZ_BUDGET.maxDurationMs}ms`),
  configScenarios: loadOptions.configScenarios,
};
export const startCommand = defineCommand({
  options: START_OPTIONS,
  run: lazyRun(async () => (await import('./start-run.js')).runStart),
});
