// The built CLI's `qbench check` by URL, as a user runs it, for tests and proofs at the border: the
// key in the named variable, every report written to a temporary folder, and the result read back
// from its result.json (the folder removed after).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BIN, ROOT } from './border-emulate.js';

const exec = promisify(execFile);

export interface CheckedVerdict {
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly expected?: string;
  readonly observed?: string;
  readonly curl?: string;
  readonly exchanges?: readonly { response?: { body?: string } }[];
}

export interface CheckCliRun {
  readonly code: number;
  /** stdout and stderr together. */
  readonly out: string;
  readonly checks: readonly { readonly id: string; readonly verdict: CheckedVerdict }[];
}

/** `qbench check --target <url> --endpoint <endpoint> --api-key-env <keyEnv> --profile quick <args> --out <temp>`. */
export async function runCheckCli(o: { url: string; endpoint: string; apiKey: string; keyEnv: string; args: readonly string[] }): Promise<CheckCliRun> {
  const dir = await mkdtemp(path.join(tmpdir(), 'qbench-check-'));
  try {
    const argv = [BIN, 'check', '--target', o.url, '--endpoint', o.endpoint, '--api-key-env', o.keyEnv, '--profile', 'quick', ...o.args, '--out', dir];
    const r = await exec(process.execPath, argv, { cwd: ROOT, env: { ...process.env, [o.keyEnv]: o.apiKey }, maxBuffer: 32 * 1024 * 1024 }).then(
      (x) => ({ code: 0, out: x.stdout + x.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    const result = JSON.parse(await readFile(path.join(dir, 'result.json'), 'utf8')) as { conformance: { checks: CheckCliRun['checks'] } };
    return { ...r, checks: result.conformance.checks };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
