// The plan section of a result as each renderer shows it: the cheapest setting meeting every
// SLO (or what would be needed), its latency, cold starts and cost per hour split active / flex
// / idle timeout, the settings just cheaper and why they miss, and the cost frontier per SLO
// (tables here and in markdown, a uPlot chart per SLO in the HTML page).
import { configError } from '../../errors.js';
import type { PlanPoint, PlanSection, PlanSlo } from '../../result/model.js';
import { describePlanSetting, fmtCount, fmtDuration, fmtMs, fmtRatio, fmtSloFigure, fmtUsdPerHour } from './format.js';
import { alignSeries, PALETTE, type ChartSpec } from './html-charts.js';
import { textTable } from './table.js';

/** Frontier rows shown in text before "… and N more". */
const FRONTIER_ROWS = 12;

const pointAt = (plan: PlanSection, k: number): PlanPoint => {
  const p = plan.points[k];
  // A result file read back may name a point its plan does not hold: the schema does not tie the indexes to the points.
  if (p === undefined) throw configError(`plan: no point ${k} (the plan holds ${plan.points.length})`);
  return p;
};

export function planHeadline(plan: PlanSection): string {
  if (plan.chosen === null) return `no setting of ${fmtCount(plan.points.length)} meets ${plan.slos.map((s) => s.text).join(' and ')}${plan.budgetPerHourUsd !== undefined ? ` within ${fmtUsdPerHour(plan.budgetPerHourUsd)}` : ''}`;
  const c = pointAt(plan, plan.chosen);
  return `cheapest setting meeting ${plan.slos.map((s) => s.text).join(' and ')}: ${describePlanSetting(c.setting)} at ${fmtUsdPerHour(c.costPerHourUsd.total)}`;
}

/** What was swept, on what, in one line. */
export function planScope(plan: PlanSection): string {
  const g = plan.grid;
  return `${fmtCount(g.settings)} settings × ${plan.seeds.length} seed${plan.seeds.length === 1 ? '' : 's'} (${fmtCount(plan.sweep.simulations)} simulations on ${plan.sweep.threads} thread${plan.sweep.threads === 1 ? '' : 's'}, ${fmtDuration(plan.sweep.wallMs)}) of ${plan.traffic.description} on the twin ${plan.twin.file} (endpoint ${plan.twin.endpointId}, ${plan.twin.gpuCount}x ${plan.twin.gpuTypeId})`;
}

export const costSplit = (p: PlanPoint): string =>
  `${fmtUsdPerHour(p.costPerHourUsd.total)} (active ${fmtUsdPerHour(p.costPerHourUsd.active)}, flex ${fmtUsdPerHour(p.costPerHourUsd.flex)}, of which idle ${fmtUsdPerHour(p.costPerHourUsd.idle)})`;

const quantiles = (q: PlanPoint['e2e']): string => `${fmtMs(q.p50Ms)} / ${fmtMs(q.p90Ms)} / ${fmtMs(q.p99Ms)}`;

/** SLO rows of a point: the SLO, the figure judged, met or not. */
function sloRows(plan: PlanSection, p: PlanPoint): string[][] {
  const ends = plan.precision?.chosen;
  return plan.slos.map((s, i) => {
    const interval = ends === undefined ? '' : ` (${fmtSloFigure(s, ends.fast[i] ?? null)} .. ${fmtSloFigure(s, ends.slow[i] ?? null)})`;
    return [s.text, `${fmtSloFigure(s, p.sloFigures[i] ?? null)}${interval}`, p.meets[i] === true ? 'met' : 'missed'];
  });
}

/** What the twin's precision does to the answer, in lines: where the intervals come from, then each warning. */
function precisionLines(plan: PlanSection): string[] {
  const pr = plan.precision;
  if (pr === undefined) return [];
  const parts = pr.parts.map((x) => `${x.part}${x.classId !== undefined ? ` (${x.classId})` : ''} x${x.lowFactor.toFixed(2)}..x${x.highFactor.toFixed(2)}`).join(', ');
  return [
    `figures in brackets: the fast .. slow end of the 95% intervals of ${pr.source} (${parts})`,
    ...(pr.warnings.length === 0 ? ['the choice holds at both ends'] : pr.warnings.map((w) => `warning: ${w}`)),
  ];
}

/** The chosen point's figures as label/value pairs, for every renderer. */
export function chosenFacts(p: PlanPoint): Array<[string, string]> {
  return [
    ['setting', describePlanSetting(p.setting)],
    ['cost', costSplit(p)],
    ['e2e p50 / p90 / p99', quantiles(p.e2e)],
    ['delay p50 / p90 / p99', quantiles(p.delay)],
    ['cold starts', `${p.coldStartsPerHour.toFixed(1)}/h; ${fmtRatio(p.coldStartJobShare)} of jobs met one`],
    ['peak workers', String(p.peakWorkers)],
  ];
}

/** One near miss in words: its cost, setting, and each SLO missed with why. */
export function nearMissLines(plan: PlanSection): string[] {
  return plan.nearMisses.map((m) => {
    const p = pointAt(plan, m.point);
    const misses = m.misses.map((x) => {
      const slo = plan.slos[x.slo] as PlanSlo;
      return `${slo.text} at ${fmtSloFigure(slo, x.observed)} (${x.cause}: ${x.explanation})`;
    });
    return `${fmtUsdPerHour(p.costPerHourUsd.total)} ${describePlanSetting(p.setting)} [${m.differs}]: misses ${misses.join('; ')}`;
  });
}

/** The frontier of one SLO as rows: cost, figure, setting, meets. */
function frontierRows(plan: PlanSection, i: number): string[][] {
  const slo = plan.slos[i] as PlanSlo;
  return (plan.frontiers[i] ?? []).map((k) => {
    const p = pointAt(plan, k);
    return [fmtUsdPerHour(p.costPerHourUsd.total), fmtSloFigure(slo, p.sloFigures[i] ?? null), describePlanSetting(p.setting), p.meets[i] === true ? 'met' : '', k === plan.chosen ? 'chosen' : ''];
  });
}

// ---------------------------------------------------------------- console

export function planConsoleLines(plan: PlanSection, bold: (s: string) => string): string[] {
  const out: string[] = [bold('Plan'), `  ${planScope(plan)}`, `  SLOs: ${plan.slos.map((s) => s.text).join(', ')} (each judged on the worst seed)${plan.budgetPerHourUsd !== undefined ? `; budget ${fmtUsdPerHour(plan.budgetPerHourUsd)}` : ''}`, ''];
  if (plan.chosen === null) {
    out.push(`  ${planHeadline(plan)}:`, ...plan.needed.map((n) => `  - ${n}`), '');
  } else {
    const c = pointAt(plan, plan.chosen);
    out.push('  Cheapest setting meeting every SLO:', ...chosenFacts(c).map(([k, v]) => `    ${k.padEnd(22)}${v}`), '');
    out.push(textTable([{ header: 'SLO' }, { header: 'figure', align: 'right' }, { header: '' }], sloRows(plan, c), '    '), '');
    if (plan.precision !== undefined) out.push(...precisionLines(plan).map((l) => `    ${l}`), '');
    if (plan.nearMisses.length > 0) out.push('  Just cheaper, and why each misses:', ...nearMissLines(plan).map((l) => `  - ${l}`), '');
  }
  plan.slos.forEach((s, i) => {
    const rows = frontierRows(plan, i);
    out.push(`  Cost frontier of ${s.text} (no cheaper setting does better):`);
    out.push(textTable([{ header: 'cost', align: 'right' }, { header: 'figure', align: 'right' }, { header: 'setting' }, { header: '' }, { header: '' }], rows.slice(0, FRONTIER_ROWS), '    '));
    if (rows.length > FRONTIER_ROWS) out.push(`    … and ${rows.length - FRONTIER_ROWS} more (see the HTML report)`);
    out.push('');
  });
  return out;
}

// ---------------------------------------------------------------- markdown

export function planMarkdownLines(plan: PlanSection, cell: (s: string) => string): string[] {
  const out: string[] = ['### Plan', '', cell(planScope(plan)), '', `SLOs: ${plan.slos.map((s) => `\`${s.text}\``).join(', ')}, each judged on the worst seed${plan.budgetPerHourUsd !== undefined ? `; budget ${fmtUsdPerHour(plan.budgetPerHourUsd)}` : ''}.`, ''];
  if (plan.chosen === null) {
    out.push(`**${cell(planHeadline(plan))}**:`, '', ...plan.needed.map((n) => `- ${cell(n)}`), '');
  } else {
    const c = pointAt(plan, plan.chosen);
    out.push('**Cheapest setting meeting every SLO**', '', '| | |', '|---|---|', ...chosenFacts(c).map(([k, v]) => `| ${k} | ${cell(v)} |`), ...sloRows(plan, c).map(([s, f, m]) => `| ${cell(s ?? '')} | ${f ?? ''} ${m === 'met' ? '✅' : '❌'} |`), '');
    if (plan.precision !== undefined) out.push(...precisionLines(plan).map((l) => `- ${cell(l)}`), '');
    if (plan.nearMisses.length > 0) out.push('Just cheaper, and why each misses:', '', ...nearMissLines(plan).map((l) => `- ${cell(l)}`), '');
  }
  plan.slos.forEach((s, i) => {
    const rows = frontierRows(plan, i);
    out.push(`Cost frontier of \`${s.text}\`:`, '', '| cost | figure | setting | |', '|---:|---:|---|---|', ...rows.slice(0, FRONTIER_ROWS).map((r) => `| ${r[0]} | ${r[1]} | ${cell(r[2] ?? '')} | ${[r[3], r[4]].filter(Boolean).join(', ')} |`), '');
  });
  return out;
}

// ---------------------------------------------------------------- HTML

/** An SLO figure as the chart draws it: ms, or a share in percent. */
const chartValue = (slo: PlanSlo, v: number): number => (slo.kind === 'latency' ? v : v * 100);

/** A latency chart's top: this many times the SLO. Overloaded settings (minutes of queue against seconds) sit on that edge, counted in the note. */
export const CHART_CLIP_X_SLO = 20;

/** Per SLO: every setting as a point (cost, figure), the frontier as a line, the chosen point, the SLO as a reference line. */
export function planCharts(plan: PlanSection): ChartSpec[] {
  return plan.slos.map((slo, i) => {
    const threshold = slo.kind === 'latency' ? slo.thresholdMs : slo.maxShare * 100;
    // Latency on a log axis up to a multiple of the SLO, so the settings near it are told apart.
    const top = slo.kind === 'latency' ? CHART_CLIP_X_SLO * threshold : Number.POSITIVE_INFINITY;
    let clipped = 0;
    let highest = 0;
    const y = (v: number): number => {
      const c = chartValue(slo, v);
      highest = Math.max(highest, c);
      return Math.min(c, top);
    };
    const all: Array<[number, number]> = [];
    plan.points.forEach((p) => {
      const v = p.sloFigures[i];
      if (v === null || v === undefined) return;
      if (chartValue(slo, v) > top) clipped += 1;
      all.push([p.costPerHourUsd.total, y(v)]);
    });
    const front: Array<[number, number]> = (plan.frontiers[i] ?? []).map((k) => {
      const p = pointAt(plan, k);
      return [p.costPerHourUsd.total, y(p.sloFigures[i] ?? 0)];
    });
    const chosen = plan.chosen === null ? undefined : pointAt(plan, plan.chosen);
    const chosenFigure = chosen?.sloFigures[i];
    const chosenPoint: Array<[number, number]> = chosen && chosenFigure !== null && chosenFigure !== undefined ? [[chosen.costPerHourUsd.total, y(chosenFigure)]] : [];
    const offChart = clipped > 0 ? ` ${clipped} setting(s) above ${CHART_CLIP_X_SLO}x the SLO (up to ${fmtDuration(highest)}) are drawn on the top edge.` : '';
    const series: ChartSpec['series'] = [
      { name: 'every setting', color: PALETTE[5], pointsOnly: true },
      { name: 'frontier', color: PALETTE[0] },
      { name: 'chosen', color: PALETTE[1], pointsOnly: true },
    ];
    return {
      id: `plan-frontier-${i}`,
      title: `Cost against ${slo.text}`,
      note: `Each dot is one setting (its worst seed); the line joins the settings no cheaper one beats; red dashed: the SLO.${chosen ? ` Chosen: ${describePlanSetting(chosen.setting)}.` : ' No setting meets every SLO.'}${offChart}`,
      xLabel: 'cost ($ per hour)',
      yLabel: slo.kind === 'latency' ? `${slo.metric} p${slo.percentile} (ms, log)` : 'jobs that met a cold start (%)',
      xKind: 'linear',
      logY: slo.kind === 'latency',
      series,
      data: alignSeries([all, front, chosenPoint], slo.kind === 'latency'),
      refs: [{ label: slo.text, y: threshold }],
    };
  });
}

export interface PlanHtmlParts {
  readonly esc: (s: string | number) => string;
  readonly badge: (status: string, text?: string) => string;
  readonly chartCards: (charts: ChartSpec[]) => string;
}

function pointsTable(plan: PlanSection, h: PlanHtmlParts): string {
  const head = `<tr><th class="num">cost/h</th><th>setting</th>${plan.slos.map((s) => `<th class="num">${h.esc(s.text)}</th>`).join('')}<th class="num">e2e p99</th><th class="num">delay p99</th><th class="num">cold starts/h</th><th></th></tr>`;
  const order = plan.points.map((_, k) => k).sort((a, b) => pointAt(plan, a).costPerHourUsd.total - pointAt(plan, b).costPerHourUsd.total || a - b);
  const rows = order
    .map((k) => {
      const p = pointAt(plan, k);
      const ok = p.meets.every(Boolean) && p.withinBudget;
      const status = k === plan.chosen ? h.badge('pass', 'chosen') : ok ? h.badge('info', 'meets') : !p.withinBudget && p.meets.every(Boolean) ? h.badge('warn', 'over budget') : '';
      return `<tr><td class="num">${h.esc(fmtUsdPerHour(p.costPerHourUsd.total))}</td><td class="mono small">${h.esc(describePlanSetting(p.setting))}</td>${plan.slos.map((s, i) => `<td class="num"${p.meets[i] === true ? '' : ' style="color:var(--fail)"'}>${h.esc(fmtSloFigure(s, p.sloFigures[i] ?? null))}</td>`).join('')}<td class="num">${h.esc(fmtMs(p.e2e.p99Ms))}</td><td class="num">${h.esc(fmtMs(p.delay.p99Ms))}</td><td class="num">${p.coldStartsPerHour.toFixed(1)}</td><td>${status}</td></tr>`;
    })
    .join('');
  return `<details class="card"><summary><b>Every setting (${fmtCount(plan.points.length)})</b>, cheapest first</summary><table><thead>${head}</thead><tbody>${rows}</tbody></table></details>`;
}

/** The plan section of the HTML page and the charts it draws. */
export function planHtml(plan: PlanSection, h: PlanHtmlParts): { html: string; charts: ChartSpec[] } {
  const charts = planCharts(plan);
  const g = plan.grid;
  const axes = `workersMin ${g.workersMin.join(', ')} · workersMax ${g.workersMax.join(', ')} · idle timeout ${g.idleTimeoutS.join(', ')} s · ${g.scalerType.map((t) => `${t} ${g.scalerValue[t].join(', ')}`).join(' · ')}`;
  const scope = `<div class="card"><dl class="meta">
<dt>swept</dt><dd>${h.esc(planScope(plan))}</dd>
<dt>grid</dt><dd>${h.esc(`${axes}; ${g.skippedInvalid} combinations left out with workersMin above workersMax, ${g.skippedEquivalent} as equivalent (workersMin = workersMax: every worker stays up)`)}</dd>
<dt>SLOs</dt><dd>${h.esc(`${plan.slos.map((s) => s.text).join(', ')}, each judged on the worst of the seeds ${plan.seeds.join(', ')}`)}</dd>
${plan.budgetPerHourUsd !== undefined ? `<dt>budget</dt><dd>${h.esc(fmtUsdPerHour(plan.budgetPerHourUsd))}</dd>` : ''}
<dt>prices</dt><dd>${h.esc(`flex $${plan.twin.flexPerS}/s, active $${plan.twin.activePerS}/s per GPU (${plan.twin.priceSource})`)}</dd>
<dt>twin's own setting</dt><dd>${h.esc(plan.twin.settings)}</dd>
</dl></div>`;
  let answer: string;
  if (plan.chosen === null) {
    answer = `<div class="card" id="plan-answer"><h3>${h.badge('fail', 'none meets')} ${h.esc(planHeadline(plan))}</h3><ul>${plan.needed.map((n) => `<li>${h.esc(n)}</li>`).join('')}</ul></div>`;
  } else {
    const c = pointAt(plan, plan.chosen);
    const facts = chosenFacts(c).map(([k, v]) => `<dt>${h.esc(k)}</dt><dd>${h.esc(v)}</dd>`).join('');
    const slos = sloRows(plan, c).map(([s, f, m]) => `<tr><td class="mono">${h.esc(s ?? '')}</td><td class="num">${h.esc(f ?? '')}</td><td>${h.badge(m === 'met' ? 'pass' : 'fail', m ?? '')}</td></tr>`).join('');
    const misses = plan.nearMisses
      .map((m) => {
        const p = pointAt(plan, m.point);
        return m.misses
          .map((x, j) => {
            const slo = plan.slos[x.slo] as PlanSlo;
            return `<tr${j === 0 ? ' class="group-start"' : ''}><td class="num">${j === 0 ? h.esc(fmtUsdPerHour(p.costPerHourUsd.total)) : ''}</td><td class="small">${j === 0 ? h.esc(`${describePlanSetting(p.setting)} (${m.differs})`) : ''}</td><td class="mono">${h.esc(slo.text)}</td><td class="num">${h.esc(fmtSloFigure(slo, x.observed))}</td><td>${h.badge(x.cause === 'execution' ? 'warn' : 'fail', x.cause)}</td><td class="small">${h.esc(x.explanation)}</td></tr>`;
          })
          .join('');
      })
      .join('');
    answer = `<div class="card" id="plan-answer"><h3>${h.badge('pass', 'chosen')} ${h.esc(planHeadline(plan))}</h3><dl class="meta">${facts}</dl>
<table><thead><tr><th>SLO</th><th class="num">figure (worst seed)</th><th></th></tr></thead><tbody>${slos}</tbody></table>${plan.precision !== undefined ? `<ul class="small" id="plan-precision">${precisionLines(plan).map((l) => `<li>${l.startsWith('warning: ') ? `${h.badge('warn', 'warning')} ${h.esc(l.slice('warning: '.length))}` : h.esc(l)}</li>`).join('')}</ul>` : ''}</div>
${misses ? `<div class="card" id="plan-near-misses"><h3>Just cheaper, and why each misses</h3><table><thead><tr><th class="num">cost/h</th><th>setting</th><th>SLO</th><th class="num">figure</th><th>cause</th><th>why</th></tr></thead><tbody>${misses}</tbody></table></div>` : ''}`;
  }
  const frontierTables = plan.slos
    .map((s, i) => `<h4>Frontier of ${h.esc(s.text)}</h4><table><thead><tr><th class="num">cost/h</th><th class="num">figure</th><th>setting</th><th></th></tr></thead><tbody>${frontierRows(plan, i)
      .map((r) => `<tr><td class="num">${h.esc(r[0] ?? '')}</td><td class="num">${h.esc(r[1] ?? '')}</td><td class="mono small">${h.esc(r[2] ?? '')}</td><td>${r[4] ? h.badge('pass', 'chosen') : r[3] ? h.badge('info', 'meets') : ''}</td></tr>`)
      .join('')}</tbody></table>`)
    .join('');
  const html = `<h2 id="plan">Plan</h2>
${scope}
${answer}
${h.chartCards(charts)}
<div class="card">${frontierTables}</div>
${pointsTable(plan, h)}`;
  return { html, charts };
}
