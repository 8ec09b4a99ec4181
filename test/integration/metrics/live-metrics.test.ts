// Live metrics into the real parts: Debian's prometheus started on loopback with its
// remote-write receiver, and a local OTLP/HTTP receiver decoding what the OpenTelemetry
// exporter sends (JSON). A load run exports every second; PromQL over the HTTP API returns the
// run's totals exactly and its p99 within the bucket that holds the result's HDR p99, and so
// does the OTLP data. A metrics endpoint that never answers loses samples, says how many, and
// leaves the schedule alone; `qbench start --metrics` streams its load part. ~20 s (prometheus start included).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { QbenchResult, type LoadScenarioResult } from '../../../src/result/model.js';
import { LATENCY_BOUNDS_S } from '../../../src/metrics/snapshot.js';

const PROMETHEUS = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim();
const RUN_ID = `live-metrics-${process.pid}`;
let dir = '';

function io(env: NodeJS.ProcessEnv): CliIo & { text: () => string } {
  const out: string[] = [];
  return { stdout: (t) => out.push(t), stderr: (t) => out.push(t), isTty: false, env, signal: new AbortController().signal, text: () => out.join('') };
}

async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The bucket bounds (s) around a latency in ms: a quantile read from the buckets lies within them. */
function boundsAround(ms: number): [number, number] {
  const s = ms / 1000;
  const i = LATENCY_BOUNDS_S.findIndex((b) => s <= b);
  return [i > 0 ? (LATENCY_BOUNDS_S[i - 1] ?? 0) : 0, LATENCY_BOUNDS_S[i] ?? Number.POSITIVE_INFINITY];
}

const SCENARIO = `export default { name: 'live', executor: 'constant-arrival-rate', ratePerSec: 40, durationMs: 3000, steps: [{ kind: 'run', input: { prompt: 'x' } }, { kind: 'status' }] };\n`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-metrics-'));
  await writeFile(path.join(dir, 'live.mjs'), SCENARIO);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(PROMETHEUS === '')(`a load run with --metrics${PROMETHEUS === '' ? ' (SKIPPED: no prometheus binary on PATH; install it: apt-get install -y prometheus)' : ''}`, () => {
  let prom: ChildProcess | undefined;
  let promUrl = '';
  let otlp: Server;
  let otlpUrl = '';
  const otlpBodies: unknown[] = [];
  beforeAll(async () => {
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    await writeFile(path.join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\n');
    prom = spawn(PROMETHEUS, [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver'], { stdio: 'ignore' });
    const t0 = Date.now();
    while (!(await fetch(`${promUrl}/-/ready`).then((r) => r.ok, () => false))) {
      if (Date.now() - t0 > 30_000 || prom.exitCode !== null) throw new Error('prometheus did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    otlp = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        otlpBodies.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    otlpUrl = await listen(otlp);
  }, 60_000);
  afterAll(async () => {
    prom?.kill('SIGTERM');
    await new Promise((r) => otlp.close(r));
  });

  it('shows up in Prometheus and OTLP: totals exact, p99 within its bucket', { timeout: 60_000 }, async () => {
    const out = path.join(dir, 'run');
    const cli = io({ QBENCH_RUN_ID: RUN_ID });
    const code = await main(['load', path.join(dir, 'live.mjs'), '--target', 'emulator', '--time-scale', '60', '--metrics', `prometheus=${promUrl}/api/v1/write`, '--metrics', `otlp=${otlpUrl}/v1/metrics`, '--out', out], cli);
    expect([0, 4], cli.text()).toContain(code);
    expect(cli.text()).toMatch(/metrics prometheus http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write: \d+ snapshots sent/);
    expect(cli.text()).not.toMatch(/samples dropped/);
    // The generator's thread only copied the totals; what that cost is reported.
    expect(cli.text()).toMatch(/metrics: \d+ snapshots taken on the generator's thread, [\d.]+ µs p50, [\d.]+ µs p99, [\d.]+ µs max each/);
    const result = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    const s = result.load?.scenarios[0] as LoadScenarioResult;

    const query = async (q: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
      const r = (await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}&time=${Date.now() / 1000}`)).json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      expect(r.status).toBe('success');
      return r.data.result;
    };
    const totals = await query(`sum by (step, status) (qbench_requests_total{run_id="${RUN_ID}"})`);
    for (const st of s.steps) {
      for (const [status, n] of Object.entries(st.counts)) {
        const got = totals.find((x) => x.metric['step'] === st.step && x.metric['status'] === status);
        expect(Number(got?.value[1]), `${st.step} ${status}`).toBe(n);
      }
      const [lo, hi] = boundsAround(st.latency.percentiles.p99);
      const [p99] = await query(`histogram_quantile(0.99, sum by (le) (qbench_request_latency_seconds_bucket{run_id="${RUN_ID}", step="${st.step}"}))`);
      expect(Number(p99?.value[1]), `${st.step} p99 ${st.latency.percentiles.p99} ms`).toBeGreaterThanOrEqual(lo);
      expect(Number(p99?.value[1])).toBeLessThanOrEqual(hi);
    }
    // Second by second: one sample per second of the run (and the scenario's end).
    const [perSecond] = await query(`count_over_time(qbench_in_flight{run_id="${RUN_ID}"}[5m])`);
    expect(Number(perSecond?.value[1])).toBeGreaterThanOrEqual(3);
    const [labels] = await query(`qbench_in_flight{run_id="${RUN_ID}"}`);
    expect(labels?.metric).toMatchObject({ scenario: 'live', shard: '0/1', target: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v2\/\S+$/) });
    expect(JSON.stringify(labels?.metric)).not.toMatch(/qb-[0-9a-f]{24}/);

    // Every query of the Grafana dashboard (deploy/grafana) answers with this run's series.
    const dashboard = JSON.parse(await readFile(path.join(import.meta.dirname, '../../../deploy/grafana/qbench-load.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    for (const p of dashboard.panels) {
      for (const t of p.targets) {
        const q = t.expr.replaceAll('$run_id', RUN_ID).replaceAll('$scenario', '.*').replaceAll('$shard', '.*').replaceAll('$__rate_interval', '1m');
        expect((await query(q)).length, `${p.title}: ${q}`).toBeGreaterThan(0);
      }
    }

    // OTLP: the last export holds the same totals and a histogram whose p99 bucket holds the HDR p99.
    interface Point { attributes: { key: string; value: { stringValue?: string } }[]; asInt?: string | number; count?: string | number; bucketCounts?: (string | number)[]; explicitBounds?: number[] }
    interface Metric { name: string; sum?: { dataPoints: Point[] }; histogram?: { dataPoints: Point[] } }
    const last = otlpBodies[otlpBodies.length - 1] as { resourceMetrics: { scopeMetrics: { metrics: Metric[] }[] }[] };
    expect(otlpBodies.length).toBeGreaterThanOrEqual(3);
    const metrics = last.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((m) => m.metrics));
    const attr = (p: Point, k: string) => p.attributes.find((a) => a.key === k)?.value.stringValue;
    for (const st of s.steps) {
      for (const [status, n] of Object.entries(st.counts)) {
        const p = metrics.find((m) => m.name === 'qbench.requests')?.sum?.dataPoints.find((x) => attr(x, 'qbench.step') === st.step && attr(x, 'qbench.status') === status);
        expect(Number(p?.asInt), `otlp ${st.step} ${status}`).toBe(n);
      }
      const h = metrics.find((m) => m.name === 'qbench.request.latency')?.histogram?.dataPoints.find((x) => attr(x, 'qbench.step') === st.step);
      expect(Number(h?.count)).toBe(st.latency.percentiles.count);
      const counts = (h?.bucketCounts ?? []).map(Number);
      let seen = 0;
      const i = counts.findIndex((c) => (seen += c) >= Math.ceil(0.99 * Number(h?.count)));
      expect(h?.explicitBounds?.[i], `${st.step} otlp p99 bucket`).toBe(boundsAround(st.latency.percentiles.p99)[1]);
    }
  });
  it('streams from qbench start too (--metrics on its load part)', { timeout: 60_000 }, async () => {
    const runId = `${RUN_ID}-start`;
    const config = path.join(dir, 'qbench.config.json');
    await writeFile(config, JSON.stringify({ load: { scenarios: [{ file: 'live.mjs' }] }, reportDir: path.join(dir, 'start') }));
    const cli = io({ QBENCH_RUN_ID: runId });
    const code = await main(['start', '--config', config, '--parts', 'load', '--metrics', `prometheus=${promUrl}/api/v1/write`], cli);
    expect([0, 4], cli.text()).toContain(code);
    expect(cli.text()).toMatch(/metrics prometheus http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write: \d+ snapshots sent/);
    const r = (await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(`sum(qbench_iterations_started_total{run_id="${runId}"})`)}&time=${Date.now() / 1000}`)).json()) as { data: { result: { value: [number, string] }[] } };
    expect(Number(r.data.result[0]?.value[1])).toBe(120);
  });
});

describe('a metrics endpoint that never answers', () => {
  it('loses samples, says how many, and leaves the schedule alone', { timeout: 60_000 }, async () => {
    const held: ServerResponse[] = [];
    const silent = createServer((_req, res) => void held.push(res));
    const url = await listen(silent);
    try {
      const out = path.join(dir, 'silent');
      const cli = io({});
      const code = await main(['load', path.join(dir, 'live.mjs'), '--target', 'emulator', '--time-scale', '60', '--metrics', `prometheus=${url}/api/v1/write`, '--out', out], cli);
      expect([0, 4], cli.text()).toContain(code);
      const m = /metrics prometheus \S+: (\d+) snapshots sent \(\d+ samples\), (\d+) samples dropped \(endpoint slow or failing/.exec(cli.text());
      expect(m, cli.text()).not.toBeNull();
      expect(Number(m?.[1])).toBe(0);
      expect(Number(m?.[2])).toBeGreaterThan(0);
      // Every start of the schedule went out: 40/s for 3 s, none dropped for the exporter's sake.
      const s = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))).load?.scenarios[0];
      expect(s?.iterations).toEqual({ scheduled: 120, started: 120, dropped: 0 });
    } finally {
      for (const r of held) r.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
