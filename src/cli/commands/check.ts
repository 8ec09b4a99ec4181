// `qbench check`: run the conformance suite against a target (a URL, or
// `--target emulator` in-process), write every report format (as load does), exit 0 when
// every required check passed and 1 otherwise. `--self-test` proves the suite against every
// emulator fault; `--coverage-matrix` writes the clause/check matrix; `--list` lists checks.
import { z } from 'zod';
import { EndpointId } from '../../spec/index.js';
import { defineCommand, lazyRun } from '../command.js';
import { option } from '../options.js';
import { conformanceOptions } from '../suite-options.js';
import { commaList, faultOption, interfaceOptions, optionalTargetOptions, outOption, targetKeyOption } from '../target-options.js';

const MAX_CONCURRENCY = 32;
const MAX_TIME_SCALE = 1000;
const CONCURRENCY = `must be 1..${MAX_CONCURRENCY}`;
const TIME_SCALE = `must be in (0, ${MAX_TIME_SCALE}]`;
const PARALLEL = 'must be 1..8';
const flag = (name: string, help: string) => option({ flag: name, kind: 'boolean', schema: z.boolean(), default: false, help });
const file = (name: string, help: string) => option({ flag: name, schema: z.string().min(1).optional(), help });

export const CHECK_OPTIONS = {
  ...optionalTargetOptions(),
  ...targetKeyOption(),
  ...interfaceOptions,
  out: outOption,
  ...conformanceOptions,
  concurrency: option({ flag: 'concurrency', kind: 'number', schema: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).min(1, { error: CONCURRENCY }).max(MAX_CONCURRENCY, { error: CONCURRENCY }), default: 4, help: `Checks in flight at once (1..${MAX_CONCURRENCY})` }),
  allowBillable: flag('allow-billable', 'Run checks that cost money on a real target (pods)'),
  callbackHost: option({ flag: 'callback-host', schema: z.string().min(1).optional(), help: 'Host/IP the target can reach this machine at (webhook checks)' }),
  spareEndpoints: option({ flag: 'spare-endpoint', kind: 'strings', schema: commaList.pipe(z.array(EndpointId)), config: 'target.spareEndpoints', help: 'Extra idle endpoint ids on the target that checks may take for exact counts' }),
  json: file('json', 'Also write the result (QbenchResult JSON) to this file'),
  junit: file('junit', 'Also write JUnit XML to this file'),
  timeScale: option({ flag: 'time-scale', kind: 'number', schema: z.number({ error: 'must be a number' }).positive({ error: TIME_SCALE }).max(MAX_TIME_SCALE, { error: TIME_SCALE }).optional(), help: `Emulated ms per real ms of --target emulator (max ${MAX_TIME_SCALE})`, defaultHelp: '60' }),
  faults: faultOption('Emulator fault switch (with --target emulator or --self-test), repeatable'),
  selfTest: flag('self-test', 'Run the suite against the clean emulator and against each fault; print the detection table'),
  parallel: option({ flag: 'parallel', kind: 'number', schema: z.number({ error: 'must be a number' }).int({ error: PARALLEL }).min(1, { error: PARALLEL }).max(8, { error: PARALLEL }), default: 3, help: 'With --self-test: fault emulators side by side (1..8)' }),
  coverageMatrix: file('coverage-matrix', 'Write the clause coverage matrix (markdown) to this file and exit'),
  strict: flag('strict', 'An inconclusive check (could not set up what it judges) fails the run: for gating on a private endpoint'),
  list: flag('list', 'List the checks and exit'),
};

export const checkCommand = defineCommand({
  options: CHECK_OPTIONS,
  run: lazyRun(async () => (await import('./check-run.js')).runCheck),
});
