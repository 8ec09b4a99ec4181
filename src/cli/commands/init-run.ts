// The work of `qbench init` (declared in init.ts): write the scaffold and say what is next.
import { resolve } from 'node:path';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { writeScaffold } from '../../init/scaffold.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import type { INIT_OPTIONS } from './init.js';

export async function runInit(f: Flags<typeof INIT_OPTIONS>, io: CliIo): Promise<ExitCode> {
  const written = await writeScaffold(resolve(f.dir), f.force);
  for (const file of written) io.stdout(`wrote ${file}\n`);
  io.stdout('next: npx qbench check --target local && npx qbench load scenarios/example.ts --target local\n');
  return EXIT.OK;
}
