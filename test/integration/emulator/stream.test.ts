// /stream (WIRE-COMPAT object answer, only new chunks, bounded long-poll) and the §4.1 1 MB
// chunk cap; the LLM mode's §2.3 chunk output and metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { STREAM_CHUNK, StreamObjectAnswer } from '../../../src/spec/index.js';
import { startManual, until, type TestEmulator } from './helpers.js';

let t: TestEmulator;

interface Chunks {
  status: string;
  stream: { output: string; split?: { index: number; count: number }; metrics?: Record<string, number> }[];
}
afterEach(async () => {
  await t.close();
});

describe('/stream', () => {
  it('answers {status, stream} with only chunks not yet delivered, then the final status with []', async () => {
    t = await startManual();
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_return: ['a', 'b', 'c'], mock_delay: 1, mock_chunk_delay: 1 } })).body.id;
    await t.advance(1000);
    const first = (await t.call('GET', `/v2/demo/stream/${id}`)).body;
    expect(StreamObjectAnswer.safeParse(first).success).toBe(true);
    expect(first).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'a' }] });
    await t.advance(1000);
    await t.advance(1000);
    const second = (await t.call('POST', `/v2/demo/stream/${id}`)).body;
    expect(second).toEqual({ status: 'COMPLETED', stream: [{ output: 'b' }, { output: 'c' }] });
    expect((await t.call('GET', `/v2/demo/stream/${id}`)).body).toEqual({ status: 'COMPLETED', stream: [] });
    expect((await t.call('GET', `/v2/demo/status/${id}`)).body.output).toEqual(['a', 'b', 'c']);
  });

  it('holds the request while nothing new is ready, and answers when a chunk arrives', async () => {
    // A long-poll bound beyond the job's delay, so the chunk (not the bound) ends the wait.
    t = await startManual({ stream: { longPollMs: 60_000 } });
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_return: ['x'], mock_delay: 5 } })).body.id;
    let answered = false;
    const p = t.call('GET', `/v2/demo/stream/${id}`).then((r) => {
      answered = true;
      return r;
    });
    await until(() => t.em.core.defaultEndpoint.limiter.counters.get('stream')?.inFlight === 1, 'the stream call to arrive');
    expect(answered).toBe(false);
    await t.advance(5000);
    expect((await p).body.stream).toEqual([{ output: 'x' }]);
  });

  it('the long-poll is bounded: with no chunk it answers an empty stream', async () => {
    t = await startManual({ stream: { longPollMs: 50 } });
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_delay: 100 } })).body.id;
    const p = t.call('GET', `/v2/demo/stream/${id}`);
    await until(() => t.em.core.defaultEndpoint.limiter.counters.get('stream')?.inFlight === 1, 'the stream call to arrive');
    // ManualClock scale 1: the 50 real ms bound is 50 emulated ms.
    await t.advance(50);
    expect((await p).body).toEqual({ status: 'IN_PROGRESS', stream: [] });
  });

  it('splits an output over 1 MB into chunks of at most 1,000,000 serialized bytes', async () => {
    t = await startManual();
    const big = 'é"x'.repeat(900_000); // multi-byte and escaped characters: 3.6 MB serialized
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_return: big } })).body.id;
    const r = (await t.call('GET', `/v2/demo/stream/${id}`)).body as Chunks;
    expect(r.stream.length).toBeGreaterThan(3);
    for (const c of r.stream) expect(Buffer.byteLength(JSON.stringify(c))).toBeLessThanOrEqual(STREAM_CHUNK.decimalBytes);
    expect(r.stream.map((c) => c.output).join('')).toBe(big);
    expect(r.stream.map((c) => c.split?.index)).toEqual([...r.stream.keys()]);
  });

  it('splits one oversized streamed element too, keeping small ones whole', async () => {
    t = await startManual();
    const big = 'z'.repeat(2_500_000);
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_return: ['small', big] } })).body.id;
    const r = (await t.call('GET', `/v2/demo/stream/${id}`)).body as Chunks;
    expect(r.stream[0]).toEqual({ output: 'small' });
    expect(r.stream.slice(1).map((c) => c.output).join('')).toBe(big);
    expect(r.stream.length).toBe(4);
  });
});

describe('LLM streaming mode (mock_llm)', () => {
  it('streams §2.3 chunks whose throughput drops as jobs share a worker and KV usage grows', async () => {
    t = await startManual({ workers: { min: 1, max: 1, jobsPerWorker: 4 } });
    const llm = { prompt_tokens: 1000, output_tokens: 4, tokens_per_sec: 100, ttft_ms: 100, tokens_per_chunk: 1, scenario: 'bench' };
    const solo = (await t.call('POST', '/v2/demo/run', { input: { mock_llm: llm } })).body.id;
    // 5 ms steps land on every token's due time (ttft 100 ms, a token each 10 ms), so the
    // rate the worker measures on its clock is exactly the nominal one.
    for (let i = 0; i < 200; i++) await t.advance(5);
    const s1 = (await t.call('GET', `/v2/demo/stream/${solo}`)).body as Chunks;
    expect(s1.status).toBe('COMPLETED');
    expect(s1.stream).toHaveLength(4);
    const m1 = s1.stream.at(-1)?.metrics ?? {};
    expect(s1.stream[0]?.output).toEqual({ input_tokens: 1000, output_tokens: 1, text: [expect.any(String)] });
    expect(m1).toMatchObject({ input_tokens: 1000, output_tokens: 4, running: 1, pending: 0, stream_index: 3, scenario: 'bench', swapped: 0, cpu_kv_cache_usage: 0 });
    expect(m1.avg_gen_throughput).toBeCloseTo(100, 0);

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.call('POST', '/v2/demo/run', { input: { mock_llm: llm } })).body.id);
    for (let i = 0; i < 400; i++) await t.advance(5);
    const chunks = ((await t.call('GET', `/v2/demo/stream/${ids[0]}`)).body as Chunks).stream;
    const m3 = chunks.at(-1)?.metrics ?? {};
    expect(m3.running).toBe(3);
    // Rate per job = 100 / (1 + 0.5 * 2) = 50 tok/s.
    expect(m3.avg_gen_throughput).toBeCloseTo(50, 0);
    expect(m3.gpu_kv_cache_usage).toBeGreaterThan(m1.gpu_kv_cache_usage ?? 1);
  });

  it('refuses bad mock_llm parameters by failing the job with the field named', async () => {
    t = await startManual();
    const r = await t.call('POST', '/v2/demo/runsync', { input: { mock_llm: { output_tokens: 0 } } });
    expect(r.body).toMatchObject({ status: 'FAILED', error: expect.stringContaining('output_tokens') });
  });

  it('/openai/v1/chat/completions becomes a job and answers an OpenAI completion', async () => {
    t = await startManual();
    const p = t.call('POST', '/v2/demo/openai/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 3 });
    await until(() => t.em.core.defaultEndpoint.inProgress === 1, 'the openai job to start');
    for (let i = 0; i < 10; i++) await t.advance(100);
    const r = await p;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'chat.completion', model: 'm', usage: { completion_tokens: 3 } });
    const jobs = (await t.call('GET', '/v2/demo/requests')).body.requests;
    expect(jobs[0].output.object).toBe('chat.completion');
  });
});

describe('/openai streaming', () => {
  it('stream: true answers server-sent events, one per token, ending with [DONE]', async () => {
    t = await startManual();
    const u = `${t.em.url}/v2/demo/openai/v1/chat/completions`;
    const p = fetch(u, { method: 'POST', headers: { authorization: 'test-key-1234', 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, stream: true }) });
    await until(() => t.em.core.defaultEndpoint.inProgress === 1, 'the openai job to start');
    for (let i = 0; i < 10; i++) await t.advance(100);
    const res = await p;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text()).split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { object: string; choices: { delta: { content: string } }[] });
    expect(chunks).toHaveLength(3);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
  });
});
