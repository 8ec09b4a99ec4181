// A real inference engine measured by qbench: the built `qbench emulate --external-workers` with one
// built `qbench worker --llama tiny --concurrency 8` process attached (llama.cpp on the CPU through
// node-llama-cpp, a devDependency here: a worker that cannot load it exits with the message naming
// the package, and every test fails with that output; the tiny model is written by the worker,
// nothing downloaded), all on loopback. `qbench llm` by URL over /openai (SSE) and /run + /stream.
//
// The twin's prediction (calibrate --llm on this endpoint with node-llama-cpp's scheduling given,
// then TTFT p50 and tokens/s per stream at 3 and 6 streams in flight, which the probe did not use,
// within 15%) runs on request, QBENCH_REAL_ENGINE_TWIN=1: on a quiet host it passes (errors of
// 0.1-10% in three bench runs, bench/README.md "A real engine"), but one calibration's probe
// moves the fitted contention by 0.64-0.93 between runs even there, and beside the suite's other
// forks on the shared 2-core host the engine's token times move by 20-30% from one run to the
// next, so a 15% bound would fail on the host, not the twin. bench/real-engine.ts prints the same
// comparison with each point measured three times and the noise floor. Wall time about 9 s
// (about 32 s with the twin).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../global-setup.js';
import type { LlmRun } from '../../../src/result/model.js';
import { calibrateLlm, comparePoint, measureLlm, startRealEngine, tempDir, type RealEngine } from './llama-harness.js';

let engine: RealEngine | undefined;
let tmp: Awaited<ReturnType<typeof tempDir>> | undefined;

beforeAll(async () => {
  tmp = await tempDir('qbench-llama-engine-');
  engine = await startRealEngine({ cli: [process.execPath, BUILT_BIN], concurrency: 8, key: 'llama-engine-key-5120' });
}, 90_000);

afterAll(async () => {
  await engine?.close();
  await tmp?.remove();
}, 30_000);

const ready = (): { engine: RealEngine; dir: string } => {
  if (engine === undefined || tmp === undefined) throw new Error('the real-engine endpoint did not start');
  return { engine, dir: tmp.dir };
};

/** The one run of a single-path measurement, checked complete. */
async function onePath(name: string, args: string[]): Promise<LlmRun> {
  const { engine: e, dir } = ready();
  const m = await measureLlm(e, dir, name, ['--path', 'openai', ...args]);
  expect(m.code, m.output).toBe(0);
  const [run] = m.runs;
  if (run === undefined) throw new Error(`no run:\n${m.output}`);
  expect(run.requests.failed, m.output).toBe(0);
  return run;
}

const p50 = (run: LlmRun, metric: 'ttft' | 'tpot') => run[metric].percentiles.p50;

describe('a real CPU engine attached to the emulator as a worker process', () => {
  it('answers over /openai and /run + /stream with exactly max_tokens tokens and the same text', { timeout: 30_000 }, async () => {
    const { engine: e, dir } = ready();
    const m = await measureLlm(e, dir, 'paths', ['--path', 'openai,stream', '--vus', '1', '--max-requests', '2', '--prompt-tokens', '32', '--output-tokens', '24']);
    expect(m.code, m.output).toBe(0);
    const [openai, stream] = m.runs;
    if (!openai || !stream) throw new Error(`a path is missing:\n${m.output}`);
    for (const run of [openai, stream]) {
      expect(run.requests.completed, run.path).toBe(2);
      // Greedy sampling that ignores end-of-sequence: every answer is max_tokens long.
      expect(run.requestRecords.map((r) => r.outputTokens), run.path).toEqual([24, 24]);
    }
    // The worker's usage agrees with the chunks: one token a chunk on both paths.
    for (const run of [openai, stream]) expect([run.tokenSource.usage, run.tokenSource.chunksDisagree], run.path).toEqual([2, 0]);
    // The model's tokenizer reads a synthetic word as one token: 32 words and the <s> token.
    expect(openai.requestRecords.map((r) => r.inputTokens)).toEqual([33, 33]);
    // The same prompt (the seeded workload) and greedy decoding: the same text on both paths.
    expect(openai.sampleText?.length).toBeGreaterThan(0);
    expect(stream.sampleText).toBe(openai.sampleText);
  });

  it("serves worker-vllm's native input: the completion route's tokens, one stream item each", { timeout: 30_000 }, async () => {
    const { engine: e } = ready();
    const post = async (route: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${e.target}${route}`, { method: 'POST', headers: { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
      expect(res.status, route).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    const prompt = 'the cat sat on the red box';
    const native = await post('/runsync', { input: { prompt, sampling_params: { max_tokens: 7 }, stream: true } });
    const openai = await post('/openai/v1/completions', { prompt, max_tokens: 7 });
    expect(native['status']).toBe('COMPLETED');
    const items = native['output'] as { choices: { tokens: string[] }[]; usage: { input: number; output: number } }[];
    expect(items.map((i) => i.usage)).toEqual([1, 2, 3, 4, 5, 6, 7].map((output) => ({ input: 8, output })));
    const completion = openai as { choices: { text: string }[]; usage: { prompt_tokens: number; completion_tokens: number } };
    expect(completion.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 7 });
    expect(items.map((i) => i.choices[0]?.tokens.join('')).join('')).toBe(completion.choices[0]?.text);
    const refused = await post('/runsync', { input: { sampling_params: { max_tokens: 7 } } });
    expect(refused).toMatchObject({ status: 'FAILED', error: 'input.prompt: a prompt string or a messages list is required' });
  });

  it('takes longer to the first token for a longer prompt', { timeout: 30_000 }, async () => {
    const short = await onePath('prompt-16', ['--vus', '1', '--max-requests', '3', '--prompt-tokens', '16', '--output-tokens', '4']);
    const long = await onePath('prompt-1024', ['--vus', '1', '--max-requests', '3', '--prompt-tokens', '1024', '--output-tokens', '4']);
    // Prefill of 1,024 tokens takes about 400 ms on one core, 16 tokens about 10 ms (plus a few ms of
    // HTTP on each): a ratio of about 15. At least 4 with 150 ms between the medians: a host pause
    // would have to hold up two of three short requests by over 100 ms to close that gap.
    expect(p50(long, 'ttft'), JSON.stringify([short.ttft.percentiles, long.ttft.percentiles])).toBeGreaterThan(4 * p50(short, 'ttft'));
    expect(p50(long, 'ttft') - p50(short, 'ttft')).toBeGreaterThan(150);
  });

  it('gives each stream fewer tokens per second as more streams share the engine', { timeout: 30_000 }, async () => {
    const one = await onePath('streams-1', ['--vus', '1', '--max-requests', '2', '--prompt-tokens', '16', '--output-tokens', '48']);
    const four = await onePath('streams-4', ['--vus', '4', '--max-requests', '8', '--prompt-tokens', '16', '--output-tokens', '48']);
    // Four sequences share each evaluation on one core: a step takes about 2.5 times one stream's
    // (measured: ITL p50 2.8 ms alone, 6 ms at 4), so each stream gets about 40% of the tokens/s it
    // gets alone. Below 75%: a host pause stretches the medians of both runs alike.
    const perStream = (run: LlmRun) => 1_000 / p50(run, 'tpot');
    expect(perStream(four), JSON.stringify([one.tpot.percentiles, four.tpot.percentiles])).toBeLessThan(0.75 * perStream(one));
  });

  it.runIf(process.env['QBENCH_REAL_ENGINE_TWIN'] === '1')('a twin calibrated on it predicts TTFT and tokens/s per stream at 3 and 6 streams within 15%', { timeout: 120_000 }, async () => {
    const { engine: e, dir } = ready();
    const cal = await calibrateLlm(e, dir);
    expect(cal.code, cal.output).toBe(0);
    if (cal.twin === undefined) throw new Error(`no twin written:\n${cal.output}`);
    for (const n of [3, 6]) {
      const c = await comparePoint(e, cal.twin, dir, n);
      expect(c.codes, c.output).toEqual([0]);
      for (const f of c.figures) expect(f.error, `${n} streams, ${f.name}: predicted ${f.predicted.toFixed(1)}, measured ${f.measured.toFixed(1)}`).toBeLessThan(0.15);
    }
  });

  it('frees the engine and removes its model file when the worker stops', { timeout: 30_000 }, async () => {
    const { engine: e } = ready();
    expect(e.modelPath).toMatch(/qbench-tiny-llama\.gguf$/);
    expect(existsSync(e.modelPath)).toBe(true);
    await e.close();
    expect(existsSync(e.modelPath)).toBe(false);
    // The one failure is the refused native input above.
    expect(e.workerOutput()).toMatch(/qbench worker llama-1: stopped after \d+ jobs \(\d+ completed, 1 failed, 0 stopped\)/);
  });
});
