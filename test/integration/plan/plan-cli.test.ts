// `qbench plan` as installed: the built CLI simulates a small twin over a few settings (its
// sweep on worker threads started from dist/), writes every report format, and exits 0 when a
// setting meets the SLO, 1 when none does (saying what would be needed), 2 on a malformed SLO.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResult } from '../../../src/result/read-result.js';
import { runBuiltCli } from '../built-cli.js';

let dir = '';
let twin = '';

/** Cold starts of 2 s, jobs of about 0.5 s: a small grid answers in a few seconds. */
const TWIN = {
  endpoints: ['plan-test'],
  deployments: {
    'plan-test': {
      workersMin: 0,
      workersMax: 2,
      idleTimeoutS: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 2,
      gpuTypeId: 'L4',
      timing: { coldStart: { kind: 'constant', ms: 2_000 }, execution: { kind: 'lognormal', medianMs: 500, sigma: 0.3 }, overhead: { kind: 'constant', ms: 50 } },
    },
  },
};

/** A few settings, one seed, two threads. */
const SMALL = ['--rate', '1', '--duration', '5m', '--workers-min', '0', '--workers-max', '1..3', '--idle-timeout', '5,60', '--scaler-type', 'QUEUE_DELAY', '--scaler-value', '2', '--seeds', '1', '--threads', '2'];

const qbench = (args: string[]) => runBuiltCli(['plan', ...args], { cwd: dir });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-plan-'));
  twin = path.join(dir, 'emulator.json');
  await writeFile(twin, JSON.stringify(TWIN));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('qbench plan (built CLI)', () => {
  it('exits 0 with the cheapest setting meeting the SLO and writes every report', async () => {
    const out = path.join(dir, 'met');
    const r = await qbench(['--twin', twin, ...SMALL, '--slo', 'p99(e2e)<30s', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Cheapest setting meeting every SLO:/);
    expect(r.stderr).toMatch(/plan: 6\/6 simulations \(100%\)/);
    expect((await readdir(out)).sort()).toEqual(['junit.xml', 'report.html', 'result.json', 'summary.md', 'summary.txt']);
    const result = parseResult(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    const plan = result.plan!;
    expect(result.meta.target.kind).toBe('simulation');
    expect(result.overall).toMatchObject({ status: 'pass', exitCode: 0 });
    expect(plan.points).toHaveLength(6);
    expect(plan.sweep).toMatchObject({ simulations: 6, threads: 2 });
    expect(plan.chosen).not.toBeNull();
    const chosen = plan.points[plan.chosen!]!;
    expect(chosen.meets).toEqual([true]);
    // no setting that meets the SLO is cheaper than the chosen one
    for (const p of plan.points) if (p.meets[0]) expect(p.costPerHourUsd.total).toBeGreaterThanOrEqual(chosen.costPerHourUsd.total);
    const md = await readFile(path.join(out, 'summary.md'), 'utf8');
    expect(md).toMatch(/### Plan/);
    expect(await readFile(path.join(out, 'report.html'), 'utf8')).toMatch(/id="plan-frontier-0"/);
  }, 90_000);

  it('exits 1 when no setting meets the SLO, saying why and what would be needed', async () => {
    const out = path.join(dir, 'missed');
    const r = await qbench(['--twin', twin, ...SMALL, '--slo', 'p99(e2e)<300ms', '--out', out]);
    expect(r.code, r.stderr).toBe(1);
    const result = parseResult(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    expect(result.plan?.chosen).toBeNull();
    expect(result.overall.status).toBe('fail');
    // the jobs alone take longer than 300 ms: no scaling setting helps
    expect(result.plan?.needed).toEqual([expect.stringMatching(/misses p99\(e2e\)<300ms; the best reached .*a faster handler or GPU would be needed/)]);
    expect(r.stdout).toMatch(/Verdict: FAIL \(exit 1\)/);
  }, 90_000);

  it('exits 2 on an SLO it cannot judge, naming the flag and the accepted forms', async () => {
    const r = await qbench(['--twin', twin, ...SMALL, '--slo', 'p75(e2e)<8s']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--slo/);
    expect(r.stderr).toMatch(/p75 is not measured by a simulation; use p50, p90, p95, p99/);
    expect(r.stderr).toMatch(/accepted: p<N>\(e2e\)<duration, p<N>\(delay\)<duration or cold\(share\)<N%/);
  }, 90_000);
});
