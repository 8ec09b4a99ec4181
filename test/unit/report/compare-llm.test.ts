// compare of two `llm` sections built from requests with known timings: a TTFT slowdown of x% reads
// as a change of x% and is a regression exactly when it is significant and over its margin;
// identical runs never regress; a level in one run only is listed and never judged; goodput,
// tokens/s and the error rate move with the requests that missed an SLO or failed; every renderer
// shows the LLM rows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/exit-codes.js';
import { compareResults, parseMaxRegression } from '../../../src/report/compare.js';
import { renderComparisonConsole } from '../../../src/report/render/console.js';
import { renderComparisonHtml } from '../../../src/report/render/html.js';
import { renderComparisonJunit } from '../../../src/report/render/junit.js';
import { renderComparisonMarkdown } from '../../../src/report/render/markdown.js';
import { QbenchComparison } from '../../../src/result/compare-model.js';
import { QbenchResult, type LlmLoad, type LlmRun } from '../../../src/result/model.js';
import { computeOverall } from '../../../src/result/overall.js';
import { sampleResult } from '../result/sample-result.js';
import { llmRun, llmSection, type LlmRunOptions } from './llm-sample.js';

const SEED = Number(process.env['FC_SEED'] ?? 20_240_611);
console.log(`compare-llm fast-check seed ${SEED} (FC_SEED=${SEED} reruns it)`);

const RATE2: LlmLoad = { kind: 'rate', ratePerSec: 2, arrivals: 'uniform' };
const opts = { baselineFile: 'base.json', candidateFile: 'cand.json', iterations: 200, now: new Date(0) };

const base = sampleResult();
function result(runs: LlmRun[]): QbenchResult {
  const partial = { schemaVersion: base.schemaVersion, kind: base.kind, meta: base.meta, llm: llmSection(runs) };
  return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
}
const run = (ttfts: number[], o: LlmRunOptions = {}, load: LlmLoad = RATE2): LlmRun => llmRun(load, 'fixed', ttfts, 'openai', o);
const metricOf = (c: QbenchComparison, level: string, name: string) => {
  const l = c.llm?.find((x) => x.level === level);
  const m = l?.metrics.find((x) => x.metric === name);
  if (!m) throw new Error(`no ${name} at ${level} in ${JSON.stringify(c.llm?.map((x) => x.level))}`);
  return m;
};

// TTFTs in [100, 110) ms, to the microsecond
const ttftsArb = fc.array(fc.integer({ min: 100_000, max: 109_999 }), { minLength: 50, maxLength: 120 }).map((us) => us.map((u) => u / 1_000));

/**
 * HDR resolution: a recorded value is within 1/1024 of itself (3 significant digits), so the ratio of
 * two is within 2/1024 of the truth, times the ratio (at most 1.6 here): 0.32 points, and 0.35 with the
 * three-decimal rounding of the change.
 */
const HDR_TOLERANCE_PTS = 0.35;

describe('compare: llm sections', () => {
  it('a TTFT slowdown of x% reads as x% and is a regression exactly when significant and over the margin', () => {
    fc.assert(
      fc.property(ttftsArb, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 30 }), (ttfts, x, margin) => {
        const base = result([run(ttfts)]);
        const cand = result([run(ttfts.map((t) => t * (1 + x / 100)))]);
        const c = compareResults(base, cand, { ...opts, maxRegressionPct: parseMaxRegression([`ttft_p50=${margin}%,ttft_p90=${margin}%,ttft_p99=${margin}%`]) });
        // p99 of under 500 requests (5 beyond it) is shown, never judged
        expect(metricOf(c, 'rate 2/s', 'ttft_p99')).toMatchObject({ ci: null, significant: false, regression: false, unjudged: `p99 needs 500 requests in each run (5 beyond it); these had ${ttfts.length} and ${ttfts.length}` });
        for (const name of ['ttft_p50', 'ttft_p90']) {
          const m = metricOf(c, 'rate 2/s', name);
          expect(Math.abs(m.changePct! - x)).toBeLessThanOrEqual(HDR_TOLERANCE_PTS);
          expect(m.regression).toBe(m.ci!.lowPct > 0 && m.changePct! > margin);
          if (x <= margin - HDR_TOLERANCE_PTS) expect(m.regression).toBe(false);
          // every value lies in [100, 110) ms: at x >= 11 every candidate resample exceeds every baseline one
          if (x >= 11 && x >= margin + HDR_TOLERANCE_PTS) expect(m.regression).toBe(true);
        }
        // the tokens after the first kept their pace
        for (const name of ['itl_p50', 'itl_p99', 'tpot_p99']) expect(metricOf(c, 'rate 2/s', name).changePct).toBe(0);
        expect(c.verdict.status).toBe(c.llm!.some((l) => l.metrics.some((m) => m.regression)) ? 'fail' : 'pass');
        expect(c.verdict.exitCode).toBe(c.verdict.status === 'fail' ? EXIT.TARGET_FAILED : EXIT.OK);
      }),
      { seed: SEED, numRuns: 30 },
    );
  });

  it('a change over the margin that the noise explains is not a regression', () => {
    // two small, independent samples of widely spread TTFTs: their p50 differs by chance
    const wide = fc.array(fc.integer({ min: 100, max: 1_000 }), { minLength: 10, maxLength: 20 });
    let overMarginNotSignificant = 0;
    fc.assert(
      fc.property(wide, wide, (b, c) => {
        const cmp = compareResults(result([run(b)]), result([run(c)]), { ...opts, maxRegressionPct: { ttft_p50: 0 } });
        const m = metricOf(cmp, 'rate 2/s', 'ttft_p50');
        expect(m.regression).toBe(m.ci!.lowPct > 0 && m.changePct! > 0);
        if (m.changePct! > 0 && !m.regression) overMarginNotSignificant++;
      }),
      { seed: SEED, numRuns: 25 },
    );
    // the rule was put to the test: some changes over the margin were within the noise
    expect(overMarginNotSignificant).toBeGreaterThan(0);
  });

  it('identical runs never regress, whatever the margins', () => {
    const allZero = parseMaxRegression(['ttft_p50=0,ttft_p90=0,ttft_p99=0,itl_p50=0,itl_p90=0,itl_p99=0,tpot_p50=0,tpot_p90=0,tpot_p99=0,e2e_p50=0,e2e_p90=0,e2e_p99=0,tokens_per_sec=0,goodput=0,error_rate=0']);
    fc.assert(
      fc.property(ttftsArb, fc.integer({ min: 0, max: 10 }), (ttfts, failed) => {
        const r = result([run(ttfts, { failed, itlMs: (i) => (i % 7 === 0 ? 60 : 10) })]);
        const c = compareResults(r, r, { ...opts, maxRegressionPct: allZero });
        const metrics = c.llm!.flatMap((l) => l.metrics);
        expect(metrics).toHaveLength(3 * 4 + 3);
        for (const m of metrics) {
          expect(m.regression, m.metric).toBe(false);
          expect(m.changePct, m.metric).toBe(0);
        }
        expect(c.verdict).toMatchObject({ status: 'pass', exitCode: EXIT.OK });
      }),
      { seed: SEED, numRuns: 15 },
    );
  });

  it('a level in one run only is listed, never judged, however bad', () => {
    fc.assert(
      fc.property(ttftsArb, fc.integer({ min: 2, max: 10 }), fc.boolean(), (ttfts, factor, inCandidate) => {
        const shared = run(ttfts);
        const extra = run(ttfts.map((t) => t * factor), {}, { kind: 'concurrency', concurrency: 8 });
        const [b, c] = inCandidate ? [result([shared]), result([shared, extra])] : [result([shared, extra]), result([shared])];
        const cmp = compareResults(b, c, { ...opts, maxRegressionPct: parseMaxRegression(['ttft_p99=1%']) });
        const only = cmp.llm!.find((l) => l.level === 'concurrency 8')!;
        expect(only.presence).toBe(inCandidate ? 'candidate-only' : 'baseline-only');
        expect(only.metrics).toEqual([]);
        expect(cmp.verdict.status).toBe('pass');
        expect(renderComparisonConsole(cmp)).toMatch(new RegExp(`llm openai concurrency 8 +only in the ${inCandidate ? 'candidate' : 'baseline'}`));
      }),
      { seed: SEED, numRuns: 10 },
    );
  });

  const ttfts200 = Array.from({ length: 200 }, (_, i) => 100 + (i % 10));

  it('requests that miss the per-request ITL SLO lower goodput; failures raise the error rate and lower tokens/s', () => {
    // SLO itl<50ms (llm-sample): a 60 ms gap misses it
    const base = result([run(ttfts200)]);
    const slow = result([run(ttfts200, { itlMs: (i) => (i % 10 < 3 ? 60 : 10) })]);
    const failing = result([run(ttfts200, { failed: 20 })]);
    const margins = parseMaxRegression(['goodput=10%,error_rate=1%,tokens_per_sec=5%']);
    const g = metricOf(compareResults(base, slow, { ...opts, maxRegressionPct: margins }), 'rate 2/s', 'goodput');
    // 200 of 200 good → 140 of 200: -30% of the same request rate
    expect(g.changePct).toBeCloseTo(-30, 1);
    expect(g.ci!.highPct).toBeLessThan(0);
    expect(g).toMatchObject({ unit: 'per_sec', significant: true, regression: true, improvement: false });
    const c = compareResults(base, failing, { ...opts, maxRegressionPct: margins });
    const e = metricOf(c, 'rate 2/s', 'error_rate');
    expect(e).toMatchObject({ baseline: 0, candidate: 0.1, changePct: 10, regression: true });
    const t = metricOf(c, 'rate 2/s', 'tokens_per_sec');
    // 180 answers of 5 tokens instead of 200 over the same wall time
    expect(t.changePct).toBeCloseTo(-10, 0);
    expect(t.regression).toBe(true);
    expect(c.verdict.reasons.join('\n')).toMatch(/llm openai rate 2\/s tokens_per_sec: .* is over the allowed drop of 5%/);
    // the baseline against the slower candidate, turned around, is an improvement
    expect(metricOf(compareResults(slow, base, { ...opts, maxRegressionPct: margins }), 'rate 2/s', 'goodput')).toMatchObject({ improvement: true, regression: false });
  });

  it('every renderer shows the LLM rows and the verdict names the level', () => {
    const base = result([run(ttfts200), run(ttfts200, {}, { kind: 'concurrency', concurrency: 4 })]);
    const cand = result([run(ttfts200.map((t) => t * 1.3)), run(ttfts200, {}, { kind: 'concurrency', concurrency: 4 })]);
    const c = compareResults(base, cand, { ...opts, maxRegressionPct: parseMaxRegression(['ttft_p90=10%']) });
    expect(QbenchComparison.parse(JSON.parse(JSON.stringify(c)))).toEqual(c);
    expect(c.verdict).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED });
    expect(c.verdict.reasons[0]).toMatch(/^llm openai rate 2\/s ttft_p90: 108 ms → 14\d ms \(\+3\d\.\d%, 95% CI .*\) is over the allowed 10%$/);
    expect(renderComparisonConsole(c)).toMatch(/llm openai rate 2\/s +ttft_p90 +108 ms +14\d ms +\+3\d\.\d% .* 10% +REGRESSION/);
    expect(renderComparisonConsole(c)).toMatch(/llm openai concurrency 4 +ttft_p90 +108 ms +108 ms +±0\.0%/);
    // p99 of 200 requests: shown, with why it has no interval
    expect(renderComparisonConsole(c)).toMatch(/llm openai rate 2\/s +ttft_p99 +\d+ ms +\d+ ms +\+\d+\.\d% +too few requests/);
    expect(renderComparisonMarkdown(c)).toMatch(/\| ttft_p99 \| .* \| too few requests: p99 needs 500 requests in each run \(5 beyond it\); these had 200 and 200 \|/);
    expect(renderComparisonMarkdown(c)).toMatch(/\| llm openai rate 2\/s \| ttft_p90 \| 108 ms \| 14\d ms \| .* \| 10% \| ❌ regression \|/);
    expect(renderComparisonHtml(c)).toMatch(/<b>llm openai rate 2\/s<\/b><div class="small muted">200 → 200 requests<\/div>/);
    const junit = renderComparisonJunit(c);
    expect(junit).toMatch(/<testcase name="llm openai rate 2\/s ttft_p90 \(max \+10%\)" classname="qbench\.compare\.llm\.openai"[^>]*>\s*<failure/);
    expect(junit).toMatch(/name="llm openai rate 2\/s goodput \(reported only\)"/);
  });

  it('does not count a regression in an invalid run; says INVALID (exit 4) naming the level', () => {
    const slow = run(ttfts200.map((t) => t * 2));
    const late = result([{ ...slow, validity: { ...slow.validity, valid: false, reasons: ['send lateness p99 31 ms > 10 ms'] } }]);
    const c = compareResults(result([run(ttfts200)]), late, { ...opts, maxRegressionPct: parseMaxRegression(['ttft_p90=10%']) });
    // the figures are still compared and shown
    expect(metricOf(c, 'rate 2/s', 'ttft_p90').regression).toBe(true);
    expect(c.verdict).toEqual({ status: 'invalid', exitCode: EXIT.INVALID_MEASUREMENT, reasons: ['llm openai rate 2/s: the candidate measurement is invalid (send lateness p99 31 ms > 10 ms)'] });
    expect(renderComparisonJunit(c)).toMatch(/<testcase name="llm openai rate 2\/s measurement validity" classname="qbench\.compare\.llm\.openai"[^>]*>\s*<error/);
  });

  it('tells apart a level a sweep repeats by its role, and needs one level in both', () => {
    const one: LlmLoad = { kind: 'concurrency', concurrency: 1 };
    const sweep = result([llmRun(one, 'sweep-serial', [100, 101]), llmRun(one, 'sweep-saturation', [200, 201])]);
    const c = compareResults(sweep, sweep, opts);
    expect(c.llm!.map((l) => l.level)).toEqual(['concurrency 1 (sweep-serial)', 'concurrency 1 (sweep-saturation)']);
    expect(() => compareResults(result([run([100])]), result([run([100], {}, one)]), opts)).toThrow(
      /nothing to compare: base\.json has scenarios \[\], LLM levels \[openai rate 2\/s\], cand\.json has \[\], LLM levels \[openai concurrency 1\]/,
    );
  });

  it('parses the LLM margins and names the allowed metrics on a bad one', () => {
    expect(parseMaxRegression(['ttft_p99=10%,itl_p99=5', 'goodput=2%'])).toEqual({ ttft_p99: 10, itl_p99: 5, goodput: 2 });
    expect(() => parseMaxRegression(['ttft_p95=10%'])).toThrow(/--max-regression: "ttft_p95=10%": unknown metric "ttft_p95"; allowed: .*ttft_p50, ttft_p90, ttft_p99, .*tokens_per_sec, goodput/);
  });
});
