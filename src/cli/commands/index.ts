// Every CLI command, in the order --help lists them. Add one line per command. These modules
// declare the commands (name, help, options as data); each imports its work (<name>-run.ts)
// only when it runs, so that listing or parsing them loads no engine.
import { commandName, type CommandModule } from '../command.js';
import { readsConfig } from '../options.js';
import { startCommand } from './start.js';
import { emulateCommand } from './emulate.js';
import { workerCommand } from './worker.js';
import { loadCommand } from './load.js';
import { reportCommand } from './report.js';
import { compareCommand } from './compare.js';
import { mergeCommand } from './merge.js';
import { kubeCommand } from './kube.js';
import { fuzzCommand } from './fuzz.js';
import { checkCommand } from './check.js';
import { initCommand } from './init.js';
import { calibrateCommand } from './calibrate.js';
import { planCommand } from './plan.js';

export const COMMANDS: readonly CommandModule[] = [
  startCommand,
  emulateCommand,
  workerCommand,
  loadCommand,
  reportCommand,
  compareCommand,
  mergeCommand,
  kubeCommand,
  fuzzCommand,
  checkCommand,
  calibrateCommand,
  planCommand,
  initCommand,
];

/** The names of the commands that read the config file. */
export const CONFIG_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.filter((c) => readsConfig(c.options)).map(commandName));
