// A project that uses qbench as a user would: the package is packed (`npm pack` of the dist/
// that test/global-setup.ts built; prepack is skipped so no second build races it) and installed from the tarball into an empty folder
// with no network. npm's cache holds the dependency tarballs (by integrity) but not their
// registry documents, so the consumer gets a lockfile: qbench from the tarball, and every
// runtime dependency pinned exactly as this repository's own lockfile pins it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Consumer {
  readonly dir: string;
  /** Run a command in the consumer project; never rejects on a non-zero exit. */
  run(cmd: string, args: readonly string[], o?: { env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult>;
  remove(): void;
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [k: string]: unknown;
}

/** The consumer's lockfile: qbench from `tarball`, its runtime tree copied from `repoLock`. */
export function consumerLock(repoLock: { packages: Record<string, LockEntry> }, pkg: Record<string, unknown>, tarball: string): unknown {
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { qbench: spec } },
    'node_modules/qbench': { version: pkg['version'], resolved: spec, dependencies: pkg['dependencies'], bin: pkg['bin'], engines: pkg['engines'] },
  };
  for (const [path, entry] of Object.entries(repoLock.packages)) {
    if (path === '' || entry.dev === true) continue;
    const { devOptional: _devOptional, ...rest } = entry;
    packages[path] = rest;
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

async function runIn(dir: string, cmd: string, args: readonly string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<RunResult> {
  try {
    const r = await exec(cmd, [...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: `${x.stderr ?? ''}${typeof x.code === 'number' ? '' : String(e)}` };
  }
}

/** Pack this repository and install the tarball into a fresh temporary project, offline. */
export async function installedConsumer(repoRoot: string = process.cwd()): Promise<Consumer> {
  const dir = mkdtempSync(join(tmpdir(), 'qbench-consumer-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const packed = await runIn(repoRoot, 'npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], {}, 120_000);
    const tarball = packed.stdout.trim().split('\n').pop() ?? '';
    if (packed.code !== 0 || !tarball.endsWith('.tgz')) throw new Error(`npm pack failed (${packed.code}): ${packed.stderr}`);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    const repoLock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { qbench: `file:${tarball}` } }, null, 2));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(consumerLock(repoLock, pkg, tarball), null, 2));
    const installed = await runIn(dir, 'npm', ['install', '--offline', '--no-audit', '--no-fund'], {}, 120_000);
    if (installed.code !== 0) throw new Error(`npm install --offline failed (${installed.code}): ${installed.stderr}`);
  } catch (e) {
    remove();
    throw e;
  }
  return { dir, run: (cmd, args, o = {}) => runIn(dir, cmd, args, o.env, o.timeoutMs), remove };
}
