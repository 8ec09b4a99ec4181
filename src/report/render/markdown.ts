// Markdown renderer: a short summary for a CI job summary or a pull-request comment:
// the verdict, counts per section, the failures with their reproduction, one line per scenario.
import { redactSecrets } from '../../errors.js';
import type { QbenchComparison } from '../../result/compare-model.js';
import type { QbenchResult } from '../../result/model.js';
import { checkFailsRun, findingOutcome } from '../../result/overall.js';
import { fuzzReplayCommand } from './evidence.js';
import { llmMarkdownLines } from './llm.js';
import { llmPlanMarkdownLines } from './llm-plan.js';
import { planMarkdownLines } from './plan.js';
import { changeUnit, comparisonUnits, costLine, fmtChange, fmtCount, fmtDuration, fmtMetricValue, fmtMs, fmtRate, fmtRatio, presenceNote, scenarioTotals, validityWarnings } from './format.js';

const ICON = { pass: '✅', fail: '❌', invalid: '⚠️', error: '💥', info: 'ℹ️', skip: '⏭️', inconclusive: '❔' } as const;
const MAX_LISTED = 15;

/** Escape a table cell. */
const cell = (s: string): string => redactSecrets(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function renderMarkdown(r: QbenchResult, options: { htmlReportPath?: string } = {}): string {
  const o = r.overall;
  const out: string[] = [];
  out.push(`## ${ICON[o.status]} qbench: ${o.status.toUpperCase()} (exit ${o.exitCode})`, '');
  out.push(
    `${r.meta.target.kind} \`${cell(r.meta.target.queueUrl)}\` · endpoint \`${cell(r.meta.target.endpointId)}\`${r.meta.target.timeScale !== 1 ? ` · time ×${r.meta.target.timeScale}` : ''} · ${fmtDuration(r.meta.durationMs)} · qbench ${r.meta.qbenchVersion} · ${r.meta.startedAt}`,
    '',
  );

  const rows: string[] = [];
  if (r.conformance) {
    const s = r.conformance.summary;
    rows.push(`| conformance (${cell(r.conformance.profile)}) | ${s.pass} | ${s.fail} | ${s.skip} | ${s.error} | ${s.inconclusive ?? 0} |`);
  }
  if (r.load) {
    const st = r.load.scenarios.map((x) => x.verdict.status);
    rows.push(`| load scenarios | ${st.filter((x) => x === 'pass' || x === 'info').length} | ${st.filter((x) => x === 'fail').length} | – | ${st.filter((x) => x === 'invalid').length} invalid | ${st.filter((x) => x === 'inconclusive').length} |`);
  }
  if (r.fuzz) {
    const p = r.fuzz.properties;
    rows.push(`| fuzz (seed ${r.fuzz.seed}) | ${p.filter((x) => x.status === 'pass').length} | ${p.filter((x) => x.status === 'fail').length} | – | ${p.filter((x) => x.status === 'error').length} | – |`);
  }
  if (rows.length > 0) out.push('| | pass | fail | skip | error | inconclusive |', '|---|---:|---:|---:|---:|---:|', ...rows, '');

  const failing = (r.conformance?.checks ?? []).filter((c) => checkFailsRun(c, r.overall.strict === true));
  if (failing.length > 0) {
    out.push('### Conformance failures', '');
    for (const c of failing.slice(0, MAX_LISTED)) {
      const v = c.verdict;
      const detail = v.status === 'fail' ? `expected ${v.expected}, observed ${v.observed}` : v.status === 'error' ? `error: ${v.message}` : v.status === 'inconclusive' ? `inconclusive (--strict): ${v.reason}` : `${v.status} (expectation said ${c.expectation?.expected ?? '?'})`;
      out.push(`- **${cell(c.clause.section)} \`${cell(c.id)}\`** ${cell(c.title)}: ${cell(detail)}`);
      if (v.status === 'fail') out.push(`  <details><summary>reproduce</summary>\n\n  \`\`\`sh\n  ${redactSecrets(v.curl)}\n  \`\`\`\n  </details>`);
    }
    if (failing.length > MAX_LISTED) out.push(`- … and ${failing.length - MAX_LISTED} more (see the HTML or JUnit report)`);
    out.push('');
  }

  if (r.load && r.load.scenarios.length > 0) {
    out.push('### Load', '', '| scenario | verdict | requests | 429 | errors | p50 | p99 | max | rate | thresholds |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const s of r.load.scenarios) {
      const t = scenarioTotals(s);
      const first = s.steps[0]?.latency.percentiles;
      const thr = s.thresholds.length === 0 ? '–' : `${s.thresholds.filter((x) => x.passed).length}/${s.thresholds.length}`;
      out.push(
        `| ${cell(s.name)} | ${ICON[s.verdict.status]} ${s.verdict.status} | ${fmtCount(t.total)} | ${fmtRatio(t.total ? t['429'] / t.total : null)} | ${fmtRatio(t.total ? (t['4xx'] + t['5xx'] + t.network_error) / t.total : null)} | ${fmtMs(first?.p50)} | ${fmtMs(first?.p99)} | ${fmtMs(first?.max)} | ${fmtRate(s.validity.achievedRatePerSec)} | ${thr} |`,
      );
    }
    out.push('');
    const notes = r.load.scenarios.flatMap((s) => [
      ...s.thresholds.filter((x) => !x.passed).map((x) => `❌ ${s.name}: threshold \`${x.metric} ${x.expression}\` observed ${x.observed ?? 'no data'}`),
      ...(s.verdict.status === 'inconclusive' ? [`${ICON.inconclusive} ${s.name}: inconclusive${r.overall.strict === true ? ' (fails the run: --strict)' : ' (not failing the run; --strict makes it fail)'}: ${s.verdict.summary}`] : []),
      ...s.verdict.findings.filter((f) => !f.passed).map((f) => `${findingOutcome(f, s.verdict.status) === 'fail' ? ICON.fail : ICON.inconclusive} ${s.name}: ${f.clause ? `${f.clause} ` : ''}${f.label}: expected ${f.expected}, observed ${f.observed}`),
      ...validityWarnings(s.validity).map((w) => `⚠️ ${s.name}: ${w}`),
    ]);
    for (const n of notes.slice(0, MAX_LISTED)) out.push(`- ${cell(n)}`);
    if (notes.length > 0) out.push('');
    if (r.load.cost) out.push(`💲 ${cell(costLine(r.load.cost))}`, '');
    if (r.load.scenarios[0]?.steps[0]) out.push('_Latency columns: first step, from the intended start (coordinated-omission corrected)._', '');
  }

  const fuzzFail = (r.fuzz?.properties ?? []).filter((p) => p.status !== 'pass');
  if (fuzzFail.length > 0) {
    out.push('### Fuzz findings', '');
    for (const p of fuzzFail.slice(0, MAX_LISTED)) {
      const f = p.finding;
      out.push(`- **${cell(p.clause.section)} ${cell(p.name)}**: ${f ? cell(`expected ${f.expected}, observed ${f.observed}; counterexample ${f.counterexample}`) : cell(p.error ?? p.status)}`);
      const replay = fuzzReplayCommand(p, r.meta.target);
      if (replay) out.push(`  replay: \`${replay}\``);
    }
    out.push('');
  }

  if (r.plan) out.push(...planMarkdownLines(r.plan, cell));
  if (r.llm) out.push(...llmMarkdownLines(r.llm, cell));
  if (r.llmPlan) out.push(...llmPlanMarkdownLines(r.llmPlan, cell));

  if (o.status !== 'pass') {
    out.push('<details><summary>All reasons</summary>', '', ...o.reasons.map((x) => `- ${cell(x)}`), '', '</details>', '');
  }
  if (options.htmlReportPath) out.push(`Full report: \`${options.htmlReportPath}\``, '');
  return `${out.join('\n')}`;
}

export function renderComparisonMarkdown(c: QbenchComparison): string {
  const out: string[] = [];
  const icon = c.verdict.status === 'pass' ? '✅' : c.verdict.status === 'fail' ? '❌' : '⚠️';
  out.push(`## ${icon} qbench compare: ${c.verdict.status.toUpperCase()} (exit ${c.verdict.exitCode})`, '');
  out.push(`baseline \`${cell(c.baseline.file)}\` (${c.baseline.startedAt}) → candidate \`${cell(c.candidate.file)}\` (${c.candidate.startedAt}); ${c.options.latency} latency, ${Math.round(c.options.confidenceLevel * 100)}% bootstrap intervals (${c.options.iterations} resamples, seed ${c.options.seed})`, '');
  if (c.verdict.reasons.length > 0) out.push(...c.verdict.reasons.map((x) => `- ${cell(x)}`), '');
  const header = ['| scenario/step or LLM level | metric | baseline | candidate | change | CI | margin | |', '|---|---|---:|---:|---:|---|---:|---|'];
  const gated: string[] = [];
  const all: string[] = [];
  for (const s of comparisonUnits(c)) {
    for (const st of s.rows) {
      for (const m of st.metrics) {
        const u = changeUnit(m);
        const flag = m.regression ? '❌ regression' : m.improvement ? '✅ better' : m.significant ? 'changed' : '';
        const row = `| ${cell(st.label)} | ${m.metric} | ${fmtMetricValue(m, m.baseline)} | ${fmtMetricValue(m, m.candidate)} | ${fmtChange(m.changePct, u)} | ${m.ci ? `${fmtChange(m.ci.lowPct, u)} … ${fmtChange(m.ci.highPct, u)}` : m.unjudged !== undefined ? `too few requests: ${cell(m.unjudged)}` : '–'} | ${m.maxRegressionPct === null ? '–' : `${m.maxRegressionPct}${u}`} | ${flag} |`;
        all.push(row);
        // the short table: what the margins judge, and anything that moved significantly
        if (m.maxRegressionPct !== null || m.significant) gated.push(row);
      }
    }
    if (s.presence !== 'both') gated.push(`| ${cell(s.name)} | – | | | | | | ${presenceNote(s.presence)} |`);
  }
  if (gated.length > 0) out.push(...header, ...gated, '');
  out.push('<details><summary>Every metric</summary>', '', ...header, ...all, '', '</details>', '');
  return out.join('\n');
}
