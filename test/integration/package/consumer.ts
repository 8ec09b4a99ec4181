// Projects that use qbench as a user would: the package is packed once (`npm pack` of the dist/
// that test/global-setup.ts built; prepack is skipped so no second build races it) and installed
// from the tarball, with no network, into projects made by `npm init -y`: one left as npm writes it
// ("type": "commonjs"), one given "type": "module". npm's cache holds the dependency tarballs (by
// integrity) but not their registry documents, so each project gets a lockfile: qbench from the
// tarball as `npm i -D` records it, and every runtime dependency pinned as this repository's
// own lockfile pins it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The consumer's lockfile: qbench from `tarball` as a devDependency, its runtime tree copied from `repoLock`. */
export function consumerLock(repoLock: { packages: Record<string, LockEntry> }, pkg: Record<string, unknown>, tarball: string, name = 'consumer'): unknown {
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name, devDependencies: { qbench: spec } },
    'node_modules/qbench': { version: pkg['version'], resolved: spec, dev: true, dependencies: pkg['dependencies'], bin: pkg['bin'], engines: pkg['engines'] },
  };
  for (const [path, entry] of Object.entries(repoLock.packages)) {
    if (path === '' || entry.dev === true) continue;
    const { devOptional: _devOptional, ...rest } = entry;
    packages[path] = { ...rest, dev: true };
  }
  return { name, lockfileVersion: 3, requires: true, packages };
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

/** The project kinds: as `npm init -y` leaves it, and the same with "type": "module". */
export type ProjectKind = 'commonjs' | 'module';

export interface Consumers {
  readonly projects: Readonly<Record<ProjectKind, Consumer>>;
  remove(): void;
}

/** Pack this repository once and install the tarball, offline, into a project of each kind. */
export async function installedConsumers(repoRoot: string = process.cwd()): Promise<Consumers> {
  const root = mkdtempSync(join(tmpdir(), 'qbench-consumer-'));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const packed = await runIn(repoRoot, 'npm', ['pack', '--ignore-scripts', '--pack-destination', root, '--silent'], {}, 120_000);
    const tarball = join(root, packed.stdout.trim().split('\n').pop() ?? '');
    if (packed.code !== 0 || !tarball.endsWith('.tgz')) throw new Error(`npm pack failed (${packed.code}): ${packed.stderr}`);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    const repoLock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const install = async (kind: ProjectKind): Promise<Consumer> => {
      const dir = join(root, kind);
      mkdirSync(dir);
      const init = await runIn(dir, 'npm', ['init', '-y'], { npm_config_offline: 'true' });
      if (init.code !== 0) throw new Error(`npm init -y failed (${init.code}): ${init.stderr}`);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      if (kind === 'module') manifest['type'] = 'module';
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, devDependencies: { qbench: `file:${tarball}` } }, null, 2));
      writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(consumerLock(repoLock, pkg, tarball, String(manifest['name'])), null, 2));
      const installed = await runIn(dir, 'npm', ['install', '--offline', '--no-audit', '--no-fund'], {}, 120_000);
      if (installed.code !== 0) throw new Error(`npm install --offline failed (${installed.code}): ${installed.stderr}`);
      return { dir, run: (cmd, args, o = {}) => runIn(dir, cmd, args, o.env, o.timeoutMs), remove: () => rmSync(dir, { recursive: true, force: true }) };
    };
    const [commonjs, module] = await Promise.all([install('commonjs'), install('module')]);
    return { projects: { commonjs, module }, remove };
  } catch (e) {
    remove();
    throw e;
  }
}
