// What each command line loads before it does anything, read from the static import graph
// (test/unit/import-graph.ts; a dynamic import() is not followed): `qbench --version` and
// `qbench --help` load the few modules pinned here, a command's declaration loads zod and light
// modules only, and a command's work (<name>-run.ts) only when it runs. A new static import on
// these paths fails here, so that making start-up slower is a deliberate change.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, loadedModules, REPO_ROOT, rel, sourceFiles } from '../import-graph.js';

const src = (p: string): string => path.join(REPO_ROOT, 'src', p);
const COMMANDS_DIR = src('cli/commands');
const runModules = sourceFiles(COMMANDS_DIR).filter((f) => f.endsWith('-run.ts'));
const declarations = sourceFiles(COMMANDS_DIR).filter((f) => !f.endsWith('-run.ts') && !f.endsWith('index.ts'));

describe('start-up imports', () => {
  it('qbench --version loads bin, main and five small modules, and no package', () => {
    const loaded = loadedModules([src('cli/bin.ts')]);
    expect([...loaded.modules].map(rel).sort()).toEqual(['src/cli/bin.ts', 'src/cli/command.ts', 'src/cli/main.ts', 'src/cli/top-help.ts', 'src/errors.ts', 'src/exit-codes.ts', 'src/version.ts']);
    expect([...loaded.packages]).toEqual([]);
  });

  it('qbench --help adds the command table and no declaration (yargs only where the help is not the plain list)', () => {
    const loaded = loadedModules([src('cli/bin.ts'), src('cli/commands/index.ts')]);
    expect([...loaded.modules].map(rel).sort()).toEqual([
      'src/cli/bin.ts', 'src/cli/command.ts', 'src/cli/commands/index.ts', 'src/cli/main.ts', 'src/cli/top-help.ts', 'src/errors.ts', 'src/exit-codes.ts', 'src/version.ts',
    ]);
    expect([...loaded.packages]).toEqual([]);
  });

  it('every command has a declaration and a -run module', () => {
    expect(declarations.length).toBe(14);
    for (const d of declarations) expect(runModules, rel(d)).toContain(d.replace(/\.ts$/, '-run.ts'));
  });

  it.each(declarations.map((d) => [rel(d), d] as const))('qbench %s --help loads zod and light modules, no command work', (_name, declaration) => {
    const loaded = loadedModules([src('cli/bin.ts'), src('cli/commands/index.ts'), src('cli/options.ts'), src('cli/target-options.ts'), declaration]);
    expect([...loaded.packages]).toEqual(['zod']);
    const reached = [...loaded.modules].map(rel);
    expect(reached.filter((m) => m.endsWith('-run.ts') || /^src\/(client|conformance|load\/(?!scenario|sharding)|report\/(?!compare-limits)|result\/(?!compare-metrics)|journal|metrics|fuzz\/(?!property-names))/.test(m))).toEqual([]);
  });

  it('main imports yargs, the table and the declarations only dynamically', () => {
    expect(importsOf(src('cli/main.ts')).filter((e) => !e.typeOnly).map((e) => (e.isPackage ? e.to : rel(e.to))).sort()).toEqual(['src/cli/command.ts', 'src/cli/top-help.ts', 'src/errors.ts', 'src/exit-codes.ts', 'src/version.ts']);
  });
});
