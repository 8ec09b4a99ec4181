// The default handler: the official test worker's input contract (WIRE-COMPAT
// "mock-worker": mock_return, mock_delay, mock_error, mock_crash, mock_refresh), plus the
// emulator's documented extensions: mock_chunk_delay, mock_progress, mock_llm, and the
// {openai_route, openai_input} jobs of /openai/*.
import type { Handler, HandlerContext, HandlerOutcome } from './types.js';
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

/**
 * A job with nothing to wait for (no mock_delay, mock_progress or mock_chunk_delay between
 * parts) ends in the call itself, without a promise: the common job of a load test.
 */
export const mockWorkerHandler: Handler = (input, ctx) => {
  if (typeof input['openai_route'] === 'string') return runOpenAiJob(input['openai_route'], input['openai_input'], ctx);
  if (input['mock_llm'] !== undefined) return runLlmJob(input['mock_llm'], ctx);

  const refresh = input['mock_refresh'] === true;
  const delayMs = seconds(input, 'mock_delay');
  if (typeof delayMs === 'string') return { kind: 'error', error: delayMs, refresh };
  const chunkDelayMs = seconds(input, 'mock_chunk_delay');
  if (typeof chunkDelayMs === 'string') return { kind: 'error', error: chunkDelayMs, refresh };
  const progress = input['mock_progress'];
  const steps = Array.isArray(progress) ? (progress as unknown[]) : [];
  if (delayMs > 0 || steps.length > 0 || chunkDelayMs > 0) return runDelayed(input, ctx, { delayMs, chunkDelayMs, steps, refresh });
  return endNow(input, ctx, refresh);
};

/** The end of a job once its delay has passed: crash, error, or its output (an array streams one chunk per element). */
function endNow(input: Record<string, unknown>, ctx: HandlerContext, refresh: boolean): HandlerOutcome {
  if (input['mock_crash'] === true) return { kind: 'crash', error: 'worker exited unexpectedly (mock_crash)' };
  if (input['mock_error'] === true) return { kind: 'error', error: 'handler raised an error (mock_error)', refresh };
  const ret = mockReturn(input);
  if (Array.isArray(ret)) for (const part of ret) ctx.emit(part);
  return { kind: 'output', output: ret, refresh };
}

function mockReturn(input: Record<string, unknown>): unknown {
  return Object.hasOwn(input, 'mock_return') ? input['mock_return'] : DEFAULT_MOCK_RETURN;
}

interface Delays {
  readonly delayMs: number;
  readonly chunkDelayMs: number;
  /** mock_progress updates, spread evenly over the delay. */
  readonly steps: readonly unknown[];
  readonly refresh: boolean;
}

async function runDelayed(input: Record<string, unknown>, ctx: HandlerContext, d: Delays): Promise<HandlerOutcome> {
  if (d.steps.length > 0) {
    const stepMs = d.delayMs / (d.steps.length + 1);
    for (const p of d.steps) {
      await ctx.clock.sleep(stepMs, ctx.signal);
      ctx.progress(p);
    }
    await ctx.clock.sleep(stepMs, ctx.signal);
  } else if (d.delayMs > 0) {
    await ctx.clock.sleep(d.delayMs, ctx.signal);
  }
  const ret = mockReturn(input);
  if (d.chunkDelayMs === 0 || !Array.isArray(ret) || input['mock_crash'] === true || input['mock_error'] === true) return endNow(input, ctx, d.refresh);
  // Generator mode with a pause between parts: one chunk per element; the output is the list.
  for (let i = 0; i < ret.length; i++) {
    if (i > 0) await ctx.clock.sleep(d.chunkDelayMs, ctx.signal);
    ctx.emit(ret[i]);
  }
  return { kind: 'output', output: ret, refresh: d.refresh };
}
