// `qbench load` end to end through main(): exit codes (0 pass, 1 failed threshold, 2 bad
// scenario or flag), reports written in the shared model, and a two-thread run whose
// merged counts equal what the target saw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { QbenchResult } from '../../../src/result/model.js';
import { startTinyServer, type TinyServer } from './tiny-server.js';

let dir = '';
let server: TinyServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-load-cli-'));
  server = await startTinyServer();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function io(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTty: false, env: {}, signal: new AbortController().signal };
}

async function scenarioFile(name: string, body: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, `${name}.mjs`);
  await writeFile(file, `export default ${JSON.stringify(body)};\n`);
  return file;
}

const relaxed = { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 };

describe('qbench load', () => {
  it('a bad --param of a shipped scenario exits 2 naming each parameter, with no stack', async () => {
    const c = io();
    expect(await main(['load', 'suites/load/gpu-throughput.ts', '--target', `${server.url}/v2/ep`, '--param', 'phaseMs=abc', '--param', 'tps=x'], c)).toBe(2);
    const err = c.err.join('');
    expect(err).toMatch(/--param phaseMs=abc: expected a whole number from 1 to 86400000 \(real ms\)/);
    expect(err).toMatch(/--param tps=x: expected a number > 0/);
    expect(err).not.toMatch(/internal error|\n\s+at /);
  });

  it('an inconclusive scenario exits 0 and says so; with --strict it exits 1', async () => {
    const file = path.join(dir, 'inconclusive.mjs');
    const finding = { label: 'the window was this scenario\'s alone', expected: 'no foreign requests', observed: '3 foreign requests', passed: false, precondition: true };
    const analysis = { status: 'inconclusive', summary: 'could not set up: the window was in use', findings: [finding] };
    await writeFile(file, `export default { name: 'setup', executor: 'iterations', iterations: 2, vus: 1, steps: [{ kind: 'health' }], validity: ${JSON.stringify(relaxed)}, hooks: { analyze: () => (${JSON.stringify(analysis)}) } };\n`);
    const lenient = io();
    expect(await main(['load', file, '--target', `${server.url}/v2/ep`, '--out', path.join(dir, 'out-inconclusive')], lenient)).toBe(0);
    expect(lenient.out.join('')).toMatch(/setup: INCONCLUSIVE could not set up: the window was in use/);
    expect(lenient.out.join('')).toMatch(/INCONCLUSIVE setup: could not set up: the window was in use \(not failing the run; --strict makes it fail\)/);
    const strict = io();
    expect(await main(['load', file, '--target', `${server.url}/v2/ep`, '--strict', '--out', path.join(dir, 'out-inconclusive-strict')], strict)).toBe(1);
    const result = QbenchResult.parse(JSON.parse(await readFile(path.join(dir, 'out-inconclusive-strict', 'result.json'), 'utf8')));
    expect(result.overall).toMatchObject({ status: 'fail', strict: true });
    expect(result.overall.reasons[0]).toBe('load setup: inconclusive under --strict: could not set up: the window was in use; the window was this scenario\'s alone: expected no foreign requests, observed 3 foreign requests');
  });

  it('exit 0 when every threshold passes, with every report written in the shared model', async () => {
    const f = await scenarioFile('pass', { name: 'pass', executor: 'iterations', iterations: 20, vus: 4, steps: [{ kind: 'health' }], thresholds: { 'health.status_2xx.rate': ['rate>0.99'] }, validity: relaxed });
    const out = path.join(dir, 'out-pass');
    const c = io();
    const code = await main(['load', f, '--target', `${server.url}/v2/ep`, '--out', out], c);
    expect(c.err.join('')).toBe('');
    expect(code).toBe(0);
    const result = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    expect(result.load!.scenarios[0]!.steps[0]!.counts['2xx']).toBe(20);
    expect(c.out.join('')).toMatch(/pass: PASS/);
  });

  it('exit 1 on a failed threshold; --set overrides a field and --duration/--rate apply', async () => {
    const f = await scenarioFile('fail', { name: 'fail', executor: 'constant-arrival-rate', ratePerSec: 10, durationMs: 60_000, steps: [{ kind: 'health' }], thresholds: { 'health.latency': ['p(99)<0.0001'] }, validity: relaxed });
    const c = io();
    const code = await main(['load', f, '--target', server.url, '--endpoint-id', 'ep', '--duration', '300ms', '--rate', '40', '--set', 'maxInFlight=50', '--out', path.join(dir, 'out-fail')], c);
    expect(code).toBe(1);
    const result = QbenchResult.parse(JSON.parse(await readFile(path.join(dir, 'out-fail', 'result.json'), 'utf8')));
    const s = result.load!.scenarios[0]!;
    expect(s.config['durationMs']).toBe(300);
    expect(s.config['maxInFlight']).toBe(50);
    expect(s.validity.targetRatePerSec).toBe(40);
    expect(s.thresholds[0]!.passed).toBe(false);
  });

  it('exit 2 on an unknown threshold metric (listing the known ones) and on out-of-range flags', async () => {
    const f = await scenarioFile('bad', { name: 'bad', executor: 'iterations', iterations: 1, steps: [{ kind: 'health' }], thresholds: { 'helth.latency': ['p(99)<1'] } });
    const c = io();
    expect(await main(['load', f, '--target', server.url, '--endpoint-id', 'ep'], c)).toBe(2);
    expect(c.err.join('')).toMatch(/unknown metric "helth.latency".*health\.latency/s);
    const c2 = io();
    expect(await main(['load', f, '--target', server.url, '--endpoint-id', 'ep', '--rate', '-5', '--vus', '0'], c2)).toBe(2);
    expect(c2.err.join('')).toMatch(/--rate must be > 0[\s\S]*--vus must be >= 1/);
    const c3 = io();
    const bad2 = await scenarioFile('bad2', { name: 'bad2', executor: 'constant-arrival-rate', ratePerSec: 0, durationMs: 90_000_000, steps: [] });
    expect(await main(['load', bad2, '--target', server.url, '--endpoint-id', 'ep'], c3)).toBe(2);
    // Every problem at once, each naming its field.
    for (const re of [/ratePerSec must be > 0/, /durationMs must be at most/, /steps: at least one step/]) expect(c3.err.join('')).toMatch(re);
  });

  it('two worker threads split the schedule exactly and their histograms merge into one result', async () => {
    const before = server.counts.get('health') ?? 0;
    const f = await scenarioFile('threads', { name: 'threads', executor: 'constant-arrival-rate', ratePerSec: 100, durationMs: 500, threads: 2, steps: [{ kind: 'health' }], validity: relaxed });
    const out = path.join(dir, 'out-threads');
    const c = io();
    expect(await main(['load', f, '--target', server.url, '--endpoint-id', 'ep', '--out', out], c)).toBe(0);
    const s = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))).load!.scenarios[0]!;
    expect(s.validity.threads).toBe(2);
    expect(s.steps[0]!.counts['2xx']).toBe(50);
    expect(s.steps[0]!.latency.percentiles.count).toBe(50);
    // The server also saw the preflight's GET /health, which the scenario does not count.
    expect((server.counts.get('health') ?? 0) - before).toBe(50 + 1);
  });
});
