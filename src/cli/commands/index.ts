// Every CLI command, in the order --help lists them. Add one line per command.
import type { CommandModule } from '../command.js';
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
