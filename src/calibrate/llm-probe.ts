// A short probe of an LLM endpoint over its OpenAI completions route (server-sent events), for
// the engine part of a twin: after one warm-up request, TTFT of requests sent one at a time at a
// few prompt lengths (32 tokens each: the gap after the first tells how a decode step grows with
// the context), then the inter-token gap of n streams decoding together at a few
// n, within a request budget; fitted by llm-fit.ts. A batch's gap is read after its last stream got
// its first token (its own prefills are not decoding), as the slope of chunk times over tokens.
// Prompts are ceil(chars / 4) tokens long by the engine's approximation (approxPromptTokens): the
// text is 4 x tokens characters. Every stream of a batch is taken to share one worker: probe an
// endpoint held at one worker (workersMax 1), or the streams spread and the slowdown per stream
// reads too small.
import { QbenchError, usageError } from '../errors.js';
import { SseParser } from '../load/llm/sse.js';
import { chunkOfSseData, tokensInChunk } from '../load/llm/token-metrics.js';
import { LLM_PROBE_DEFAULTS } from './llm-probe-defaults.js';
import { fitEngineRates, fitLine, type ContextObservation, type DecodeObservation, type LlmFit, type TtftObservation } from './llm-fit.js';
import type { LlmEngine } from '../deployment/index.js';

/** One streamed answer: when it was sent and when each token-carrying chunk came, real ms. */
export interface StreamedAnswer {
  readonly sentAtMs: number;
  readonly chunks: readonly { readonly atMs: number; readonly tokens: number }[];
}

/** How the probe reaches the endpoint (an HTTP port in production, a fake in tests). */
export interface LlmProbePort {
  complete(promptTokens: number, maxTokens: number): Promise<StreamedAnswer>;
}

export interface LlmProbeOptions {
  readonly port: LlmProbePort;
  /** Prompt lengths of the TTFT phase, tokens (default 32, 512, 2048). */
  readonly promptLengths?: readonly number[] | undefined;
  /** Requests per prompt length (default 3; the median is kept). */
  readonly repeats?: number | undefined;
  /** Streams decoding together in the second phase (default 1, 2, 4, 8): at most one worker's concurrency. */
  readonly concurrency?: readonly number[] | undefined;
  /** Output tokens of each decoding stream (default 64). */
  readonly decodeTokens?: number | undefined;
  /** Requests the probe may send in all (default 60). */
  readonly maxRequests?: number | undefined;
  /** The engine's scheduler, given: how the decode gaps read as steps (fitEngineRates). */
  readonly scheduler?: LlmEngine['scheduler'] | undefined;
}

export interface LlmProbeResult {
  readonly ttft: readonly TtftObservation[];
  readonly decode: readonly DecodeObservation[];
  /** One stream's gap after each TTFT request's first token, by its context (the median per prompt length). */
  readonly context: readonly ContextObservation[];
  readonly fit: LlmFit;
  readonly requestsSent: number;
}

const DECODE_PROMPT_TOKENS = 16;
const CONTEXT_PROBE_TOKENS = LLM_PROBE_DEFAULTS.contextTokens;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Ms per token of `a` from its first chunk at or after `fromMs` on: the least-squares slope of the
 * chunks' arrival times against the tokens streamed so far, so that one chunk held up by the host
 * moves it little (a gap from the first to the last chunk would take all of that delay).
 */
function gapAfter(a: StreamedAnswer, fromMs: number): number | undefined {
  const points: { x: number; y: number }[] = [];
  let tokens = 0;
  for (const c of a.chunks) {
    tokens += c.tokens;
    if (c.atMs >= fromMs) points.push({ x: tokens, y: c.atMs });
  }
  if (points.length < 2) return undefined;
  const { b } = fitLine(points);
  return b > 0 ? b : undefined;
}

export { LLM_PROBE_DEFAULTS };

/** Requests the probe sends with these options: a warm-up, each prompt length x repeats, and every stream of every batch. */
export function probeRequests(o: Pick<LlmProbeOptions, 'promptLengths' | 'repeats' | 'concurrency'> = {}): number {
  const lengths = o.promptLengths ?? LLM_PROBE_DEFAULTS.promptLengths;
  const concurrency = o.concurrency ?? LLM_PROBE_DEFAULTS.concurrency;
  return 1 + lengths.length * (o.repeats ?? LLM_PROBE_DEFAULTS.repeats) + concurrency.reduce((s, n) => s + n, 0);
}

export async function probeLlm(o: LlmProbeOptions): Promise<LlmProbeResult> {
  const lengths = o.promptLengths ?? LLM_PROBE_DEFAULTS.promptLengths;
  const repeats = o.repeats ?? LLM_PROBE_DEFAULTS.repeats;
  const concurrency = o.concurrency ?? LLM_PROBE_DEFAULTS.concurrency;
  const decodeTokens = o.decodeTokens ?? LLM_PROBE_DEFAULTS.decodeTokens;
  const maxRequests = o.maxRequests ?? LLM_PROBE_DEFAULTS.maxRequests;
  const needed = probeRequests(o);
  if (needed > maxRequests) throw usageError(`the LLM probe needs ${needed} requests (a warm-up, ${lengths.length} prompt lengths x ${repeats} and ${concurrency.join(' + ')} streams), above its budget of ${maxRequests}`);
  // A warm-up first, not measured: it waits for a worker's cold start and warms the connection.
  await o.port.complete(lengths[0] ?? DECODE_PROMPT_TOKENS, 1);
  // Rounds over every length, so that a slow spell of the host touches one sample of several lengths, not one length.
  const samples = lengths.map((): number[] => []);
  const contextGaps = lengths.map((): number[] => []);
  for (let r = 0; r < repeats; r += 1) {
    for (const [i, p] of lengths.entries()) {
      const a = await o.port.complete(p, CONTEXT_PROBE_TOKENS);
      const first = a.chunks[0];
      if (first === undefined) continue;
      samples[i]?.push(first.atMs - a.sentAtMs);
      const g = gapAfter(a, first.atMs);
      if (g !== undefined) contextGaps[i]?.push(g);
    }
  }
  const context: ContextObservation[] = [];
  lengths.forEach((p, i) => {
    const g = contextGaps[i] ?? [];
    if (g.length > 0) context.push({ contextTokens: p + CONTEXT_PROBE_TOKENS / 2, itlMs: median(g) });
  });
  const ttft: TtftObservation[] = [];
  lengths.forEach((p, i) => {
    const s = samples[i] ?? [];
    if (s.length > 0) ttft.push({ promptTokens: p, ttftMs: median(s) });
  });
  const decode: DecodeObservation[] = [];
  for (const n of concurrency) {
    const answers = await Promise.all(Array.from({ length: n }, () => o.port.complete(DECODE_PROMPT_TOKENS, decodeTokens)));
    const allStartedMs = Math.max(...answers.map((a) => a.chunks[0]?.atMs ?? Infinity));
    const gaps = answers.flatMap((a) => {
      const g = gapAfter(a, allStartedMs);
      return g === undefined ? [] : [g];
    });
    // The median stream: one stream held up by the host (a pause of its client) does not move it.
    if (gaps.length > 0) decode.push({ streams: n, itlMs: median(gaps), contextTokens: DECODE_PROMPT_TOKENS + decodeTokens / 2 });
  }
  return { ttft, decode, context, fit: fitEngineRates(ttft, decode, o.scheduler, context), requestsSent: needed };
}

/** The OpenAI completions route of `{queueBase}/v2/{endpointId}` as a probe port (fetch, SSE read as it arrives). */
export function openAiProbePort(queueBase: string, endpointId: string, apiKey: string, now: () => number = () => performance.now()): LlmProbePort {
  const url = `${queueBase.replace(/\/$/, '')}/v2/${encodeURIComponent(endpointId)}/openai/v1/completions`;
  return {
    async complete(promptTokens, maxTokens) {
      const sentAtMs = now();
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'x'.repeat(4 * promptTokens), max_tokens: maxTokens, stream: true }),
      });
      if (res.status !== 200 || res.body === null) throw new QbenchError('QB_ERR_HTTP', `the LLM probe's request to ${url} answered HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`, { status: res.status });
      const parser = new SseParser();
      const chunks: { atMs: number; tokens: number }[] = [];
      for await (const bytes of res.body as AsyncIterable<Uint8Array>) {
        const atMs = now();
        for (const e of parser.push(bytes)) {
          const tokens = tokensInChunk(chunkOfSseData(e.data)).tokens;
          if (tokens > 0) chunks.push({ atMs, tokens });
        }
      }
      return { sentAtMs, chunks };
    },
  };
}
