// The LLM side of the twin and the plan: the engine-rate fit recovers generated engines from
// their own TTFT and inter-token lines; the LLM simulation on the virtual clock gives the engine's
// formulas for a request alone; the plan's choice meets every SLO while one worker fewer does
// not, and its cost per million output tokens is the hourly price over the tokens served.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitEngineRates } from '../../../src/calibrate/llm-fit.js';
import { probeLlm } from '../../../src/calibrate/llm-probe.js';
import { formulaLlmPort } from '../calibrate/fake-llm.js';
import { decodeStepMs, prefillStepMs, type LlmEngineInput } from '../../../src/deployment/index.js';
import { parseEmulatorConfig } from '../../../src/emulator/config.js';
import { planLlm } from '../../../src/plan/llm-plan.js';
import { llmJobInput, simulateLlm, simulateLlmClosedLoop, type LlmTraffic } from '../../../src/sim/llm-simulate.js';
import { parseLengthDist } from '../../../src/load/llm/workload.js';
import { parseTrafficProfile, simulate } from '../../../src/sim/index.js';

const ENGINE: LlmEngineInput = { decodeTokensPerSec: 50, decodeContention: 0.25, prefillTokensPerSec: 2_000, prefillBaseMs: 20, streamBatch: { max: 1 } };
const twin = (engine: LlmEngineInput = ENGINE) =>
  parseEmulatorConfig({ apiKey: 'plan-test-key', endpoints: ['llm'], deployments: { llm: { gpuTypeId: 'L4', engine } } });
const traffic = (o: Partial<LlmTraffic> = {}): LlmTraffic => ({ ratePerSec: 1, durationS: 60, warmupS: 10, promptTokens: 200, outputTokens: 20, path: 'native', ...o });

describe('engine-rate fit', () => {
  it('reads how a decode step grows with each stream\'s context from one stream\'s gaps at several contexts, and the step line net of it', () => {
    // step(k streams, each holding c tokens) = 4 x (1 + 0.5 (k - 1)) + 0.002 x c x k; parallel: a gap of n streams is n / (n - 1) steps of n - 1.
    const step = (k: number, c: number) => 4 * (1 + 0.5 * (k - 1)) + 0.002 * c * k;
    const context = [100, 500, 1_000].map((c) => ({ contextTokens: c, itlMs: step(1, c) }));
    const decode = [1, 2, 4, 8].map((n) => ({ streams: n, contextTokens: 48, itlMs: n === 1 ? step(1, 48) : (step(n - 1, 48) * n) / (n - 1) }));
    const fit = fitEngineRates([{ promptTokens: 10, ttftMs: 20 }, { promptTokens: 100, ttftMs: 110 }], decode, 'parallel', context);
    expect(fit.rates.decodeMsPerContextToken).toBeCloseTo(0.002, 9);
    expect(fit.rates.decodeTokensPerSec).toBeCloseTo(250, 6);
    expect(fit.rates.decodeContention).toBeCloseTo(0.5, 9);
    expect(fit.itlResidualMaxShare).toBeLessThan(1e-9);
  });

  it('recovers generated engines from points on their own TTFT and inter-token lines', () => {
    const rates = fc.record({
      prefillBaseMs: fc.double({ min: 0, max: 500, noNaN: true }),
      prefillTokensPerSec: fc.double({ min: 100, max: 100_000, noNaN: true }),
      decodeTokensPerSec: fc.double({ min: 1, max: 1_000, noNaN: true }),
      decodeContention: fc.double({ min: 0, max: 2, noNaN: true }),
    });
    fc.assert(
      fc.property(rates, (e) => {
        const ttft = [64, 512, 2048].map((p) => ({ promptTokens: p, ttftMs: prefillStepMs(e, p) }));
        const decode = [1, 2, 4, 8].map((n) => ({ streams: n, itlMs: decodeStepMs(e, n) }));
        const fit = fitEngineRates(ttft, decode);
        expect(fit.rates.prefillBaseMs).toBeCloseTo(e.prefillBaseMs, 6);
        expect(fit.rates.prefillTokensPerSec / e.prefillTokensPerSec).toBeCloseTo(1, 6);
        expect(fit.rates.decodeTokensPerSec / e.decodeTokensPerSec).toBeCloseTo(1, 6);
        expect(fit.rates.decodeContention).toBeCloseTo(e.decodeContention, 6);
        expect(fit.itlResidualMaxShare).toBeLessThan(1e-9);
        expect(fit.notes).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('says what it could not measure', () => {
    const fit = fitEngineRates([{ promptTokens: 100, ttftMs: 80 }], [{ streams: 1, itlMs: 20 }]);
    expect(fit.notes.join('; ')).toContain('fewer than two prompt lengths');
    expect(fit.notes.join('; ')).toContain('fewer than two concurrencies');
    expect(fit.rates.prefillBaseMs).toBe(80);
    expect(fit.rates.decodeTokensPerSec).toBe(50);
  });
});

describe('LLM simulation on the virtual clock', () => {
  it("a request alone gets the engine's TTFT and inter-token gap exactly", () => {
    // 0.05 requests/s with a 1.3 s request: requests never overlap (the seed's gaps are all > 1.3 s is not
    // guaranteed, so the median is read: most requests are alone).
    const sim = simulateLlm({ twin: twin(), workers: 1, jobsPerWorker: 4, traffic: traffic({ ratePerSec: 0.05, durationS: 400, warmupS: 0 }), seed: 3 });
    expect(sim.requests.length).toBeGreaterThan(5);
    const ttft = sim.requests.map((r) => r.ttftMs as number).sort((a, b) => a - b);
    expect(ttft[Math.floor(ttft.length / 2)]).toBe(20 + 100); // 20 + 200 / 2000 s
    const itl = sim.requests.flatMap((r) => r.itlMs).sort((a, b) => a - b);
    expect(itl[Math.floor(itl.length / 2)]).toBe(20);
    expect(sim.requests.every((r) => r.outputTokens === 20 && r.tokenSource === 'usage')).toBe(true);
  });

  it('closed loop: output lengths drawn from a distribution, within its bounds, varied, the same for the same seed', () => {
    const run = (seed: number) =>
      simulateLlmClosedLoop({ twin: twin(), jobsPerWorker: 4, seed, traffic: { concurrency: 3, requests: 30, warmupRequests: 0, promptTokens: 50, outputTokens: 1, outputLength: parseLengthDist('--output-tokens', 'uniform:5-15'), path: 'chat' } }).requests.map((r) => r.outputTokens);
    const lengths = run(4);
    expect(lengths).toHaveLength(30);
    expect(lengths.every((n) => n >= 5 && n <= 15)).toBe(true);
    expect(new Set(lengths).size).toBeGreaterThan(3);
    expect(run(4)).toEqual(lengths);
  });

  it('the chat path reads the same tokens after its role-only chunk', () => {
    const sim = simulateLlm({ twin: twin(), workers: 1, jobsPerWorker: 4, traffic: traffic({ ratePerSec: 0.05, durationS: 200, warmupS: 0, path: 'chat' }), seed: 3 });
    const ttft = sim.requests.map((r) => r.ttftMs as number).sort((a, b) => a - b);
    expect(ttft[Math.floor(ttft.length / 2)]).toBe(120);
    expect(sim.requests.every((r) => r.outputTokens === 20)).toBe(true);
  });
});

describe('the general simulation on an engine twin', () => {
  it("runs the engine for LLM inputs of a traffic profile: a lone request's e2e is its prefill and decode steps", () => {
    const traffic = parseTrafficProfile({ durationS: 400, arrivals: { kind: 'poisson', ratePerSec: 0.05 }, inputs: [{ share: 1, input: llmJobInput({ promptTokens: 200, outputTokens: 20, path: 'native' }) }] });
    const f = simulate({ twin: twin(), settings: { workersMin: 1, workersMax: 1, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4 }, traffic, seed: 3 });
    // 20 + 200 / 2000 s = 120 ms to the first token, then 19 steps of 20 ms.
    expect(f.e2e.p50Ms).toBe(120 + 19 * 20);
    expect(f.jobs.notCompleted).toBe(0);
  });
});

describe('LLM plan', () => {
  it('answers the fewest workers meeting every SLO (one fewer fails), their concurrency and the cost per million output tokens', () => {
    // 3 requests/s of 20 tokens: 60 tokens/s offered; one stream alone decodes 50 tok/s.
    const plan = planLlm({ twin: twin(), traffic: traffic({ ratePerSec: 3, durationS: 90, warmupS: 15 }), slos: ['p99(ttft)<1s', 'p95(itl)<=40ms'], workers: [1, 2, 3, 4], concurrency: [2, 4], seed: 7 });
    const c = plan.choice;
    expect(c).toBeDefined();
    if (c === undefined) return;
    expect(c.verdicts.every((v) => v.holds)).toBe(true);
    const fewer = plan.points.find((p) => p.jobsPerWorker === c.jobsPerWorker && p.workers === c.workers - 1);
    if (c.workers > 1) expect(fewer?.meets).toBe(false);
    // L4 active price 0.00013 $/s per worker.
    expect(c.costPerHourUsd).toBeCloseTo(c.workers * 0.00013 * 3600, 9);
    expect(c.costPerMillionOutputTokensUsd).toBeCloseTo((c.costPerHourUsd / (c.outputTokensPerSec * 3600)) * 1e6, 9);
    // Offered 60 tok/s over the measured span, within the Poisson draw's spread.
    expect(c.outputTokensPerSec).toBeGreaterThan(40);
    expect(c.outputTokensPerSec).toBeLessThan(80);
    expect(plan.answer).toContain(`${c.workers} worker`);
  });

  it('says so when no setting meets the SLOs, and refuses an SLO with no percentile', () => {
    const plan = planLlm({ twin: twin(), traffic: traffic({ durationS: 30, warmupS: 5 }), slos: ['p50(ttft)<10ms'], workers: [1, 2], concurrency: [4], seed: 1 });
    expect(plan.choice).toBeUndefined();
    expect(plan.answer).toContain('no setting tried meets p50(ttft)<10ms');
    expect(() => planLlm({ twin: twin(), traffic: traffic(), slos: ['ttft<2s'] })).toThrow(/judges percentiles/);
    // 3 requests/s x 20 tokens = 60 tok/s offered; one worker of one stream decodes 50: not simulated.
    const over = planLlm({ twin: twin(), traffic: traffic({ ratePerSec: 3 }), slos: ['p99(ttft)<10s'], workers: [1], concurrency: [1] });
    expect(over.points).toMatchObject([{ overloaded: true, meets: false, outputTokensPerSec: 0 }]);
  });
});

describe('LLM probe (a fake endpoint that follows the engine formulas)', () => {
  it('measures TTFT alone at each prompt length and the gap after every stream started; the fit gives the rates back', async () => {
    const e = { decodeTokensPerSec: 40, decodeContention: 0.2, prefillTokensPerSec: 4_000, prefillBaseMs: 30 };
    const port = formulaLlmPort(e);
    const r = await probeLlm({ port, concurrency: [1, 2, 4], decodeTokens: 32 });
    expect(r.ttft.map((t) => t.ttftMs)).toEqual([30 + 8, 30 + 128, 30 + 512]);
    expect(r.decode.map((d) => d.itlMs)).toEqual([25, 30, 40]);
    expect(r.fit.rates.decodeTokensPerSec).toBeCloseTo(40, 9);
    expect(r.fit.rates.decodeContention).toBeCloseTo(0.2, 9);
    expect(r.fit.rates.prefillTokensPerSec).toBeCloseTo(4_000, 6);
    expect(r.requestsSent).toBe(1 + 9 + 7);
    await expect(probeLlm({ port, maxRequests: 10 })).rejects.toThrow(/budget of 10/);
  });
});
