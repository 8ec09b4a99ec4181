// `qbench init`: scaffold a commented qbench.config.ts, an example scenario and a CI workflow.
import { resolve } from 'node:path';
import { z } from 'zod';
import { EXIT } from '../../exit-codes.js';
import { writeScaffold } from '../../init/scaffold.js';
import { defineCommand } from '../command.js';
import { option } from '../options.js';

export const initCommand = defineCommand({
  command: 'init',
  describe: 'Write a commented qbench.config.ts, an example scenario and a GitHub Actions workflow (.github/workflows/qbench.yml)',
  options: {
    dir: option({ flag: 'dir', schema: z.string().min(1, { error: 'must name a folder' }), default: '.', help: 'Project folder to write into' }),
    force: option({ flag: 'force', kind: 'boolean', schema: z.boolean(), default: false, help: 'Overwrite files that exist' }),
  },
  run: async (f, io) => {
    const written = await writeScaffold(resolve(f.dir), f.force);
    for (const file of written) io.stdout(`wrote ${file}\n`);
    io.stdout('next: npx qbench check --target local && npx qbench load scenarios/example.ts --target local\n');
    return EXIT.OK;
  },
});
