// The LLM stream reader over a real socket: a node:http server on loopback writes a scripted chat
// stream (a role-only first chunk, chunks of 1-4 tokens counted by logprobs, usage, [DONE]) with
// known delays, events split across TCP writes (inside a UTF-8 character, between CR and LF, and
// the end of one event with the start of the next), read with undici `request` through
// SseTokenReader. The server notes on the same clock when it writes the bytes that complete each
// event, so TTFT and ITL are checked against those times, not only against the script's delays.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseTokenReader } from '../../../src/load/llm/stream-reader.js';

// Arrival is measured when undici hands the bytes over, after the server's write went through
// loopback and one or more event-loop turns: a few tenths of a millisecond on an idle machine,
// up to tens of milliseconds when the two shared cores are busy. Timers never fire early by more
// than their 1 ms rounding, so a measured time is never below the write it follows.
const TOLERANCE_MS = 25;

const enc = new TextEncoder();
const chatChunk = (toks: string[]) => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { content: toks.join('') }, logprobs: { content: toks.map((t) => ({ token: t, logprob: -0.1 })) }, finish_reason: null }],
});

// Each step: wait, then write these bytes. `completes` marks a write that ends the event of that index.
interface Step {
  readonly waitMs: number;
  readonly bytes: Uint8Array;
  readonly completes?: number;
}

const TOKEN_CHUNKS = [['\u4e16'], [' big', ' cat'], [' sat'], [' on', ' a', ' mat', '.'], ['\u{1F600}']];
const GAPS_MS = [0, 40, 30, 60, 20];
const events = [
  { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
  ...TOKEN_CHUNKS.map(chatChunk),
  { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 } },
];
const sse = events.map((e) => enc.encode(`data: ${JSON.stringify(e)}\r\n\r\n`));
const done = enc.encode('data: [DONE]\r\n\r\n');

/** Nominal: role chunk at 20 ms, first token at 100 ms, then the gaps; usage 10 ms after the last token. */
function script(): Step[] {
  const steps: Step[] = [];
  const role = sse[0]!;
  const first = sse[1]!;
  const charAt = first.indexOf(0xe4) + 1; // inside the 3-byte first character
  steps.push({ waitMs: 20, bytes: role.subarray(0, role.length - 1) }); // up to the CR of the last CRLF
  steps.push({ waitMs: 5, bytes: role.subarray(role.length - 1), completes: 0 });
  steps.push({ waitMs: 40, bytes: first.subarray(0, charAt) });
  steps.push({ waitMs: 35, bytes: first.subarray(charAt), completes: 1 });
  for (let i = 2; i <= TOKEN_CHUNKS.length; i++) {
    const ev = sse[i]!;
    const half = Math.floor(ev.length / 2);
    // The first half goes out with the end of the previous step's event: one write, two events.
    const prev = steps.pop()!;
    steps.push({ ...prev, bytes: concat(prev.bytes, ev.subarray(0, half)) });
    steps.push({ waitMs: GAPS_MS[i - 1]!, bytes: ev.subarray(half), completes: i });
  }
  steps.push({ waitMs: 10, bytes: sse[events.length - 1]!, completes: events.length - 1 });
  steps.push({ waitMs: 5, bytes: done, completes: events.length });
  return steps;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

let server: Server;
let url: string;
/** performance.now() just before the write that completed each event (index events.length: [DONE]). */
const writtenAt: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      for (const step of script()) {
        await sleep(step.waitMs);
        // Noted before the write, so that no arrival can precede it.
        if (step.completes !== undefined) writtenAt[step.completes] = performance.now();
        await new Promise<void>((resolve) => res.write(step.bytes, () => resolve()));
      }
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a scripted SSE stream over loopback', () => {
  it('gives TTFT and per-token ITL within the tolerance of the server’s own write times', async () => {
    const startMs = performance.now();
    const { statusCode, body } = await request(url, { method: 'POST', body: '{"stream":true}', headers: { 'content-type': 'application/json' } });
    expect(statusCode).toBe(200);
    const reader = new SseTokenReader(startMs);
    let reads = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      reader.push(performance.now(), chunk);
      reads += 1;
    }
    const { metrics, done: sawDone, truncated, unparsedEvents } = reader.end(performance.now());
    expect({ sawDone, truncated, unparsedEvents }).toEqual({ sawDone: true, truncated: false, unparsedEvents: 0 });
    expect(reads).toBeGreaterThan(events.length); // the events did arrive split across reads
    expect(metrics).toMatchObject({ outputTokens: 9, chunkTokens: 9, inputTokens: 7, tokenSource: 'usage', chunks: events.length });

    // TTFT: the write that completed the first token event, never the role-only chunk's.
    const trueTtft = writtenAt[1]! - startMs;
    const ttft = metrics.ttftMs!;
    expect(ttft).toBeGreaterThanOrEqual(trueTtft);
    expect(ttft - trueTtft).toBeLessThanOrEqual(TOLERANCE_MS);
    expect(ttft).toBeGreaterThanOrEqual(100 - 1);

    // ITL: a chunk of k tokens gives k samples of its gap / k, the gap taken between the writes.
    const trueItl: number[] = [];
    for (let i = 2; i <= TOKEN_CHUNKS.length; i++) {
      const k = TOKEN_CHUNKS[i - 1]!.length;
      for (let j = 0; j < k; j++) trueItl.push((writtenAt[i]! - writtenAt[i - 1]!) / k);
    }
    expect(metrics.itlMs).toHaveLength(8);
    const errors = metrics.itlMs.map((x, i) => Math.abs(x - trueItl[i]!));
    console.log(`TTFT ${ttft.toFixed(2)} ms (write ${trueTtft.toFixed(2)} ms); worst ITL error ${Math.max(...errors).toFixed(3)} ms over ${reads} reads`);
    for (const e of errors) expect(e).toBeLessThanOrEqual(TOLERANCE_MS);

    // e2e ends at [DONE]; TPOT follows from it.
    expect(metrics.e2eMs - (writtenAt[events.length]! - startMs)).toBeLessThanOrEqual(TOLERANCE_MS);
    expect(metrics.tpotMs).toBe((metrics.e2eMs - ttft) / 8);
  });
});
