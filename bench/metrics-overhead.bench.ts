// Live metrics vs none (not a test): the same `qbench load suites/load/mixed-soak.ts --target
// emulator` run with and without `--metrics prometheus=<remote-write URL>` against Debian's
// Prometheus on loopback, alternated (off, on, off, on...), at the scenario's default rate and at
// 2,000 requests/s (`--rate 2000 --time-scale 10 --scale-rate-windows`, so the emulator's §8
// windows admit it). Prints each run's send lateness p99 and verdict, then the medians side by
// side with their difference, the cost of the snapshots on the generator's thread, and the load
// average (a shared host's noise shows there).
// Run: npx tsx bench/metrics-overhead.bench.ts [pairs per rate, default 2] [seconds at the default rate, default 15] [seconds at 2,000/s, default 10]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const pairs = Number(process.argv[2] ?? 2);
const defaultRateSec = Number(process.argv[3] ?? 15);
const highRateSec = Number(process.argv[4] ?? 10);
const scenario = path.join(root, 'suites', 'load', 'mixed-soak.ts');
console.log(`cli ${process.env['QBENCH_BENCH_BIN'] ?? 'dist/ of this checkout'}`);

const CASES = [
  { name: 'default rate (20/s)', args: ['--duration', `${defaultRateSec}s`] },
  { name: '2,000/s', args: ['--duration', `${highRateSec}s`, '--rate', '2000', '--time-scale', '10', '--scale-rate-windows'] },
] as const;

const prometheus = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
if (prometheus === '') {
  console.log('SKIPPED: no prometheus binary on PATH (apt-get install -y prometheus)');
  process.exit(0);
}

// Measure the CLI as it ships: compiled by tsc into dist/ (or another build's bin.js named by
// QBENCH_BENCH_BIN, e.g. an older commit's, to compare).
const otherBin = process.env['QBENCH_BENCH_BIN'];
if (otherBin === undefined) {
  const built = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('tsc -p tsconfig.build.json failed: the bench runs the compiled CLI');
}
const bin = otherBin ?? path.join(root, 'dist', 'src', 'cli', 'bin.js');

interface Run {
  readonly verdict: string;
  readonly latenessP99Ms: number;
  readonly loopDelayP99Ms: number;
  readonly achievedPerSec: number;
  /** The metrics close lines (snapshots sent, dropped, their cost on the generator's thread). */
  readonly metrics: string[];
}

interface ResultFile {
  load: { scenarios: { verdict: { status: string }; validity: { achievedRatePerSec: number; sendLateness: { percentiles: { p99: number } }; eventLoopDelayMs: { p99: number } } }[] };
}

function qbench(args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', () => resolve(out));
  });
}

async function once(dir: string, args: readonly string[], metricsUrl: string | undefined, n: number): Promise<Run> {
  const out = path.join(dir, `run-${n}`);
  const text = await qbench(['load', scenario, '--target', 'emulator', ...args, '--out', out, ...(metricsUrl ? ['--metrics', `prometheus=${metricsUrl}`] : [])]);
  const s = (JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')) as ResultFile).load.scenarios[0];
  if (!s) throw new Error(`no scenario in ${out}:\n${text}`);
  return {
    verdict: s.verdict.status.toUpperCase(),
    latenessP99Ms: s.validity.sendLateness.percentiles.p99,
    loopDelayP99Ms: s.validity.eventLoopDelayMs.p99,
    achievedPerSec: s.validity.achievedRatePerSec,
    metrics: text.split('\n').filter((l) => l.startsWith('metrics')),
  };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startPrometheus(dir: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  await writeFile(path.join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\n');
  const proc = spawn(prometheus, [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver'], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  while (!(await fetch(`${base}/-/ready`).then((r) => r.ok, () => false))) {
    if (Date.now() - t0 > 30_000 || proc.exitCode !== null) throw new Error('prometheus did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `${base}/api/v1/write`, proc };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'qbench-metrics-bench-'));
  const prom = await startPrometheus(dir);
  const summary: string[] = [];
  let n = 0;
  try {
    console.log(`prometheus ${prom.url}; ${pairs} pairs per rate, alternated; load average at start ${load()}`);
    for (const c of CASES) {
      const off: Run[] = [];
      const on: Run[] = [];
      for (let i = 0; i < pairs; i++) {
        for (const metrics of [false, true]) {
          const r = await once(dir, c.args, metrics ? prom.url : undefined, n++);
          (metrics ? on : off).push(r);
          console.log(`${c.name.padEnd(20)} metrics ${metrics ? 'on ' : 'off'}  ${r.verdict.padEnd(12)} send lateness p99 ${ms(r.latenessP99Ms).padStart(10)}  event-loop delay p99 ${ms(r.loopDelayP99Ms).padStart(10)}  achieved ${r.achievedPerSec}/s  load ${load()}`);
          for (const l of r.metrics) console.log(`    ${l}`);
        }
      }
      const a = median(off.map((r) => r.latenessP99Ms));
      const b = median(on.map((r) => r.latenessP99Ms));
      summary.push(
        `${c.name.padEnd(20)} off ${ms(a).padStart(10)} [${off.map((r) => r.verdict).join(' ')}]   on ${ms(b).padStart(10)} [${on.map((r) => r.verdict).join(' ')}]   on - off ${(b - a >= 0 ? '+' : '') + ms(b - a)}`,
      );
    }
    console.log(`\nsend lateness p99, median of ${pairs} alternated runs each (load average now ${load()}):`);
    for (const l of summary) console.log(l);
  } finally {
    const exited = new Promise((r) => prom.proc.once('exit', r));
    prom.proc.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
