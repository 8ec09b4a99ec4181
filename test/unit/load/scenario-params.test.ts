// The `--param`s of every shipped scenario, at parse level (the files are loaded and their
// scenarios validated; nothing is sent): a bad value is a scenario error (exit 2) naming the
// parameter and what it accepts, a parameter no loaded scenario takes is refused, and the
// defaults give valid scenarios.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { EXIT } from '../../../src/exit-codes.js';
import { isQbenchError } from '../../../src/errors.js';
import type { LoadTarget } from '../../../src/load/context.js';
import { scenarioInputsOf } from '../../../src/load/loader.js';
import { loadAll } from '../../../src/load/run-load.js';

const SHIPPED = readdirSync('suites/load').filter((f) => f.endsWith('.ts')).map((f) => `suites/load/${f}`);

/** An emulator that advertises the hold of every operation (so concurrency-cap may probe them all). */
const EMULATOR: LoadTarget = {
  kind: 'emulator', queueUrl: 'http://127.0.0.1:1', endpointId: 'ep', timeScale: 10,
  info: { limits: { hold: { operations: ['runsync', 'stream', 'run', 'status', 'cancel', 'openai', 'requests'] } } },
};
const REMOTE: LoadTarget = { kind: 'remote', queueUrl: 'http://127.0.0.1:1', endpointId: 'ep', timeScale: 1 };

async function refusal(files: readonly string[], params: Record<string, string>, target: LoadTarget = EMULATOR): Promise<string> {
  const e: unknown = await loadAll(files, target, {}, params).then(() => undefined, (x: unknown) => x);
  if (!isQbenchError(e, 'QB_ERR_SCENARIO')) throw new Error(`expected a scenario error, got ${String(e)}`);
  expect(e.exitCode).toBe(EXIT.USAGE);
  return e.message;
}

/** For each shipped file: bad values and what the message must say of each. */
const BAD: Record<string, { params: Record<string, string>; says: RegExp[] }> = {
  'suites/load/backoff-429.ts': { params: { op: 'status', expect: 'advertized' }, says: [/--param op=status: expected one of run, runsync/, /--param expect=advertized: expected one of documented, advertised/] },
  'suites/load/concurrency-cap.ts': { params: { op: 'runsync,nope' }, says: [/--param op=runsync,nope: expected a comma-separated list, each one of runsync, stream, run, status, cancel, openai, requests \("nope" is not\)/] },
  'suites/load/gpu-throughput.ts': {
    params: { phaseMs: 'abc', tokens: '1e', tps: 'fast', ttftMs: 'NaN', levels: '1,0', agreement: '1', setupWaitMs: '-5', firstTokenMs: '2.5' },
    says: [
      /--param phaseMs=abc: expected a whole number from 1 to 86400000 \(real ms\)/,
      /--param tokens=1e: expected a whole number from 1 to 1000000/,
      /--param tps=fast: expected a number > 0 and <= 1000000 \(tokens per second\)/,
      /--param ttftMs=NaN: expected a number from 0 to 86400000/,
      /--param levels=1,0: expected a comma-separated list, each a whole number from 1 to 1000 .*\("0" is not\)/,
      /--param agreement=1: expected a number > 0 and < 1/,
      /--param setupWaitMs=-5: expected a whole number from 1/,
      /--param firstTokenMs=2.5: expected a whole number from 1/,
    ],
  },
  'suites/load/mixed-soak.ts': {
    params: { rate: '500', duration: '10s', sloRunsyncP99Ms: '0', sloRunP99Ms: 'x', maxErrorRate: '2' },
    says: [/--param rate=500: expected a number > 0 and <= 166 \(iterations per second; a soak offers \/run under half its §8 limit\)/, /--param duration=10s: expected a whole number/, /--param sloRunsyncP99Ms=0: expected a number > 0/, /--param sloRunP99Ms=x/, /--param maxErrorRate=2: expected a number > 0 and <= 1/],
  },
  'suites/load/payload-caps.ts': { params: { op: 'stream' }, says: [/--param op=stream: expected a comma-separated list, each one of run, runsync/] },
  'suites/load/rate-limit.ts': { params: { op: 'cancel,health' }, says: [/--param op=cancel,health: expected a comma-separated list, each one of run, runsync, status, stream, cancel, purge-queue \("health" is not\)/] },
  'suites/load/retention.ts': { params: { op: '' }, says: [/--param op=: expected a comma-separated list, each one of run, runsync/] },
  'suites/load/worker-scaled-limit.ts': { params: { op: 'cancel', rpw: '0', workers: '1001' }, says: [/--param op=cancel: expected one of run, runsync, status, stream/, /--param rpw=0: expected a number > 0/, /--param workers=1001: expected a whole number from 1 to 1000/] },
};

describe('shipped scenario parameters', () => {
  it('every shipped scenario has a bad-parameter case here', () => {
    expect(Object.keys(BAD).sort()).toEqual([...SHIPPED].sort());
  });

  it.each(SHIPPED)('%s: bad values exit 2 naming each parameter and what it accepts, all at once', async (file) => {
    const bad = BAD[file]!;
    const message = await refusal([file], bad.params);
    expect(message).toContain(file);
    for (const re of bad.says) expect(message).toMatch(re);
    expect(message).not.toMatch(/NaN ms|\n\s+at /);
  });

  it.each(SHIPPED)('%s: its defaults give valid scenarios', async (file) => {
    const loaded = await loadAll([file], EMULATOR, {}, {});
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded[0]!.declaredParams!.length).toBeGreaterThan(0);
  });

  it('reads the values it accepts', async () => {
    const [gpu] = await loadAll(['suites/load/gpu-throughput.ts'], EMULATOR, {}, { levels: '1, 3', phaseMs: '1500', tokens: '48' });
    expect(gpu!.scenario.executor === 'constant-concurrency' && [gpu!.scenario.vus, gpu!.scenario.durationMs]).toEqual([3, 3000]);
    const ops = await loadAll(['suites/load/rate-limit.ts'], EMULATOR, {}, { op: 'cancel,run', expect: 'advertised' });
    expect(ops.map((l) => l.scenario.name)).toEqual(['rate-limit-cancel', 'rate-limit-run']);
  });

  it('refuses an operation this target cannot hold open, naming the parameter', async () => {
    expect(await refusal(['suites/load/concurrency-cap.ts'], { op: 'status' }, REMOTE)).toMatch(/concurrency-cap\.ts: --param op: status are answered at once .*limits\.hold/);
    expect((await loadAll(['suites/load/concurrency-cap.ts'], REMOTE, {}, {})).map((l) => l.scenario.name)).toEqual(['concurrency-cap-runsync', 'concurrency-cap-stream']);
  });

  it('refuses a parameter no loaded scenario takes, and takes one that some scenario of the run takes', async () => {
    expect(await refusal(['suites/load/rate-limit.ts'], { opp: 'run' })).toMatch(/--param opp: no scenario loaded takes it; they take op, expect/);
    const both = await loadAll(['suites/load/rate-limit.ts', 'suites/load/mixed-soak.ts'], EMULATOR, {}, { op: 'cancel' });
    expect(both.map((l) => l.scenario.name)).toEqual(['rate-limit-cancel', 'mixed-soak']);
    const e = await loadAll([{ file: 'suites/load/mixed-soak.ts', params: { op: 'run' } }], EMULATOR, {}, {}).catch((x: unknown) => x);
    expect(isQbenchError(e, 'QB_ERR_SCENARIO') && e.message).toMatch(/mixed-soak\.ts: no parameter op; it takes rate, duration, sloRunsyncP99Ms, sloRunP99Ms, maxErrorRate/);
  });

  it('a plain factory that throws is a scenario error naming the file, not an internal error', async () => {
    const e = await scenarioInputsOf(() => {
      throw new Error('--param level: a number');
    }, { target: REMOTE, params: {} }, 'mine.ts').catch((x: unknown) => x);
    expect(isQbenchError(e, 'QB_ERR_SCENARIO') && e.message).toBe('mine.ts: --param level: a number');
  });
});
