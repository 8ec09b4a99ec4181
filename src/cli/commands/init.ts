// `qbench init`: scaffold a commented qbench.config.ts, an example scenario and a CI workflow.
import { resolve } from 'node:path';
import { EXIT } from '../../exit-codes.js';
import { writeScaffold } from '../../init/scaffold.js';
import type { CommandModule } from '../command.js';

export const initCommand: CommandModule = {
  command: 'init',
  describe: 'Write a commented qbench.config.ts, an example scenario and a GitHub Actions workflow (.github/workflows/qbench.yml)',
  builder: (y) =>
    y
      .option('dir', { type: 'string', default: '.', describe: 'Project folder to write into' })
      .option('force', { type: 'boolean', default: false, describe: 'Overwrite files that exist' }),
  run: async (argv, io) => {
    const dir = resolve(String(argv['dir']));
    const written = await writeScaffold(dir, argv['force'] === true);
    for (const f of written) io.stdout(`wrote ${f}\n`);
    io.stdout('next: npx qbench check --target local && npx qbench load scenarios/example.ts --target local\n');
    return EXIT.OK;
  },
};
