// The static import graph of our own TypeScript sources, read with the compiler's parser (no
// type checking, no module loading): every `import ... from`, `import '...'` and
// `export ... from` of a relative path, resolved from the emitted .js name to the .ts file.
// Dynamic `import()` is not an edge: it is how a module is loaded only when used.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** An absolute .ts path, or for a package its name (`zod`, `@opentelemetry/api`). */
  readonly to: string;
  readonly isPackage: boolean;
  /** `import type` / `export type`: erased from the emitted JavaScript (verbatimModuleSyntax). */
  readonly typeOnly: boolean;
}

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

const cache = new Map<string, readonly ImportEdge[]>();

/** The relative imports of one file, resolved to absolute .ts paths. */
export function importsOf(file: string): readonly ImportEdge[] {
  const known = cache.get(file);
  if (known) return known;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  for (const s of source.statements) {
    let spec: ts.Expression | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(s)) {
      spec = s.moduleSpecifier;
      typeOnly = s.importClause?.isTypeOnly === true;
    } else if (ts.isExportDeclaration(s) && s.moduleSpecifier) {
      spec = s.moduleSpecifier;
      typeOnly = s.isTypeOnly;
    }
    if (!spec || !ts.isStringLiteral(spec) || spec.text.startsWith('node:')) continue;
    if (!spec.text.startsWith('.')) {
      const parts = spec.text.split('/');
      edges.push({ to: parts.slice(0, spec.text.startsWith('@') ? 2 : 1).join('/'), isPackage: true, typeOnly });
      continue;
    }
    const target = resolveSource(path.resolve(path.dirname(file), spec.text));
    if (target) edges.push({ to: target, isPackage: false, typeOnly });
  }
  cache.set(file, edges);
  return edges;
}

function resolveSource(specPath: string): string | undefined {
  const candidates = [specPath.replace(/\.js$/, '.ts'), specPath.replace(/\.mjs$/, '.mts'), specPath, `${specPath}.ts`, path.join(specPath, 'index.ts')];
  return candidates.find((c) => /\.m?ts$/.test(c) && existsSync(c));
}

/**
 * What loading `entries` loads through static value imports (type-only imports are erased, so
 * they load nothing): our own modules, and the packages they import by name.
 */
export function loadedModules(entries: readonly string[]): { readonly modules: Set<string>; readonly packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (modules.has(file)) continue;
    modules.add(file);
    for (const e of importsOf(file)) {
      if (e.typeOnly) continue;
      if (e.isPackage) packages.add(e.to);
      else queue.push(e.to);
    }
  }
  return { modules, packages };
}

/** Every .ts file under `dir`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** A path relative to the repository root, with forward slashes. */
export const rel = (file: string): string => path.relative(REPO_ROOT, file).split(path.sep).join('/');

/**
 * The import cycles among `files`: each strongly connected component of more than one module
 * (or a module importing itself), its members sorted. `typeOnly` edges count when `withTypes`.
 */
export function importCycles(files: readonly string[], withTypes: boolean): string[][] {
  const inSet = new Set(files);
  const edges = (v: string): string[] => importsOf(v).filter((e) => !e.isPackage && inSet.has(e.to) && (withTypes || !e.typeOnly)).map((e) => e.to);
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges(v).includes(v)) cycles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

/** One closed path through a cycle's members, from its first member: a → b → ... → a. */
export function cyclePath(members: readonly string[], withTypes: boolean): string[] {
  const inCycle = new Set(members);
  const start = members[0]!;
  const edges = (v: string): string[] => importsOf(v).filter((e) => !e.isPackage && inCycle.has(e.to) && (withTypes || !e.typeOnly)).map((e) => e.to);
  // Breadth-first from the start's successors back to the start: the shortest loop through it.
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of edges(v)) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}
