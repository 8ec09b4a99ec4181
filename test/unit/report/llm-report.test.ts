// The LLM section in the verdict and in every report: a fixed level's SLO that fails fails the
// run (exit 1) and is a failed JUnit case; a sweep level's miss is measured, not judged (a skipped
// case), and the sweep fails only when no level met every SLO; the HTML page draws the LLM charts.
import { describe, expect, it } from 'vitest';
import { renderConsole } from '../../../src/report/render/console.js';
import { renderHtml } from '../../../src/report/render/html.js';
import { renderJunit } from '../../../src/report/render/junit.js';
import { renderMarkdown } from '../../../src/report/render/markdown.js';
import { QbenchResult, type LlmSection } from '../../../src/result/model.js';
import { computeOverall } from '../../../src/result/overall.js';
import { EXIT } from '../../../src/exit-codes.js';
import { sampleResult } from '../result/sample-result.js';
import { llmRun as run, llmSection as section } from './llm-sample.js';

function result(section: LlmSection): QbenchResult {
  const base = sampleResult();
  const partial = { schemaVersion: base.schemaVersion, kind: base.kind, meta: base.meta, llm: section };
  return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
}


describe('the LLM section', () => {
  const fixedFail = result(section([run({ kind: 'rate', ratePerSec: 1, arrivals: 'uniform' }, 'fixed', [100, 200, 300])]));
  const sweep = result(section(
    [run({ kind: 'concurrency', concurrency: 1 }, 'sweep-serial', [100, 100]), run({ kind: 'rate', ratePerSec: 2, arrivals: 'poisson' }, 'sweep-rate', [100, 120]), run({ kind: 'rate', ratePerSec: 3, arrivals: 'poisson' }, 'sweep-rate', [400, 500])],
    [{ path: 'openai', maxRatePerSec: 2, saturationRatePerSec: 3.5 }],
  ));

  it('a fixed level missing a percentile SLO fails the run, naming the run and the figure', () => {
    expect(fixedFail.overall.status).toBe('fail');
    expect(fixedFail.overall.exitCode).toBe(EXIT.TARGET_FAILED);
    expect(fixedFail.overall.reasons).toEqual(['llm openai chat SSE at constant 1/s: SLO p50(ttft)<150ms not met (observed 200 ms)']);
  });

  it('a sweep level missing an SLO does not fail the run; a sweep with no level meeting them does', () => {
    expect(sweep.overall.status).toBe('pass');
    const none = result(section(sweep.llm!.runs, [{ path: 'openai', maxRatePerSec: null, saturationRatePerSec: 3.5 }]));
    expect(none.overall.reasons).toEqual(['llm openai sweep: no rate level met every SLO (p50(ttft)<150ms, itl<50ms)']);
  });

  it('JUnit: each SLO of each run is a case; a fixed miss fails, a sweep miss is skipped', () => {
    const xml = renderJunit(fixedFail);
    expect(xml).toMatch(/<testsuite name="llm" package="qbench.llm"[^>]* tests="4" failures="1" errors="0" skipped="0"/);
    expect(xml).toMatch(/<testcase name="openai chat SSE at constant 1\/s: SLO p50\(ttft\)&lt;150ms" classname="qbench.llm.openai.slo"[^>]*>\s*<failure message="p50\(ttft\)&lt;150ms: observed 200 ms" type="slo-not-met"/);
    expect(xml).toContain('name="openai chat SSE at constant 1/s: SLO itl&lt;50ms"');
    const s = renderJunit(sweep);
    // Three runs of validity, requests and two SLOs, and the sweep's own case; the 3/s level missed its TTFT.
    expect(s).toMatch(/tests="13" failures="0" errors="0" skipped="1"/);
    expect(s).toMatch(/<testcase name="openai chat SSE at Poisson 3\/s: SLO p50\(ttft\)&lt;150ms"[^>]*>\s*<skipped message="p50\(ttft\)&lt;150ms: observed 400 ms \(a sweep level: measured, not judged\)"/);
    expect(s).toContain('name="openai sweep: a rate level meets every SLO"');
  });

  it('console and markdown print a row per run, the token source, and what failed', () => {
    const text = renderConsole(fixedFail);
    expect(text).toMatch(/openai chat SSE at constant 1\/s\s+3 \/ 0\s+200 ms \/ 300 ms\s+10\.0 ms \/ 10\.0 ms/);
    expect(text).toContain('chunks (estimate)');
    expect(text).toContain('FAIL openai chat SSE at constant 1/s: SLO p50(ttft)<150ms: observed 200 ms');
    const md = renderMarkdown(sweep);
    expect(md).toContain('### LLM');
    expect(md).toContain('| openai chat SSE at Poisson 3/s | 2 / 0 | 400 ms / 500 ms |');
    expect(md).toContain('sweep openai: saturation at 3.50 req/s; highest rate meeting every SLO: 2 req/s');
  });

  it('HTML: the section, its tables and the charts against rate and concurrency, cold vs warm and engine metrics', () => {
    const html = renderHtml(sweep);
    expect(html).toContain('<h2 id="llm">LLM</h2>');
    const data = JSON.parse(/<script type="application\/json" id="qbench-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { charts: { id: string; data: (number | null)[][] }[] };
    const ids = data.charts.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['llm-ttft-rate', 'llm-itl-rate', 'llm-ttft-concurrency', 'llm-tokens-concurrency', 'llm-goodput-rate', 'llm-cold-warm']));
    // A sweep charts engine metrics at no level but its saturating one (none here); a fixed run does.
    expect(ids.some((id) => id.startsWith('llm-engine-'))).toBe(false);
    expect(JSON.stringify(renderHtml(fixedFail))).toContain('llm-engine-0');
    // TTFT against rate: x the offered rates 2 and 3, p50 of each level.
    const ttft = data.charts.find((c) => c.id === 'llm-ttft-rate');
    expect(ttft?.data[0]).toEqual([2, 3]);
    expect(ttft?.data[1]?.map((v) => Math.round(v ?? -1))).toEqual([100, 400]);
  });
});
