// Token timing (src/load/llm/token-metrics.ts, stream-reader.ts) against scripted streams whose
// every time is known: a role-only or empty first chunk, chunks of 1-5 tokens after known gaps
// (some of 0 ms: one arrival, its gap shared by all its tokens), empty chunks between, a usage chunk, [DONE]; encoded to SSE bytes and read in
// random chunkings at the time each byte was sent. Every metric must equal the script's exactly.
// The seed is printed; QBENCH_TEST_SEED replays a run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseTokenReader } from '../../../../src/load/llm/stream-reader.js';
import { tokenMetrics, tokensInChunk, type RequestTokenMetrics } from '../../../../src/load/llm/token-metrics.js';

const SEED = Number(process.env['QBENCH_TEST_SEED'] ?? Date.now() % 1_000_000);
const params = { seed: SEED, numRuns: 300 };
const enc = new TextEncoder();

type Format = 'chat' | 'completions' | 'native-choices' | 'native-text';

const tokenText = fc.constantFrom(' the', ' cat', '\u00e9', '\u4e16', '\u{1F600}', '\n', '"', ' 42');
const script = fc.record({
  format: fc.constantFrom<Format>('chat', 'completions', 'native-choices', 'native-text'),
  startMs: fc.integer({ min: 0, max: 1_000_000 }),
  // The role-only (or empty) first chunk comes this long after the request, the first token later still.
  firstChunkAfterMs: fc.integer({ min: 0, max: 500 }),
  firstTokenAfterFirstChunkMs: fc.integer({ min: 1, max: 2000 }),
  chunks: fc.array(
    fc.record({
      gapMs: fc.integer({ min: 0, max: 300 }),
      tokens: fc.array(tokenText, { minLength: 1, maxLength: 5 }),
      // An empty chunk inside the gap before this one, which must not restart the gap.
      emptyBefore: fc.boolean(),
    }),
    { minLength: 1, maxLength: 25 },
  ),
  includeUsage: fc.boolean(),
  usageAfterMs: fc.integer({ min: 0, max: 100 }),
  doneAfterMs: fc.integer({ min: 0, max: 50 }),
  crlf: fc.boolean(),
});
type Script = typeof script extends fc.Arbitrary<infer T> ? T : never;

interface Timed {
  readonly atMs: number;
  readonly chunk: unknown;
}

function tokenChunk(format: Format, toks: readonly string[], usedSoFar: number, includeUsage: boolean): unknown {
  switch (format) {
    case 'chat':
      return {
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { content: toks.join('') }, logprobs: { content: toks.map((t) => ({ token: t, logprob: -0.5 })) }, finish_reason: null }],
      };
    case 'completions':
      return { object: 'text_completion', choices: [{ index: 0, text: toks.join(''), logprobs: { tokens: toks, token_logprobs: toks.map(() => -0.5) } }] };
    case 'native-choices':
      // Older workers put a running usage on every item.
      return { choices: [{ tokens: toks }], ...(includeUsage ? { usage: { input: 11, output: usedSoFar } } : {}) };
    case 'native-text':
      return { output: { text: toks } };
  }
}

function emptyChunk(format: Format, first: boolean): unknown {
  switch (format) {
    case 'chat':
      return { object: 'chat.completion.chunk', choices: [{ index: 0, delta: first ? { role: 'assistant', content: '' } : { content: '' }, logprobs: null }] };
    case 'completions':
      return { object: 'text_completion', choices: [{ index: 0, text: '' }] };
    case 'native-choices':
      return { choices: [{ tokens: [] }] };
    case 'native-text':
      return { output: { text: [] } };
  }
}

/** The script's chunks at their times, and the metrics it means. */
function play(s: Script): { timed: Timed[]; doneAtMs: number; expected: RequestTokenMetrics } {
  const timed: Timed[] = [];
  let t = s.startMs + s.firstChunkAfterMs;
  timed.push({ atMs: t, chunk: emptyChunk(s.format, true) });
  t += s.firstTokenAfterFirstChunkMs;
  const firstTokenAtMs = t;
  const itl: number[] = [];
  let total = 0;
  let chunks = 1;
  // Chunks 0 ms apart are one arrival: its gap shared by all their tokens (the first arrival has none).
  let arrivalGap: number | undefined;
  let arrivalTokens = 0;
  s.chunks.forEach((c, i) => {
    if (i === 0) arrivalTokens = c.tokens.length;
    else {
      if (c.emptyBefore) {
        timed.push({ atMs: t + Math.floor(c.gapMs / 2), chunk: emptyChunk(s.format, false) });
        chunks += 1;
      }
      t += c.gapMs;
      if (c.gapMs === 0) {
        if (arrivalGap !== undefined) itl.length -= arrivalTokens;
        arrivalTokens += c.tokens.length;
        if (arrivalGap !== undefined) for (let k = 0; k < arrivalTokens; k++) itl.push(arrivalGap / arrivalTokens);
      } else {
        arrivalGap = c.gapMs;
        arrivalTokens = c.tokens.length;
        for (let k = 0; k < c.tokens.length; k++) itl.push(c.gapMs / c.tokens.length);
      }
    }
    total += c.tokens.length;
    timed.push({ atMs: t, chunk: tokenChunk(s.format, c.tokens, total, s.includeUsage) });
    chunks += 1;
  });
  const openai = s.format === 'chat' || s.format === 'completions';
  if (s.includeUsage && openai) {
    t += s.usageAfterMs;
    timed.push({ atMs: t, chunk: { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 11, completion_tokens: total, total_tokens: 11 + total } } });
    chunks += 1;
  }
  const doneAtMs = t + s.doneAfterMs;
  const ttftMs = firstTokenAtMs - s.startMs;
  const e2eMs = doneAtMs - s.startMs;
  const usage = s.includeUsage && s.format !== 'native-text';
  return {
    timed,
    doneAtMs,
    expected: {
      ttftMs,
      e2eMs,
      itlMs: itl,
      tpotMs: total < 2 ? undefined : (e2eMs - ttftMs) / (total - 1),
      outputTokens: total,
      inputTokens: usage ? 11 : undefined,
      tokenSource: usage ? 'usage' : 'chunks',
      chunkTokens: total,
      outputTokensPerSec: e2eMs > 0 ? total / (e2eMs / 1000) : undefined,
      chunks,
      streamError: undefined,
    },
  };
}

/** SSE bytes of the timed chunks plus [DONE], and for each byte the time it was sent. */
function encodeSse(timed: readonly Timed[], doneAtMs: number, crlf: boolean): { bytes: Uint8Array; sentAtMs: number[]; boundaries: number[] } {
  const nl = crlf ? '\r\n' : '\n';
  const parts = [...timed.map((x) => ({ atMs: x.atMs, text: `data: ${JSON.stringify(x.chunk)}${nl}${nl}` })), { atMs: doneAtMs, text: `data: [DONE]${nl}${nl}` }];
  const pieces = parts.map((p) => ({ atMs: p.atMs, bytes: enc.encode(p.text) }));
  const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.bytes.length, 0));
  const sentAtMs: number[] = [];
  const boundaries: number[] = [];
  let at = 0;
  pieces.forEach((p, i) => {
    bytes.set(p.bytes, at);
    for (let k = 0; k < p.bytes.length; k++) sentAtMs.push(p.atMs);
    at += p.bytes.length;
    // A read that spans two events of different times would deliver the earlier one late:
    // the script's times hold only for reads cut there, so such a boundary is always a cut.
    const next = pieces[i + 1];
    if (next !== undefined && next.atMs !== p.atMs) boundaries.push(at);
  });
  return { bytes, sentAtMs, boundaries };
}

/** Read the bytes as reads cut at `cuts`, each at the time its last byte was sent. */
function readAt(startMs: number, bytes: Uint8Array, sentAtMs: readonly number[], cuts: readonly number[]) {
  const reader = new SseTokenReader(startMs);
  let from = 0;
  for (const cut of [...new Set([...cuts, bytes.length])].sort((a, b) => a - b)) {
    if (cut <= from) continue;
    reader.push(sentAtMs[cut - 1] ?? 0, bytes.subarray(from, cut));
    from = cut;
  }
  return reader.end(sentAtMs[bytes.length - 1] ?? 0);
}

const scripted = script.chain((s) => {
  const played = play(s);
  const sse = encodeSse(played.timed, played.doneAtMs, s.crlf);
  return fc.record({
    s: fc.constant(s),
    played: fc.constant(played),
    sse: fc.constant(sse),
    cuts: fc.uniqueArray(fc.integer({ min: 1, max: sse.bytes.length }), { maxLength: 60 }),
  });
});

describe(`scripted streams, every metric exact (seed ${SEED})`, () => {
  it('read as SSE in random chunkings', () => {
    fc.assert(
      fc.property(scripted, ({ played, sse, cuts, s }) => {
        const result = readAt(s.startMs, sse.bytes, sse.sentAtMs, [...cuts, ...sse.boundaries]);
        expect(result.done).toBe(true);
        expect(result.truncated).toBe(false);
        expect(result.unparsedEvents).toBe(0);
        expect(result.metrics).toEqual(played.expected);
      }),
      params,
    );
  });

  it('given as parsed chunks', () => {
    fc.assert(
      fc.property(script, (s) => {
        const played = play(s);
        expect(tokenMetrics(s.startMs, played.timed, played.doneAtMs)).toEqual(played.expected);
      }),
      params,
    );
  });
});

// Each pitfall named in WIRE-COMPAT "LLM workers" as a small example of its own.
const role = { choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] };
const content = (text: string) => ({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });

describe('measurement pitfalls', () => {
  it('a role-only first chunk is not the first token (TTFT runs to the first chunk with content)', () => {
    const m = tokenMetrics(1000, [
      { atMs: 1050, chunk: role },
      { atMs: 1080, chunk: content('') },
      { atMs: 1300, chunk: content('Hi') },
      { atMs: 1320, chunk: content(' there') },
    ]);
    expect(m.ttftMs).toBe(300);
    expect(m.itlMs).toEqual([20]);
  });

  it('a chunk of k tokens after a gap g gives k inter-token samples of g/k', () => {
    const m = tokenMetrics(0, [
      { atMs: 100, chunk: { choices: [{ tokens: ['a'] }] } },
      { atMs: 130, chunk: { choices: [{ tokens: ['b', 'c', 'd'] }] } },
      { atMs: 150, chunk: { choices: [{ tokens: ['e', 'f'] }] } },
    ]);
    expect(m.itlMs).toEqual([10, 10, 10, 10, 10]);
    expect(m.tpotMs).toBe((150 - 100) / 5);
  });

  it('an event split across reads is read once, at the time of the read that completes it', () => {
    const reader = new SseTokenReader(0);
    const text = `data: ${JSON.stringify(content('\u4e16\u754c'))}\n\ndata: [DONE]\n\n`;
    const bytes = enc.encode(text);
    const mid = bytes.indexOf(0xe4) + 1; // inside the 3-byte first character
    reader.push(20, bytes.subarray(0, 8));
    reader.push(40, bytes.subarray(8, mid));
    reader.push(90, bytes.subarray(mid, bytes.indexOf(0x0a) + 1)); // up to the first LF of the pair
    reader.push(120, bytes.subarray(bytes.indexOf(0x0a) + 1));
    const r = reader.end(130);
    expect(r.metrics.ttftMs).toBe(120);
    expect(r.metrics.outputTokens).toBe(1);
    expect(r.metrics.e2eMs).toBe(120);
    expect(r.unparsedEvents).toBe(0);
  });
});

describe('token counts', () => {
  it("prefer the server's usage, and say so", () => {
    const m = tokenMetrics(0, [
      { atMs: 10, chunk: role },
      { atMs: 20, chunk: { choices: [{ delta: { content: 'two tokens' } }] } },
      { atMs: 40, chunk: { choices: [{ delta: { content: 'three more here' } }] } },
      { atMs: 45, chunk: { choices: [], usage: { prompt_tokens: 5, completion_tokens: 5 } } },
    ]);
    expect(m).toMatchObject({ tokenSource: 'usage', outputTokens: 5, inputTokens: 5, chunkTokens: 2, ttftMs: 20, e2eMs: 45 });
    expect(m.tpotMs).toBe((45 - 20) / 4);
  });

  it('count 1 per non-empty content delta without usage (an estimate), and say so', () => {
    const m = tokenMetrics(0, [
      { atMs: 20, chunk: { choices: [{ delta: { content: 'two tokens' } }] } },
      { atMs: 40, chunk: { choices: [{ text: 'more' }] } },
    ]);
    expect(m).toMatchObject({ tokenSource: 'chunks', outputTokens: 2, chunkTokens: 2 });
  });

  it('leave TPOT undefined for one token and TTFT undefined for none', () => {
    expect(tokenMetrics(0, [{ atMs: 20, chunk: { output: { text: ['x'] } } }]).tpotMs).toBeUndefined();
    const none = tokenMetrics(0, [{ atMs: 20, chunk: role }], 30);
    expect(none).toMatchObject({ ttftMs: undefined, tpotMs: undefined, outputTokens: 0, e2eMs: 30, itlMs: [] });
  });

  it('read the shapes of every producer', () => {
    expect(tokensInChunk({ output: { text: ['a', 'b'] } }).tokens).toBe(2);
    expect(tokensInChunk({ output: { choices: [{ tokens: ['a', 'b', 'c'] }], usage: { input: 3, output: 9 } } })).toMatchObject({ tokens: 3, usage: { inputTokens: 3, outputTokens: 9 } });
    expect(tokensInChunk({ choices: [{ tokens: ['a'] }], usage: { input: 1, output: 1 } }).usage).toEqual({ inputTokens: 1, outputTokens: 1 });
    expect(tokensInChunk({ choices: [{ delta: { reasoning_content: 'think' } }] }).tokens).toBe(1);
    expect(tokensInChunk({ choices: [{ delta: { role: 'assistant' } }] }).tokens).toBe(0);
    expect(tokensInChunk({ choices: [{ delta: { content: 'ab' }, logprobs: { content: [{}, {}] } }] }).tokens).toBe(2);
    expect(tokensInChunk({ error: { message: 'boom' } }).error).toBe('{"message":"boom"}');
    expect(tokensInChunk('not an object').tokens).toBe(0);
  });
});
