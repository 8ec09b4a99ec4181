// The simulated worker's handler when the endpoint models execution: it takes as long as the
// timing model says (by input class when one is named), and a streaming model emits chunks at
// its first-chunk time and chunk gaps until the execution time is over. Jobs that ask for the
// mock-worker contract (a mock_* or openai_route field) keep it: see modelledInput.
import type { Handler, HandlerOutcome } from '../queue/handlers/types.js';
import { DEFAULT_MOCK_RETURN } from '../queue/handlers/mock-worker.js';
import type { TimingSampler } from './timing.js';

/** True when the job's timings come from the model: its input has no mock-worker control field. */
export function modelledInput(input: Record<string, unknown>): boolean {
  for (const k in input) if (k.startsWith('mock_') || k === 'openai_route') return false;
  return true;
}

/** One streamed chunk of a modelled job. */
export interface ModelChunk {
  readonly index: number;
  readonly tokens: number;
}

export function timedHandler(timing: TimingSampler, onTokens: (tokens: number) => void): Handler {
  return async (input, ctx): Promise<HandlerOutcome> => {
    const executionMs = timing.executionMs(input);
    const stream = timing.timing.stream;
    if (stream === undefined) {
      if (executionMs > 0) await ctx.clock.sleep(executionMs, ctx.signal);
      return { kind: 'output', output: DEFAULT_MOCK_RETURN, refresh: false };
    }
    const chunks: ModelChunk[] = [];
    const emit = () => {
      const c: ModelChunk = { index: chunks.length, tokens: stream.tokensPerChunk };
      chunks.push(c);
      ctx.emit(c);
      onTokens(c.tokens);
    };
    let elapsedMs = timing.firstChunkMs();
    await ctx.clock.sleep(elapsedMs, ctx.signal);
    emit();
    for (;;) {
      const gapMs = timing.chunkGapMs();
      if (elapsedMs + gapMs > executionMs) break;
      await ctx.clock.sleep(gapMs, ctx.signal);
      elapsedMs += gapMs;
      emit();
    }
    if (executionMs > elapsedMs) await ctx.clock.sleep(executionMs - elapsedMs, ctx.signal);
    return { kind: 'output', output: chunks, refresh: false };
  };
}
