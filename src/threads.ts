// Starting a worker thread on one of qbench's own modules, from the built CLI (dist/, plain
// JavaScript) as from the sources under tsx or vitest, where a worker does not inherit the main
// thread's TypeScript loader: there a tiny bootstrap registers tsx first, then imports the module.
import type { WorkerOptions } from 'node:worker_threads';

/** What `new Worker(entry, options)` needs to run `<name>.ts` / `<name>.js` beside `callerUrl`. */
export function threadEntry(callerUrl: string, name: string): { entry: URL | string; options: Pick<WorkerOptions, 'eval'> } {
  if (!callerUrl.endsWith('.ts')) return { entry: new URL(`./${name}.js`, callerUrl), options: { eval: false } };
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return { entry: code, options: { eval: true } };
}
