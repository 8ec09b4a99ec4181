// Console renderer: the end-of-run summary table printed by check, load, start and report.
import { redactSecrets } from '../../errors.js';
import type { QbenchComparison } from '../../result/compare-model.js';
import type { QbenchResult } from '../../result/model.js';
import { checkFailsRun, findingOutcome } from '../../result/overall.js';
import { changeUnit, comparisonUnits, costLine, fmtChange, fmtCount, fmtDuration, fmtMetricValue, fmtMs, fmtRate, fmtRatio, presenceNote, validityWarnings } from './format.js';
import { llmConsoleLines } from './llm.js';
import { llmPlanConsoleLines } from './llm-plan.js';
import { planConsoleLines } from './plan.js';
import { textTable } from './table.js';

export interface ConsoleOptions {
  /** ANSI colours (only on a terminal). */
  color?: boolean;
  /** Longest list of failures to print before "… and N more". */
  maxListed?: number;
}

const COLORS = { red: 31, green: 32, yellow: 33, gray: 90, bold: 1 } as const;

function painter(enabled: boolean) {
  return (c: keyof typeof COLORS, s: string): string => (enabled ? `\u001b[${COLORS[c]}m${s}\u001b[0m` : s);
}

const STATUS_COLOR = { pass: 'green', info: 'gray', fail: 'red', invalid: 'yellow', error: 'red', skip: 'gray', inconclusive: 'yellow' } as const;

export function renderConsole(r: QbenchResult, options: ConsoleOptions = {}): string {
  const paint = painter(options.color ?? false);
  const max = options.maxListed ?? 10;
  const status = (s: keyof typeof STATUS_COLOR) => paint(STATUS_COLOR[s], s.toUpperCase());
  const out: string[] = [];
  out.push(`qbench ${r.meta.qbenchVersion} · ${r.meta.target.kind} ${r.meta.target.queueUrl} · ${fmtDuration(r.meta.durationMs)}`, '');

  if (r.conformance) {
    const s = r.conformance.summary;
    out.push(`${paint('bold', `Conformance (${r.conformance.profile})`)}: ${paint('green', `${s.pass} pass`)}, ${s.fail > 0 ? paint('red', `${s.fail} fail`) : '0 fail'}, ${s.skip} skip, ${s.error > 0 ? paint('red', `${s.error} error`) : '0 error'}${s.inconclusive ? `, ${paint('yellow', `${s.inconclusive} inconclusive`)}` : ''}${s.expectedFailures ? `, ${s.expectedFailures} expected failures` : ''}`);
    const strict = r.overall.strict === true;
    const failing = r.conformance.checks.filter((c) => checkFailsRun(c, strict));
    for (const c of failing.slice(0, max)) {
      const v = c.verdict;
      const detail = v.status === 'fail' ? `expected ${v.expected}, observed ${v.observed}` : v.status === 'error' ? v.message : v.status === 'inconclusive' ? `inconclusive (--strict): ${v.reason}` : `${v.status}, expectation said ${c.expectation?.expected ?? '?'}`;
      out.push(`  ${status(v.status === 'error' ? 'error' : v.status === 'inconclusive' ? 'inconclusive' : 'fail')} ${c.clause.section} ${c.id}: ${redactSecrets(detail)}`);
    }
    if (failing.length > max) out.push(`  … and ${failing.length - max} more`);
    out.push('');
  }

  if (r.load && r.load.scenarios.length > 0) {
    out.push(paint('bold', 'Load'));
    const rows: string[][] = [];
    for (const s of r.load.scenarios) {
      s.steps.forEach((st, i) => {
        const total = st.counts['2xx'] + st.counts['429'] + st.counts['4xx'] + st.counts['5xx'] + st.counts.network_error;
        const p = st.latency.percentiles;
        rows.push([
          i === 0 ? s.name : '',
          st.step,
          fmtCount(total),
          fmtRatio(total ? st.counts['429'] / total : null),
          fmtRatio(total ? (st.counts['4xx'] + st.counts['5xx'] + st.counts.network_error) / total : null),
          fmtMs(p.p50),
          fmtMs(p.p90),
          fmtMs(p.p99),
          fmtMs(p.max),
          i === 0 ? fmtRate(s.validity.achievedRatePerSec) : '',
          i === 0 ? status(s.verdict.status) : '',
        ]);
      });
    }
    out.push(
      textTable(
        [
          { header: 'scenario' },
          { header: 'step' },
          { header: 'requests', align: 'right' },
          { header: '429', align: 'right' },
          { header: 'errors', align: 'right' },
          { header: 'p50', align: 'right' },
          { header: 'p90', align: 'right' },
          { header: 'p99', align: 'right' },
          { header: 'max', align: 'right' },
          { header: 'rate', align: 'right' },
          { header: 'verdict' },
        ],
        rows,
      ),
    );
    for (const s of r.load.scenarios) {
      for (const t of s.thresholds.filter((x) => !x.passed)) out.push(`  ${status('fail')} ${s.name}: threshold ${t.metric} ${t.expression} (observed ${t.observed ?? 'no data'})`);
      if (s.verdict.status === 'inconclusive') out.push(`  ${status('inconclusive')} ${s.name}: ${s.verdict.summary}${r.overall.strict === true ? ' (fails the run: --strict)' : ' (not failing the run; --strict makes it fail)'}`);
      for (const f of s.verdict.findings.filter((x) => !x.passed)) {
        const o = findingOutcome(f, s.verdict.status);
        out.push(`  ${status(o === 'pass' ? 'fail' : o)} ${s.name}: ${f.clause ? `${f.clause} ` : ''}${f.label}: expected ${f.expected}, observed ${f.observed}${o === 'inconclusive' ? (f.precondition === true ? ' (precondition not reached)' : ' (not judged)') : ''}`);
      }
      for (const w of validityWarnings(s.validity)) out.push(`  ${paint('yellow', 'WARN')} ${s.name}: ${w}`);
    }
    if (r.load.cost) out.push(`  ${costLine(r.load.cost)}`);
    out.push('  (latency from the intended start: coordinated-omission corrected)', '');
  }

  if (r.fuzz) {
    const p = r.fuzz.properties;
    const bad = p.filter((x) => x.status !== 'pass');
    out.push(`${paint('bold', 'Fuzz')} (seed ${r.fuzz.seed}): ${p.length - bad.length}/${p.length} properties hold`);
    for (const x of bad.slice(0, max)) {
      const f = x.finding;
      out.push(`  ${status(x.status === 'error' ? 'error' : 'fail')} ${x.clause.section} ${x.name}: ${f ? `expected ${f.expected}, observed ${f.observed}; counterexample ${f.counterexample} (seed ${f.seed}, path ${f.path})` : (x.error ?? '')}`);
    }
    out.push('');
  }

  if (r.plan) out.push(...planConsoleLines(r.plan, (s) => paint('bold', s)));
  if (r.llm) out.push(...llmConsoleLines(r.llm, (s) => paint('bold', s), textTable));
  if (r.llmPlan) out.push(...llmPlanConsoleLines(r.llmPlan, (s) => paint('bold', s)));

  out.push(`${paint('bold', 'Verdict')}: ${status(r.overall.status)} (exit ${r.overall.exitCode})`);
  if (r.overall.status !== 'pass') for (const reason of r.overall.reasons.slice(0, max)) out.push(`  - ${redactSecrets(reason)}`);
  return `${out.join('\n')}\n`;
}

export function renderComparisonConsole(c: QbenchComparison, options: ConsoleOptions = {}): string {
  const paint = painter(options.color ?? false);
  const rows: string[][] = [];
  for (const s of comparisonUnits(c)) {
    for (const st of s.rows) {
      for (const m of st.metrics) {
        const u = changeUnit(m);
        rows.push([
          st.label,
          m.metric,
          fmtMetricValue(m, m.baseline),
          fmtMetricValue(m, m.candidate),
          fmtChange(m.changePct, u),
          m.ci ? `${fmtChange(m.ci.lowPct, u)} … ${fmtChange(m.ci.highPct, u)}` : m.unjudged !== undefined ? 'too few requests' : '–',
          m.maxRegressionPct === null ? '–' : `${m.maxRegressionPct}${u}`,
          m.regression ? paint('red', 'REGRESSION') : m.improvement ? paint('green', 'better') : m.significant ? 'changed' : '',
        ]);
      }
    }
    if (s.presence !== 'both') rows.push([s.name, '', '', '', '', '', '', presenceNote(s.presence)]);
  }
  const out = [
    `qbench compare: ${c.baseline.file} → ${c.candidate.file} (${c.options.latency} latency, ${Math.round(c.options.confidenceLevel * 100)}% bootstrap CI, ${c.options.iterations} resamples)`,
    '',
    textTable(
      [
        { header: 'scenario/step or LLM level' },
        { header: 'metric' },
        { header: 'baseline', align: 'right' },
        { header: 'candidate', align: 'right' },
        { header: 'change', align: 'right' },
        { header: 'CI' },
        { header: 'margin', align: 'right' },
        { header: '' },
      ],
      rows,
    ),
    '',
    `Verdict: ${c.verdict.status === 'pass' ? paint('green', 'PASS') : c.verdict.status === 'fail' ? paint('red', 'FAIL') : paint('yellow', 'INVALID')} (exit ${c.verdict.exitCode})`,
    ...c.verdict.reasons.map((x) => `  - ${x}`),
  ];
  return `${out.join('\n')}\n`;
}
