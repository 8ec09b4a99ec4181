// The LLM run's modes on a modelled server (no sockets): `slots` requests served at once, each
// answering its whole completion `serviceMs` after it started, the rest waiting in order. Real
// timers drive it (about 2 s in all), so the assertions are about structure that holds at any machine speed: the
// levels a sweep runs and their order, every level's requests counted, a constant rate's sends on
// schedule in count, the in-flight cap's drops.
import { describe, expect, it } from 'vitest';
import type { LlmTransport } from '../../../../src/load/llm/request.js';
import { runLlmLoad, type LlmRunOptions } from '../../../../src/load/llm/run-llm.js';
import { parseLengthDist, Workload } from '../../../../src/load/llm/workload.js';

function modelServer(slots: number, serviceMs: number): LlmTransport {
  let busy = 0;
  const waiting: (() => void)[] = [];
  const answer = new TextEncoder().encode(JSON.stringify({ choices: [{ message: { content: 'ok' } }], usage: { completion_tokens: 4 } }));
  return {
    now: () => performance.now(),
    async send(req, onData) {
      const sentAtMs = performance.now();
      // /health is not served: the run tells no request cold.
      if (req.method === 'GET') return { status: 404, sentAtMs, endAtMs: performance.now() };
      if (busy >= slots) await new Promise<void>((r) => waiting.push(r));
      busy += 1;
      await new Promise((r) => setTimeout(r, serviceMs));
      busy -= 1;
      waiting.shift()?.();
      onData(performance.now(), answer);
      return { status: 200, sentAtMs, endAtMs: performance.now() };
    },
  };
}

const base = (transport: LlmTransport, over: Partial<LlmRunOptions>): LlmRunOptions => ({
  queueUrl: 'http://unused', endpointId: 'demo', timeScale: 1, paths: ['openai'], api: 'chat', stream: false, ignoreEos: false, mode: 'constant',
  sweepSteps: 3, durationMs: 400, maxInFlight: 1000, slos: [], seed: 1, coldDelayMs: 1000, transport,
  workload: () => new Workload({ seed: 1, promptTokens: parseLengthDist('p', '8'), outputTokens: parseLengthDist('o', '4') }),
  ...over,
});

describe('runLlmLoad', () => {
  it('a sweep runs one at a time, then the saturating concurrency, then rising rates strictly between, stopping at the first saturated one', async () => {
    const { runs, sweepAnswers } = await runLlmLoad(base(modelServer(4, 10), { mode: 'sweep', concurrency: 8, durationMs: 250 }));
    expect(runs.slice(0, 2).map((r) => [r.role, r.load])).toEqual([['sweep-serial', { kind: 'concurrency', concurrency: 1 }], ['sweep-saturation', { kind: 'concurrency', concurrency: 8 }]]);
    const low = runs[0]!.throughput.requestsPerSec;
    const high = runs[1]!.throughput.requestsPerSec;
    // Four slots serve about four times one at a time.
    expect(high).toBeGreaterThan(1.1 * low);
    const rates = runs.slice(2).map((r) => (r.load.kind === 'rate' ? r.load.ratePerSec : NaN));
    expect(rates.length).toBeGreaterThanOrEqual(1);
    expect(rates.length).toBeLessThanOrEqual(3);
    expect(rates).toEqual([...rates].sort((a, b) => a - b));
    expect(rates.every((x) => x > low && x < high)).toBe(true);
    // Only the last rate level may be saturated: the sweep stops there.
    expect(runs.slice(2, -1).every((r) => r.saturated === false)).toBe(true);
    expect(sweepAnswers).toEqual([{ path: 'openai', maxRatePerSec: null, saturationRatePerSec: high }]);
    for (const r of runs) expect(r.requests.completed + r.requests.failed).toBe(r.requests.scheduled - r.requests.dropped);
  });

  it('a constant rate sends its schedule open loop, and drops what finds the in-flight cap full', async () => {
    // 50/s for 400 ms is 20 starts; one slot of 100 ms serves 4 of them, the cap of 2 in flight drops most.
    const capped = await runLlmLoad(base(modelServer(1, 100), { ratePerSec: 50, maxInFlight: 2 }));
    const r = capped.runs[0]!;
    expect(r.requests.scheduled).toBe(20);
    expect(r.requests.dropped).toBeGreaterThan(10);
    expect(r.requests.completed).toBe(20 - r.requests.dropped);
    // Latency from the intended start: the second (intended at 20 ms) waited for the first's slot
    // until 100 ms, then was served for 100 ms: at least 180 ms, less the 1 ms a timer may round down per wait.
    expect(r.e2e.percentiles.max).toBeGreaterThanOrEqual(178);
    const free = await runLlmLoad(base(modelServer(100, 5), { ratePerSec: 50 }));
    expect([free.runs[0]!.requests.scheduled, free.runs[0]!.requests.dropped, free.runs[0]!.requests.completed]).toEqual([20, 0, 20]);
    expect(free.runs[0]!.tokenSource).toEqual({ usage: 20, chunks: 0, chunksDisagree: 0 });
  });

  it('--max-requests caps a fixed concurrency, on every path', async () => {
    const { runs } = await runLlmLoad(base(modelServer(2, 5), { mode: 'concurrency', concurrency: 2, maxRequests: 5, durationMs: 10_000, paths: ['openai', 'runsync'] }));
    expect(runs.map((r) => [r.path, r.requests.scheduled])).toEqual([['openai', 5], ['runsync', 5]]);
  });
});
