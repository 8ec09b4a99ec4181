// `qbench start` (what `npm start` runs): the main job on the embedded emulator.
import { EXIT } from '../../exit-codes.js';
import type { CommandModule } from '../command.js';

export const startCommand: CommandModule = {
  command: 'start',
  describe: 'Run the main job on the embedded emulator and write a report',
  builder: (y) => y,
  run: (_argv, io) => {
    io.stdout('qbench start: the emulator and the suites are not built yet; nothing to run.\n');
    return Promise.resolve(EXIT.OK);
  },
};
