// Loading a conformance suite by path, as a scenario file is loaded: the module's default export
// is the suite (its clauses and checks). The CLI loads the shipped one, suites/conformance, this
// way, so that the engine under src/ imports no suite and a suite imports only `qbench/suite`.
import path from 'node:path';
import { QbenchError } from '../errors.js';
import { PACKAGE_ROOT, importUserModule } from '../user-module.js';
import { suiteProblems, type Suite } from './suite.js';

/** The suite shipped with the package, relative to the package root. */
export const SHIPPED_SUITE_FILE = 'suites/conformance/index.ts';

function isSuite(v: unknown): v is Suite {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<Suite>;
  return Array.isArray(s.clauses) && Array.isArray(s.checks);
}

/** The suite a module exports by default; a module that exports none, or one wired wrong, is an error naming it. */
export async function loadSuite(file: string): Promise<Suite> {
  const mod = await importUserModule(file);
  const suite = mod['default'];
  if (!isSuite(suite)) throw new QbenchError('QB_ERR_INTERNAL', `${file}: its default export is not a conformance suite ({ clauses, checks })`, { file });
  const problems = suiteProblems(suite);
  if (problems.length > 0) throw new QbenchError('QB_ERR_INTERNAL', `${file}: ${problems.join('; ')}`, { file });
  return suite;
}

let shipped: Promise<Suite> | undefined;

/** The shipped conformance suite (loaded once per process). */
export function shippedSuite(): Promise<Suite> {
  return (shipped ??= loadSuite(path.join(PACKAGE_ROOT, SHIPPED_SUITE_FILE)));
}
