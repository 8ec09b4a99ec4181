// The built `qbench` run as a child process, as a user runs it: its exit code and output, killed
// after a bound so a hung command fails its test instead of holding the run.
import { spawn, type ChildProcess } from 'node:child_process';
import { BUILT_BIN } from '../global-setup.js';

export interface BuiltCliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) after this long. */
  timeoutMs?: number;
  /** Where the process is recorded, for an afterAll that kills what a failed test left running. */
  procs?: ChildProcess[];
}

export function runBuiltCli(args: readonly string[], o: BuiltCliOptions = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BUILT_BIN, ...args], { cwd: o.cwd, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    o.procs?.push(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
