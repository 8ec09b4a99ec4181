// No module of src/ imports itself through others: the static import graph (test/unit/import-graph.ts,
// the TypeScript parser over every src/**/*.ts) has no cycle. Type-only imports count as edges:
// they are erased from the JavaScript, but a type cycle still ties two modules to each other's
// changes. A cycle not in KNOWN fails the test, listed with one path through it; a KNOWN cycle
// that changed or is gone fails too, so the list is kept exact.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclePath, importCycles, REPO_ROOT, rel, sourceFiles } from './import-graph.js';

/** Cycles known and not yet broken, each with why it remains (none now: a new one fails the test). */
const KNOWN: readonly (readonly string[])[] = [];

const files = sourceFiles(path.join(REPO_ROOT, 'src'));
const describeCycle = (members: readonly string[], withTypes: boolean): string =>
  `${cyclePath(members, withTypes).map(rel).join(' -> ')} (members: ${members.map(rel).join(', ')})`;

describe('import cycles in src/', () => {
  it('reads the whole tree', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no value import cycle: no module runs before a module it imports has finished loading', () => {
    expect(importCycles(files, false).map((c) => describeCycle(c, false))).toEqual([]);
  });

  it('no cycle counting type-only imports, but the known ones listed above', () => {
    const found = importCycles(files, true).map((c) => c.map(rel));
    const key = (c: readonly string[]) => c.join(' ');
    const known = new Set(KNOWN.map(key));
    const unknown = found.filter((c) => !known.has(key(c)));
    expect(unknown.map((c) => describeCycle(c.map((f) => path.join(REPO_ROOT, f)), true))).toEqual([]);
    const foundKeys = new Set(found.map(key));
    expect(KNOWN.filter((c) => !foundKeys.has(key(c))), 'a known cycle changed or is gone: update KNOWN').toEqual([]);
  });
});
