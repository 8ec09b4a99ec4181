// The built CLI's `qbench emulate` in a process of its own, for tests at the border: started on
// port 0, its URL read from the "ready on" line, stopped with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const BIN = path.join(ROOT, 'dist/src/cli/bin.js');

export interface EmulateProcess {
  readonly url: string;
  readonly proc: ChildProcess;
}

/** `qbench emulate --port 0 --api-key <key> ...args`; resolves with its URL once it is ready. */
export async function startEmulate(apiKey: string, args: readonly string[]): Promise<EmulateProcess> {
  const proc = spawn(process.execPath, [BIN, 'emulate', '--port', '0', '--api-key', apiKey, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const collect = (d: Buffer) => {
      out += d.toString();
      const m = /ready on (\S+)/.exec(out);
      if (m?.[1] !== undefined) resolve(m[1]);
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`qbench emulate exited ${code}: ${out}`)));
  });
  return { url, proc };
}

export async function stopEmulate(e: EmulateProcess | undefined): Promise<void> {
  if (e === undefined || e.proc.exitCode !== null || e.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => e.proc.once('exit', resolve));
  e.proc.kill('SIGTERM');
  await exited;
}
