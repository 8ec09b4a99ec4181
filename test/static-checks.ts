// The static half of `npm test`: the type check, the lint and the build of dist/ (which the
// integration tests run) at once, each a process of its own, instead of one after another.
// Each one's output is printed when it ends, under its name; the exit status is 1 when any failed.
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (p: string): string => path.join(root, 'node_modules', p);
const TASKS: readonly (readonly [string, readonly string[]])[] = [
  ['typecheck', [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']],
  ['lint', [bin('eslint/bin/eslint.js'), '.']],
  ['build', [bin('typescript/bin/tsc'), '-p', 'tsconfig.build.json']],
];

const results = await Promise.all(
  TASKS.map(
    ([name, args]) =>
      new Promise<{ name: string; ok: boolean; why: string }>((resolve) => {
        const t0 = performance.now();
        const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code, signal) => {
          const s = ((performance.now() - t0) / 1000).toFixed(1);
          process.stdout.write(`${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${s} s)\n${out}`);
          resolve({ name, ok: code === 0, why: code === null ? `signal ${String(signal)}` : `exit ${code}` });
        });
      }),
  ),
);
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  process.stderr.write(`static checks failed: ${failed.map((r) => `${r.name} (${r.why})`).join(', ')}\n`);
  process.exitCode = 1;
}
