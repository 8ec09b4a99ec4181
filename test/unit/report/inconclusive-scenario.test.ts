// A load scenario that could not set up what it judges ends `inconclusive`: it does not fail a
// run unless --strict, the reasons name it and why, and every renderer, merge and compare say so.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/exit-codes.js';
import { compareResults } from '../../../src/report/compare.js';
import { mergeResults } from '../../../src/report/merge.js';
import { QbenchResult, type LoadScenarioResult } from '../../../src/result/model.js';
import { computeOverall, findingOutcome } from '../../../src/result/overall.js';
import { renderConsole } from '../../../src/report/render/console.js';
import { renderHtml } from '../../../src/report/render/html.js';
import { renderJunit } from '../../../src/report/render/junit.js';
import { renderMarkdown } from '../../../src/report/render/markdown.js';
import { sampleResult } from '../result/sample-result.js';

const WHY = 'the rate window was already in use: 37 requests this scenario did not send were counted in it';

/** steady-run made inconclusive: one unmet precondition, one rule it could not judge. */
function inconclusiveRun(strict = false): QbenchResult {
  const r = sampleResult({ samples: 300 });
  delete r.conformance;
  delete r.fuzz;
  const s = r.load!.scenarios[0]!;
  s.verdict = {
    status: 'inconclusive',
    summary: WHY,
    findings: [
      { label: 'the rate window was this scenario\'s alone', expected: 'no foreign /run requests', observed: '37 foreign requests', passed: false, precondition: true },
      { label: 'first 429', clause: '§8', expected: 'once 1000 were admitted', observed: 'after 963 admitted', passed: false },
      { label: 'recovery after a quiet window', clause: '§8', expected: 'all admitted', observed: '50 of 50', passed: true },
    ],
  };
  const partial = { ...r, overall: undefined };
  return QbenchResult.parse({ ...r, overall: computeOverall(partial, { strict }) });
}

describe('an inconclusive load scenario', () => {
  it('does not fail the run by default, and says which scenario and why in the reasons', () => {
    const r = inconclusiveRun();
    expect(r.overall).toMatchObject({ status: 'pass', exitCode: EXIT.OK });
    const note = r.overall.reasons.find((x) => x.startsWith('load steady-run: inconclusive'));
    expect(note).toContain('not failing the run; --strict makes it fail');
    expect(note).toContain(WHY);
    expect(note).toContain('37 foreign requests');
  });

  it('fails the run under --strict, with the reason', () => {
    const r = inconclusiveRun(true);
    expect(r.overall).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED, strict: true });
    expect(r.overall.reasons[0]).toMatch(/^load steady-run: inconclusive under --strict: the rate window was already in use/);
  });

  it('still fails the run on a threshold the user set, strict or not', () => {
    const r = inconclusiveRun();
    r.load!.scenarios[0]!.thresholds[0]!.passed = false;
    const o = computeOverall(r);
    expect(o).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED });
    expect(o.reasons[0]).toMatch(/^load steady-run: threshold run\.latency p\(99\)<2000/);
  });

  it('an unmet precondition in a failed scenario is not listed as the violation', () => {
    const r = inconclusiveRun();
    const s = r.load!.scenarios[0]!;
    s.verdict = { ...s.verdict, status: 'fail', findings: [s.verdict.findings[0]!, { ...s.verdict.findings[1]!, label: 'most admitted in a window', observed: '1100' }] };
    const o = computeOverall(r);
    expect(o.status).toBe('fail');
    expect(o.reasons[0]).toContain('most admitted in a window');
    expect(o.reasons[0]).not.toContain('was this scenario\'s alone');
    expect(findingOutcome(s.verdict.findings[0]!, 'fail')).toBe('inconclusive');
    expect(findingOutcome(s.verdict.findings[1]!, 'fail')).toBe('fail');
  });

  it('console: INCONCLUSIVE verdict, and its findings marked inconclusive, not FAIL', () => {
    const out = renderConsole(inconclusiveRun());
    expect(out).toMatch(/steady-run[^\n]*INCONCLUSIVE/);
    expect(out).toContain(`INCONCLUSIVE steady-run: ${WHY} (not failing the run; --strict makes it fail)`);
    expect(out).toContain('INCONCLUSIVE steady-run: the rate window was this scenario\'s alone: expected no foreign /run requests, observed 37 foreign requests (precondition not reached)');
    expect(out).toContain('INCONCLUSIVE steady-run: §8 first 429: expected once 1000 were admitted, observed after 963 admitted (not judged)');
    expect(out).not.toMatch(/FAIL steady-run/);
  });

  it('markdown: the scenario row, the inconclusive count and the reason', () => {
    const md = renderMarkdown(inconclusiveRun());
    expect(md).toMatch(/\| steady-run \| ❔ inconclusive \|/);
    expect(md).toMatch(/\| load scenarios \| 1 \| 0 \| – \| 0 invalid \| 1 \|/);
    expect(md).toContain(`❔ steady-run: inconclusive (not failing the run; --strict makes it fail): ${WHY}`);
    expect(md).not.toContain('❌ steady-run');
  });

  it('HTML: an inconclusive badge on the scenario and its unmet findings, and the strict note', () => {
    const html = renderHtml(inconclusiveRun());
    expect(html).toContain('steady-run <span class="badge b-inconclusive">inconclusive</span>');
    expect(html).toContain('<tr><td><span class="badge b-inconclusive">inconclusive</span><div class="small muted">precondition</div></td><td>the rate window was this scenario&#39;s alone</td>');
    expect(html).toContain('it does not fail the run (--strict makes it fail)');
    expect(renderHtml(inconclusiveRun(true))).toContain('this run was judged with --strict, so it fails the run');
  });

  it('JUnit: the unmet findings are skipped with the reason, never failures', () => {
    const xml = renderJunit(inconclusiveRun());
    const suite = xml.slice(xml.indexOf('<testsuite name="load steady-run"'), xml.indexOf('</testsuite>', xml.indexOf('<testsuite name="load steady-run"')));
    expect(suite).toMatch(/<testsuite name="load steady-run"[^>]* failures="0"[^>]* skipped="2"/);
    expect(suite).toContain('<skipped message="inconclusive: precondition not reached: expected no foreign /run requests, observed 37 foreign requests; the rate window was already in use');
    expect(suite).not.toContain('<failure');
  });

  it('JUnit: an inconclusive scenario whose findings all passed gets one skipped verdict case', () => {
    const r = inconclusiveRun();
    const s = r.load!.scenarios[0]!;
    s.verdict.findings = s.verdict.findings.filter((f) => f.passed);
    expect(renderJunit(r)).toContain(`<testcase name="scenario verdict" classname="qbench.load.steady-run" time="0.000"`);
    expect(renderJunit(r)).toContain(`<skipped message="inconclusive: ${WHY}"/>`);
  });

  it('merge: a part that was inconclusive leaves the merged scenario inconclusive; a violation in another part makes it fail', () => {
    const a = inconclusiveRun();
    const b = sampleResult({ samples: 300, seed: 2, startedAt: '2026-11-22T10:00:01.000Z' });
    delete b.conformance;
    delete b.fuzz;
    const merged = mergeResults([{ result: a, source: 'a.json' }, { result: QbenchResult.parse(b), source: 'b.json' }]);
    const s = merged.load!.scenarios.find((x) => x.name === 'steady-run')!;
    expect(s.verdict.status).toBe('inconclusive');
    expect(s.verdict.summary).toContain(WHY);
    expect(merged.overall.status).toBe('pass');
    const strictA = inconclusiveRun(true);
    expect(mergeResults([{ result: strictA, source: 'a.json' }, { result: QbenchResult.parse(b), source: 'b.json' }]).overall.status).toBe('fail');

    const violated = QbenchResult.parse(b);
    const v = violated.load!.scenarios[0]!;
    v.verdict = { status: 'fail', summary: 'too many', findings: [{ label: 'most admitted', clause: '§8', expected: '1000', observed: '1100', passed: false }] };
    const both = mergeResults([{ result: a, source: 'a.json' }, { result: violated, source: 'b.json' }]).load!.scenarios.find((x) => x.name === 'steady-run')!;
    expect(both.verdict.status).toBe('fail');
    expect(both.verdict.summary).toContain('most admitted failed');
    expect(both.verdict.summary).not.toContain('alone failed');
  });

  it('compare: compares an inconclusive scenario all the same and says it was inconclusive', () => {
    const base = QbenchResult.parse(sampleResult({ samples: 2_000, seed: 5 }));
    const cand = inconclusiveRun();
    const c = compareResults(base, cand, { baselineFile: 'base.json', candidateFile: 'cand.json', iterations: 200 });
    const s = c.scenarios.find((x) => x.name === 'steady-run')!;
    expect(s.steps.length).toBeGreaterThan(0);
    expect(s.inconclusive).toEqual([`steady-run: the candidate scenario was inconclusive (${WHY}); its figures may include traffic it did not send`]);
    expect(c.verdict.reasons).toContain(s.inconclusive![0]);
    expect(c.scenarios.find((x) => x.name === 'gpu-stream')!.inconclusive).toBeUndefined();
  });
});

/** Type-level: the verdict status of a scenario includes inconclusive. */
const _status: LoadScenarioResult['verdict']['status'] = 'inconclusive';
void _status;
