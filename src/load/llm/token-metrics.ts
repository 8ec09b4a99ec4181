// Per-request token timing of a streamed LLM answer, from each chunk's arrival time and parsed body:
// OpenAI chat and completions chunks and the native `/stream` items (WIRE-COMPAT "LLM workers").
// It avoids the pitfalls named there: the first token is the first chunk that carries one (never a
// role-only or empty chunk), and a chunk of k tokens after a gap g gives k inter-token samples of g/k.
// Chunks that arrive at the same time (the events one read completed, the items of one /stream
// answer) are one arrival: their tokens share its gap, so a server that writes one token per event
// but several events per write gives the ITL of one that writes one multi-token event.

/** Token usage as the server reported it. */
export interface TokenUsage {
  readonly inputTokens: number | undefined;
  readonly outputTokens: number;
}

/** What one chunk carries. `tokens` is an estimate (see `tokensInChunk`); `usage` is the server's own count. */
export interface ChunkTokens {
  readonly tokens: number;
  readonly usage: TokenUsage | undefined;
  readonly error: string | undefined;
}

export type TokenSource = 'usage' | 'chunks';

export interface RequestTokenMetrics {
  /** Request sent to first token-carrying chunk; undefined when no token came. */
  readonly ttftMs: number | undefined;
  /** Request sent to the end of the stream. */
  readonly e2eMs: number;
  /** Inter-token latencies, one per token after the first chunk that carried tokens (a chunk of k tokens after a gap g gives k samples of g/k). */
  readonly itlMs: readonly number[];
  /** (e2e - TTFT) / (output tokens - 1); undefined for fewer than two tokens. */
  readonly tpotMs: number | undefined;
  readonly outputTokens: number;
  readonly inputTokens: number | undefined;
  /** Where `outputTokens` came from: the server's `usage`, or counted from the chunks (an estimate). */
  readonly tokenSource: TokenSource;
  /** Tokens counted from the chunks, whatever `tokenSource` says (the ITL samples use this count). */
  readonly chunkTokens: number;
  /** output tokens / e2e seconds; undefined when e2e is 0. */
  readonly outputTokensPerSec: number | undefined;
  /** Chunks seen, token-carrying or not. */
  readonly chunks: number;
  /** The first error object a chunk carried (`{"error": ...}` mid-stream), as text. */
  readonly streamError: string | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

function usageOf(v: unknown): TokenUsage | undefined {
  if (!isRecord(v)) return undefined;
  // OpenAI: prompt_tokens / completion_tokens. Native worker items: input / output.
  const output = count(v['completion_tokens']) ?? count(v['output']);
  if (output === undefined) return undefined;
  return { inputTokens: count(v['prompt_tokens']) ?? count(v['input']), outputTokens: output };
}

/**
 * Tokens in one choice: a list with one entry per token when the chunk has one (native `tokens`,
 * chat `logprobs.content`, completions `logprobs.tokens`), else 1 for a non-empty content,
 * reasoning or text delta.
 */
function tokensInChoice(choice: unknown): number {
  if (!isRecord(choice)) return 0;
  if (Array.isArray(choice['tokens'])) return choice['tokens'].length;
  const logprobs = choice['logprobs'];
  if (isRecord(logprobs)) {
    if (Array.isArray(logprobs['content'])) return logprobs['content'].length;
    if (Array.isArray(logprobs['tokens'])) return logprobs['tokens'].length;
  }
  const delta = choice['delta'];
  if (isRecord(delta)) {
    return nonEmptyString(delta['content']) || nonEmptyString(delta['reasoning_content']) || nonEmptyString(delta['reasoning']) ? 1 : 0;
  }
  return nonEmptyString(choice['text']) ? 1 : 0;
}

/**
 * What one parsed chunk carries. The token count is exact where the chunk lists its tokens (native
 * `choices[].tokens` or `output.text`, OpenAI `logprobs` when requested) and otherwise an
 * approximation: 1 per non-empty content delta or completion text, however many tokens that text
 * holds. The server's `usage`, when sent, is the exact total.
 */
export function tokensInChunk(chunk: unknown): ChunkTokens {
  if (!isRecord(chunk)) return { tokens: 0, usage: undefined, error: undefined };
  const error = chunk['error'] === undefined ? undefined : JSON.stringify(chunk['error']);
  // A native `/stream` item wraps the handler's yield in `output`.
  if (!('choices' in chunk) && 'output' in chunk) {
    const output = chunk['output'];
    if (isRecord(output)) {
      if (Array.isArray(output['text'])) return { tokens: output['text'].length, usage: usageOf(output['usage']) ?? usageOf(chunk['usage']), error };
      const inner = tokensInChunk(output);
      return { tokens: inner.tokens, usage: inner.usage ?? usageOf(chunk['usage']), error: error ?? inner.error };
    }
    return { tokens: nonEmptyString(output) ? 1 : 0, usage: usageOf(chunk['usage']), error };
  }
  const choices = chunk['choices'];
  let tokens = 0;
  if (Array.isArray(choices)) for (const c of choices) tokens += tokensInChoice(c);
  return { tokens, usage: usageOf(chunk['usage']), error };
}

/**
 * Accumulates one request's timing chunk by chunk, so that a load run keeps a few numbers per
 * request rather than its chunks. Times are milliseconds on one monotonic clock (performance.now()).
 */
export class TokenTimer {
  private firstTokenAtMs: number | undefined;
  private lastTokenAtMs: number | undefined;
  /** The last arrival's tokens and the gap before it (undefined for the first arrival, which has no gap). */
  private arrivalTokens = 0;
  private arrivalGapMs: number | undefined;
  private lastArrivalMs: number;
  private readonly itl: number[] = [];
  private chunkTokens = 0;
  private chunks = 0;
  private usage: TokenUsage | undefined;
  private streamError: string | undefined;

  constructor(private readonly startMs: number) {
    this.lastArrivalMs = startMs;
  }

  /** One parsed chunk that arrived at `atMs`. */
  observe(atMs: number, chunk: unknown): void {
    this.observeTokens(atMs, tokensInChunk(chunk));
  }

  observeTokens(atMs: number, c: ChunkTokens): void {
    this.chunks += 1;
    this.lastArrivalMs = atMs;
    // A server may send usage on every chunk (running totals): the last one is the answer's.
    if (c.usage !== undefined) this.usage = c.usage;
    if (c.error !== undefined && this.streamError === undefined) this.streamError = c.error;
    if (c.tokens <= 0) return;
    if (this.lastTokenAtMs === undefined) {
      // The first token-carrying chunk marks TTFT; the tokens it carries beyond the first have no
      // gap of their own to measure, so they give no ITL sample.
      this.firstTokenAtMs = atMs;
      this.arrivalTokens = c.tokens;
      this.arrivalGapMs = undefined;
    } else if (atMs === this.lastTokenAtMs) {
      // Part of the last arrival: its gap is shared by all its tokens (none at the first arrival).
      const gap = this.arrivalGapMs;
      if (gap !== undefined) this.itl.length -= this.arrivalTokens;
      this.arrivalTokens += c.tokens;
      if (gap !== undefined) for (let i = 0; i < this.arrivalTokens; i++) this.itl.push(gap / this.arrivalTokens);
    } else {
      const gap = atMs - this.lastTokenAtMs;
      this.arrivalTokens = c.tokens;
      this.arrivalGapMs = gap;
      for (let i = 0; i < c.tokens; i++) this.itl.push(gap / c.tokens);
    }
    this.lastTokenAtMs = atMs;
    this.chunkTokens += c.tokens;
  }

  /** The stream ended at `endMs` (default: the last chunk's arrival). */
  finish(endMs: number = this.lastArrivalMs): RequestTokenMetrics {
    const e2eMs = endMs - this.startMs;
    const ttftMs = this.firstTokenAtMs === undefined ? undefined : this.firstTokenAtMs - this.startMs;
    const tokenSource: TokenSource = this.usage === undefined ? 'chunks' : 'usage';
    const outputTokens = this.usage?.outputTokens ?? this.chunkTokens;
    const tpotMs = ttftMs === undefined || outputTokens < 2 ? undefined : (e2eMs - ttftMs) / (outputTokens - 1);
    return {
      ttftMs,
      e2eMs,
      itlMs: [...this.itl],
      tpotMs,
      outputTokens,
      inputTokens: this.usage?.inputTokens,
      tokenSource,
      chunkTokens: this.chunkTokens,
      outputTokensPerSec: e2eMs > 0 ? outputTokens / (e2eMs / 1000) : undefined,
      chunks: this.chunks,
      streamError: this.streamError,
    };
  }
}

export interface ChunkArrival {
  readonly atMs: number;
  readonly chunk: unknown;
}

/** The metrics of a whole recorded stream. */
export function tokenMetrics(startMs: number, arrivals: readonly ChunkArrival[], endMs?: number): RequestTokenMetrics {
  const timer = new TokenTimer(startMs);
  for (const a of arrivals) timer.observe(a.atMs, a.chunk);
  return endMs === undefined ? timer.finish() : timer.finish(endMs);
}

/** The JSON of an SSE event's data: undefined for `[DONE]` and for data that is not JSON. */
export function chunkOfSseData(data: string): unknown {
  if (data === '[DONE]') return undefined;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}
