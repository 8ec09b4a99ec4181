// The deployment's LLM engine inside the emulator core on a virtual clock (no socket): a scripted
// set of concurrent requests gets the token times worked out by hand from the engine settings
// (continuous batching, prefill queued ahead, the per-worker cap), and each path's answer has
// the shape its clients read: OpenAI chunks with a role-only first chunk and usage last, grouped
// in worker-vllm's growing batches; native stream items with usage and §2.3 metrics; /runsync.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { drive, type Arrival } from '../deployment/engine-driver.js';
import { VirtualClock } from '../../../src/emulator/clock.js';
import { parseEmulatorConfig } from '../../../src/emulator/config.js';
import { EmulatorCore } from '../../../src/emulator/core.js';
import { LlmEngine, type LlmEngineInput } from '../../../src/deployment/index.js';
import type { QueueEndpoint } from '../../../src/emulator/queue/index.js';
import type { Job } from '../../../src/emulator/queue/job.js';

const EP = 'llm';
let open: EmulatorCore | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** 50 tok/s alone (20 ms steps), +50% step time per extra stream, prefill 10 ms + 1 ms a token. */
const ENGINE: LlmEngineInput = { decodeTokensPerSec: 50, decodeContention: 0.5, prefillTokensPerSec: 1_000, prefillBaseMs: 10, streamBatch: { max: 1 }, modelName: 'tiny-model' };

interface Harness {
  clock: VirtualClock;
  ep: QueueEndpoint;
  /** Emulated ms of every chunk each job emitted, by job id. */
  chunkTimes: Map<string, number[]>;
  submitAt(atMs: number, input: Record<string, unknown>, kind?: 'run' | 'runsync'): () => Job;
}

function harness(engine: LlmEngineInput = ENGINE, jobsPerWorker = 2): Harness {
  const clock = new VirtualClock(0);
  const config = parseEmulatorConfig({ apiKey: 'engine-test-key', endpoints: [EP], workers: { min: 1, max: 1, coldStartMs: 0 }, deployments: { [EP]: { jobsPerWorker, engine } } });
  const core = new EmulatorCore(config, clock, { subServices: [] });
  open = core;
  const ep = core.endpoints.get(EP) as QueueEndpoint;
  const chunkTimes = new Map<string, number[]>();
  const emit = ep.emitChunk.bind(ep);
  ep.emitChunk = (job, attempt, output, metrics) => {
    const list = chunkTimes.get(job.id) ?? [];
    list.push(clock.now());
    chunkTimes.set(job.id, list);
    emit(job, attempt, output, metrics);
  };
  return {
    clock,
    ep,
    chunkTimes,
    submitAt(atMs, input, kind = 'run') {
      let job: Job | undefined;
      clock.setTimer(atMs, () => {
        job = ep.submit(kind, { input });
      });
      return () => job as Job;
    },
  };
}

const prompt = (tokens: number) => 'x'.repeat(4 * tokens);
const native = (tokens: number, maxTokens: number) => ({ prompt: prompt(tokens), sampling_params: { max_tokens: maxTokens }, stream: true });
const chat = (tokens: number, maxTokens: number, extra: Record<string, unknown> = {}) => ({
  openai_route: '/v1/chat/completions',
  openai_input: { messages: [{ role: 'user', content: prompt(tokens) }], max_tokens: maxTokens, stream: true, ...extra },
});

describe('engine token times on the virtual clock', () => {
  it('a scripted set of concurrent requests gets the token times worked out by hand, the one beyond the cap waiting for a slot', () => {
    const h = harness();
    const a = h.submitAt(0, native(100, 3));
    const b = h.submitAt(25, native(200, 2));
    const c = h.submitAt(25, native(1, 1));
    h.clock.run(5_000);
    // A: prefill 10 + 100 -> 110. B (at 25) waits for it: 110 + 10 + 200 -> 320, A stalled.
    // A and B decode together: 20 x 1.5 = 30 -> 350; B is done and frees its slot.
    // C (over the cap of 2 since 25) starts at 350: prefill 10 + 1 -> 361. A alone: 361 + 20 -> 381.
    expect(h.chunkTimes.get(a().id)).toEqual([110, 350, 381]);
    expect(h.chunkTimes.get(b().id)).toEqual([320, 350]);
    expect(h.chunkTimes.get(c().id)).toEqual([361]);
    const rec = (j: Job) => h.ep.record(j) as { status: string; delayTime: number; executionTime: number };
    expect(rec(c())).toMatchObject({ status: 'COMPLETED', delayTime: 325, executionTime: 11 });
    expect(rec(a())).toMatchObject({ status: 'COMPLETED', delayTime: 0, executionTime: 381 });
  });

  it('per-stream token rate falls as streams share a worker, up to the cap', async () => {
    // n streams started together share one prefill (10 + n ms) then decode in steps of 20 x (1 + 0.5 (n - 1)).
    for (const n of [1, 2, 4]) {
      const h = harness(ENGINE, 4);
      const jobs = Array.from({ length: n }, () => h.submitAt(0, native(1, 5)));
      h.clock.run(10_000);
      const step = 20 * (1 + 0.5 * (n - 1));
      for (const j of jobs) {
        const t = h.chunkTimes.get(j().id) as number[];
        expect(t[0]).toBe(10 + n);
        expect(t.slice(1).map((x, i) => x - (t[i] as number))).toEqual([step, step, step, step]);
      }
      await open?.close();
      open = undefined;
    }
  });

  it('requests reaching an idle worker at the same instant share its first step, except with the parallel scheduler, where the first begins it alone', () => {
    const firstTokens = (e: LlmEngineInput): number[] => {
      const h = harness(e);
      const js = [h.submitAt(0, native(100, 1)), h.submitAt(0, native(100, 1))];
      h.clock.run(5_000);
      return js.map((j) => (h.chunkTimes.get(j().id) ?? [])[0] ?? NaN);
    };
    // Together: 10 + 200 ms. Chunked with a budget of 1000 the same.
    expect(firstTokens(ENGINE)).toEqual([210, 210]);
    expect(firstTokens({ ...ENGINE, scheduler: 'chunked', maxBatchedTokens: 1_000 })).toEqual([210, 210]);
    // Parallel: the first alone (10 + 100), then the second (10 + 100).
    expect(firstTokens({ ...ENGINE, scheduler: 'parallel', maxBatchedTokens: 1_000 })).toEqual([110, 220]);
  });

  it('runs the same under the same settings: the token times do not depend on anything but the script', () => {
    const times = (): number[][] => {
      const h = harness();
      const js = [h.submitAt(0, native(100, 3)), h.submitAt(5, chat(40, 4)), h.submitAt(7, native(3, 2))];
      h.clock.run(5_000);
      return js.map((j) => h.chunkTimes.get(j().id) ?? []);
    };
    expect(times()).toEqual(times());
  });

  it('over generated scripts, prefill first, chunked or parallel: the emulator gives every request the token times of the reference driver of one worker', () => {
    // Steps last whole ms (20 x (1 + 0.5 (n - 1)) and 10 + prompt ms), so a step ends a whole
    // number of ms after the arrival that woke the worker; each arrival has its own fraction of a
    // ms (i / 64), so no arrival ties with a step's end (a tie's order is the clock's, not the model's).
    const arrival = fc.record({ atMs: fc.integer({ min: 0, max: 600 }), prompt: fc.integer({ min: 1, max: 300 }), out: fc.integer({ min: 1, max: 8 }) });
    const engine = fc.constantFrom<LlmEngineInput>(ENGINE, { ...ENGINE, scheduler: 'chunked', maxBatchedTokens: 64 }, { ...ENGINE, scheduler: 'parallel', maxBatchedTokens: 64 });
    fc.assert(
      fc.property(engine, fc.array(arrival, { minLength: 1, maxLength: 10 }), (e, raw) => {
        const arrivals: Arrival[] = raw.map((a, i) => ({ ...a, atMs: a.atMs + (i + 1) / 64 })).sort((a, b) => a.atMs - b.atMs);
        const h = harness(e, 16);
        const jobs = arrivals.map((a) => h.submitAt(a.atMs, native(a.prompt, a.out)));
        h.clock.run(60_000);
        const got = jobs.map((j) => h.chunkTimes.get(j().id) ?? []);
        expect(got).toEqual(drive(LlmEngine.parse(e), arrivals));
        expect(h.ep.model.engine?.held()).toBe(0);
        expect(h.ep.model.meter.snapshot(h.clock.now()).tokens).toBe(arrivals.reduce((n, a) => n + a.out, 0));
        void open?.close();
        open = undefined;
      }),
      { numRuns: 40 },
    );
  });
});

describe('engine answers by path', () => {
  it('OpenAI chat stream: a role-only first chunk with the first token, usage last when include_usage, events in growing batches', () => {
    // Default batches (1, 3, 9, ...) counted in events: [role] at the first token, then
    // [token 1, 2, 3] at token 3, then the rest (4, 5 and the usage chunk) at the end.
    const h = harness({ ...ENGINE, streamBatch: {} });
    const j = h.submitAt(0, chat(8, 5, { stream_options: { include_usage: true } }));
    h.clock.run(5_000);
    const job = j();
    const chunks = (job.chunks ?? []).map((c) => c.output as { object: string; model: string; choices: { delta: { role?: string; content: string }; finish_reason: string | null }[]; usage?: unknown });
    // Prefill 10 + 8 = 18: role and token 1; tokens 2..5 every 20 ms.
    expect(h.chunkTimes.get(job.id)).toEqual([18, 58, 58, 58, 98, 98, 98]);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.slice(1, 6).map((c) => c.choices[0]?.delta.content)).toEqual(['The', ' quick', ' brown', ' fox', ' jumps']);
    expect(chunks[5]?.choices[0]?.finish_reason).toBe('length');
    expect(chunks[6]).toMatchObject({ choices: [], usage: { prompt_tokens: 8, completion_tokens: 5, total_tokens: 13 } });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'tiny-model')).toBe(true);
    expect(job.output).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'The quick brown fox jumps' } }], usage: { completion_tokens: 5 } });
  });

  it('OpenAI completions without include_usage: no role chunk, no usage chunk; the model named by the request', () => {
    const h = harness();
    const j = h.submitAt(0, { openai_route: '/v1/completions', openai_input: { model: 'asked', prompt: prompt(4), max_tokens: 2, stream: true } });
    h.clock.run(5_000);
    const chunks = (j().chunks ?? []).map((c) => c.output as { object: string; model: string; choices: { text: string }[] });
    expect(chunks.map((c) => c.choices[0]?.text)).toEqual(['The', ' quick']);
    expect(chunks.every((c) => c.object === 'text_completion' && c.model === 'asked')).toBe(true);
  });

  it('OpenAI non-stream: the completion with usage and no chunk; /v1/models lists the configured model', () => {
    const h = harness();
    const j = h.submitAt(0, { openai_route: '/v1/chat/completions', openai_input: { messages: [{ role: 'user', content: prompt(12) }], max_tokens: 3 } });
    const m = h.submitAt(0, { openai_route: '/v1/models', openai_input: null });
    h.clock.run(5_000);
    expect(j().chunks).toBeUndefined();
    expect(j().output).toMatchObject({ object: 'chat.completion', model: 'tiny-model', usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
    expect(m().output).toMatchObject({ object: 'list', data: [{ id: 'tiny-model', object: 'model' }] });
  });

  it('native stream: items {choices: [{tokens}], usage: {input, output}} in growing batches, §2.3 metrics, the output their list', () => {
    const h = harness();
    const j = h.submitAt(0, { ...native(10, 6), min_batch_size: 1, max_batch_size: 4, batch_size_growth_factor: 2 });
    h.clock.run(5_000);
    const job = j();
    const items = (job.chunks ?? []).map((c) => c.output as { choices: { tokens: string[] }[]; usage: { input: number; output: number } });
    // Batches 1, 2, 4 (capped): tokens 1 | 2-3 | 4-6. Prefill 20 -> token 1 at 20, then every 20 ms.
    expect(items.map((i) => i.choices[0]?.tokens.length)).toEqual([1, 2, 3]);
    expect(items.map((i) => i.usage)).toEqual([
      { input: 10, output: 1 },
      { input: 10, output: 3 },
      { input: 10, output: 6 },
    ]);
    expect(h.chunkTimes.get(job.id)).toEqual([20, 60, 120]);
    const last = job.chunks?.at(-1)?.metrics as Record<string, number | string>;
    // 5 tokens after the first in 100 ms; 10 prompt tokens in 20 ms of prefill.
    expect(last).toMatchObject({ avg_gen_throughput: 50, avg_prompt_throughput: 500, input_tokens: 10, output_tokens: 6, stream_index: 2, scenario: 'engine' });
    expect(job.output).toEqual(items);
  });

  it('native /runsync without stream: one item holding the whole text, with usage', () => {
    const h = harness();
    const j = h.submitAt(0, { messages: [{ role: 'user', content: prompt(6) }], sampling_params: { max_tokens: 3 } }, 'runsync');
    h.clock.run(5_000);
    expect(j().output).toEqual([{ choices: [{ tokens: ['The quick brown'] }], usage: { input: 6, output: 3 } }]);
    expect(h.chunkTimes.get(j().id)).toEqual([56]);
  });

  it('refuses what the engine cannot serve with the field named; mock_* inputs keep the mock-worker contract', () => {
    const h = harness({ ...ENGINE, maxModelLen: 100 });
    const bad = h.submitAt(0, { prompt: 'hi', sampling_params: { max_tokens: 0 } });
    const long = h.submitAt(0, native(90, 20));
    const mock = h.submitAt(0, { prompt: 'hi', mock_return: 'as before' });
    h.clock.run(5_000);
    expect(h.ep.record(bad())).toMatchObject({ status: 'FAILED', error: expect.stringContaining('input.sampling_params.max_tokens') });
    expect(h.ep.record(long())).toMatchObject({ status: 'FAILED', error: expect.stringContaining('maximum context length is 100 tokens') });
    expect(h.ep.record(mock())).toMatchObject({ status: 'COMPLETED', output: 'as before' });
  });

  it('an endpoint with no engine keeps the mock-worker contract for the same inputs', () => {
    const clock = new VirtualClock(0);
    const core = new EmulatorCore(parseEmulatorConfig({ apiKey: 'engine-test-key', endpoints: [EP], workers: { min: 1, max: 1, coldStartMs: 0 } }), clock, { subServices: [] });
    open = core;
    const ep = core.endpoints.get(EP) as QueueEndpoint;
    const job = ep.submit('run', { input: native(10, 4) });
    clock.run(1_000);
    expect(ep.model.engine).toBeUndefined();
    expect(ep.record(job)).toMatchObject({ status: 'COMPLETED', output: 'Hello World!' });
  });

  it('a cancelled request leaves its worker engine; the others keep their times and the worker engine empties', () => {
    const h = harness();
    const a = h.submitAt(0, native(10, 4));
    const b = h.submitAt(0, native(10, 4));
    h.clock.setTimer(50, () => h.ep.cancel(b().id));
    h.clock.run(5_000);
    // Shared prefill 10 + 20 -> 30; together 30 -> 60 (B cancelled at 50 gets nothing more);
    // A alone from 60: 80, 100.
    expect(h.chunkTimes.get(a().id)).toEqual([30, 60, 80, 100]);
    expect(h.chunkTimes.get(b().id)).toEqual([30]);
    expect(h.ep.model.engine?.held()).toBe(0);
    expect(h.ep.model.meter.snapshot(h.clock.now()).tokens).toBe(5);
  });
});
