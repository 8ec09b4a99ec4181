// The three paths' request code against scripted answers on a virtual clock: every figure is the
// script's exactly. The openai stream carries the known pitfalls: a role-only first chunk (not
// the first token), chunks of 1 to 5 tokens (k samples of gap/k, not one per chunk), events split
// across reads and several in one read.
import { describe, expect, it } from 'vitest';
import { executeLlmRequest, openAiBody, textOf, type LlmRequestContext } from '../../../../src/load/llm/request.js';
import type { LlmRequestSpec } from '../../../../src/load/llm/workload.js';
import { json, scriptedTransport, sseEvent } from './scripted-transport.js';

const spec: LlmRequestSpec = { messages: [{ role: 'user', content: 'the cat sat' }], prompt: 'the cat sat', promptTokens: 3, maxTokens: 11 };

function ctxOf(t: ReturnType<typeof scriptedTransport>, over: Partial<LlmRequestContext> = {}): LlmRequestContext {
  return { transport: t.transport, endpointId: 'demo', path: 'openai', api: 'chat', stream: true, ignoreEos: true, timeScale: 1, pollGapMs: 20, sleep: t.sleep, ...over };
}

const tokenChunk = (toks: string[]) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: toks.join('') }, logprobs: { content: toks.map((t) => ({ token: t })) } }] });
const ROLE = sseEvent({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
const C1 = sseEvent(tokenChunk(['The']));
const C3 = sseEvent(tokenChunk([' big', ' red', ' cat']));
const C5 = sseEvent(tokenChunk([' sat', ' on', ' the', ' old', ' mat']));
const C2 = sseEvent(tokenChunk([' to', 'day']));
const USAGE = sseEvent({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 3, completion_tokens: 11, total_tokens: 14 } });
const DONE = 'data: [DONE]\n\n';
const CHAT_PATH = 'POST /v2/demo/openai/v1/chat/completions';

describe('openai path, server-sent events', () => {
  // Intended start 1000: the role chunk at 1020, the first token at 1100 (its event split over
  // two reads), 3 tokens 60 ms later, 5 tokens 100 ms later, 2 tokens 40 ms later (with the usage
  // chunk in the same read), [DONE] at 1315.
  const script = () =>
    scriptedTransport(1000, {
      [CHAT_PATH]: [
        {
          reads: [
            { atMs: 1020, bytes: ROLE },
            { atMs: 1095, bytes: C1.slice(0, 20) },
            { atMs: 1100, bytes: C1.slice(20) + C3.slice(0, 7) },
            { atMs: 1160, bytes: C3.slice(7) },
            { atMs: 1260, bytes: C5.slice(0, C5.length - 1) },
            { atMs: 1260, bytes: C5.slice(C5.length - 1) },
            { atMs: 1300, bytes: C2 + USAGE },
            { atMs: 1315, bytes: DONE },
            { atMs: 1316, bytes: '' },
          ],
        },
      ],
    });

  it('gives the script\'s TTFT, ITL per token, TPOT, e2e, tokens and text', async () => {
    const t = script();
    const o = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect(o.ok).toBe(true);
    // Not 20 (the role-only chunk), not 95 (half an event).
    expect(o.metrics.ttftMs).toBe(100);
    // k samples of gap/k: 3 x 60/3, 5 x 100/5, 2 x 40/2 (one sample per chunk would give 60, 100, 40).
    expect(o.metrics.itlMs).toEqual([20, 20, 20, 20, 20, 20, 20, 20, 20, 20]);
    expect(o.metrics.e2eMs).toBe(315);
    expect(o.metrics.tpotMs).toBe((315 - 100) / 10);
    expect(o.metrics.outputTokens).toBe(11);
    expect(o.metrics.tokenSource).toBe('usage');
    expect(o.metrics.inputTokens).toBe(3);
    expect(o.text).toBe('The big red cat sat on the old mat today');
    expect(o.streamed).toBe(true);
  });

  it('asks for SSE with usage, and for exactly max_tokens', async () => {
    const t = script();
    await executeLlmRequest(ctxOf(t, { model: 'm' }), spec, 1000);
    expect(JSON.parse(t.sent[0]?.body ?? '{}')).toEqual({ model: 'm', messages: spec.messages, max_tokens: 11, ignore_eos: true, min_tokens: 11, stream: true, stream_options: { include_usage: true } });
  });

  it('fed one byte a read, gives the same figures', async () => {
    const all = ROLE + C1 + C3 + C5 + C2 + USAGE + DONE;
    // Every byte of an event arrives at that event's time in the script above.
    const times: number[] = [];
    for (const [s, at] of [[ROLE, 1020], [C1, 1100], [C3, 1160], [C5, 1260], [C2, 1300], [USAGE, 1300], [DONE, 1315]] as const) for (let i = 0; i < Buffer.byteLength(s); i++) times.push(at);
    const bytes = new TextEncoder().encode(all);
    const t = scriptedTransport(1000, { [CHAT_PATH]: [{ reads: [...bytes].map((b, i) => ({ atMs: times[i] ?? 0, bytes: new Uint8Array([b]) })) }] });
    const o = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect(o.metrics.ttftMs).toBe(100);
    expect(o.metrics.itlMs).toEqual(Array(10).fill(20));
    expect(o.metrics.e2eMs).toBe(315);
    expect(o.text).toBe('The big red cat sat on the old mat today');
  });

  it('with --logprobs asks every chunk to list its tokens', async () => {
    const t = script();
    await executeLlmRequest(ctxOf(t, { logprobs: true }), spec, 1000);
    expect(JSON.parse(t.sent[0]?.body ?? '{}')).toMatchObject({ logprobs: true });
    expect(openAiBody({ api: 'completions', model: undefined, ignoreEos: false, logprobs: true }, spec, true)).toMatchObject({ logprobs: 1 });
  });

  it('a request past --timeout is abandoned and failed for its time', async () => {
    const hung: LlmRequestContext['transport'] = {
      now: () => 0,
      send: (_req, _onData, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    };
    const o = await executeLlmRequest({ ...ctxOf(script()), transport: hung, timeoutMs: 5 }, spec, 0);
    expect([o.ok, o.status, o.error]).toEqual([false, 0, 'no end within 5 ms (--timeout)']);
  });

  it('several one-token events in one read are one arrival: its gap shared by their tokens', async () => {
    const one = (t: string) => sseEvent(tokenChunk([t]));
    const t = scriptedTransport(1000, { [CHAT_PATH]: [{ reads: [{ atMs: 1100, bytes: ROLE + one('a') }, { atMs: 1160, bytes: one('b') + one('c') + one('d') }, { atMs: 1200, bytes: one('e') + DONE }] }] });
    const o = await executeLlmRequest(ctxOf(t), spec, 1000);
    // Not 60, 0, 0: a server writing one token per event but three events per write reads like one writing three tokens per event.
    expect(o.metrics.itlMs).toEqual([20, 20, 20, 40]);
    expect(o.metrics.chunks).toBe(6);
  });

  it('ends at [DONE] when the server holds the connection open after it', async () => {
    const t = scriptedTransport(1000, { [CHAT_PATH]: [{ reads: [{ atMs: 1100, bytes: C1 }, { atMs: 1160, bytes: C3 + DONE }, { atMs: 61_000, bytes: '' }] }] });
    const o = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect([o.ok, o.metrics.e2eMs, t.transport.now()]).toEqual([true, 160, 1160]);
  });

  it('without usage counts the chunks and says so', async () => {
    const t = scriptedTransport(1000, { [CHAT_PATH]: [{ reads: [{ atMs: 1100, bytes: C1 }, { atMs: 1160, bytes: C3 + DONE }] }] });
    const o = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect(o.metrics.tokenSource).toBe('chunks');
    expect(o.metrics.outputTokens).toBe(4);
  });

  it('a stream cut before [DONE], an error event and a refusal fail the request with what happened', async () => {
    const t = scriptedTransport(1000, {
      [CHAT_PATH]: [
        { reads: [{ atMs: 1100, bytes: C1 + C3.slice(0, 10) }] },
        { reads: [{ atMs: 1100, bytes: C1 + sseEvent({ error: { message: 'engine died' } }) + DONE }] },
        { status: 429, reads: [{ atMs: 1005, bytes: json({ error: 'rate limited' }) }] },
      ],
    });
    const cut = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect([cut.ok, cut.error]).toEqual([false, 'the stream ended inside an event']);
    t.at(1000);
    const err = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect([err.ok, err.error]).toEqual([false, '{"message":"engine died"}']);
    t.at(1000);
    const refused = await executeLlmRequest(ctxOf(t), spec, 1000);
    expect([refused.ok, refused.status, refused.error]).toEqual([false, 429, 'HTTP 429: rate limited']);
  });
});

describe('openai path, one answer', () => {
  it('TTFT is the whole answer, tokens from usage, no TPOT', async () => {
    const answer = { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'The big cat' } }], usage: { prompt_tokens: 3, completion_tokens: 7 } };
    const t = scriptedTransport(1000, { [CHAT_PATH]: [{ reads: [{ atMs: 1390, bytes: json(answer).slice(0, 30) }, { atMs: 1400, bytes: json(answer).slice(30) }] }] });
    const o = await executeLlmRequest(ctxOf(t, { stream: false }), spec, 990);
    expect([o.ok, o.streamed, o.metrics.ttftMs, o.metrics.e2eMs, o.metrics.tpotMs, o.metrics.outputTokens, o.metrics.tokenSource, o.text]).toEqual([true, false, 410, 410, undefined, 7, 'usage', 'The big cat']);
    expect(JSON.parse(t.sent[0]?.body ?? '{}')).not.toHaveProperty('stream_options');
  });

  it('a job record in place of the completion (the wait ran out) fails the request', async () => {
    const t = scriptedTransport(1000, { [CHAT_PATH]: [{ reads: [{ atMs: 91_000, bytes: json({ id: 'j9', status: 'IN_PROGRESS' }) }] }] });
    const o = await executeLlmRequest(ctxOf(t, { stream: false }), spec, 1000);
    expect([o.ok, o.error]).toEqual([false, 'the answer is not a completion (no choices): {"id":"j9","status":"IN_PROGRESS"}']);
  });
});

describe('native paths', () => {
  it('stream: TTFT split into submit, delayTime (in real ms) and the worker to its first chunk; §2.3 metrics handed over', async () => {
    const item = (s: string) => ({ output: { choices: [{ index: 0, delta: { content: s } }] } });
    const t = scriptedTransport(1000, {
      'POST /v2/demo/run': [{ reads: [{ atMs: 1008, bytes: json({ id: 'j1', status: 'IN_QUEUE' }) }] }],
      'GET /v2/demo/stream/j1': [
        { reads: [{ atMs: 1300, bytes: json({ status: 'IN_PROGRESS', stream: [{ ...item('a'), metrics: { gpu_kv_cache_usage: 0.1, running: 1 } }] }) }] },
        { reads: [{ atMs: 1400, bytes: json({ status: 'IN_PROGRESS', stream: [item('b'), item('c')] }) }] },
        { reads: [{ atMs: 1450, bytes: json({ status: 'COMPLETED', stream: [] }) }] },
      ],
      'GET /v2/demo/status/j1': [{ reads: [{ atMs: 1460, bytes: json({ id: 'j1', status: 'COMPLETED', delayTime: 200, executionTime: 300, output: { choices: [{ message: { content: 'abc' } }], usage: { prompt_tokens: 5, completion_tokens: 3 } } }) }] }],
    });
    const metrics: unknown[] = [];
    const o = await executeLlmRequest(ctxOf(t, { path: 'stream', timeScale: 2, onEngineMetrics: (at, m) => metrics.push([at, m]) }), spec, 990);
    expect(o.ok).toBe(true);
    expect(o.metrics.ttftMs).toBe(310);
    expect(o.submitMs).toBe(18);
    expect(o.delayMs).toBe(100);
    expect(o.executionMs).toBe(150);
    // Two items in one answer are one arrival: its 100 ms gap shared by their two tokens (not 100 then 0).
    expect(o.metrics.itlMs).toEqual([50, 50]);
    expect(o.metrics.e2eMs).toBe(460);
    expect([o.metrics.outputTokens, o.metrics.tokenSource, o.metrics.tpotMs]).toEqual([3, 'usage', 75]);
    expect(o.text).toBe('abc');
    expect(metrics).toEqual([[1300, { gpu_kv_cache_usage: 0.1, running: 1 }]]);
    const input = JSON.parse(t.sent[0]?.body ?? '{}') as { input: { openai_route: string; openai_input: { stream: boolean } } };
    expect([input.input.openai_route, input.input.openai_input.stream]).toEqual(['/v1/chat/completions', true]);
  });

  it('stream: a failed job fails the request with its error', async () => {
    const t = scriptedTransport(1000, {
      'POST /v2/demo/run': [{ reads: [{ atMs: 1005, bytes: json({ id: 'j2', status: 'IN_QUEUE' }) }] }],
      'GET /v2/demo/stream/j2': [{ reads: [{ atMs: 1100, bytes: json({ status: 'FAILED', stream: [] }) }] }],
      'GET /v2/demo/status/j2': [{ reads: [{ atMs: 1110, bytes: json({ id: 'j2', status: 'FAILED', error: 'out of memory' }) }] }],
    });
    const o = await executeLlmRequest(ctxOf(t, { path: 'stream' }), spec, 1000);
    expect([o.ok, o.error]).toEqual([false, 'job ended FAILED: out of memory']);
  });

  it('runsync: an answer before the job ended is read again from /status after the poll gap', async () => {
    const t = scriptedTransport(1000, {
      'POST /v2/demo/runsync': [{ reads: [{ atMs: 1500, bytes: json({ id: 'j3', status: 'IN_PROGRESS' }) }] }],
      'GET /v2/demo/status/j3': [{ reads: [{ atMs: 1530, bytes: json({ id: 'j3', status: 'COMPLETED', delayTime: 40, executionTime: 450, output: { choices: [{ text: 'xyz' }], usage: { completion_tokens: 9 } } }) }] }],
    });
    const o = await executeLlmRequest(ctxOf(t, { path: 'runsync', api: 'completions' }), spec, 1000);
    expect([o.ok, o.metrics.ttftMs, o.metrics.e2eMs, o.metrics.outputTokens, o.delayMs, o.text]).toEqual([true, 530, 530, 9, 40, 'xyz']);
    expect(t.sent.map((s) => s.atMs)).toEqual([1000, 1520]);
    const input = JSON.parse(t.sent[0]?.body ?? '{}') as { input: { openai_route: string; openai_input: Record<string, unknown> } };
    expect(input.input.openai_route).toBe('/v1/completions');
    expect(input.input.openai_input['prompt']).toBe('the cat sat');
  });
});

describe('bodies and text', () => {
  it('completions send the prompt; --no-ignore-eos sends no vLLM fields', () => {
    expect(openAiBody({ api: 'completions', model: undefined, ignoreEos: false }, spec, false)).toEqual({ prompt: 'the cat sat', max_tokens: 11, stream: false });
  });

  it('reads text from chat deltas and messages, completions text and native items', () => {
    expect(textOf({ choices: [{ delta: { content: 'a' } }] })).toBe('a');
    expect(textOf({ choices: [{ message: { content: 'b' } }] })).toBe('b');
    expect(textOf({ choices: [{ text: 'c' }] })).toBe('c');
    expect(textOf({ output: { text: ['d', 'e'] } })).toBe('de');
    expect(textOf({ output: [{ choices: [{ text: 'f' }] }] })).toBe('f');
  });
});
