// `qbench init`: scaffold a commented qbench.config.ts, an example scenario and a CI workflow.
import { z } from 'zod';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';

export const INIT_OPTIONS = {
  dir: option({ flag: 'dir', schema: z.string().min(1, { error: 'must name a folder' }), default: '.', help: 'Project folder to write into' }),
  force: option({ flag: 'force', kind: 'boolean', schema: z.boolean(), default: false, help: 'Overwrite files that exist' }),
} satisfies OptionSet;

export const initCommand = defineCommand({
  options: INIT_OPTIONS,
  run: lazyRun(async () => (await import('./init-run.js')).runInit),
});
