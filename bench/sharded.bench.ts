// Shards of one schedule vs one process (not a test): the same open-loop scenario at 20,000
// req/s, run once by one `qbench load` process and once as 4 shard processes
// (`--shard i/4`, one `--start-at`, 5,000 req/s each) merged by `qbench merge`, against the
// same local target. Prints the achieved rate and the p99 send lateness side by side (the
// merged lateness is the p99 of one histogram of every shard's starts).
// The target is a Node HTTP server (node:cluster, TARGET_WORKERS processes) answering fixed
// JSON on 127.0.0.1. Run: npx tsx bench/sharded.bench.ts [seconds, default 5] [shards, default 4]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const sec = Number(process.argv[2] ?? 5);
const shards = Number(process.argv[3] ?? 4);
const RATE = 20_000;
const CONNECTIONS = 50;
const TARGET_WORKERS = Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
/** Time the shard processes get to start and warm up (each rehearses a second of its rate) before the shared start. */
const START_MARGIN_MS = 20_000;

// Measure the CLI as it ships: compiled by tsc into dist/.
const built = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('tsc -p tsconfig.build.json failed: the bench runs the compiled CLI');
const bin = path.join(root, 'dist', 'src', 'cli', 'bin.js');

function qbench(args: readonly string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('exit', (code) => resolve(code));
  });
}

const TARGET = `import cluster from 'node:cluster';
import { createServer } from 'node:http';
const body = '{"jobs":{"completed":0,"failed":0,"inProgress":0,"inQueue":0,"retried":0},"workers":{"idle":1,"running":0}}';
if (cluster.isPrimary) {
  for (let i = 0; i < Number(process.argv[2]); i++) cluster.fork();
  let ready = 0;
  cluster.on('listening', () => { if (++ready === Number(process.argv[2])) console.log('ready'); });
} else {
  createServer((req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); }).listen(Number(process.argv[3]), '127.0.0.1');
}
`;

interface Figures {
  achieved: number;
  p99: number;
  started: number;
  dropped: number;
  /** Starts missed by shards that were ready after the shared start (part of dropped). */
  missed: number;
  valid: boolean;
}

interface ScenarioFile {
  load: { scenarios: { validity: { valid: boolean; achievedRatePerSec: number; sendLateness: { percentiles: { p99: number } } }; iterations: { started: number; dropped: number }; shard?: { missedAtJoin: number } }[] };
}
const scenarioIn = async (file: string) => (JSON.parse(await readFile(file, 'utf8')) as ScenarioFile).load.scenarios[0]!;

async function figures(file: string, shardFiles: readonly string[] = []): Promise<Figures> {
  const s = await scenarioIn(file);
  const missed = (await Promise.all(shardFiles.map(scenarioIn))).reduce((a, x) => a + (x.shard?.missedAtJoin ?? 0), 0);
  return { achieved: s.validity.achievedRatePerSec, p99: s.validity.sendLateness.percentiles.p99, started: s.iterations.started, dropped: s.iterations.dropped, missed, valid: s.validity.valid };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'qbench-sharded-bench-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  await writeFile(path.join(dir, 'target.mjs'), TARGET);
  const target = spawn(process.execPath, [path.join(dir, 'target.mjs'), String(TARGET_WORKERS), String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve) => target.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
    const scenario = path.join(dir, 'open-loop.mjs');
    const relaxed = { maxSendLatenessP99Ms: 60_000, maxEventLoopDelayP99Ms: 60_000, minAchievedRatio: 0, maxDroppedRatio: 1 };
    await writeFile(scenario, `export default ${JSON.stringify({ name: 'open-loop', executor: 'constant-arrival-rate', ratePerSec: RATE, durationMs: sec * 1000, connections: CONNECTIONS, maxInFlight: 10_000, steps: [{ kind: 'health' }], validity: relaxed })};\n`);
    const url = `http://127.0.0.1:${port}/v2/ep`;

    const single = path.join(dir, 'single');
    if ((await qbench(['load', scenario, '--target', url, '--out', single])) !== 0) throw new Error('the single-process run failed');
    const one = await figures(path.join(single, 'result.json'));

    const startAt = new Date(Date.now() + START_MARGIN_MS).toISOString();
    const codes = await Promise.all(Array.from({ length: shards }, (_, i) => qbench(['load', scenario, '--target', url, '--shard', `${i}/${shards}`, '--start-at', startAt, '--out', path.join(dir, `shard-${i}`)])));
    if (codes.some((c) => c !== 0)) throw new Error(`a shard failed: exit codes ${codes.join(', ')}`);
    const merged = path.join(dir, 'merged.json');
    const shardFiles = Array.from({ length: shards }, (_, i) => path.join(dir, `shard-${i}`, 'result.json'));
    const mergeCode = await qbench(['merge', ...shardFiles, '-o', merged]);
    if (mergeCode === null || mergeCode === 2 || mergeCode === 3) throw new Error(`qbench merge failed (exit ${mergeCode})`);
    const many = await figures(merged, shardFiles);

    const row = (name: string, f: Figures) =>
      `${name.padEnd(34)} ${f.achieved.toFixed(0).padStart(8)}/s ${((f.achieved / RATE) * 100).toFixed(2).padStart(7)}% ${f.p99.toFixed(2).padStart(9)} ms ${String(f.started).padStart(9)} ${String(f.dropped).padStart(8)} ${String(f.missed).padStart(7)}`;
    console.log(`\nopen loop at ${RATE}/s for ${sec} s, ${CONNECTIONS} connections per process, target: ${TARGET_WORKERS} Node worker(s), ${availableParallelism()} cores`);
    console.log(`${'run'.padEnd(34)} ${'achieved'.padStart(10)} ${'of rate'.padStart(8)} ${'p99 late'.padStart(12)} ${'started'.padStart(9)} ${'dropped'.padStart(8)} ${'missed'.padStart(7)}`);
    console.log(row('one process at 20,000/s', one));
    console.log(row(`${shards} shards at ${RATE / shards}/s each, merged`, many));
  } finally {
    target.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
