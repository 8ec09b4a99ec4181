// Finding and reading the config file: `--config <file>`, else the first of qbench.config.ts,
// .mts, .cts, .js, .mjs, .cjs, .json in the working directory. Modules load as scenario files do,
// in a CommonJS project as in an ES module one; every problem of the file is reported at once.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { configError } from '../errors.js';
import type { QbenchConfig } from './schema.js';

export const CONFIG_FILE_NAMES = [
  'qbench.config.ts', 'qbench.config.mts', 'qbench.config.cts', 'qbench.config.js', 'qbench.config.mjs', 'qbench.config.cjs', 'qbench.config.json',
] as const;

export interface LoadedConfig {
  readonly file: string;
  /** Folder of the file: relative paths in it are relative to this. */
  readonly dir: string;
  readonly config: QbenchConfig;
}

/** The config file to use: the named one (which must exist), else one found in `cwd`, else none. */
export function findConfigFile(explicit: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (explicit !== undefined) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file)) throw configError(`--config: ${explicit} does not exist`);
    return file;
  }
  return CONFIG_FILE_NAMES.map((n) => resolve(cwd, n)).find((f) => existsSync(f));
}

export async function loadConfig(explicit?: string, cwd: string = process.cwd()): Promise<LoadedConfig | undefined> {
  const file = findConfigFile(explicit, cwd);
  if (file === undefined) return undefined;
  // The module loader and the schema (the emulator's deployments among it) only when there is a file.
  const [{ importUserModule }, { QbenchConfig }] = await Promise.all([import('../user-module.js'), import('./schema.js')]);
  let raw: unknown;
  try {
    raw = file.endsWith('.json') ? JSON.parse(await readFile(file, 'utf8')) : (await importUserModule(file))['default'];
  } catch (e) {
    throw configError(`cannot load ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (raw === undefined) throw configError(`${file}: no default export (export default defineConfig({ ... }))`);
  const parsed = QbenchConfig.safeParse(raw);
  if (!parsed.success) throw configError(`${file} is not a valid qbench config:\n${z.prettifyError(parsed.error)}`);
  return { file, dir: dirname(file), config: parsed.data };
}
