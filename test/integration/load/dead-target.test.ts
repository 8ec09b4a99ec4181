// A load run against a target that answers nothing, or stops answering: a preflight ends the
// run as "target unreachable" before any scenario; a scenario none of whose requests got an
// HTTP answer fails whatever its thresholds; a closed loop backs off on refused or dropped
// connections instead of spinning; a large share of network errors shows in the verdict line.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runScenario } from '../../../src/load/engine.js';
import { noAnswerBackoffMs } from '../../../src/load/iteration.js';
import { runLoad } from '../../../src/load/run-load.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { isQbenchError } from '../../../src/errors.js';
import { EXIT } from '../../../src/exit-codes.js';
import { RELAXED_VALIDITY, closedPort, startTinyServer, tinyTarget, type TinyServer } from './tiny-server.js';

let server: TinyServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});


const total = (r: { steps: readonly { counts: Record<string, number> }[] }) => r.steps.reduce((a, st) => a + Object.values(st.counts).reduce((x, y) => x + y, 0), 0);

describe('load against a dead target', () => {
  it('nothing listening: the preflight ends the run as unreachable before any scenario (exit 5), naming the URL', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qbench-dead-'));
    const file = path.join(dir, 's.mjs');
    await writeFile(file, `export default ${JSON.stringify({ name: 's', executor: 'constant-concurrency', vus: 2, durationMs: 2000, steps: [{ kind: 'health' }] })};\n`);
    const port = await closedPort();
    const t0 = performance.now();
    const err = await runLoad({ files: [file], target: tinyTarget(`http://127.0.0.1:${port}`) }).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(isQbenchError(err, 'QB_ERR_UNREACHABLE')).toBe(true);
    expect((err as { exitCode: number }).exitCode).toBe(EXIT.TARGET_UNREACHABLE);
    expect(String(err)).toContain(`http://127.0.0.1:${port}/v2/ep/health`);
    expect(String(err)).toMatch(/ECONNREFUSED/);
  });

  it('a target gone after the first scenario: the first is kept, the rest not run, and the run ends unreachable (exit 5)', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qbench-dead-'));
    const files = await Promise.all(
      ['first', 'second'].map(async (name) => {
        const file = path.join(dir!, `${name}.mjs`);
        await writeFile(file, `export default ${JSON.stringify({ name, executor: 'iterations', iterations: 5, vus: 1, steps: [{ kind: 'health' }], validity: RELAXED_VALIDITY })};\n`);
        return file;
      }),
    );
    const live = await startTinyServer();
    server = live;
    const logs: string[] = [];
    const r = await runLoad({ files, target: tinyTarget(live.url), log: (l) => logs.push(l), onScenarioDone: () => void live.close() });
    expect(r.load?.scenarios.map((s) => s.name)).toEqual(['first']);
    expect(r.overall.exitCode).toBe(EXIT.TARGET_UNREACHABLE);
    expect(r.overall.reasons.join(' ')).toMatch(/target unreachable: GET http:\/\/127\.0\.0\.1:\d+\/v2\/ep\/health/);
    expect(logs.join('\n')).toMatch(/second: not run: target unreachable/);
  });

  it('a target that answers /health but drops every job request: no thresholds, still FAIL; the closed loop backs off', async () => {
    server = await startTinyServer({ drop: (op) => op !== 'health' });
    const s = parseScenario({ name: 'drops', executor: 'constant-concurrency', vus: 4, durationMs: 1500, steps: [{ kind: 'run', input: { x: 1 }, follow: 'poll' }], validity: RELAXED_VALIDITY });
    const r = await runScenario(s, { target: tinyTarget(server.url) });
    expect(r.verdict.status).toBe('fail');
    expect(r.verdict.summary).toMatch(/^no request got an HTTP answer/);
    // Each VU's pause doubles from 10 ms up to 1 s: a few dozen requests in 1.5 s, where the
    // hot loop sent tens of thousands.
    expect(total(r)).toBeGreaterThan(4);
    expect(total(r)).toBeLessThan(200);
    expect(server.counts.get('run')).toBe(total(r));
  });

  it('a follow loop pauses and asks again after polls that got no answer, then follows the job to its end', async () => {
    server = await startTinyServer({ drop: (op, n) => op === 'status' && n <= 2 });
    const s = parseScenario({ name: 'blip', executor: 'iterations', iterations: 1, vus: 1, steps: [{ kind: 'run', input: { x: 1 }, follow: 'poll' }], validity: RELAXED_VALIDITY });
    const r = await runScenario(s, { target: tinyTarget(server.url) });
    const status = r.steps.find((x) => x.step === 'status')!;
    expect(status.counts.network_error).toBe(2);
    expect(status.counts['2xx']).toBe(1);
  });

  it('a large share of network errors is said in a verdict without thresholds', async () => {
    server = await startTinyServer({ drop: (op, n) => op === 'health' && n > 1 && n % 2 === 0 });
    const s = parseScenario({ name: 'half', executor: 'iterations', iterations: 40, vus: 2, steps: [{ kind: 'health' }], validity: RELAXED_VALIDITY });
    const r = await runScenario(s, { target: tinyTarget(server.url) });
    expect(r.verdict.status).toBe('info');
    expect(r.verdict.summary).toMatch(/measured only: no thresholds; but \d+\.\d% of requests \(\d+ of 40\) got no HTTP answer/);
  });

  it('the pause after unanswered requests doubles from 10 ms to a 1 s ceiling, jittered over its upper half', () => {
    expect(noAnswerBackoffMs(0)).toBe(0);
    expect(noAnswerBackoffMs(1, () => 0)).toBe(5);
    expect(noAnswerBackoffMs(1, () => 0.999)).toBeCloseTo(10, 1);
    expect(noAnswerBackoffMs(4, () => 0)).toBe(40);
    expect(noAnswerBackoffMs(50, () => 0.999)).toBeLessThanOrEqual(1000);
    expect(noAnswerBackoffMs(50, () => 0)).toBe(500);
  });
});
