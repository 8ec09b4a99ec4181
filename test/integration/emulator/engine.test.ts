// The deployment's LLM engine by URL (real scaled clock, loopback): the three paths a user of
// an LLM endpoint takes (OpenAI server-sent events, native /run + /stream, /runsync) give the
// same tokens and text for the same request; the SSE answer has the role-only first chunk, usage
// last and [DONE]; /openai/v1/models names the configured model; a request the engine cannot
// serve is answered 400 naming the field. Wall time about 1 s (a fast engine: 12 tokens each).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { KEY } from './helpers.js';

let em: EmulatorHandle;
const EP = 'llm';
const HEADERS = { authorization: KEY, 'content-type': 'application/json' };

beforeAll(async () => {
  em = await startEmulator({
    apiKey: KEY,
    endpoints: [EP],
    workers: { min: 1, max: 1, coldStartMs: 0 },
    deployments: { [EP]: { engine: { modelName: 'tiny-llm', decodeTokensPerSec: 400, prefillTokensPerSec: 100_000, prefillBaseMs: 2 } } },
  });
});
afterAll(async () => {
  await em.close();
});

const post = (path: string, body: unknown) => fetch(`${em.url}/v2/${EP}${path}`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
const MESSAGES = [{ role: 'user', content: 'Say something about foxes, in about twelve words.' }];

describe('engine by URL', () => {
  it('OpenAI SSE, native /run + /stream and /runsync agree on tokens and text', async () => {
    const [sse, streamed, sync] = await Promise.all([
      (async () => {
        const res = await post('/openai/v1/chat/completions', { messages: MESSAGES, max_tokens: 12, stream: true, stream_options: { include_usage: true } });
        expect(res.headers.get('content-type')).toBe('text/event-stream');
        return res.text();
      })(),
      (async () => {
        const { id } = (await (await post('/run', { input: { messages: MESSAGES, sampling_params: { max_tokens: 12 }, stream: true } })).json()) as { id: string };
        const items: { choices: { tokens: string[] }[]; usage: { input: number; output: number } }[] = [];
        for (let i = 0; i < 200; i += 1) {
          const r = (await (await fetch(`${em.url}/v2/${EP}/stream/${id}`, { headers: HEADERS })).json()) as { status: string; stream: { output: (typeof items)[number] }[] };
          for (const c of r.stream) items.push(c.output);
          if (r.status === 'COMPLETED') return items;
        }
        throw new Error('the native stream did not complete in 200 polls');
      })(),
      (async () => (await (await post('/runsync', { input: { messages: MESSAGES, sampling_params: { max_tokens: 12 } } })).json()) as { status: string; output: { choices: { tokens: string[] }[]; usage: { input: number; output: number } }[] })(),
    ]);

    expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = sse
      .split('\n\n')
      .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
      .map((e) => JSON.parse(e.slice(6)) as { model: string; choices: { delta: { role?: string; content?: string } }[]; usage?: { prompt_tokens: number; completion_tokens: number } });
    expect(events[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const sseText = events.map((e) => e.choices[0]?.delta.content ?? '').join('');
    expect(events.at(-1)?.usage).toEqual({ prompt_tokens: 13, completion_tokens: 12, total_tokens: 25 });
    expect(events.every((e) => e.model === 'tiny-llm')).toBe(true);
    // 12 token chunks, the role chunk and the usage chunk.
    expect(events).toHaveLength(14);

    const streamedText = streamed.flatMap((i) => i.choices[0]?.tokens ?? []).join('');
    expect(streamed.at(-1)?.usage).toEqual({ input: 13, output: 12 });
    // worker-vllm's default batches: 1, 3, 8 (the rest).
    expect(streamed.map((i) => i.choices[0]?.tokens.length)).toEqual([1, 3, 8]);

    expect(sync.status).toBe('COMPLETED');
    expect(sync.output).toHaveLength(1);
    expect(sync.output[0]?.usage).toEqual({ input: 13, output: 12 });
    const syncText = sync.output[0]?.choices[0]?.tokens[0];

    expect(sseText.length).toBeGreaterThan(0);
    expect(streamedText).toBe(sseText);
    expect(syncText).toBe(sseText);
  });

  it('/openai/v1/models names the configured model; the counters show the engine; an unservable request is 400 naming the field', async () => {
    const models = (await (await fetch(`${em.url}/v2/${EP}/openai/v1/models`, { headers: HEADERS })).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['tiny-llm']);
    const bad = await post('/openai/v1/chat/completions', { messages: [], max_tokens: 3 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: expect.stringContaining('messages'), param: 'messages' });
    const counters = (await (await fetch(`${em.url}/_qbench/counters`, { headers: HEADERS })).json()) as { endpoints: Record<string, { deployment: { jobsPerWorker: number; engine?: { modelName: string; requestsHeld: number } } }> };
    expect(counters.endpoints[EP]?.deployment).toMatchObject({ jobsPerWorker: 30, engine: { modelName: 'tiny-llm', requestsHeld: 0 } });
    const long = await post('/openai/v1/completions', { prompt: 'x', max_tokens: 40_000 });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: expect.stringContaining('maximum context length is 32768 tokens'), param: 'max_tokens' });
  });
});

describe('engine stream length', () => {
  it('a stream longer than the /runsync wait (90 s emulated) is not cut: all 2000 tokens at 20 tok/s (100 s) arrive', async () => {
    const fast = await startEmulator({
      apiKey: KEY,
      endpoints: [EP],
      timeScale: 1_000,
      workers: { min: 1, max: 1, coldStartMs: 0 },
      deployments: { [EP]: { engine: { decodeTokensPerSec: 20, streamBatch: { max: 50, min: 50 } } } },
    });
    try {
      const res = await fetch(`${fast.url}/v2/${EP}/openai/v1/completions`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ prompt: 'go', max_tokens: 2_000, stream: true, stream_options: { include_usage: true } }) });
      const events = (await res.text()).split('\n\n').filter((e) => e.startsWith('data: {'));
      expect(events).toHaveLength(2_001);
      expect(JSON.parse((events.at(-1) as string).slice(6))).toMatchObject({ usage: { completion_tokens: 2_000 } });
    } finally {
      await fast.close();
    }
  });
});
