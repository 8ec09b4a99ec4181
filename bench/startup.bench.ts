// Start-up of the built CLI, side by side with the start-up of two CLIs of the same kind,
// measured in the same run, alternating, as ratios to `vitest --version` (the peer):
//  1. `qbench --version`, `qbench --help`, `qbench load --help` (bar: --version and --help at
//     most 1.5x vitest --version); `autocannon --version` for scale.
//  2. `qbench load` against a local HTTP server: ms from process start to the emulator-info
//     read, the preflight request and the first scheduled request (goal: 500 ms).
//  3. Four `qbench load --shard i/4` processes started at once with one `--start-at` 4 s ahead
//     (goal: each joins the shared start: no start missed, every run valid), with each shard's
//     ms from process start to its first scheduled request.
// Run: npx tsx bench/startup.bench.ts [rounds, default 15]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const rounds = Number(process.argv[2] ?? 15);

// Measure the CLI as installed: compiled by tsc into dist/.
const built = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('tsc -p tsconfig.build.json failed: the bench measures the built CLI');

const bin = path.join(root, 'dist', 'src', 'cli', 'bin.js');
const COMMANDS: readonly { name: string; args: string[] }[] = [
  { name: 'vitest --version', args: [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), '--version'] },
  { name: 'autocannon --version', args: [path.join(root, 'node_modules', 'autocannon', 'autocannon.js'), '--version'] },
  { name: 'qbench --version', args: [bin, '--version'] },
  { name: 'qbench --help', args: [bin, '--help'] },
  { name: 'qbench load --help', args: [bin, 'load', '--help'] },
];
const PEER = 'vitest --version';

/** Wall ms of one run of `node <args>`, to its exit. */
function once(args: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}`);
  return ms;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const times = new Map(COMMANDS.map((c) => [c.name, [] as number[]]));
for (const c of COMMANDS) once(c.args); // warm the file cache
for (let r = 0; r < rounds; r++) for (const c of COMMANDS) times.get(c.name)!.push(once(c.args));
const peerMs = median(times.get(PEER)!);
console.log(`start-up, median of ${rounds} alternating rounds (node ${process.version}); ratio to ${PEER}`);
for (const c of COMMANDS) {
  const ms = median(times.get(c.name)!);
  console.log(`  ${c.name.padEnd(22)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / peerMs).toFixed(2)}x`);
}

/** One `qbench load` run: ms from spawn to each request the server saw. */
async function loadRun(scenario: string, out: string): Promise<number[]> {
  const seen: number[] = [];
  let t0 = 0;
  const server = http.createServer((req, res) => {
    seen.push(performance.now() - t0);
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end('{"jobs":{"completed":0},"workers":{"idle":1,"running":0}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  t0 = performance.now();
  const p = spawn(process.execPath, [bin, 'load', scenario, '--target', `http://127.0.0.1:${port}/v2/ep`, '--out', out], { stdio: 'ignore', env: { ...process.env, QBENCH_API_KEY: 'bench' } });
  const code = await new Promise<number | null>((resolve) => p.on('exit', resolve));
  await new Promise((resolve) => server.close(resolve));
  if (code !== 0) throw new Error(`qbench load exited ${code}`);
  return seen;
}

const dir = await mkdtemp(path.join(tmpdir(), 'qbench-startup-'));
try {
  const scenario = path.join(dir, 'first-request.mjs');
  await writeFile(scenario, "export default { name: 'first-request', executor: 'constant-arrival-rate', ratePerSec: 20, durationMs: 500, steps: [{ kind: 'health' }] };\n");
  const loadRounds = Math.max(3, Math.ceil(rounds / 3));
  const runs: number[][] = [];
  for (let r = 0; r < loadRounds; r++) runs.push(await loadRun(scenario, path.join(dir, `out-${r}`)));
  // The requests in order: the emulator-info read (target facts), the preflight /health, then the schedule.
  const at = (i: number) => median(runs.map((s) => s[i]!));
  console.log(`qbench load to a local server, median of ${loadRounds} runs, ms from process start (ratio to ${PEER}):`);
  for (const [label, i] of [['target facts read', 0], ['preflight request', 1], ['first scheduled request', 2]] as const) {
    console.log(`  ${label.padEnd(24)} ${at(i).toFixed(0).padStart(5)} ms  ${(at(i) / peerMs).toFixed(2)}x`);
  }
  const shards = 4;
  const shardScenario = path.join(dir, 'shards.mjs');
  await writeFile(shardScenario, "export default { name: 'shards', executor: 'constant-arrival-rate', ratePerSec: 200, durationMs: 2000, steps: [{ kind: 'health' }] };\n");
  const seen: number[] = [];
  const server = http.createServer((req, res) => {
    seen.push(Date.now());
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end('{"jobs":{"completed":0},"workers":{"idle":1,"running":0}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const spawnedAt = Date.now();
  const startAt = spawnedAt + 4000;
  const codes = await Promise.all(
    Array.from({ length: shards }, (_, i) => {
      const p = spawn(process.execPath, [bin, 'load', shardScenario, '--target', `http://127.0.0.1:${port}/v2/ep`, '--shard', `${i}/${shards}`, '--start-at', new Date(startAt).toISOString(), '--out', path.join(dir, `shard-${i}`)], { stdio: 'ignore', env: { ...process.env, QBENCH_API_KEY: 'bench' } });
      return new Promise<number | null>((resolve) => p.on('exit', resolve));
    }),
  );
  await new Promise((resolve) => server.close(resolve));
  console.log(`${shards} shards started at once, --start-at ${startAt - spawnedAt} ms ahead (exit codes ${codes.join(', ')}):`);
  const firstScheduled = seen.filter((t) => t >= startAt - 50);
  console.log(`  first scheduled request ${firstScheduled.length > 0 ? Math.min(...firstScheduled) - startAt : NaN} ms after the shared start`);
  for (let i = 0; i < shards; i++) {
    const result = JSON.parse(await readFile(path.join(dir, `shard-${i}`, 'result.json'), 'utf8')) as { load: { scenarios: { validity: { valid: boolean; reasons: string[] }; shard?: { missedAtJoin: number } }[] } };
    const sc = result.load.scenarios[0]!;
    console.log(`  shard ${i}/${shards}: ${sc.validity.valid ? 'valid' : `INVALID (${sc.validity.reasons.join('; ')})`}, starts missed at join: ${sc.shard?.missedAtJoin ?? 'n/a'}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
