// Shards of one global schedule across processes or machines: which share a process runs
// (`--shard i/n`, or a Kubernetes Indexed Job's JOB_COMPLETION_INDEX with `--shards n`), the
// instant every shard starts at (`--start-at`), and the scenario identity that `qbench merge`
// checks to know the shards belong to one run. Shard i of n takes the global starts whose
// index is i modulo n; a process's worker threads split that share again (thread t of T runs
// the global starts i + n*t modulo n*T), so the union of every shard's starts is the single
// process's schedule.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { usageError } from '../errors.js';
import type { ScenarioIdentity } from '../result/model.js';

export interface ProcessShard {
  readonly index: number;
  readonly count: number;
}

/** Most shards of one run. */
export const MAX_SHARDS = 1000;

/** The environment variable an Indexed Job sets to the pod's completion index. */
export const JOB_INDEX_ENV = 'JOB_COMPLETION_INDEX';
/** The environment variable that carries the shared start instant (`--start-at`). */
export const START_AT_ENV = 'QBENCH_START_AT';

function shardCount(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw usageError(`${flag}: the shard count must be a whole number, got "${text}"`);
  const n = Number(text);
  if (n < 1 || n > MAX_SHARDS) throw usageError(`${flag}: the shard count must be 1..${MAX_SHARDS}, got ${n}`);
  return n;
}

function shardIndex(text: string, count: number, what: string): number {
  if (!/^\d+$/.test(text)) throw usageError(`${what}: the shard index must be a whole number, got "${text}"`);
  const i = Number(text);
  if (i >= count) throw usageError(`${what}: the shard index must be 0..${count - 1} for ${count} shards, got ${i}`);
  return i;
}

/**
 * The process's shard from `--shard i/n`, or from `--shards n` with the index in
 * JOB_COMPLETION_INDEX; undefined when neither is given (the whole schedule).
 */
export function resolveShard(shardFlag: string | undefined, shardsFlag: string | undefined, env: Readonly<Record<string, string | undefined>>): ProcessShard | undefined {
  if (shardFlag !== undefined && shardsFlag !== undefined) throw usageError('--shard i/n and --shards n: give one (--shards takes the index from JOB_COMPLETION_INDEX)');
  if (shardFlag !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shardFlag.trim());
    if (!m) throw usageError(`--shard "${shardFlag}": write index/count, e.g. --shard 0/4 (indexes start at 0)`);
    const count = shardCount(m[2] ?? '', '--shard');
    return { index: shardIndex(m[1] ?? '', count, '--shard'), count };
  }
  if (shardsFlag !== undefined) {
    const count = shardCount(shardsFlag.trim(), '--shards');
    const fromEnv = env[JOB_INDEX_ENV];
    if (fromEnv === undefined || fromEnv === '') throw usageError(`--shards ${count}: the shard index comes from ${JOB_INDEX_ENV} (set by a Kubernetes Indexed Job), which is not set; or use --shard i/${count}`);
    return { index: shardIndex(fromEnv.trim(), count, JOB_INDEX_ENV), count };
  }
  return undefined;
}

/** The shared start instant (epoch ms) from `--start-at` or QBENCH_START_AT; undefined when neither. */
export function resolveStartAt(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = flag ?? (env[START_AT_ENV] === '' ? undefined : env[START_AT_ENV]);
  if (text === undefined) return undefined;
  const what = flag !== undefined ? '--start-at' : START_AT_ENV;
  // An ISO-8601 instant with its zone, so every machine reads the same moment.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text.trim())) {
    throw usageError(`${what} "${text}": write an ISO-8601 instant with its zone, e.g. 2030-01-01T12:00:00Z`);
  }
  const ms = Date.parse(text.trim());
  if (Number.isNaN(ms)) throw usageError(`${what} "${text}": not a valid date`);
  return ms;
}

/** Thread `thread` of `threads` inside process shard `p`: its slot in the global split. */
export function threadSlot(p: ProcessShard | undefined, thread: number, threads: number): { index: number; count: number } {
  const base = p ?? { index: 0, count: 1 };
  return { index: base.index + base.count * thread, count: base.count * threads };
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The identity of a scenario as loaded from `file` with `params` and validated to `config`. */
export async function scenarioIdentity(file: string, params: Readonly<Record<string, string>>, seed: number, config: Readonly<Record<string, unknown>>): Promise<ScenarioIdentity> {
  const sorted = Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b)));
  return { file: basename(file), fileSha256: sha256(await readFile(file)), params: sorted, seed, configSha256: sha256(JSON.stringify(config)) };
}
