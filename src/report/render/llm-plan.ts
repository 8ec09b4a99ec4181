// The LLM plan section of a result (`qbench plan --llm`) as each renderer shows it: the fewest
// warm workers and their per-worker concurrency meeting every token SLO, with the cost per hour
// and per million output tokens and each SLO's figure (or what would be needed), the cheaper
// settings and why each misses, and every setting simulated (tables here and in markdown, a
// uPlot chart per SLO of its figure against the workers in the HTML page).
import { configError } from '../../errors.js';
import type { LlmPlanPoint, LlmPlanSection } from '../../result/model.js';
import { fmtCount, fmtDuration, fmtMs, fmtUsdPerHour } from './format.js';
import { alignSeries, PALETTE, type ChartSpec } from './html-charts.js';
import { textTable } from './table.js';

const pointAt = (plan: LlmPlanSection, k: number): LlmPlanPoint => {
  const p = plan.points[k];
  // A result file read back may name a point its plan does not hold: the schema does not tie the indexes to the points.
  if (p === undefined) throw configError(`LLM plan: no point ${k} (the plan holds ${plan.points.length})`);
  return p;
};

const perMillion = (p: LlmPlanPoint): string => (p.costPerMillionOutputTokensUsd === null ? '–' : `$${p.costPerMillionOutputTokensUsd.toFixed(2)}`);

export const describeLlmSetting = (p: LlmPlanPoint): string => `${p.workers} worker${p.workers === 1 ? '' : 's'} × concurrency ${p.jobsPerWorker}`;

export function llmPlanHeadline(plan: LlmPlanSection): string {
  const slos = plan.slos.map((s) => s.text).join(' and ');
  if (plan.chosen === null) return `no setting of ${fmtCount(plan.points.length)} meets ${slos}${plan.budgetPerHourUsd !== undefined ? ` within ${fmtUsdPerHour(plan.budgetPerHourUsd)}` : ''}`;
  const c = pointAt(plan, plan.chosen);
  return `fewest workers meeting ${slos}: ${describeLlmSetting(c)} at ${fmtUsdPerHour(c.costPerHourUsd)}, ${perMillion(c)} per million output tokens`;
}

/** What was simulated, on what, in one line. */
export function llmPlanScope(plan: LlmPlanSection): string {
  const t = plan.traffic;
  return `${t.ratePerSec} requests/s (Poisson) of ${t.promptTokens} prompt + ${t.outputTokens} output tokens over ${t.path === 'chat' ? 'OpenAI chat SSE' : 'the native stream'} for ${fmtDuration(t.durationS * 1_000)} (the first ${fmtDuration(t.warmupS * 1_000)} not measured), seed ${plan.seed}; ${fmtCount(plan.sweep.simulations)} simulations (${fmtDuration(plan.sweep.wallMs)}) on the twin ${plan.twin.file} (endpoint ${plan.twin.endpointId}, ${plan.twin.gpuCount}x ${plan.twin.gpuTypeId}, ${fmtUsdPerHour(plan.twin.pricePerWorkerHourUsd)} a worker)`;
}

/** The chosen point's figures as label/value pairs, for every renderer. */
export function llmChosenFacts(p: LlmPlanPoint): Array<[string, string]> {
  return [
    ['setting', `${describeLlmSetting(p)} (workers kept warm; MAX_CONCURRENCY ${p.jobsPerWorker})`],
    ['cost', `${fmtUsdPerHour(p.costPerHourUsd)}; ${perMillion(p)} per million output tokens`],
    ['TTFT p50 / p99', `${fmtMs(p.ttft.p50Ms)} / ${fmtMs(p.ttft.p99Ms)}`],
    ['ITL p50 / p99', `${fmtMs(p.itl.p50Ms)} / ${fmtMs(p.itl.p99Ms)}`],
    ['output tokens/s', p.outputTokensPerSec.toFixed(1)],
  ];
}

/** SLO rows of a point: the SLO, the figure judged, met or not. */
function sloRows(plan: LlmPlanSection, p: LlmPlanPoint): string[][] {
  return plan.slos.map((s, i) => [s.text, p.overloaded ? 'overloaded' : fmtMs(p.sloFigures[i] ?? null), p.meets[i] === true ? 'met' : 'missed']);
}

export function llmNearMissLines(plan: LlmPlanSection): string[] {
  return plan.nearMisses.map((m) => {
    const p = pointAt(plan, m.point);
    return `${fmtUsdPerHour(p.costPerHourUsd)} ${describeLlmSetting(p)}: ${m.misses.join('; ')}`;
  });
}

/** Every point as a row: workers, concurrency, cost, $/M tokens, each SLO's figure, tokens/s, status. */
function pointRows(plan: LlmPlanSection): string[][] {
  return plan.points
    .map((p, k) => ({ p, k }))
    .sort((a, b) => a.p.jobsPerWorker - b.p.jobsPerWorker || a.p.workers - b.p.workers)
    .map(({ p, k }) => [
      String(p.workers),
      String(p.jobsPerWorker),
      fmtUsdPerHour(p.costPerHourUsd),
      perMillion(p),
      ...plan.slos.map((_, i) => (p.overloaded ? '–' : fmtMs(p.sloFigures[i] ?? null))),
      p.outputTokensPerSec.toFixed(1),
      k === plan.chosen ? 'chosen' : p.overloaded ? 'overloaded' : p.meets.every(Boolean) ? (p.withinBudget ? 'meets' : 'over budget') : 'misses',
    ]);
}

// ---------------------------------------------------------------- console

export function llmPlanConsoleLines(plan: LlmPlanSection, bold: (s: string) => string): string[] {
  const out: string[] = [bold('LLM plan'), `  ${llmPlanScope(plan)}`, `  engine: ${plan.twin.engine}`, `  SLOs: ${plan.slos.map((s) => s.text).join(', ')}${plan.budgetPerHourUsd !== undefined ? `; budget ${fmtUsdPerHour(plan.budgetPerHourUsd)}` : ''}`, ''];
  if (plan.chosen === null) {
    out.push(`  ${llmPlanHeadline(plan)}:`, ...plan.needed.map((n) => `  - ${n}`), '');
  } else {
    const c = pointAt(plan, plan.chosen);
    out.push('  Fewest workers meeting every SLO:', ...llmChosenFacts(c).map(([k, v]) => `    ${k.padEnd(18)}${v}`), '');
    out.push(textTable([{ header: 'SLO' }, { header: 'figure', align: 'right' }, { header: '' }], sloRows(plan, c), '    '), '');
    if (plan.nearMisses.length > 0) out.push('  Cheaper, and why each misses:', ...llmNearMissLines(plan).map((l) => `  - ${l}`), '');
  }
  out.push('  Every setting simulated:');
  out.push(textTable([{ header: 'workers', align: 'right' }, { header: 'concurrency', align: 'right' }, { header: 'cost', align: 'right' }, { header: '$/M out', align: 'right' }, ...plan.slos.map((s) => ({ header: s.text, align: 'right' as const })), { header: 'tok/s', align: 'right' }, { header: '' }], pointRows(plan), '    '), '');
  return out;
}

// ---------------------------------------------------------------- markdown

export function llmPlanMarkdownLines(plan: LlmPlanSection, cell: (s: string) => string): string[] {
  const out: string[] = ['### LLM plan', '', cell(llmPlanScope(plan)), '', `Engine: ${cell(plan.twin.engine)}. SLOs: ${plan.slos.map((s) => `\`${s.text}\``).join(', ')}${plan.budgetPerHourUsd !== undefined ? `; budget ${fmtUsdPerHour(plan.budgetPerHourUsd)}` : ''}.`, ''];
  if (plan.chosen === null) {
    out.push(`**${cell(llmPlanHeadline(plan))}**:`, '', ...plan.needed.map((n) => `- ${cell(n)}`), '');
  } else {
    const c = pointAt(plan, plan.chosen);
    out.push('**Fewest workers meeting every SLO**', '', '| | |', '|---|---|', ...llmChosenFacts(c).map(([k, v]) => `| ${k} | ${cell(v)} |`), ...sloRows(plan, c).map(([s, f, m]) => `| ${cell(s ?? '')} | ${f ?? ''} ${m === 'met' ? '✅' : '❌'} |`), '');
    if (plan.nearMisses.length > 0) out.push('Cheaper, and why each misses:', '', ...llmNearMissLines(plan).map((l) => `- ${cell(l)}`), '');
  }
  const head = ['workers', 'concurrency', 'cost', '$/M out', ...plan.slos.map((s) => `\`${s.text}\``), 'tok/s', ''];
  out.push('Every setting simulated:', '', `| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === head.length - 1 ? '---' : '---:')).join('|')}|`, ...pointRows(plan).map((r) => `| ${r.map(cell).join(' | ')} |`), '');
  return out;
}

// ---------------------------------------------------------------- HTML

/** Per SLO: its figure against the workers, one series per concurrency, the SLO as a reference line. */
export function llmPlanCharts(plan: LlmPlanSection): ChartSpec[] {
  const concurrencies = [...new Set(plan.points.map((p) => p.jobsPerWorker))].sort((a, b) => a - b);
  return plan.slos.map((slo, i) => {
    const series = concurrencies.map((c) =>
      plan.points
        .filter((p) => p.jobsPerWorker === c && !p.overloaded && p.sloFigures[i] !== null && p.sloFigures[i] !== undefined)
        .sort((a, b) => a.workers - b.workers)
        .map((p): [number, number] => [p.workers, p.sloFigures[i] as number]),
    );
    const chosen = plan.chosen === null ? undefined : pointAt(plan, plan.chosen);
    return {
      id: `llm-plan-slo-${i}`,
      title: `${slo.text} against workers`,
      note: `Each line is one per-worker concurrency (settings that cannot decode the offered tokens are not drawn); red dashed: the SLO.${chosen ? ` Chosen: ${describeLlmSetting(chosen)}.` : ' No setting meets every SLO.'}`,
      xLabel: 'warm workers',
      yLabel: `${slo.metric} ${slo.percentile} (ms, log)`,
      xKind: 'linear',
      logY: true,
      series: concurrencies.map((c, k) => ({ name: `concurrency ${c}`, color: PALETTE[k % PALETTE.length] ?? PALETTE[0] })),
      data: alignSeries(series, true),
      refs: [{ label: slo.text, y: slo.thresholdMs }],
    };
  });
}

export interface LlmPlanHtmlParts {
  readonly esc: (s: string | number) => string;
  readonly badge: (status: string, text?: string) => string;
  readonly chartCards: (charts: ChartSpec[]) => string;
}

/** The LLM plan section of the HTML page and the charts it draws. */
export function llmPlanHtml(plan: LlmPlanSection, h: LlmPlanHtmlParts): { html: string; charts: ChartSpec[] } {
  const charts = llmPlanCharts(plan);
  const scope = `<div class="card"><dl class="meta">
<dt>simulated</dt><dd>${h.esc(llmPlanScope(plan))}</dd>
<dt>engine</dt><dd>${h.esc(plan.twin.engine)}</dd>
<dt>grid</dt><dd>${h.esc(`workers ${plan.grid.workers.join(', ')} (bisected per concurrency) · concurrency ${plan.grid.jobsPerWorker.join(', ')}`)}</dd>
<dt>SLOs</dt><dd>${h.esc(plan.slos.map((s) => s.text).join(', '))}</dd>
${plan.budgetPerHourUsd !== undefined ? `<dt>budget</dt><dd>${h.esc(fmtUsdPerHour(plan.budgetPerHourUsd))}</dd>` : ''}
</dl></div>`;
  let answer: string;
  if (plan.chosen === null) {
    answer = `<div class="card" id="llm-plan-answer"><h3>${h.badge('fail', 'none meets')} ${h.esc(llmPlanHeadline(plan))}</h3><ul>${plan.needed.map((n) => `<li>${h.esc(n)}</li>`).join('')}</ul></div>`;
  } else {
    const c = pointAt(plan, plan.chosen);
    const facts = llmChosenFacts(c).map(([k, v]) => `<dt>${h.esc(k)}</dt><dd>${h.esc(v)}</dd>`).join('');
    const slos = sloRows(plan, c).map(([s, f, m]) => `<tr><td class="mono">${h.esc(s ?? '')}</td><td class="num">${h.esc(f ?? '')}</td><td>${h.badge(m === 'met' ? 'pass' : 'fail', m ?? '')}</td></tr>`).join('');
    const misses = llmNearMissLines(plan).map((l) => `<li>${h.esc(l)}</li>`).join('');
    answer = `<div class="card" id="llm-plan-answer"><h3>${h.badge('pass', 'chosen')} ${h.esc(llmPlanHeadline(plan))}</h3><dl class="meta">${facts}</dl>
<table><thead><tr><th>SLO</th><th class="num">figure</th><th></th></tr></thead><tbody>${slos}</tbody></table></div>
${misses ? `<div class="card" id="llm-plan-near-misses"><h3>Cheaper, and why each misses</h3><ul>${misses}</ul></div>` : ''}`;
  }
  const head = `<tr><th class="num">workers</th><th class="num">concurrency</th><th class="num">cost/h</th><th class="num">$/M out</th>${plan.slos.map((s) => `<th class="num">${h.esc(s.text)}</th>`).join('')}<th class="num">tok/s</th><th></th></tr>`;
  const rows = pointRows(plan)
    .map((r) => {
      const status = r[r.length - 1] ?? '';
      const badge = status === 'chosen' ? h.badge('pass', 'chosen') : status === 'meets' ? h.badge('info', 'meets') : status === 'overloaded' ? h.badge('fail', 'overloaded') : status === 'over budget' ? h.badge('warn', 'over budget') : '';
      return `<tr>${r.slice(0, -1).map((x) => `<td class="num">${h.esc(x)}</td>`).join('')}<td>${badge}</td></tr>`;
    })
    .join('');
  const table = `<details class="card"><summary><b>Every setting simulated (${fmtCount(plan.points.length)})</b></summary><table><thead>${head}</thead><tbody>${rows}</tbody></table></details>`;
  return { html: `<h2 id="llm-plan">LLM plan</h2>\n${scope}\n${answer}\n${h.chartCards(charts)}\n${table}`, charts };
}

/** The SLOs as JUnit test cases: met by the chosen setting, or failed with what would be needed. */
export function llmPlanJunitCases(plan: LlmPlanSection): Array<{ name: string; failure?: { message: string; body: string } }> {
  return plan.slos.map((slo) => {
    if (plan.chosen !== null) return { name: slo.text };
    const about = plan.needed.filter((n) => n.includes(slo.text));
    return { name: slo.text, failure: { message: llmPlanHeadline(plan), body: (about.length > 0 ? about : plan.needed).join('\n') } };
  });
}
