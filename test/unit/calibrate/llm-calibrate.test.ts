// `qbench calibrate --llm`: the LLM probe is part of the plan printed before anything is sent (its
// requests counted against --max-jobs, refused above it), runs after the queue phases through the
// same job budget, and writes the fitted engine into the twin's deployment, where `qbench plan
// --llm` reads it; a probe the budget stops leaves a note and no engine. No sockets: a fake
// deployment and a fake OpenAI route that follows the engine's formulas.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeRequests } from '../../../src/calibrate/llm-probe.js';
import { planCalibration, type CalibrationPlan } from '../../../src/calibrate/plan.js';
import { arrivalBatches, streamBatchOf, twinQueueMs, writeCalibration } from '../../../src/calibrate/run-calibration.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { parseEmulatorConfig } from '../../../src/emulator/config.js';
import { EXIT } from '../../../src/exit-codes.js';
import { parseResult } from '../../../src/result/read-result.js';
import { calibrateFake, fakeDeployment } from './fake-deployment.js';
import { formulaLlmPort } from './fake-llm.js';

const TRUE_ENGINE = { decodeTokensPerSec: 40, decodeContention: 0.2, prefillTokensPerSec: 4_000, prefillBaseMs: 30 };

const plan = (p: Partial<CalibrationPlan>): CalibrationPlan => planCalibration({ classes: 1, warmJobs: 3, coldStarts: 0, coldBatch: 1, burstJobs: 0, streamJobs: 0, maxJobs: 40, maxDurationMs: 20_000, ...p });

function captureIo(env: NodeJS.ProcessEnv = {}): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env, signal: new AbortController().signal };
  return { io, out: () => out, err: () => err };
}

describe('calibrate --llm', () => {
  it('counts the probe in the plan and refuses it above --max-jobs before sending anything', async () => {
    expect(probeRequests()).toBe(25);
    expect(plan({ llmRequests: 25 }).totalJobs).toBe(28);
    expect(() => plan({ llmRequests: 25, maxJobs: 27 })).toThrow(/needs 28 jobs \(.*LLM probe 25 \(--llm\)\), over --max-jobs 27/);
    // The CLI prints the probe in its plan and, with no terminal and no --yes, sends nothing (nothing listens at port 9).
    const c = captureIo({ QBENCH_API_KEY: 'k' });
    expect(await main(['calibrate', '--target', 'http://127.0.0.1:9', '--endpoint', 'ep', '--llm'], c.io)).toBe(EXIT.USAGE);
    expect(c.out()).toMatch(/llm {7}25 request\(s\) over \/openai\/v1\/completions \(SSE\)/);
    // The defaults' 45 queue jobs and the probe's 25.
    expect(c.out()).toMatch(/70 jobs planned, never more than 100 \(--max-jobs/);
    expect(c.err()).toContain('add --yes');
    const plain = captureIo({ QBENCH_API_KEY: 'k' });
    expect(await main(['calibrate', '--target', 'http://127.0.0.1:9', '--endpoint', 'ep', '--max-jobs', '200'], plain.io)).toBe(EXIT.USAGE);
    expect(plain.out()).not.toContain('llm ');
  });

  it("fits the engine after the queue phases within the budget and writes it into the twin, which plan --llm reads", async () => {
    const d = fakeDeployment();
    // 45 ms through the queue before the engine: the twin adds its own queue latency, so the
    // fitted prefillBaseMs is what is left of the TTFT line's 30 + 45 after it.
    const llm = formulaLlmPort(TRUE_ENGINE, 45);
    const r = await calibrateFake(d, plan({ llmRequests: 25 }), {}, llm);
    expect(llm.sent()).toBe(25);
    expect(r.budget.jobsSent).toBe(3 + 25);
    const e = r.llm?.engine;
    expect(e).toBeDefined();
    // The fake follows the formulas exactly: the fit gives them back to its 4 significant digits.
    const queueMs = r.llm?.queueMs ?? NaN;
    expect(queueMs).toBeGreaterThan(0);
    expect(e).toEqual({ prefillBaseMs: Number((30 + 45 - queueMs).toPrecision(4)), prefillTokensPerSec: 4_000, decodeTokensPerSec: 40, decodeContention: 0.2, decodeMsPerContextToken: 0, streamBatch: { min: 1, max: 1, growthFactor: 1 } });
    const twin = parseEmulatorConfig({ ...r.emulatorConfig, apiKey: 'twin-key' });
    expect(twin.deployments['ep']?.engine).toMatchObject({ ...TRUE_ENGINE, prefillBaseMs: e?.prefillBaseMs });
    // That queue latency is the twin's own: a lone request's TTFT on the written twin, less its engine's share.
    const { engine: _engine, ...deployment } = twin.deployments['ep'] ?? {};
    expect(twinQueueMs('ep', deployment)).toBeCloseTo(queueMs, 1);
    const dir = await mkdtemp(path.join(tmpdir(), 'qbench-llm-cal-'));
    try {
      const written = await writeCalibration(r, dir);
      expect(await readFile(written.html, 'utf8')).toMatch(/id="llm"[\s\S]*decode 40 tok\/s alone, contention 0\.2 per stream/);
      const c = captureIo();
      const out = path.join(dir, 'plan');
      const code = await main(['plan', '--twin', written.emulatorConfig, '--llm', '--rate', '1', '--prompt-tokens', '100', '--output-tokens', '10', '--duration', '60s', '--workers-min', '1,2', '--jobs-per-worker', '2', '--slo', 'p99(ttft)<5s', '--out', out], c.io);
      expect(code, c.err()).toBe(EXIT.OK);
      const plan = parseResult(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))).llmPlan;
      expect(plan?.twin.engine).toContain('decode 40.0 tok/s alone');
      expect(plan?.chosen).not.toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('probes the prompt lengths and stream counts given, counted in the plan, and writes the scheduling given into the twin; a bad list is refused', async () => {
    const shape = { promptLengths: [32, 256], concurrency: [1, 2, 5] };
    // A warm-up, 2 lengths x 3 repeats, 1 + 2 + 5 streams.
    expect(probeRequests(shape)).toBe(15);
    const c = captureIo({ QBENCH_API_KEY: 'k' });
    expect(await main(['calibrate', '--target', 'http://127.0.0.1:9', '--endpoint', 'ep', '--llm', '--llm-prompt-tokens', '32,256', '--llm-streams', '1,2', '--llm-streams', '5'], c.io)).toBe(EXIT.USAGE);
    expect(c.out()).toMatch(/llm {7}15 request\(s\) .*32-token requests at 32, 256 prompt tokens x 3, then 1, 2, 5 streams/);
    const bad = captureIo({ QBENCH_API_KEY: 'k' });
    expect(await main(['calibrate', '--target', 'http://127.0.0.1:9', '--endpoint', 'ep', '--llm', '--llm-streams', '1,two'], bad.io)).toBe(EXIT.USAGE);
    expect(bad.err()).toMatch(/--llm-streams.*must list whole numbers/);
    // An engine that leaves one stream out of each step: the fit reads the gaps as its steps and gives its rates back.
    const llm = formulaLlmPort({ ...TRUE_ENGINE, scheduler: 'parallel' }, 100);
    const r = await calibrateFake(fakeDeployment(), plan({ llmRequests: 15, llmProbe: shape }), {}, llm, { scheduler: 'parallel', maxBatchedTokens: 512 });
    expect(llm.sent()).toBe(15);
    expect(r.llm?.ttft.map((o) => o.promptTokens)).toEqual([32, 256]);
    expect(r.llm?.decode.map((o) => o.streams)).toEqual([1, 2, 5]);
    const twin = parseEmulatorConfig({ ...r.emulatorConfig, apiKey: 'twin-key' });
    expect(twin.deployments['ep']?.engine).toMatchObject({ ...TRUE_ENGINE, prefillBaseMs: Number((130 - (r.llm?.queueMs ?? NaN)).toPrecision(4)), scheduler: 'parallel', maxBatchedTokens: 512 });
  });

  it("reads the streams' chunk batching: a token a chunk, or worker-vllm's growing batches", () => {
    expect(streamBatchOf([[1, 1, 1], [1, 1]])).toEqual({ min: 1, max: 1, growthFactor: 1 });
    // Two tokens read together once in 20 batches: a late read, not batching.
    expect(streamBatchOf([[...Array<number>(18).fill(1), 2]])).toEqual({ min: 1, max: 1, growthFactor: 1 });
    expect(streamBatchOf([[1, 3, 9, 27, 24], [1, 3, 9]])).toEqual({ min: 1, max: 27, growthFactor: 3 });
    expect(streamBatchOf([[4, 4, 4]])).toEqual({ min: 4, max: 4, growthFactor: 1 });
    // Events read together are one batch (the OpenAI route writes a batch's events at once).
    const at = (atMs: number) => ({ atMs, tokens: 1 });
    expect(arrivalBatches([at(10), at(20), at(20), at(20), at(30), at(30)])).toEqual([1, 3, 2]);
  });

  it('a probe the budget stops leaves a note and no engine', async () => {
    const llm = formulaLlmPort(TRUE_ENGINE);
    // A plan past its budget (planCalibration would refuse it): 3 warm jobs leave 22 for a probe of 25.
    const over: CalibrationPlan = { ...plan({}), llmRequests: 25, maxJobs: 25, totalJobs: 28 };
    const r = await calibrateFake(fakeDeployment(), over, {}, llm);
    expect(llm.sent()).toBe(22);
    expect(r.budget.jobsSent).toBe(25);
    expect(r.llm).toBeUndefined();
    expect(r.notes.join(' ')).toMatch(/the LLM probe stopped: the job budget of 25 is spent.*no engine fitted/);
    expect((r.emulatorConfig['deployments'] as Record<string, Record<string, unknown>>)['ep']?.['engine']).toBeUndefined();
  });
});
