// A run's requests into the LLM section's figures, on requests whose metrics are known exactly.
import { describe, expect, it } from 'vitest';
import { saturated, summarizeLlmRun, engineSeries, type MeasuredRequest, type RawLlmRun } from '../../../../src/load/llm/aggregate.js';
import { parseSlo } from '../../../../src/load/llm/goodput.js';
import type { LlmRequestOutcome } from '../../../../src/load/llm/request.js';
import { tokenMetrics } from '../../../../src/load/llm/token-metrics.js';
import { LlmRun } from '../../../../src/result/model.js';

const chunk = (n: number) => ({ choices: [{ tokens: Array(n).fill('t') }] });

/** A streamed request from `start`: first token at +ttft, then one token every `gap` ms, `tokens` in all. */
function request(start: number, ttft: number, gap: number, tokens: number, extra: Partial<LlmRequestOutcome> & { cold?: boolean } = {}): MeasuredRequest {
  const arrivals = Array.from({ length: tokens }, (_, i) => ({ atMs: start + ttft + i * gap, chunk: chunk(1) }));
  const metrics = tokenMetrics(start, arrivals);
  const { cold, ...rest } = extra;
  return { intendedMs: start, cold, outcome: { ok: true, status: 200, metrics, streamed: true, text: 'x', sentAtMs: start, ...rest } };
}

function raw(requests: MeasuredRequest[], over: Partial<RawLlmRun> = {}): RawLlmRun {
  return {
    path: 'openai', api: 'chat', streamRequested: true, load: { kind: 'rate', ratePerSec: 1, arrivals: 'uniform' }, role: 'fixed',
    startedAt: new Date(0), t0Ms: 0, durationMs: 4000, endMs: Math.max(...requests.map((r) => r.intendedMs + r.outcome.metrics.e2eMs)),
    scheduled: requests.length, dropped: 0, requests, latenessMs: [1, 2], engine: [], coldBy: undefined, ...over,
  };
}

describe('summarizeLlmRun', () => {
  // Four requests over 5 s of wall time: TTFT 100, 200, 300 and 1500 ms; 11 tokens 20 ms apart, so e2e = TTFT + 200.
  const reqs = [request(0, 100, 20, 11), request(1000, 200, 20, 11), request(2000, 300, 20, 11), request(3000, 1500, 20, 11)];
  const run = summarizeLlmRun(raw(reqs), [parseSlo('ttft<1s'), parseSlo('p50(ttft)<250ms'), parseSlo('p99(itl)<=20ms')]);

  it('is a valid LlmRun of the result model', () => {
    expect(() => LlmRun.parse(run)).not.toThrow();
  });

  it('counts goodput from the requests meeting every per-request SLO, over the wall time', () => {
    // The last request ends at 3000 + 1500 + 200 = 4700 ms.
    expect(run.wallMs).toBe(4700);
    expect(run.goodRequests).toBe(3);
    expect(run.throughput.goodputPerSec).toBe(Math.round((3 / 4.7) * 1000) / 1000);
    expect(run.throughput.requestsPerSec).toBe(Math.round((4 / 4.7) * 1000) / 1000);
    expect(run.throughput.outputTokensPerSec).toBe(Math.round((44 / 4.7) * 1000) / 1000);
    // Sum of e2e (300 + 400 + 500 + 1700) over the wall time.
    expect(run.throughput.meanConcurrency).toBe(Math.round((2900 / 4700) * 1000) / 1000);
  });

  it('judges each SLO: per request by count, percentiles by nearest rank', () => {
    expect(run.slos).toEqual([
      { text: 'ttft<1s', kind: 'per-request', metric: 'ttft', valueMs: null, metRequests: 3, holds: false },
      // Nearest-rank p50 of 100, 200, 300, 1500 is 200.
      { text: 'p50(ttft)<250ms', kind: 'percentile', metric: 'ttft', valueMs: 200, metRequests: 2, holds: true },
      { text: 'p99(itl)<=20ms', kind: 'percentile', metric: 'itl', valueMs: 20, metRequests: 4, holds: true },
    ]);
  });

  it('keeps HDR percentiles of TTFT, ITL (a sample per token), TPOT and e2e', () => {
    expect(run.ttft.percentiles.count).toBe(4);
    expect(run.ttft.percentiles.max).toBeCloseTo(1500, 0);
    expect(run.itl.percentiles.count).toBe(40);
    expect(run.itl.percentiles.p50).toBeCloseTo(20, 1);
    expect(run.tpot.percentiles.p50).toBeCloseTo(20, 1);
    expect(run.e2e.percentiles.min).toBeCloseTo(300, 0);
    expect(run.tokenSource).toEqual({ usage: 0, chunks: 4, chunksDisagree: 0 });
    expect(run.requestRecords.map((r) => r.ttftMs)).toEqual([100, 200, 300, 1500]);
  });

  it('counts a failed request against goodput and every per-request SLO', () => {
    const failed: MeasuredRequest = { intendedMs: 500, cold: undefined, outcome: { ok: false, status: 500, error: 'HTTP 500', metrics: tokenMetrics(500, [], 600), streamed: true, text: '', sentAtMs: 500 } };
    const r = summarizeLlmRun(raw([reqs[0] as MeasuredRequest, failed]), [parseSlo('e2e<10s')]);
    expect([r.requests.completed, r.requests.failed, r.goodRequests]).toEqual([1, 1, 1]);
    expect(r.slos[0]).toMatchObject({ metRequests: 1, holds: false });
    expect(r.requests.statusCodes).toEqual({ '200': 1, '500': 1 });
    expect(r.requests.errors).toEqual(['HTTP 500']);
  });

  it('splits TTFT on the native paths and tells cold from warm', () => {
    const a = request(0, 400, 10, 3, { submitMs: 10, delayMs: 300, cold: true });
    const b = request(1000, 150, 10, 3, { submitMs: 20, delayMs: 30, cold: false });
    const r = summarizeLlmRun(raw([a, b], { path: 'stream', coldBy: 'delayTime' }), []);
    expect(r.ttftSplit?.workerFirstChunk.percentiles.min).toBeCloseTo(90, 1);
    expect(r.ttftSplit?.workerFirstChunk.percentiles.max).toBeCloseTo(100, 1);
    expect(r.coldWarm).toMatchObject({ by: 'delayTime', cold: { count: 1 }, warm: { count: 1 } });
    expect(r.coldWarm?.cold.ttft.p50).toBeCloseTo(400, 0);
    expect(r.coldWarm?.warm.ttft.p50).toBeCloseTo(150, 0);
    expect(r.requestRecords.map((x) => [x.workerFirstChunkMs, x.cold])).toEqual([[90, true], [100, false]]);
  });

  it('counts the requests whose usage disagrees with their chunks (several tokens to a chunk, unlisted)', () => {
    const batched = tokenMetrics(0, [{ atMs: 100, chunk: { choices: [{ delta: { content: 'ab' } }] } }, { atMs: 150, chunk: { choices: [], usage: { completion_tokens: 2 } } }]);
    const one: MeasuredRequest = { intendedMs: 0, cold: undefined, outcome: { ok: true, status: 200, metrics: batched, streamed: true, text: 'ab', sentAtMs: 0 } };
    expect(summarizeLlmRun(raw([one, reqs[1] as MeasuredRequest]), []).tokenSource).toEqual({ usage: 1, chunks: 1, chunksDisagree: 1 });
  });

  it('is invalid when the sends were late', () => {
    expect(summarizeLlmRun(raw(reqs, { latenessMs: [1, 50] }), []).validity.valid).toBe(false);
    expect(run.validity.valid).toBe(true);
  });
});

describe('saturation of a rate level', () => {
  const steady = Array.from({ length: 8 }, (_, i) => request(i * 500, 100, 10, 5));
  const building = Array.from({ length: 8 }, (_, i) => request(i * 500, 100 + i * 200, 10, 5));
  it('holds a steady latency as kept up, a growing one as saturated, drops as saturated', () => {
    expect(saturated(raw(steady))).toBe(false);
    expect(saturated(raw(building))).toBe(true);
    expect(saturated(raw(steady, { dropped: 1 }))).toBe(true);
  });
});

describe('engine metrics', () => {
  it('keeps the last value of each field in each second, carrying values forward', () => {
    const s = engineSeries(1000, [
      { atMs: 1100, metrics: { gpu_kv_cache_usage: 0.1, running: 1 } },
      { atMs: 1900, metrics: { gpu_kv_cache_usage: 0.2, running: 2 } },
      { atMs: 3500, metrics: { running: 3, scenario: 'x' } },
    ]);
    expect(s).toEqual({ fields: ['gpu_kv_cache_usage', 'running'], points: [[0, 0.2, 2], [2, 0.2, 3]] });
  });
});
