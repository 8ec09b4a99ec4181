// The LLM engine's arithmetic with no clock (src/deployment/engine.ts): step durations, the
// prompt-token approximation, worker-vllm's chunk batch sizes, and one worker's step scheduler
// driven by a small event loop in the test, against token times worked out by hand and, over
// generated request scripts, against the bounds the model promises.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approxPromptTokens, decodeStepMs, EngineSeq, evenShares, LlmEngine, WorkerEngine, prefillStepMs, streamBatchSizes, streamTokensPerSec } from '../../../src/deployment/index.js';
import { drive } from './engine-driver.js';

const E = { decodeTokensPerSec: 50, decodeContention: 0.5, prefillTokensPerSec: 1_000, prefillBaseMs: 10 };

describe('engine arithmetic', () => {
  it('a decode step lengthens by decodeContention per extra stream; one stream alone runs at decodeTokensPerSec', () => {
    expect(decodeStepMs(E, 1)).toBe(20);
    expect(decodeStepMs(E, 3)).toBe(40);
    expect(streamTokensPerSec(E, 1)).toBe(50);
    expect(streamTokensPerSec(E, 3)).toBe(25);
    // Per-stream rate falls while the worker's aggregate rate rises: 50, 2 x 33.3, 3 x 25.
    expect(2 * streamTokensPerSec(E, 2)).toBeCloseTo(66.667, 3);
  });

  it('a prefill step costs its base plus the prompt tokens at the prefill rate', () => {
    expect(prefillStepMs(E, 0)).toBe(10);
    expect(prefillStepMs(E, 250)).toBe(260);
  });

  it('prompt tokens are ceil(characters / 4), at least 1', () => {
    expect([0, 1, 4, 5, 8, 400, 401].map(approxPromptTokens)).toEqual([1, 1, 1, 2, 2, 100, 101]);
  });

  it("chunk sizes follow worker-vllm's BatchSize: 1, 3, 9, 27 then 50 by default; fixed when growth cannot apply", () => {
    const d = LlmEngine.parse({}).streamBatch;
    expect(streamBatchSizes(d, 7)).toEqual([1, 3, 9, 27, 50, 50, 50]);
    expect(streamBatchSizes({ min: 1, max: 1, growthFactor: 3 }, 3)).toEqual([1, 1, 1]);
    expect(streamBatchSizes({ min: 2, max: 10, growthFactor: 2 }, 5)).toEqual([2, 4, 8, 10, 10]);
    // growthFactor 1 or min >= max: every chunk holds max.
    expect(streamBatchSizes({ min: 1, max: 8, growthFactor: 1 }, 2)).toEqual([8, 8]);
    expect(streamBatchSizes({ min: 9, max: 8, growthFactor: 3 }, 2)).toEqual([8, 8]);
  });

  it('the schema names the field and its range when a setting is out of range', () => {
    const r = LlmEngine.safeParse({ decodeContention: 11, streamBatch: { min: 0 } });
    const text = r.error?.issues.map((i) => i.message).join('; ') ?? '';
    expect(text).toContain('engine.decodeContention must be in [0, 10]');
    expect(text).toContain('engine.streamBatch.min must be 1..100000');
  });
});

describe("one worker's steps (continuous batching, prefill first)", () => {
  it('gives the token times worked out by hand for a scripted pair of requests', () => {
    // A (100 prompt tokens, 3 out) at 0: prefill 10 + 100 = 110 ms, first token at 110.
    // B (200, 2) at 25 waits for A's prefill, then its own: 110 + 10 + 200 = 320 (A stalls).
    // Decode with 2 streams: 20 x 1.5 = 30 ms -> A and B at 350 (B done); A alone: 20 ms -> 370.
    const t = drive(E, [
      { atMs: 0, prompt: 100, out: 3 },
      { atMs: 25, prompt: 200, out: 2 },
    ]);
    expect(t).toEqual([
      [110, 350, 370],
      [320, 350],
    ]);
  });

  it('requests waiting together share one prefill step, so TTFT grows with the prompts queued ahead', () => {
    // A decodes alone from 20 (prompt 10 -> prefill 20); B and C arrive during A's first decode
    // step (20..40) and share the prefill at 40: 10 + 30 + 50 = 90 -> first tokens at 130.
    const t = drive(E, [
      { atMs: 0, prompt: 10, out: 4 },
      { atMs: 25, prompt: 30, out: 1 },
      { atMs: 30, prompt: 50, out: 1 },
    ]);
    expect(t[1]).toEqual([130]);
    expect(t[2]).toEqual([130]);
    // A: 20, 40, then stalled by the prefill until 130, then alone again: 150, 170.
    expect(t[0]).toEqual([20, 40, 150, 170]);
  });

  it('chunked prefill: every step decodes every stream and reads prompts with the rest of its token budget', () => {
    // Budget 100 tokens a step. A (50 prompt, 3 out) at 0: 10 + 50 -> first token at 60.
    // B (150, 2) at 25: the step from 60 decodes A (20 ms) and reads 99 of B's prompt (10 + 99):
    // 129 ms -> A's 2nd token at 189. The next decodes A and reads B's last 51 (20 + 10 + 51 = 81):
    // A's 3rd token and B's first at 270. B alone: 20 ms -> 290.
    const script = [
      { atMs: 0, prompt: 50, out: 3 },
      { atMs: 25, prompt: 150, out: 2 },
    ];
    expect(drive({ ...E, scheduler: 'chunked', maxBatchedTokens: 100 }, script)).toEqual([[60, 189, 270], [270, 290]]);
    // Prefill first, the same script: B's whole prompt at 60 stalls A (10 + 150 -> 220), then both decode.
    expect(drive(E, script)).toEqual([[60, 250, 270], [220, 250]]);
  });

  it('parallel: every step decodes every stream and shares the rest of its budget evenly among the waiting prompts, so a short prompt is not held behind a long one', () => {
    // Budget 100 tokens a step. A (30 prompt, 3 out) at 0, alone: 10 + 30 -> first token at 40.
    // B (150, 1) at 25 and C (60, 1) at 30. The step from 40 decodes A (20 ms) and shares 99
    // tokens: 49 each, the spare one to B (50, 49): 20 + 10 + 99 = 129 -> A's 2nd token at 169.
    // The next: B needs 100, C 11: C takes its 11, B 49 + the 39 spare = 88: 129 ms -> A's 3rd
    // and C's first at 298. B's last 12 alone: 10 + 12 -> 320.
    const script = [
      { atMs: 0, prompt: 30, out: 3 },
      { atMs: 25, prompt: 150, out: 1 },
      { atMs: 30, prompt: 60, out: 1 },
    ];
    expect(drive({ ...E, scheduler: 'parallel', maxBatchedTokens: 100 }, script)).toEqual([[40, 169, 298], [320], [298]]);
    // Chunked reads oldest first: B's prompt is done at 298 and C's at 320.
    expect(drive({ ...E, scheduler: 'chunked', maxBatchedTokens: 100 }, script)).toEqual([[40, 169, 298], [298], [320]]);
  });

  it('parallel: while n >= 2 streams decode, each step holds n - 1 of them, the one last given a token sitting out, so each gets n - 1 tokens in n steps', () => {
    const engine = new WorkerEngine<string>({ ...E, scheduler: 'parallel', maxBatchedTokens: 100 });
    for (const id of ['a', 'b', 'c']) engine.add(new EngineSeq(10, 50, id));
    // One step reads the three prompts (10 each) and gives each its first token.
    expect(engine.begin()?.prefillTokens).toEqual([10, 10, 10]);
    expect(engine.end().map((s) => s.owner)).toEqual(['a', 'b', 'c']);
    const got = new Map<string, number>();
    const sittingOut: string[] = [];
    for (let k = 0; k < 6; k += 1) {
      const step = engine.begin();
      expect(step?.decode).toHaveLength(2);
      expect(step?.durationMs).toBe(decodeStepMs(E, 2));
      const given = engine.end().map((s) => s.owner);
      sittingOut.push(['a', 'b', 'c'].find((id) => !given.includes(id)) as string);
      for (const id of given) got.set(id, (got.get(id) ?? 0) + 1);
    }
    expect([...got.values()]).toEqual([4, 4, 4]);
    // The stream left out takes turns: c, then b, then a, ...
    expect(sittingOut).toEqual(['c', 'b', 'a', 'c', 'b', 'a']);
  });

  it('a decode step lengthens by decodeMsPerContextToken per token of each decoded stream\'s prompt and output so far', () => {
    const engine = new WorkerEngine<string>({ ...E, decodeMsPerContextToken: 0.1 });
    engine.add(new EngineSeq(100, 3, 'a'));
    engine.add(new EngineSeq(50, 3, 'b'));
    expect(engine.begin()?.durationMs).toBe(prefillStepMs(E, 150));
    engine.end();
    // Both hold their prompt and one token: 20 x 1.5 + 0.1 x (101 + 51).
    expect(engine.begin()?.durationMs).toBeCloseTo(30 + 15.2, 9);
    engine.end();
    expect(engine.begin()?.durationMs).toBeCloseTo(30 + 15.4, 9);
  });

  it('even shares: each waiting prompt gets the budget over the prompts or what it needs, the spare going to those still short', () => {
    expect(evenShares(99, [150, 60])).toEqual([50, 49]);
    expect(evenShares(99, [100, 11])).toEqual([88, 11]);
    expect(evenShares(100, [10, 20])).toEqual([10, 20]);
    expect(evenShares(0, [5])).toEqual([0]);
    expect(evenShares(10, [])).toEqual([]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5_000 }), fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 12 }), (budget, left) => {
        const got = evenShares(budget, left);
        const waiting = left.filter((n) => n > 0).length;
        expect(got.reduce((a, b) => a + b, 0)).toBe(Math.min(budget, left.reduce((a, b) => a + b, 0)));
        got.forEach((g, i) => {
          expect(g).toBeGreaterThanOrEqual(Math.min(left[i] as number, Math.floor(budget / Math.max(1, waiting))));
          expect(g).toBeLessThanOrEqual(left[i] as number);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('over generated scripts: every request gets its output, no sooner than its own prefill, with gaps no shorter than a lone decode step', () => {
    const arrival = fc.record({ atMs: fc.integer({ min: 0, max: 2_000 }), prompt: fc.integer({ min: 1, max: 2_000 }), out: fc.integer({ min: 1, max: 40 }) });
    const engine = fc.record({
      decodeTokensPerSec: fc.double({ min: 1, max: 500, noNaN: true }),
      decodeContention: fc.double({ min: 0, max: 2, noNaN: true }),
      prefillTokensPerSec: fc.double({ min: 100, max: 100_000, noNaN: true }),
      prefillBaseMs: fc.double({ min: 0, max: 100, noNaN: true }),
    });
    const scheduling = fc.record({ scheduler: fc.constantFrom('prefill-first' as const, 'chunked' as const, 'parallel' as const), maxBatchedTokens: fc.integer({ min: 16, max: 4_096 }) });
    fc.assert(
      fc.property(fc.tuple(engine, scheduling).map(([a, b]) => ({ ...a, ...b })), fc.array(arrival, { minLength: 1, maxLength: 12 }), (e, raw) => {
        const arrivals = [...raw].sort((a, b) => a.atMs - b.atMs);
        const times = drive(e, arrivals);
        arrivals.forEach((a, i) => {
          const ts = times[i] as number[];
          expect(ts).toHaveLength(a.out);
          expect(ts[0] as number).toBeGreaterThanOrEqual(a.atMs + prefillStepMs(e, a.prompt) - 1e-6);
          for (let k = 1; k < ts.length; k += 1) expect((ts[k] as number) - (ts[k - 1] as number)).toBeGreaterThanOrEqual(decodeStepMs(e, 1) - 1e-6);
        });
      }),
      { numRuns: 60 },
    );
  });
});
