// LLM runs for the report tests, summarized from requests whose timings are known: each request
// streams 5 one-token chunks 10 ms apart (or `itlMs(i)` apart) after its TTFT; the first `failed`
// requests get an HTTP 500 and no token; the first of a run is cold.
import { summarizeLlmRun, type MeasuredRequest, type RawLlmRun } from '../../../src/load/llm/aggregate.js';
import { parseSlo } from '../../../src/load/llm/goodput.js';
import { tokenMetrics } from '../../../src/load/llm/token-metrics.js';
import type { LlmLoad, LlmRun, LlmSection } from '../../../src/result/model.js';

export const SAMPLE_SLOS = [parseSlo('p50(ttft)<150ms'), parseSlo('itl<50ms')];

export interface LlmRunOptions {
  /** The gap between a request's tokens (ms); 10 by default. */
  itlMs?: (i: number) => number;
  /** The first this many requests fail (HTTP 500, no token). */
  failed?: number;
}

export function llmRun(load: LlmLoad, role: LlmRun['role'], ttfts: number[], path: LlmRun['path'] = 'openai', opts: LlmRunOptions = {}): LlmRun {
  const requests: MeasuredRequest[] = ttfts.map((ttft, i) => {
    const start = i * 1000;
    if (i < (opts.failed ?? 0)) {
      return { intendedMs: start, cold: i === 0, outcome: { ok: false, status: 500, error: 'HTTP 500', metrics: tokenMetrics(start, [], start + ttft), streamed: true, text: '', sentAtMs: start } };
    }
    const gap = opts.itlMs?.(i) ?? 10;
    const arrivals = Array.from({ length: 5 }, (_, k) => ({ atMs: start + ttft + k * gap, chunk: { choices: [{ delta: { content: 'x' } }] } }));
    return { intendedMs: start, cold: i === 0, outcome: { ok: true, status: 200, metrics: tokenMetrics(start, arrivals), streamed: true, text: 'xxxxx', sentAtMs: start } };
  });
  const raw: RawLlmRun = {
    path, api: 'chat', streamRequested: true, load, role, startedAt: new Date(0), t0Ms: 0, durationMs: ttfts.length * 1000,
    endMs: ttfts.length * 1000 + 500, scheduled: ttfts.length, dropped: 0, requests, latenessMs: [0.5], coldBy: 'delayTime',
    engine: [{ atMs: 100, metrics: { gpu_kv_cache_usage: 0.5, running: 2 } }, { atMs: 1100, metrics: { gpu_kv_cache_usage: 0.7, running: 3 } }, { atMs: 2100, metrics: { gpu_kv_cache_usage: 0.6, running: 2 } }],
  };
  return summarizeLlmRun(raw, SAMPLE_SLOS);
}

export const llmSection = (runs: LlmRun[], sweep?: LlmSection['sweepAnswers']): LlmSection => ({
  model: null, mode: sweep ? 'sweep' : 'constant', workload: { prompt: '128 tokens', output: '5 tokens', seed: 1, approximation: 'no tokenizer' }, slos: SAMPLE_SLOS.map((s) => s.text), runs, ...(sweep ? { sweepAnswers: sweep } : {}),
});
