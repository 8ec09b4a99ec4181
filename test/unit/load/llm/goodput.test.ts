// SLOs and goodput (src/load/llm/goodput.ts): the grammar and its errors, per-request and
// percentile verdicts by example, and over generated runs: goodput equals the count of requests
// that meet every per-request SLO, and a nearest-rank percentile SLO holds exactly when at least
// p% of the values meet the limit. The seed is printed; QBENCH_TEST_SEED replays a run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isQbenchError } from '../../../../src/errors.js';
import { goodput, parseSlo, percentileOf, requestMeets, SLO_PERCENTILES } from '../../../../src/load/llm/goodput.js';
import type { RequestTokenMetrics } from '../../../../src/load/llm/token-metrics.js';

const SEED = Number(process.env['QBENCH_TEST_SEED'] ?? Date.now() % 1_000_000);
const params = { seed: SEED, numRuns: 200 };

function req(ttftMs: number | undefined, itlMs: number[], e2eMs: number): RequestTokenMetrics {
  const outputTokens = ttftMs === undefined ? 0 : itlMs.length + 1;
  return {
    ttftMs,
    e2eMs,
    itlMs,
    tpotMs: ttftMs === undefined || outputTokens < 2 ? undefined : (e2eMs - ttftMs) / (outputTokens - 1),
    outputTokens,
    inputTokens: undefined,
    tokenSource: 'chunks',
    chunkTokens: outputTokens,
    outputTokensPerSec: undefined,
    chunks: outputTokens,
    streamError: undefined,
  };
}

describe('SLO grammar', () => {
  it('reads percentile and per-request SLOs with units', () => {
    expect(parseSlo('p99(ttft)<2s')).toEqual({ kind: 'percentile', percentile: 'p99', metric: 'ttft', limitMs: 2000, inclusive: false, text: 'p99(ttft)<2s' });
    expect(parseSlo(' itl <= 50ms ')).toEqual({ kind: 'per-request', metric: 'itl', limitMs: 50, inclusive: true, text: 'itl <= 50ms' });
    expect(parseSlo('P99.9( TPOT )<1500us')).toMatchObject({ kind: 'percentile', percentile: 'p99.9', metric: 'tpot', limitMs: 1.5 });
    expect(parseSlo('e2e<0.5s').limitMs).toBe(500);
  });

  it.each([
    ['p99(latency)<2s', 'metrics: ttft, itl, tpot, e2e'],
    ['p98(ttft)<2s', 'percentiles: p50, p75, p90, p95, p99, p99.9'],
    ['ttft<2', 'needs a unit'],
    ['ttft<2min', 'units: us, ms, s'],
    ['ttft>2s', 'of the form'],
    ['', 'of the form'],
  ])('refuses %j naming what is allowed', (text, names) => {
    try {
      parseSlo(text);
      expect.unreachable();
    } catch (e) {
      expect(isQbenchError(e, 'QB_ERR_USAGE')).toBe(true);
      expect((e as Error).message).toContain(names);
    }
  });
});

describe('verdicts', () => {
  const fast = req(100, [10, 10, 12], 200);
  const slowGap = req(100, [10, 80, 10], 300);
  const oneToken = req(150, [], 150);
  const noToken = req(undefined, [], 90);

  it('judge each request by itself', () => {
    const itl = parseSlo('itl<50ms');
    expect([fast, slowGap, oneToken, noToken].map((r) => requestMeets(itl, r))).toEqual([true, false, true, false]);
    const tpot = parseSlo('tpot<=40ms');
    expect([fast, slowGap, oneToken, noToken].map((r) => requestMeets(tpot, r))).toEqual([true, false, true, false]);
    const e2e = parseSlo('e2e<250ms');
    expect([fast, slowGap, oneToken, noToken].map((r) => requestMeets(e2e, r))).toEqual([true, false, true, true]);
  });

  it('count goodput over the run and judge percentiles over requests or, for ITL, over tokens', () => {
    const g = goodput([fast, slowGap, oneToken, noToken], ['ttft<1s', 'itl<50ms', 'p50(ttft)<=100ms', 'p99(itl)<50ms', 'p75(itl)<20ms'], 2000);
    expect(g).toMatchObject({ totalRequests: 4, goodRequests: 2, goodputPerSec: 1, requestsPerSec: 2, percentilesHold: false });
    expect(g.percentiles.map((p) => [p.slo.text, p.valueMs, p.holds])).toEqual([
      ['p50(ttft)<=100ms', 100, true],
      ['p99(itl)<50ms', 80, false],
      ['p75(itl)<20ms', 12, true],
    ]);
  });

  it('say a percentile SLO does not hold when no request gave the metric', () => {
    expect(goodput([noToken], ['p99(ttft)<1s'], 1000).percentiles[0]).toMatchObject({ valueMs: undefined, holds: false });
  });

  it('take the nearest rank, p99.9 of 1000 values being the 999th', () => {
    const values = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentileOf(values, 99.9)).toBe(999);
    expect(percentileOf(values, 50)).toBe(500);
    expect(percentileOf([], 50)).toBeUndefined();
  });

  it('refuse a run of no duration', () => {
    expect(() => goodput([], [], 0)).toThrow(/duration/);
  });
});

describe(`generated runs (seed ${SEED})`, () => {
  const request = fc
    .record({ ttft: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }), itl: fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 8 }), tail: fc.integer({ min: 0, max: 2000 }) })
    .map(({ ttft, itl, tail }) => req(ttft, ttft === undefined ? [] : itl, (ttft ?? 0) + itl.reduce((a, b) => a + b, 0) + tail));

  it('goodput counts the requests that meet every per-request SLO', () => {
    fc.assert(
      fc.property(fc.array(request, { maxLength: 30 }), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 200 }), (rs, ttftLimit, itlLimit) => {
        const g = goodput(rs, [`ttft<${ttftLimit}ms`, `itl<=${itlLimit}ms`], 10_000);
        const good = rs.filter((r) => r.ttftMs !== undefined && r.ttftMs < ttftLimit && r.itlMs.every((x) => x <= itlLimit)).length;
        expect(g.goodRequests).toBe(good);
        expect(g.goodputPerSec).toBe(good / 10);
      }),
      params,
    );
  });

  it('a percentile SLO holds exactly when at least p% of the values meet it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 50 }), fc.constantFrom(...SLO_PERCENTILES), fc.integer({ min: 0, max: 101 }), (values, pct, limit) => {
        const sorted = [...values].sort((a, b) => a - b);
        const p = Number(pct.slice(1));
        const meeting = values.filter((v) => v < limit).length;
        const needed = Math.ceil((Math.round(p * 10) * values.length) / 1000);
        expect((percentileOf(sorted, p) ?? Infinity) < limit).toBe(meeting >= needed);
      }),
      params,
    );
  });
});
