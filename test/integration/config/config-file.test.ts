// The config file through the CLI: every problem reported at once, a .ts file loaded,
// `--target <name>` picking a named target, each command's section and the report directory
// applied, and flags given on the command line winning over the file (the merge itself, option
// by option: test/unit/cli/options.test.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function run(args: string[], env: NodeJS.ProcessEnv = {}, signal = new AbortController().signal): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (out += t), isTty: false, env, signal };
  const code = await main(args, io);
  return { code, out };
}

/** Run `args` until its output holds `ready on <url>`; resolve to the URL, the output so far and a stop function. */
async function runUntilReady(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; out: () => string; stop: () => Promise<number> }> {
  let out = '';
  const ac = new AbortController();
  let ready!: (url: string) => void;
  const url = new Promise<string>((r) => (ready = r));
  const io: CliIo = {
    stdout: (t) => {
      out += t;
      const m = /ready on (\S+)/.exec(out);
      if (m?.[1] !== undefined) ready(m[1]);
    },
    stderr: (t) => (out += t),
    isTty: false,
    env,
    signal: ac.signal,
  };
  const done = main(args, io);
  const first = await Promise.race([url, done.then((code) => `exited ${code}: ${out}`)]);
  if (!first.startsWith('http')) throw new Error(first);
  return { url: first, out: () => out, stop: () => (ac.abort(), done) };
}

describe('qbench.config', () => {
  it('reports every problem of the file at once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({ targets: { staging: { url: 'ftp://x', apiKeyEnv: 'not a name' } }, conformance: { profile: 'slow' }, surprise: 1 }));
    const r = await run(['check', '--config', file, '--list']);
    expect(r.code).toBe(2);
    expect(r.out).toContain('is not a valid qbench config');
    for (const where of ['targets.staging.url', 'targets.staging.apiKeyEnv', 'conformance.profile', 'surprise']) expect(r.out).toContain(where);
  });

  it('a .ts file: --target <name> picks the named target; the conformance section and report directory apply; flags win', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const file = join(dir, 'qbench.config.ts');
    writeFileSync(
      file,
      `const config: Record<string, unknown> = {
  targets: { local: { url: 'emulator' } },
  conformance: { only: ['queue.run.answer'] },
  reportDir: 'out/check',
};
export default config;
`,
    );
    const r = await run(['check', '--config', file, '--target', 'local']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/PASS\s+§4\.1\s+queue\.run\.answer/);
    expect(r.out).toMatch(/1 pass, 0 fail/);
    expect(r.out).toContain(`reports: ${join(dir, 'out/check')}`);
    const flags = await run(['check', '--config', file, '--target', 'local', '--only', 'queue.health.answer', '--out', join(dir, 'mine')]);
    expect(flags.out).not.toContain('queue.run.answer');
    expect(flags.out).toContain(`reports: ${join(dir, 'mine')}`);
  });

  it('load runs the scenarios the file lists, each with its own params and thresholds', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    writeFileSync(
      join(dir, 'health.ts'),
      `export default (ctx: { params: Record<string, string> }) => ({
  name: 'health-' + (ctx.params['tag'] ?? 'none'),
  executor: 'constant-arrival-rate',
  ratePerSec: 5,
  durationMs: 1000,
  steps: [{ kind: 'health' }],
  thresholds: { 'health.latency': ['p(99)<0.000001'] },
  validity: { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 },
});
`,
    );
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({
      targets: { local: { url: 'emulator' } },
      load: { scenarios: [{ file: 'health.ts', params: { tag: 'a' }, thresholds: { 'health.errors.rate': ['rate<0.5'] } }, { file: 'health.ts', params: { tag: 'b' } }] },
      reportDir: 'out/load',
    }));
    const r = await run(['load', '--config', file, '--target', 'local']);
    const result = JSON.parse(readFileSync(join(dir, 'out/load/result.json'), 'utf8')) as { load: { scenarios: { name: string; thresholds: { metric: string; passed: boolean }[] }[] } };
    expect(result.load.scenarios.map((x) => x.name), r.out).toEqual(['health-a', 'health-b']);
    // The file's thresholds replace the scenario's own for the first entry only.
    expect(result.load.scenarios[0]!.thresholds.map((t) => [t.metric, t.passed])).toEqual([['health.errors.rate', true]]);
    expect(result.load.scenarios[1]!.thresholds.map((t) => [t.metric, t.passed])).toEqual([['health.latency', false]]);
    expect(r.code).toBe(1);
  });

  it('emulate takes the emulator section (key variable, endpoints, time scale, faults); flags win', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({ emulator: { port: 0, apiKeyEnv: 'EMU_KEY', endpoints: ['a', 'b'], timeScale: 30, faults: ['health-miscount'], workers: { max: 2 } } }));
    const key = 'config-key-1234';
    const em = await runUntilReady(['emulate', '--config', file, '--time-scale', '60'], { EMU_KEY: key });
    try {
      const res = await fetch(`${em.url}/_qbench/info`, { headers: { authorization: key } });
      expect(res.status).toBe(200);
      const info = (await res.json()) as { timeScale: number; endpoints: string[]; faults: { name: string }[]; workers: { max: number } };
      expect(info).toMatchObject({ timeScale: 60, endpoints: ['a', 'b'], workers: { max: 2 } });
      expect(info.faults.map((f) => f.name)).toEqual(['health-miscount']);
    } finally {
      expect(await em.stop()).toBe(0);
    }
  });

  it('emulate: every problem of the emulator section at once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({ emulator: { port: 70000, apiKeyEnv: 'not a name', faults: ['nope'], workers: { cold: 1 } } }));
    const r = await run(['emulate', '--config', file, '--api-key', 'k-1234']);
    expect(r.code).toBe(2);
    for (const where of ['emulator.port', 'emulator.apiKeyEnv', 'emulator.faults[0]', 'emulator.workers']) expect(r.out).toContain(where);
  });

  it('emulate: the emulator JSON settings go to --emulator-config; given to --config they are refused with that hint', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const file = join(dir, 'emu.json');
    writeFileSync(file, JSON.stringify({ port: 0, apiKey: 'json-key-1234', workers: { max: 3 } }));
    const wrong = await run(['emulate', '--config', file]);
    expect(wrong.code).toBe(2);
    expect(wrong.out).toContain('is not a valid qbench config');
    expect(wrong.out).toContain('--emulator-config');
    const em = await runUntilReady(['emulate', '--emulator-config', file], {});
    try {
      const info = (await (await fetch(`${em.url}/_qbench/info`, { headers: { authorization: 'json-key-1234' } })).json()) as { workers: { max: number } };
      expect(info.workers.max).toBe(3);
    } finally {
      expect(await em.stop()).toBe(0);
    }
  });

  it('emulate: the emulator section\'s deployments win over the --emulator-config file\'s, endpoint by endpoint', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const json = join(dir, 'emu.json');
    writeFileSync(json, JSON.stringify({ endpoints: ['a', 'b'], deployments: { a: { workersMax: 2, scalerType: 'QUEUE_DELAY' }, b: { workersMax: 4, gpuTypeId: 'L4' } } }));
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({ emulator: { port: 0, deployments: { a: { workersMin: 0, workersMax: 3, scalerType: 'REQUEST_COUNT', scalerValue: 2 } } } }));
    const em = await runUntilReady(['emulate', '--config', file, '--emulator-config', json, '--api-key', 'k-1234'], {});
    try {
      type Dep = { workersMin: number; workersMax: number; scaler: { type: string }; gpuTypeId: string };
      const c = (await (await fetch(`${em.url}/_qbench/counters`, { headers: { authorization: 'k-1234' } })).json()) as { endpoints: Record<string, { deployment: Dep }> };
      expect(c.endpoints['a']?.deployment).toMatchObject({ workersMin: 0, workersMax: 3, scaler: { type: 'REQUEST_COUNT' } });
      expect(c.endpoints['b']?.deployment).toMatchObject({ workersMax: 4, gpuTypeId: 'L4', scaler: { type: 'QUEUE_DEPTH' } });
      expect(em.out()).toContain('deployment a: workers 0..3');
    } finally {
      expect(await em.stop()).toBe(0);
    }
  });

  it('start takes the conformance selection, the load scenarios, the fuzz budget and the report directory; no target', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    writeFileSync(
      join(dir, 'health.ts'),
      `export default { name: 'start-health', executor: 'constant-arrival-rate', ratePerSec: 5, durationMs: 1000, steps: [{ kind: 'health' }],
  validity: { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 } };
`,
    );
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({
      targets: { local: { url: 'https://unused.example.com/v2/x' } },
      conformance: { only: ['queue.run.answer'] },
      load: { scenarios: [{ file: 'health.ts' }] },
      fuzz: { runs: 2, modelRuns: 1, maxCommands: 2, maxDuration: '10s' },
      reportDir: 'out/start',
    }));
    const r = await run(['start', '--config', file]);
    expect(r.out).toContain('[fuzz] seed 42, 2 cases per property, 1 command sequences');
    const result = JSON.parse(readFileSync(join(dir, 'out/start/result.json'), 'utf8')) as {
      conformance: { checks: { id: string }[] };
      load: { scenarios: { name: string }[] };
      fuzz: unknown;
      meta: { target: { kind: string } };
    };
    expect(result.meta.target.kind).toBe('emulator');
    expect(result.conformance.checks.map((c) => c.id)).toEqual(['queue.run.answer']);
    expect(result.load.scenarios.map((x) => x.name)).toEqual(['start-health']);
    expect(result.fuzz).toBeDefined();
    expect([0, 4], r.out).toContain(r.code);
  });

  it('start names every problem of its config sections at once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-config-'));
    const file = join(dir, 'qbench.config.json');
    writeFileSync(file, JSON.stringify({ conformance: { only: ['no.such.check'] }, fuzz: { maxDuration: '1x' } }));
    const r = await run(['start', '--config', file, '--parts', 'check,bogus']);
    expect(r.code).toBe(2);
    expect(r.out).toContain('fuzz.maxDuration');
    const fixed = join(dir, 'fixed.json');
    writeFileSync(fixed, JSON.stringify({ conformance: { only: ['no.such.check'] }, fuzz: { maxDuration: '1m' } }));
    const r2 = await run(['start', '--config', fixed, '--parts', 'check,bogus']);
    expect(r2.code).toBe(2);
    expect(r2.out).toMatch(/--parts: unknown part bogus/);
    expect(r2.out).toMatch(/conformance\.only\/skip: no\.such\.check/);
  });
});
