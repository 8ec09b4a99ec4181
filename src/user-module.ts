// Importing the user's own modules (config files, load scenarios, worker handlers) from the
// installed CLI, in a CommonJS project (npm's default) as in an ES module one. Node 20 cannot
// run TypeScript: an ES module file (.mts, or .ts in a "type": "module" project) loads through
// tsx's ESM loader; a CommonJS one (.cts, or .ts elsewhere) through Node's own require() with
// a compile step of ours, so that its `require('qbench')` is Node's require of an ES module and
// returns the very instance the CLI runs (tsx's CommonJS hooks would compile a second copy of
// the whole package). JavaScript loads as Node loads it, CommonJS by require(). The scenarios
// shipped with the package are also compiled into dist/suites: a shipped suites/**/*.ts path
// loads its compiled twin, so the scenario shares this process's copy of qbench.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QbenchError } from './errors.js';

const TYPESCRIPT = /\.(?:[cm]?ts|tsx)$/;

/** The TypeScript extensions a CommonJS file can have; require() compiles them. */
const COMMONJS_TYPESCRIPT = ['.ts', '.cts', '.tsx'] as const;

/** Sources (tsx, vitest) compile TypeScript already; the built CLI runs from dist/src. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The package root: this file is src/user-module.ts or dist/src/user-module.js. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), FROM_SOURCES ? '..' : '../..');

const requireUser = createRequire(import.meta.url);

let typeScriptReady: Promise<void> | undefined;

/** A CommonJS module as require() hands it to a compile function. */
interface CompilingModule {
  _compile(code: string, file: string): unknown;
}

/** tsx's ESM loader for ES module TypeScript; our compile step for CommonJS TypeScript. */
async function enableTypeScript(): Promise<void> {
  const { register } = await import('tsx/esm/api');
  register();
  const { transformSync } = await import('esbuild');
  const compile = (module: NodeJS.Module, file: string) => {
    let code: string;
    try {
      ({ code } = transformSync(readFileSync(file, 'utf8'), {
        loader: file.endsWith('.tsx') ? 'tsx' : 'ts',
        format: 'cjs',
        target: `node${process.versions.node}`,
        sourcefile: file,
        sourcemap: 'inline',
      }));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (!/top-level await/i.test(message)) throw e;
      // The user's file: a usage error (each caller that knows the file's role names it in its own code).
      throw new QbenchError('QB_ERR_USAGE', `${message}\n${file} is CommonJS, where top-level await does not exist: name it .mts, or set "type": "module" in its package.json`, { file }, { cause: e });
    }
    (module as unknown as CompilingModule)._compile(code, file);
  };
  for (const ext of COMMONJS_TYPESCRIPT) requireUser.extensions[ext] = compile;
}

/** The "type" of the package.json nearest to `file`, undefined where it has none or there is none. */
function packageTypeOf(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const type = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
      return typeof type === 'string' ? type : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Whether `file` is CommonJS as Node and TypeScript define it: .cjs and .cts always; .ts and
 * .tsx unless their package says "type": "module"; .js where its package says "type": "commonjs"
 * (a .js of a package with no type is left to import(), where Node tells by its syntax).
 */
export function isCommonJs(file: string): boolean {
  const ext = extname(file);
  if (ext === '.cjs' || ext === '.cts') return true;
  if (ext !== '.js' && ext !== '.ts' && ext !== '.tsx') return false;
  const type = packageTypeOf(file);
  return ext === '.js' ? type === 'commonjs' : type !== 'module';
}

/** A marker compilers set on `module.exports` of an ES module compiled to CommonJS. */
function compiledFromEsm(exported: unknown): exported is Record<string, unknown> {
  return typeof exported === 'object' && exported !== null && (exported as Record<string, unknown>)['__esModule'] === true;
}

/**
 * What import() gives for an ES module, from a CommonJS `module.exports` (as Node names them: its
 * properties, and the whole as default), or, where a compiler marked it `__esModule`, from its own
 * `default` and named exports.
 */
function namespaceOfExports(exported: unknown): Record<string, unknown> {
  if (compiledFromEsm(exported)) return exported;
  const named = (typeof exported === 'object' || typeof exported === 'function') && exported !== null ? { ...exported } : {};
  return { ...named, default: exported };
}

/** import()'s namespace of a module, with the default of a compiled ES module in CommonJS unwrapped. */
function namespaceOf(mod: Record<string, unknown>): Record<string, unknown> {
  return compiledFromEsm(mod['default']) ? mod['default'] : mod;
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
 * docs show, such as suites/load/rate-limit.ts) relative to the installed package.
 */
export function resolveUserFile(file: string, cwd: string = process.cwd()): string {
  const here = resolve(cwd, file);
  if (isAbsolute(file) || existsSync(here)) return here;
  const shipped = resolve(PACKAGE_ROOT, file);
  return relative(PACKAGE_ROOT, shipped).startsWith('..') || !existsSync(shipped) ? here : shipped;
}

/**
 * Import a module by absolute path, as a namespace with `default`; TypeScript works from the
 * built CLI too, in either module system, and a CommonJS module's properties are its named exports.
 */
export async function importUserModule(abs: string): Promise<Record<string, unknown>> {
  const path = compiledTwin(abs) ?? abs;
  const typeScript = TYPESCRIPT.test(path);
  if (typeScript && !FROM_SOURCES) await (typeScriptReady ??= enableTypeScript());
  // From the sources, the test runner or tsx compiles TypeScript on import().
  if (isCommonJs(path) && !(typeScript && FROM_SOURCES)) return namespaceOfExports(requireUser(path));
  return namespaceOf((await import(pathToFileURL(path).href)) as Record<string, unknown>);
}
