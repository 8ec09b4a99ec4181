// Importing the user's own modules (load scenarios, worker handlers, config files) from the
// installed CLI. Node 20 cannot import TypeScript, so the first .ts import of the built CLI
// registers tsx's ESM loader (tsx is a runtime dependency). The scenarios shipped with the
// package are also compiled into dist/suites: a shipped suites/**/*.ts path loads its compiled
// twin, so the scenario shares this process's copy of qbench instead of a second one from source.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TYPESCRIPT = /\.(?:[cm]?ts|tsx)$/;

/** Sources (tsx, vitest) compile TypeScript already; the built CLI runs from dist/src. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The package root: this file is src/user-module.ts or dist/src/user-module.js. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), FROM_SOURCES ? '..' : '../..');

let tsxRegistered: Promise<void> | undefined;

async function registerTsx(): Promise<void> {
  const { register } = await import('tsx/esm/api');
  register();
}

/** `abs` inside the package's own suites/ folder, as its compiled twin under dist/suites. */
function compiledTwin(abs: string): string | undefined {
  if (FROM_SOURCES || !TYPESCRIPT.test(abs)) return undefined;
  const real = existsSync(abs) ? realpathSync(abs) : abs;
  const rel = relative(realpathSync(PACKAGE_ROOT), real);
  if (!rel.startsWith(`suites${sep}`)) return undefined;
  const twin = resolve(PACKAGE_ROOT, 'dist', rel.replace(TYPESCRIPT, '.js'));
  return existsSync(twin) ? twin : undefined;
}

/**
 * A file the user named: relative to the working directory, or else (for the paths the
 * README shows, such as suites/load/rate-limit.ts) relative to the installed package.
 */
export function resolveUserFile(file: string, cwd: string = process.cwd()): string {
  const here = resolve(cwd, file);
  if (isAbsolute(file) || existsSync(here)) return here;
  const shipped = resolve(PACKAGE_ROOT, file);
  return relative(PACKAGE_ROOT, shipped).startsWith('..') || !existsSync(shipped) ? here : shipped;
}

/** Import a module by absolute path; TypeScript works from the built CLI too. */
export async function importUserModule(abs: string): Promise<Record<string, unknown>> {
  const path = compiledTwin(abs) ?? abs;
  if (!FROM_SOURCES && TYPESCRIPT.test(path)) await (tsxRegistered ??= registerTsx());
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}
