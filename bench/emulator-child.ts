// Start bench/emulator-server.ts in a child process and resolve to its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface Child {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export function startChild(kind: 'bare' | 'emulator', nodeArgs: string[] = []): Promise<Child> {
  const script = fileURLToPath(new URL('./emulator-server.ts', import.meta.url));
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${kind} server exited early with ${code}`)));
    const rl = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    rl.once('line', (line) => {
      const { url } = JSON.parse(line) as { url: string };
      proc.removeAllListeners('exit');
      resolve({
        url,
        proc,
        stop: () =>
          new Promise<void>((r) => {
            proc.once('exit', () => r());
            proc.kill('SIGTERM');
          }),
      });
    });
  });
}
