// Shards of one schedule end to end: the manifests `qbench kube render` prints are run as the
// cluster would run them, n local processes with the shard Job's command line and
// environment (JOB_COMPLETION_INDEX per pod, the shared start, the key as the Secret would
// give it, the results volume at a local directory), then the merge Job's script. The merged
// run must be the single-process run: every start of the schedule, the same starts per
// second, percentiles of one histogram of every sample; an incomplete set of shards must fail
// the merge naming the shard. A late shard joins where the schedule stands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { RESULTS_DIR } from '../../../src/deploy/kube.js';
import { QbenchResult, type LoadScenarioResult } from '../../../src/result/model.js';
import { bucketsOf, createHistogram, decodeHistogram, percentilesOf } from '../../../src/result/histogram.js';
import { startTinyServer, type TinyServer } from './tiny-server.js';

const SHARDS = 3;
const RATE = 120;
const DURATION_MS = 3000;
/** Time the shard processes get to start (tsx compiles the sources) before the shared start. */
const START_MARGIN_MS = 14_000;
const KEY = 'sharded-test-key-0420';

let dir = '';
let server: TinyServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-sharded-'));
  server = await startTinyServer();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function io(env: NodeJS.ProcessEnv = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTty: false, env, signal: new AbortController().signal };
}

interface Container {
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } } }[];
}
interface JobManifest {
  kind: string;
  spec: { completionMode?: string; completions: number; template: { spec: { containers: Container[] } } };
}

/** The environment the kubelet gives pod `index`: values, the index annotation, the Secret's key. */
function podEnv(c: Container, index: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.annotations['batch.kubernetes.io/job-completion-index']") env[e.name] = String(index);
    else if (e.valueFrom?.secretKeyRef) env[e.name] = KEY;
    else throw new Error(`unexpected env entry ${JSON.stringify(e)}`);
  }
  return env;
}

/** Kubernetes' $(VAR) expansion of container arguments, and the results volume at `results`. */
const expand = (arg: string, env: Record<string, string>, results: string): string =>
  arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string) => env[name] ?? m).split(RESULTS_DIR).join(results);

function run(cmd: string, args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    proc.once('exit', (code) => resolve({ code, output }));
  });
}

const scenarioOf = (r: QbenchResult): LoadScenarioResult => r.load!.scenarios[0]!;
const readResult = async (file: string) => QbenchResult.parse(JSON.parse(await readFile(file, 'utf8')));

describe('a scenario split into shards as the Indexed Job runs it', () => {
  let scenarioFile = '';
  let results = '';
  beforeAll(async () => {
    scenarioFile = path.join(dir, 'steady.mjs');
    await writeFile(
      scenarioFile,
      `export default ${JSON.stringify({
        name: 'steady',
        executor: 'constant-arrival-rate',
        ratePerSec: RATE,
        durationMs: DURATION_MS,
        steps: [{ kind: 'health' }],
        thresholds: { 'health.status_2xx.rate': ['rate>0.99'] },
        validity: { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 },
      })};\n`,
    );
    results = path.join(dir, 'volume');
    await mkdir(results);
  });

  it('n processes from the rendered manifest merge into the single-process run; a missing or duplicated shard fails the merge by name', { timeout: 90_000 }, async () => {
    const startAt = new Date(Date.now() + START_MARGIN_MS).toISOString();
    const rendered = io();
    const code = await main(['kube', 'render', scenarioFile, '--shards', String(SHARDS), '--target', `${server.url}/v2/ep`, '--start-at', startAt, '--merge-wait', '30s'], rendered);
    expect(code).toBe(0);
    const items = (JSON.parse(rendered.out.join('')) as { items: JobManifest[] }).items;
    const shardJob = items.find((m) => m.kind === 'Job' && m.spec.completionMode === 'Indexed')!;
    const mergeJob = items.find((m) => m.kind === 'Job' && m.spec.completionMode === undefined)!;
    expect(shardJob.spec.completions).toBe(SHARDS);
    const container = shardJob.spec.template.spec.containers[0]!;

    // The image's entrypoint is `qbench`: here the same CLI from the sources.
    const qbench = [process.execPath, '--import', 'tsx', path.resolve('src/cli/bin.ts')];
    const pods = Array.from({ length: SHARDS }, (_, i) => {
      const env = podEnv(container, i);
      return run(qbench[0]!, [...qbench.slice(1), ...(container.args ?? []).map((a) => expand(a, env, results))], env);
    });
    const ended = await Promise.all(pods);
    for (const [i, p] of ended.entries()) expect(p.code, `shard ${i}:\n${p.output}`).toBe(0);
    expect(ended.map((p) => p.output).join('')).not.toContain(KEY);
    // Each shard process sends one preflight GET /health before its share of the schedule.
    const seenByTarget = (server.counts.get('health') ?? 0) - SHARDS;

    // The merge Job's script, with `qbench` on the PATH as in the image.
    const bin = path.join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, 'qbench'), `#!/bin/sh\nexec ${qbench.map((x) => `'${x}'`).join(' ')} "$@"\n`);
    await chmod(path.join(bin, 'qbench'), 0o755);
    const mc = mergeJob.spec.template.spec.containers[0]!;
    const merged = await run(mc.command![0]!, mc.command!.slice(1).map((a) => expand(a, {}, results)), { PATH: `${bin}:${process.env['PATH'] ?? ''}` });
    expect(merged.code, merged.output).toBe(0);
    await stat(path.join(results, 'merged', 'report.html'));
    const whole = scenarioOf(await readResult(path.join(results, 'merged.json')));

    // Every start of the one schedule, each started once.
    const total = (RATE * DURATION_MS) / 1000;
    expect(whole.shards).toBe(SHARDS);
    expect(whole.iterations).toEqual({ scheduled: total, started: total, dropped: 0 });
    expect(seenByTarget).toBe(total);
    expect(whole.verdict.status).toBe('pass');

    // The merged percentiles are those of one histogram holding every shard's samples.
    const shardResults = await Promise.all(Array.from({ length: SHARDS }, (_, i) => readResult(path.join(results, `shard-${i}`, 'result.json'))));
    expect(shardResults.map((r) => scenarioOf(r).shard?.index).sort()).toEqual([0, 1, 2]);
    const one = createHistogram();
    for (const r of shardResults) for (const b of bucketsOf(decodeHistogram(scenarioOf(r).steps[0]!.latency.histogram))) one.recordValueWithCount(b.valueUs, b.count);
    expect(whole.steps[0]!.latency.percentiles).toEqual(percentilesOf(one));
    expect(whole.steps[0]!.latency.percentiles.count).toBe(total);

    // The same schedule in one process: the same starts in every second, within what send
    // lateness can move across a second's boundary (starts are counted when sent): ±1, plus the
    // starts of the schedule that fall within either run's worst lateness of a boundary.
    const single = io();
    expect(await main(['load', scenarioFile, '--target', `${server.url}/v2/ep`, '--out', path.join(dir, 'single')], single)).toBe(0);
    const alone = scenarioOf(await readResult(path.join(dir, 'single', 'result.json')));
    expect(alone.iterations?.started).toBe(total);
    expect(alone.verdict.status).toBe(whole.verdict.status);
    // Starts per second of the schedule (a second with only late answers in it starts none).
    const perSec = (s: LoadScenarioResult) => new Map(s.series[0]!.points.map((p) => [p.tSec, p.offeredPerSec]));
    const [m, a] = [perSec(whole), perSec(alone)];
    const shown = `merged ${JSON.stringify([...m])} vs single ${JSON.stringify([...a])}`;
    expect([...m.values()].reduce((x, y) => x + y, 0), shown).toBe(total);
    const lateMs = whole.validity.sendLateness.percentiles.max + alone.validity.sendLateness.percentiles.max;
    const slack = 1 + Math.ceil((RATE * lateMs) / 1000);
    for (const t of new Set([...m.keys(), ...a.keys()])) expect(Math.abs((m.get(t) ?? 0) - (a.get(t) ?? 0)), `second ${t} (slack ${slack}): ${shown}`).toBeLessThanOrEqual(slack);

    // An incomplete or doubled set of shards is not one run.
    const shardFile = (i: number) => path.join(results, `shard-${i}`, 'result.json');
    const missing = io();
    expect(await main(['merge', shardFile(0), shardFile(2), '-o', path.join(dir, 'x.json')], missing)).toBe(2);
    expect(missing.err.join('')).toMatch(/scenario steady is missing shard 1\/3/);
    const doubled = io();
    expect(await main(['merge', shardFile(0), shardFile(1), shardFile(1), shardFile(2), '-o', path.join(dir, 'y.json')], doubled)).toBe(2);
    expect(doubled.err.join('')).toMatch(/scenario steady shard 1\/3 is duplicated/);
  });

  it('refuses a scenario whose verdict needs one process, and a shard that is not one of n, naming why', async () => {
    // Requests to the endpoint's routes (the target probe GET /_qbench/info counts as 'other').
    const sent = () => [...server.counts.entries()].reduce((a, [op, n]) => a + (op === 'other' ? 0 : n), 0);
    const before = sent();
    const global = io();
    expect(await main(['load', 'suites/load/rate-limit.ts', '--target', `${server.url}/v2/ep`, '--shard', '0/2'], global)).toBe(2);
    expect(global.err.join('')).toMatch(/cannot run as shard 0\/2: its verdict counts the requests admitted in each rate window/);
    const outOfRange = io();
    expect(await main(['load', scenarioFile, '--target', `${server.url}/v2/ep`, '--shard', '2/2'], outOfRange)).toBe(2);
    expect(outOfRange.err.join('')).toMatch(/--shard: the shard index must be 0\.\.1 for 2 shards, got 2/);
    const noIndex = io();
    expect(await main(['load', scenarioFile, '--target', `${server.url}/v2/ep`, '--shards', '2'], noIndex)).toBe(2);
    expect(noIndex.err.join('')).toMatch(/JOB_COMPLETION_INDEX/);
    expect(sent(), 'no load request reaches the target').toBe(before);
  });

  it('worker threads inside each shard split its share again: the shards still start every iteration once', async () => {
    const before = server.counts.get('health') ?? 0;
    const startAt = new Date(Date.now() + 5000).toISOString();
    const outs = [0, 1].map((i) => path.join(dir, `threads-${i}`));
    const runs = await Promise.all(
      outs.map((out, i) => main(['load', scenarioFile, '--target', `${server.url}/v2/ep`, '--shard', `${i}/2`, '--threads', '2', '--duration', '1s', '--start-at', startAt, '--out', out], io())),
    );
    expect(runs).toEqual([0, 0]);
    const c = io();
    expect(await main(['merge', ...outs.map((o) => path.join(o, 'result.json')), '-o', path.join(dir, 'threads.json')], c)).toBe(0);
    const whole = scenarioOf(await readResult(path.join(dir, 'threads.json')));
    expect(whole.iterations).toEqual({ scheduled: RATE, started: RATE, dropped: 0 });
    expect(whole.validity.threads).toBe(4);
    // RATE scheduled starts, plus one preflight GET /health from each of the two shard processes.
    expect((server.counts.get('health') ?? 0) - before).toBe(RATE + 2);
  });

  it('a shard ready after the shared start joins where the schedule stands and counts the starts it missed as dropped', async () => {
    // Half a second into the schedule already: shard 0 of 2 owns 30 of those starts.
    const startAt = new Date(Date.now() - 500).toISOString();
    const c = io({ QBENCH_START_AT: startAt, JOB_COMPLETION_INDEX: '0' });
    const out = path.join(dir, 'late');
    expect(await main(['load', scenarioFile, '--target', `${server.url}/v2/ep`, '--shards', '2', '--duration', '1500ms', '--out', out], c)).toBe(0);
    const s = scenarioOf(await readResult(path.join(out, 'result.json')));
    const share = (RATE * 1.5) / 2;
    expect(s.shard?.missedAtJoin).toBeGreaterThanOrEqual(30);
    expect(s.iterations).toEqual({ scheduled: share, started: share - s.shard!.missedAtJoin, dropped: s.shard!.missedAtJoin });
    // The missed starts were not sent in a burst: a burst would send the oldest of them at least
    // 500 ms late (the schedule began 500 ms before this process started); what a loaded host
    // adds to an on-time start stays well below that (seen up to ~250 ms beside other agents).
    expect(s.validity.sendLateness.percentiles.max).toBeLessThan(450);
    expect(s.validity.valid).toBe(false);
    expect(s.validity.reasons.join(' ')).toMatch(/iterations missed: this shard joined the shared start/);
  });
});
