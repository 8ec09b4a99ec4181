// The HTML, markdown and console renderers and writeAllReports: self-contained HTML with the
// verdict first and failures expanded, escaping and redaction, plain-words validity warnings,
// and the reports/<timestamp>/ + reports/latest layout.
import { lstat, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret } from '../../../src/errors.js';
import { renderConsole } from '../../../src/report/render/console.js';
import { validityWarnings } from '../../../src/report/render/format.js';
import { renderHtml } from '../../../src/report/render/html.js';
import { documentedLimitPerSec, scenarioCharts } from '../../../src/report/render/html-charts.js';
import { renderMarkdown } from '../../../src/report/render/markdown.js';
import { renderJunit } from '../../../src/report/render/junit.js';
import { computeOverall } from '../../../src/result/overall.js';
import { createHistogram, summarize } from '../../../src/result/histogram.js';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../../src/spec/index.js';
import { timestampDirName, writeAllReports } from '../../../src/report/write-all.js';
import { sampleResult } from '../result/sample-result.js';

const SECRET = 'rk-test-VERYSECRET-987';
registerSecret(SECRET);

function hostile() {
  const r = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 400 });
  const c = r.conformance!.checks[0]!;
  c.title = '</script><script>alert(1)</script> & "quotes"';
  const failing = r.conformance!.checks.find((x) => x.verdict.status === 'fail')!;
  if (failing.verdict.status === 'fail') failing.verdict.exchanges[0]!.request.headers['x-key'] = SECRET;
  r.load!.scenarios[0]!.charts[0]!.title = 'limit </script> chart';
  return r;
}

describe('HTML renderer', () => {
  const r = hostile();
  const html = renderHtml(r);

  it('is one self-contained file: no external scripts, styles, images or fetches', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<(script|img|iframe)[^>]+src=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(\s*['"]?https?:/i);
    expect(html).toContain("default-src 'none'");
    // uPlot is inlined
    expect(html).toMatch(/var uPlot\s*=|uPlot=/);
    expect(html.length).toBeGreaterThan(50_000);
  });

  it('puts the overall verdict first, then conformance, load and fuzz', () => {
    const at = (s: string) => html.indexOf(s);
    expect(at('id="verdict"')).toBeGreaterThan(0);
    expect(at('id="verdict"')).toBeLessThan(at('id="conformance"'));
    expect(at('id="conformance"')).toBeLessThan(at('id="load"'));
    expect(at('id="load"')).toBeLessThan(at('id="fuzz"'));
    expect(html).toMatch(/<div class="big">FAIL <span class="small">exit 1<\/span>/);
  });

  it('expands failures with expected vs observed, the exchange and the curl line', () => {
    const block = html.slice(html.indexOf('<details class="fail" open>'));
    expect(block).toMatch(/<dt>expected<\/dt><dd>400 for executionTimeout below 5 s<\/dd>/);
    expect(block).toMatch(/<dt>observed<\/dt><dd>200 with status IN_QUEUE<\/dd>/);
    expect(block).toContain('curl -sS -X POST');
    expect(block).toContain('&gt; POST http://127.0.0.1:8080/v2/ep/run');
    expect(html).toMatch(/counterexample<\/dt><dd class="mono">\[run\(\), cancel\(\), retry\(\)\]/);
  });

  it('escapes markup everywhere, keeps </script> out of inline data, and redacts secrets', () => {
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    const data = html.slice(html.indexOf('id="qbench-data">'), html.indexOf('</script>', html.indexOf('id="qbench-data">')));
    expect(data).toContain('limit \\u003c/script> chart');
    expect(html).not.toContain(SECRET);
  });

  it('draws one spectrum, one percentiles-over-time and one throughput chart per scenario plus the scenario charts', () => {
    const data = JSON.parse(html.slice(html.indexOf('id="qbench-data">') + 'id="qbench-data">'.length, html.indexOf('</script>', html.indexOf('id="qbench-data">')))) as { charts: Array<{ id: string; xKind: string; data: unknown[][]; refs: Array<{ y: number }> }> };
    const ids = data.charts.map((c) => c.id);
    expect(ids).toEqual(['s0-spectrum', 's0-latency-time', 's0-throughput', 's0-chart-0', 's1-spectrum', 's1-latency-time', 's1-throughput', 's1-chart-0', 's1-chart-1', 's1-chart-2']);
    const spectrum = data.charts[0]!;
    expect(spectrum.xKind).toBe('nines');
    // corrected + service time for two steps
    expect(spectrum.data.length).toBe(1 + 4);
    const throughput = data.charts.find((c) => c.id === 's0-throughput')!;
    expect(throughput.refs.map((x) => x.y)).toContain(RATE_LIMITS.run.requestsPerWindow / (RATE_WINDOW_MS / 1000));
  });

  it('adds the end-to-end latency with 429 backoff to the spectrum when the step retried', () => {
    const r2 = sampleResult({ samples: 300 });
    const st = r2.load!.scenarios[1]!.steps[0]!;
    st.attempts = { histogram: st.latency.percentiles, maxAttempts: 3, gaveUp: 1, endToEnd: st.latency };
    const charts = scenarioCharts(r2.load!.scenarios[1]!, 1);
    expect(charts[0]!.series.map((x) => x.name)).toEqual(['runsync latency (corrected)', 'runsync service time', 'runsync end to end (429 backoff included)']);
  });

  it('draws the documented limit per real second of the target\'s rate window, for rate-limited steps only', () => {
    expect(documentedLimitPerSec('run')?.perSec).toBe(RATE_LIMITS.run.requestsPerWindow / (RATE_WINDOW_MS / 1000));
    // an emulator running its windows on a 10x clock: the 10 s window lasts 1 s
    expect(documentedLimitPerSec('run', RATE_WINDOW_MS / 10)?.perSec).toBe(RATE_LIMITS.run.requestsPerWindow);
    expect(documentedLimitPerSec('/status', 1)?.label).toMatch(/§8 GET \/status base limit/);
    expect(documentedLimitPerSec('custom-step', 1)).toBeUndefined();
  });
});

describe('a result with nothing run', () => {
  it('renders in every format without sections or charts', () => {
    const full = sampleResult({ samples: 50 });
    const partial = { schemaVersion: full.schemaVersion, kind: full.kind, meta: full.meta };
    const r = { ...partial, overall: computeOverall(partial) };
    expect(r.overall).toMatchObject({ status: 'pass', reasons: ['nothing was run'] });
    const html = renderHtml(r);
    expect(html).toContain('{"charts":[]}');
    expect(html).not.toContain('id="conformance"');
    expect(renderJunit(r)).toMatch(/<testsuite name="qbench"[^>]* tests="0"/);
    expect(renderMarkdown(r)).toMatch(/^## ✅ qbench: PASS \(exit 0\)/);
    expect(renderConsole(r)).toMatch(/Verdict: PASS \(exit 0\)/);
  });
});

describe('a scenario that recorded nothing', () => {
  it('renders without empty charts', () => {
    const r = sampleResult({ samples: 100 });
    const s = r.load!.scenarios[0]!;
    const empty = summarize(createHistogram());
    for (const st of s.steps) {
      st.counts = { '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 };
      st.latency = empty;
      st.serviceTime = empty;
      st.statusCodes = {};
    }
    s.series = s.series.map((x) => ({ step: x.step, points: [] }));
    s.charts = [];
    const html = renderHtml(r);
    const data = JSON.parse(html.slice(html.indexOf('id="qbench-data">') + 'id="qbench-data">'.length, html.indexOf('</script>', html.indexOf('id="qbench-data">')))) as { charts: Array<{ id: string }> };
    expect(data.charts.map((c) => c.id).filter((id) => id.startsWith('s0-'))).toEqual([]);
    expect(renderConsole(r)).toMatch(/steady-run\s+run\s+0\s+–/);
  });
});

describe('validity warnings', () => {
  it('say in plain words why a measurement is invalid', () => {
    const v = sampleResult({ invalid: true, samples: 200 }).load!.scenarios[0]!.validity;
    const w = validityWarnings(v);
    expect(w[0]).toMatch(/INVALID: the load generator, not the target, was the bottleneck/);
    expect(w.join('\n')).toMatch(/sent 7\.0\/s of the 10\.0\/s asked for \(70%\)/);
    expect(w.join('\n')).toMatch(/120 requests could not be started on time/);
    expect(validityWarnings(sampleResult({ samples: 200 }).load!.scenarios[0]!.validity)).toEqual([]);
  });
});

describe('markdown and console renderers', () => {
  const r = hostile();

  it('markdown is a short summary with the verdict, counts, failures and their reproduction', () => {
    const md = renderMarkdown(r, { htmlReportPath: 'report.html' });
    expect(md.split('\n')[0]).toBe('## ❌ qbench: FAIL (exit 1)');
    expect(md).toMatch(/\| conformance \(quick\) \| 6 \| 1 \| 1 \| 0 \|/);
    expect(md).toMatch(/### Conformance failures/);
    expect(md).toMatch(/```sh\n {2}curl -sS/);
    expect(md).toMatch(/\| steady-run \| ✅ pass \|/);
    expect(md).toContain('Full report: `report.html`');
    expect(md).not.toContain(SECRET);
    expect(md.split('\n').length).toBeLessThan(60);
  });

  it('console prints a table per step and the verdict, coloured only when asked', () => {
    const plain = renderConsole(r);
    expect(plain).toMatch(/scenario\s+step\s+requests\s+429\s+errors\s+p50\s+p90\s+p99\s+max\s+rate\s+verdict/);
    expect(plain).toMatch(/steady-run\s+run\s+400/);
    expect(plain).toMatch(/Verdict: FAIL \(exit 1\)/);
    expect(plain).not.toContain('\u001b[');
    expect(renderConsole(r, { color: true })).toContain('\u001b[31mFAIL\u001b[0m');
  });
});

describe('writeAllReports', () => {
  let root = '';
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'qbench-reports-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes every format into reports/<timestamp>/ and points reports/latest at it', async () => {
    const first = sampleResult({ samples: 200, startedAt: '2026-11-22T10:00:00.000Z' });
    const w = await writeAllReports(first, undefined, { reportsRoot: root });
    expect(w.dir).toBe(path.join(root, '2026-11-22T10-00-00Z'));
    for (const f of [w.json, w.html, w.junit, w.markdown, w.console]) expect((await readFile(f, 'utf8')).length).toBeGreaterThan(100);
    expect(await readlink(path.join(root, 'latest'))).toBe('2026-11-22T10-00-00Z');
    const second = sampleResult({ samples: 200, startedAt: '2026-11-22T11:30:00.000Z' });
    await writeAllReports(second, undefined, { reportsRoot: root });
    expect(await readlink(path.join(root, 'latest'))).toBe(timestampDirName(second.meta.startedAt));
    expect(JSON.parse(await readFile(path.join(root, 'latest', 'result.json'), 'utf8'))).toEqual(second);
    // a second run started in the same second gets its own directory
    const again = await writeAllReports(second, undefined, { reportsRoot: root });
    expect(again.dir).toBe(path.join(root, `${timestampDirName(second.meta.startedAt)}-2`));
    expect(await readlink(path.join(root, 'latest'))).toBe(`${timestampDirName(second.meta.startedAt)}-2`);
  });

  it('writes to an explicit directory without touching latest', async () => {
    const out = path.join(root, 'custom', 'dir');
    const w = await writeAllReports(sampleResult({ samples: 100 }), out, { reportsRoot: root });
    expect(w.latest).toBeUndefined();
    expect((await lstat(path.join(out, 'report.html'))).isFile()).toBe(true);
    expect(await readlink(path.join(root, 'latest'))).toBe('2026-11-22T11-30-00Z-2');
  });
});
