// Every CLI command, in the order --help lists them. Add one line per command.
import type { CommandModule } from '../command.js';
import { startCommand } from './start.js';
import { emulateCommand } from './emulate.js';

export const COMMANDS: readonly CommandModule[] = [
  startCommand,
  emulateCommand,
];
