// `qbench fuzz --target <emulator|url>`: property-based fuzzing of the validation
// rules and a model-based run of the §3.1 job state machine. Bounded by --runs and
// --max-duration, kept under the §8 rates by --rate-fraction, replayable with --seed,
// --property and --path; findings print as shrunk cases with curl lines and go into every
// report format. Exit 0 pass, 1 a property failed, 2 bad flags, 5 target unreachable.
import { z } from 'zod';
import { PROPERTY_NAMES } from '../../fuzz/property-names.js';
import { EndpointId } from '../../spec/index.js';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';
import { fuzzBudgetOptions } from '../suite-options.js';
import { faultOption, interfaceOptions, outOption, targetKeyOption, targetOptions } from '../target-options.js';

const SEED = 'must be a 32-bit integer';
const RATE_FRACTION = 'must be a number above 0 and at most 1 (the documented rate)';

export const FUZZ_OPTIONS = {
  ...targetOptions({ defaultTarget: 'emulator' }),
  ...targetKeyOption(),
  ...interfaceOptions,
  out: outOption,
  modelEndpoint: option({ flag: 'model-endpoint', schema: EndpointId.optional(), help: 'URL target: endpoint with no other traffic for the state-machine run (default: --endpoint)' }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: SEED }).int({ error: SEED }).min(-(2 ** 31), { error: SEED }).max(2 ** 31 - 1, { error: SEED }).optional(), help: 'fast-check seed (default: random, printed for replay)' }),
  ...fuzzBudgetOptions,
  properties: option({ flag: 'property', kind: 'strings', schema: z.array(z.enum(PROPERTY_NAMES as [string, ...string[]], { error: `must be one of ${PROPERTY_NAMES.join(', ')}` })).optional(), help: `Run only these properties: ${PROPERTY_NAMES.join(', ')}` }),
  path: option({ flag: 'path', schema: z.string().regex(/^\d+(:\d+)*$/, { error: 'must be a fast-check path such as 12:3:0' }).optional(), help: 'Replay: the fast-check path printed with a finding (with --seed and one --property)' }),
  replayPath: option({ flag: 'replay-path', schema: z.string().min(1).optional(), help: 'Replay: the replayPath of a failing command sequence (job-state-machine)' }),
  rateFraction: option({ flag: 'rate-fraction', kind: 'number', schema: z.number({ error: RATE_FRACTION }).gt(0, { error: RATE_FRACTION }).max(1, { error: RATE_FRACTION }), default: 0.5, help: 'Share of each documented §8 rate the fuzzer may use' }),
  faults: faultOption('Emulator target: switch a fault on (self-test; repeatable)'),
  timeScale: option({ flag: 'time-scale', kind: 'number', schema: z.number({ error: 'must be a number' }).positive({ error: 'must be above 0' }).max(100_000, { error: 'must be at most 100000' }).optional(), help: 'Emulator target: emulated ms per real ms', defaultHelp: '60' }),
  allowBillable: option({ flag: 'allow-billable', kind: 'boolean', schema: z.boolean(), default: false, help: 'URL target: allow pod deploys (they cost money)' }),
} satisfies OptionSet;

export const fuzzCommand = defineCommand({
  options: FUZZ_OPTIONS,
  run: lazyRun(async () => (await import('./fuzz-run.js')).runFuzzCommand),
});
