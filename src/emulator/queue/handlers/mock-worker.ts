// The default handler: the official test worker's input contract (WIRE-COMPAT
// "mock-worker": mock_return, mock_delay, mock_error, mock_crash, mock_refresh), plus the
// emulator's documented extensions: mock_chunk_delay, mock_progress, mock_llm, and the
// {openai_route, openai_input} jobs of /openai/*.
import type { Handler, HandlerOutcome } from './types.js';
import { runLlmJob } from './llm.js';
import { runOpenAiJob } from './openai.js';
import { SECOND_MS } from '../../../spec/index.js';

export const DEFAULT_MOCK_RETURN = 'Hello World!';

function seconds(input: Record<string, unknown>, field: string): number | string {
  const v = input[field];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return `${field} must be a non-negative number of seconds`;
  return v * SECOND_MS;
}

export const mockWorkerHandler: Handler = async (input, ctx): Promise<HandlerOutcome> => {
  if (typeof input['openai_route'] === 'string') return runOpenAiJob(input['openai_route'], input['openai_input'], ctx);
  if (input['mock_llm'] !== undefined) return runLlmJob(input['mock_llm'], ctx);

  const refresh = input['mock_refresh'] === true;
  const delayMs = seconds(input, 'mock_delay');
  if (typeof delayMs === 'string') return { kind: 'error', error: delayMs, refresh };
  const chunkDelayMs = seconds(input, 'mock_chunk_delay');
  if (typeof chunkDelayMs === 'string') return { kind: 'error', error: chunkDelayMs, refresh };

  // Progress updates spread evenly over the delay.
  const progress = input['mock_progress'];
  if (Array.isArray(progress) && progress.length > 0) {
    const stepMs = delayMs / (progress.length + 1);
    for (const p of progress) {
      await ctx.clock.sleep(stepMs, ctx.signal);
      ctx.progress(p);
    }
    await ctx.clock.sleep(stepMs, ctx.signal);
  } else if (delayMs > 0) {
    await ctx.clock.sleep(delayMs, ctx.signal);
  }

  if (input['mock_crash'] === true) return { kind: 'crash', error: 'worker exited unexpectedly (mock_crash)' };
  if (input['mock_error'] === true) return { kind: 'error', error: 'handler raised an error (mock_error)', refresh };

  const ret = Object.hasOwn(input, 'mock_return') ? input['mock_return'] : DEFAULT_MOCK_RETURN;
  if (Array.isArray(ret)) {
    // Generator mode: one chunk per element; the output is the aggregated list.
    for (let i = 0; i < ret.length; i++) {
      if (i > 0 && chunkDelayMs > 0) await ctx.clock.sleep(chunkDelayMs, ctx.signal);
      ctx.emit(ret[i]);
    }
  }
  return { kind: 'output', output: ret, refresh };
};
