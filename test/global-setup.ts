// Global setup of the `integration` test project (the unit project never builds): builds dist/
// once before its files run, unless it is newer than every source file. The tests that drive the
// CLI as installed (the packed package, the built `qbench emulate` and
// `qbench check` by URL) all use that one build, so no two test files compile into dist/ at the
// same time while another runs from it.
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
export const BUILT_BIN = path.join(ROOT, 'dist/src/cli/bin.js');

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) newest = Math.max(newest, (await stat(path.join(e.parentPath, e.name))).mtimeMs);
  }
  return newest;
}

export default async function setup(): Promise<void> {
  const built = await stat(BUILT_BIN).then((s) => s.mtimeMs, () => 0);
  const sources = Math.max(await newestMtime(path.join(ROOT, 'src')), await newestMtime(path.join(ROOT, 'suites')));
  if (built > sources) return;
  await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
}
