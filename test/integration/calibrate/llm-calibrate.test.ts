// `qbench calibrate --llm` by URL against the emulator's engine at time scale 5 (loopback; a chunk
// a token; one worker): the probe's times are read in the target's ms (real ms x the scale), so
// the twin written gets the engine's own rates back, and `qbench plan --llm` plans on that twin.
// 15% on the decode rate and contention, 25% on the prefill rate (2048 tokens take 1,024 target ms,
// 205 real ms, against a few ms of host timers and HTTP on a busy host: a prefill 10 times faster,
// 20 real ms, was read 33% fast once in a full suite run); the fixed part of TTFT also holds the
// emulator's and HTTP's own time, and the twin adds its queue's latency (calibration.json's
// llm.queueMs) before its engine, so the fixed part and that latency together are bounded from
// below only. Wall time about 5 s.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { EXIT } from '../../../src/exit-codes.js';

const KEY = 'llm-calibrate-key';
const SCALE = 5;
const ENGINE = { decodeTokensPerSec: 20, decodeContention: 0.1, prefillTokensPerSec: 2_000, prefillBaseMs: 50, streamBatch: { max: 1 } };
let em: EmulatorHandle;
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-llm-calibrate-'));
  em = await startEmulator({ apiKey: KEY, timeScale: SCALE, endpoints: ['llm'], workers: { min: 1, max: 1, coldStartMs: 0 }, deployments: { llm: { jobsPerWorker: 8, engine: ENGINE } } });
});
afterAll(async () => {
  await em.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

const io = (): CliIo & { text: () => string } => {
  let text = '';
  return { stdout: (t) => void (text += t), stderr: (t) => void (text += t), isTty: false, env: { QBENCH_API_KEY: KEY }, signal: new AbortController().signal, text: () => text };
};

describe('qbench calibrate --llm by URL', () => {
  it("writes the engine's rates in the target's ms into the twin, and plan --llm answers on it", async () => {
    const out = path.join(dir, 'twin');
    const c = io();
    const flags = ['--warm-jobs', '1', '--cold-starts', '0', '--burst-jobs', '0', '--stream-jobs', '0', '--workers-max', '1', '--gpu-type', 'L4', '--time-scale', String(SCALE)];
    const code = await main(['calibrate', '--target', `${em.url}/v2/llm`, '--llm', ...flags, '--yes', '--out', out], c);
    expect(code, c.text()).toBe(EXIT.OK);
    const twin = JSON.parse(await readFile(path.join(out, 'emulator.json'), 'utf8')) as { deployments: Record<string, { engine?: Record<string, unknown> }> };
    const e = twin.deployments['llm']?.engine as { decodeTokensPerSec: number; decodeContention: number; prefillTokensPerSec: number; prefillBaseMs: number; streamBatch: unknown };
    const what = `${JSON.stringify(e)}\n${c.text()}`;
    expect(e.decodeTokensPerSec / ENGINE.decodeTokensPerSec, what).toBeGreaterThan(0.85);
    expect(e.decodeTokensPerSec / ENGINE.decodeTokensPerSec, what).toBeLessThan(1.15);
    expect(Math.abs(e.decodeContention - ENGINE.decodeContention), what).toBeLessThan(0.015);
    expect(e.prefillTokensPerSec / ENGINE.prefillTokensPerSec, what).toBeGreaterThan(0.75);
    expect(e.prefillTokensPerSec / ENGINE.prefillTokensPerSec, what).toBeLessThan(1.25);
    expect(e.streamBatch).toEqual({ min: 1, max: 1, growthFactor: 1 });
    const report = JSON.parse(await readFile(path.join(out, 'calibration.json'), 'utf8')) as { budget: { jobsSent: number }; llm?: { requestsSent: number; queueMs?: number } };
    expect(report.llm?.queueMs, what).toBeGreaterThan(0);
    expect(e.prefillBaseMs + (report.llm?.queueMs ?? NaN), what).toBeGreaterThanOrEqual(ENGINE.prefillBaseMs * 0.9);
    expect(report.budget.jobsSent).toBe(1 + 25);
    expect(report.llm?.requestsSent).toBe(25);

    const p = io();
    const planned = await main(['plan', '--twin', path.join(out, 'emulator.json'), '--llm', '--rate', '0.5', '--prompt-tokens', '256', '--output-tokens', '32', '--duration', '2m', '--workers-min', '1,2', '--jobs-per-worker', '4', '--slo', 'p99(ttft)<5s', '--out', path.join(dir, 'plan')], p);
    expect(planned, p.text()).toBe(EXIT.OK);
    expect(p.text()).toMatch(/Fewest workers meeting every SLO:/);
  }, 30_000);
});
