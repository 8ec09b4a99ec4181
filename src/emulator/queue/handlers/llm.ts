// The LLM-streaming mode of the default handler (input `mock_llm`) and the token generator
// behind /openai/* jobs. Tokens come out at `tokens_per_sec / (1 + contention * (n - 1))`
// per job, n = jobs on the worker, so per-job throughput drops as jobs share a worker;
// each job holds prompt + generated tokens of its worker's KV cache. Chunks carry the
// §2.3 text output and metrics.
import { z } from 'zod';
import { SECOND_MS } from '../../../spec/index.js';
import type { HandlerContext, HandlerOutcome } from './types.js';

export const LlmParams = z.strictObject({
  prompt_tokens: z.number().int().min(0).max(1_000_000).default(128),
  output_tokens: z.number().int().min(1).max(1_000_000).default(64),
  tokens_per_sec: z.number().positive().max(1_000_000).default(50),
  ttft_ms: z.number().min(0).max(600_000).default(200),
  tokens_per_chunk: z.number().int().min(1).max(100_000).default(1),
  scenario: z.string().max(200).default('default'),
});
export type LlmParams = z.infer<typeof LlmParams>;

const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.', ' A', ' model', ' streams', ' tokens', ' at', ' a', ' steady', ' rate', ','];

export function tokenText(i: number): string {
  return WORDS[i % WORDS.length] as string;
}

export interface GeneratedChunk {
  /** Tokens of this chunk. */
  readonly tokens: string[];
  /** Tokens generated so far, this chunk included. */
  readonly generated: number;
  readonly metrics: Record<string, number | string>;
}

/**
 * Run the simulated generation: wait the time to first token, then emit `onChunk` every
 * `tokens_per_chunk` tokens at the shared per-job rate. Rejects when ctx.signal aborts.
 */
export async function generate(p: LlmParams, ctx: HandlerContext, onChunk: (c: GeneratedChunk) => void): Promise<{ generated: number }> {
  const { clock, signal } = ctx;
  const kvCap = ctx.llm.kvCacheTokens;
  ctx.setKvTokens(p.prompt_tokens);
  await clock.sleep(p.ttft_ms, signal);
  const promptSec = Math.max(p.ttft_ms / SECOND_MS, 1e-3);
  let generated = 0;
  let index = 0;
  // Throughput is what was achieved on the emulator clock (as a real worker measures it), so
  // a host whose timers run late reports the slower rate its clients really see. The first
  // token's own generation time counts from before ttft ends.
  const genStartMs = clock.now();
  let firstTokenMs = 0;
  while (generated < p.output_tokens) {
    const n = Math.max(1, ctx.workerJobs());
    const ratePerSec = p.tokens_per_sec / (1 + ctx.llm.contentionPerJob * (n - 1));
    const k = Math.min(p.tokens_per_chunk, p.output_tokens - generated);
    // The first token arrives at ttft; later ones at the shared rate.
    const stepMs = index === 0 ? ((k - 1) / ratePerSec) * SECOND_MS : (k / ratePerSec) * SECOND_MS;
    if (stepMs > 0) await clock.sleep(stepMs, signal);
    if (index === 0) firstTokenMs = (1 / ratePerSec) * SECOND_MS;
    const tokens: string[] = [];
    for (let i = 0; i < k; i++) tokens.push(tokenText(generated + i));
    generated += k;
    const total = ctx.setKvTokens(p.prompt_tokens + generated);
    const running = Math.max(1, ctx.workerJobs());
    const genSec = Math.max((clock.now() - genStartMs + firstTokenMs) / SECOND_MS, 1e-3);
    const overflow = Math.max(0, total - kvCap);
    onChunk({
      tokens,
      generated,
      metrics: {
        avg_gen_throughput: round3(generated / genSec),
        avg_prompt_throughput: round3(p.prompt_tokens / promptSec),
        gpu_kv_cache_usage: round3(Math.min(1, total / kvCap)),
        cpu_kv_cache_usage: round3(Math.min(1, overflow / kvCap)),
        input_tokens: p.prompt_tokens,
        output_tokens: generated,
        pending: ctx.pendingJobs(),
        running,
        swapped: overflow > 0 ? Math.min(running, Math.ceil(overflow / Math.max(1, total / running))) : 0,
        stream_index: index,
        scenario: p.scenario,
      },
    });
    index += 1;
  }
  return { generated };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * `mock_llm` jobs: stream `{input_tokens, output_tokens, text[]}` chunks (output_tokens is
 * the count in that chunk; metrics.output_tokens is the running total) and end with the
 * list of chunk outputs, as an aggregated stream.
 */
export async function runLlmJob(raw: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
  const parsed = LlmParams.safeParse(raw ?? {});
  if (!parsed.success) {
    return { kind: 'error', error: `invalid mock_llm: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`, refresh: false };
  }
  const p = parsed.data;
  const outputs: { input_tokens: number; output_tokens: number; text: string[] }[] = [];
  await generate(p, ctx, (c) => {
    const out = { input_tokens: p.prompt_tokens, output_tokens: c.tokens.length, text: c.tokens };
    outputs.push(out);
    ctx.emit(out, c.metrics);
  });
  return { kind: 'output', output: outputs, refresh: false };
}
