// The single-file HTML report: the overall verdict first, the conformance matrix by
// spec section with failures expanded (expected vs observed, exchanges, curl), per load scenario
// validity in plain words, findings, thresholds, status codes and uPlot charts, then fuzz findings.
// Scripts, styles and data are inlined: opening the file makes no network request.
import { redactSecrets } from '../../errors.js';
import type { QbenchComparison } from '../../result/compare-model.js';
import type { CheckResult, FuzzProperty, HttpExchange, LoadScenarioResult, QbenchResult, StepResult, TargetInfo } from '../../result/model.js';
import { SCHEMA_VERSION } from '../../result/model.js';
import { checkFailsRun, findingOutcome } from '../../result/overall.js';
import { checkRerunCommand, exchangeText, fuzzReplayCommand } from './evidence.js';
import { changeUnit, compareSections, comparisonUnits, costLine, fmtChange, fmtCount, fmtDuration, fmtMetricValue, fmtMs, fmtRate, fmtRatio, presenceNote, scenarioTotals, topSection, validityWarnings } from './format.js';
import { PAGE_CSS, PAGE_SCRIPT, uplotAssets } from './html-assets.js';
import { PALETTE, scenarioCharts, type ChartSpec } from './html-charts.js';
import { llmHtml } from './llm.js';
import { llmPlanHtml } from './llm-plan.js';
import { planHtml } from './plan.js';
import { clauseHref } from '../../docs/spec-doc.js';

/** Escape text for HTML (and scrub secrets on the way). */
export function esc(s: string | number): string {
  return redactSecrets(String(s)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export const badge = (status: string, text = status): string => `<span class="badge b-${esc(status)}">${esc(text)}</span>`;

/** JSON inside <script type="application/json">: no "<" can close the element early. */
const inlineJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/** One self-contained page: uPlot, the stylesheet, the charts' data and the script that draws them, all inlined. */
export function page(title: string, body: string, charts: ChartSpec[]): string {
  const { js, css } = uplotAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${css}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
<main>
${body}
</main>
<script type="application/json" id="qbench-data">${inlineJson({ charts })}</script>
<script>${js}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}


/** A clause's section as a link to its anchor in the contract this package ships (docs/spec.md). */
function clauseLink(section: string): string {
  return `<a href="${esc(clauseHref(section))}">${esc(section)}</a>`;
}
function verdictBlock(status: string, exitCode: number, headline: string, reasons: readonly string[]): string {
  const shown = reasons.slice(0, 12);
  const more = reasons.length - shown.length;
  return `<section class="verdict ${esc(status)}" id="verdict">
  <div class="big">${esc(status.toUpperCase())} <span class="small">exit ${esc(exitCode)}</span></div>
  <div>${esc(headline)}</div>
  ${shown.length > 0 ? `<ul>${shown.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''}
  ${more > 0 ? `<details><summary>${more} more</summary><ul>${reasons.slice(12).map((r) => `<li>${esc(r)}</li>`).join('')}</ul></details>` : ''}
</section>`;
}

function metaBlock(r: QbenchResult): string {
  const m = r.meta;
  const t = m.target;
  const rows: Array<[string, string]> = [
    ['target', `${t.kind} · ${t.queueUrl} · endpoint ${t.endpointId}${t.restUrl ? ` · REST ${t.restUrl}` : ''}${t.graphqlUrl ? ` · GraphQL ${t.graphqlUrl}` : ''}`],
    ['time scale', t.kind === 'simulation' ? 'virtual clock: every setting simulated, no request sent' : `${t.timeScale === 1 ? 'real time' : `×${t.timeScale} (emulated time runs ${t.timeScale} times faster)`}${t.rateWindowRealMs !== undefined ? `; §8 rate windows last ${fmtDuration(t.rateWindowRealMs)} of real time` : ''}`],
    ['started', `${m.startedAt} (${fmtDuration(m.durationMs)})`],
    ['command', m.command.join(' ')],
    ['machine', `${m.machine.hostname} · ${m.machine.platform}/${m.machine.arch} · ${m.machine.cpus} × ${m.machine.cpuModel} · ${(m.machine.memoryBytes / 2 ** 30).toFixed(1)} GiB · Node ${m.machine.nodeVersion}`],
    ['qbench', `${m.qbenchVersion} · result schema ${r.schemaVersion}`],
  ];
  if (t.faults && t.faults.length > 0) rows.push(['faults on', t.faults.join(', ')]);
  for (const [k, v] of Object.entries(m.labels ?? {})) rows.push([k, v]);
  return `<dl class="meta">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

function exchangeBlock(x: HttpExchange): string {
  return `<pre>${esc(exchangeText(x))}</pre>`;
}

function curlBlock(curl: string): string {
  return `<pre class="curl"><button class="copy" type="button">copy</button><code>${esc(curl)}</code></pre>`;
}

function checkStatus(c: CheckResult): string {
  if (c.kind === 'compat' && c.verdict.status === 'fail') return 'compat';
  return c.verdict.status;
}

function checkRow(c: CheckResult): string {
  const v = c.verdict;
  const note =
    v.status === 'pass' ? (v.observed ?? '') : v.status === 'skip' || v.status === 'inconclusive' ? v.reason : v.status === 'error' ? v.message : `expected ${v.expected}; observed ${v.observed}`;
  const exp = c.expectation ? ` ${badge(c.expectation.matched ? 'info' : 'fail', c.expectation.matched ? `expected ${c.expectation.expected}` : `expectation: ${c.expectation.expected}`)}` : '';
  return `<tr><td>${badge(checkStatus(c))}${exp}</td><td class="mono">${esc(c.id)}</td><td>${esc(c.title)}<div class="small muted">“${esc(c.clause.quote)}”</div></td><td class="small">${esc(c.interface)}${c.kind === 'compat' ? ' · compat' : ''}</td><td class="small">${esc(note)}</td><td class="num">${esc(fmtMs(c.durationMs))}</td></tr>`;
}

function failureDetails(c: CheckResult, target: TargetInfo): string {
  const v = c.verdict;
  const head = `<summary>${badge(checkStatus(c))} <b>${esc(c.clause.section)}</b> <span class="mono">${esc(c.id)}</span>: ${esc(c.title)}</summary>`;
  const quote = `<p class="small">Rule (${clauseLink(c.clause.section)}): “${esc(c.clause.quote)}”</p>`;
  if (v.status === 'fail') {
    return `<details class="fail" open>${head}${quote}
<dl class="evidence"><dt>expected</dt><dd>${esc(v.expected)}</dd><dt>observed</dt><dd>${esc(v.observed)}</dd></dl>
<h4>reproduce</h4>${curlBlock(v.curl)}<p class="small">Run this check again: <code>${esc(checkRerunCommand(c, target))}</code></p>
${v.exchanges.length > 0 ? `<h4>exchanges (${v.exchanges.length})</h4>${v.exchanges.map(exchangeBlock).join('')}` : ''}
${c.expectation && !c.expectation.matched ? `<p>The expectation file said <b>${esc(c.expectation.expected)}</b>: ${esc(c.expectation.reason)}</p>` : ''}</details>`;
  }
  if (v.status === 'error') return `<details class="fail" open>${head}${quote}<p>The check itself errored: ${esc(v.message)}</p>${v.stack ? `<pre>${esc(v.stack)}</pre>` : ''}</details>`;
  return `<details class="fail" open>${head}${quote}<p>Verdict ${esc(v.status)}, but the expectation file said <b>${esc(c.expectation?.expected ?? '?')}</b>: ${esc(c.expectation?.reason ?? '')}. Update the expectation file if the target changed.</p></details>`;
}

function conformanceSection(r: QbenchResult): string {
  const c = r.conformance;
  if (!c) return '';
  const s = c.summary;
  const bySection = new Map<string, CheckResult[]>();
  for (const ch of c.checks) bySection.set(ch.clause.section, [...(bySection.get(ch.clause.section) ?? []), ch]);
  const sections = [...bySection.keys()].sort(compareSections);
  const matrix = sections
    .map((sec) => {
      const checks = bySection.get(sec) ?? [];
      const n = (st: string) => checks.filter((x) => x.verdict.status === st).length;
      const fails = n('fail') + n('error');
      return `<tr><td><a href="#sec-${esc(sec.replace(/[^\w.-]/g, '_'))}"><b>${esc(sec)}</b></a></td><td><div class="tiles">${checks
        .map((x) => `<span class="tile t-${esc(checkStatus(x))}" title="${esc(`${x.id}: ${x.verdict.status}`)}"></span>`)
        .join('')}</div></td><td class="num">${checks.length}</td><td class="num">${n('pass')}</td><td class="num">${fails > 0 ? `<b style="color:var(--fail)">${fails}</b>` : '0'}</td><td class="num">${n('skip')}</td><td class="num">${n('inconclusive')}</td></tr>`;
    })
    .join('');
  const failing = c.checks.filter((x) => checkFailsRun(x) || (x.kind === 'compat' && x.verdict.status === 'fail'));
  const groups = sections
    .map((sec) => {
      const checks = bySection.get(sec) ?? [];
      return `<h4 id="sec-${esc(sec.replace(/[^\w.-]/g, '_'))}">${esc(sec)} <span class="muted">(${esc(topSection(sec))})</span></h4>
<table><thead><tr><th>verdict</th><th>check</th><th>rule</th><th>interface</th><th>detail</th><th class="num">time</th></tr></thead><tbody>${checks.map(checkRow).join('')}</tbody></table>`;
    })
    .join('');
  const uncovered = c.coverage.filter((x) => x.checkIds.length === 0);
  return `<h2 id="conformance">Conformance <span class="muted small">profile ${esc(c.profile)}</span></h2>
<p>${badge('pass', `${s.pass} pass`)} ${badge(s.fail > 0 ? 'fail' : 'skip', `${s.fail} fail`)} ${badge('skip', `${s.skip} skip`)} ${badge(s.error > 0 ? 'error' : 'skip', `${s.error} error`)}${s.inconclusive ? ` ${badge('inconclusive', `${s.inconclusive} inconclusive`)}` : ''}${s.expectedFailures ? ` ${badge('info', `${s.expectedFailures} expected failures`)}` : ''}${s.unexpectedPasses ? ` ${badge('fail', `${s.unexpectedPasses} unexpected passes`)}` : ''}</p>
<div class="card"><h3>Matrix by spec section</h3><table><thead><tr><th>section</th><th>checks</th><th class="num">total</th><th class="num">pass</th><th class="num">fail</th><th class="num">skip</th><th class="num">inconclusive</th></tr></thead><tbody>${matrix}</tbody></table>
<p class="small muted">Green: pass · red: fail or error · grey: skipped · blue: WIRE-COMPAT finding (never a spec failure).</p></div>
${failing.length > 0 ? `<div class="card"><h3>Failures (${failing.length})</h3>${failing.map((x) => failureDetails(x, r.meta.target)).join('')}</div>` : ''}
<details class="card"><summary><b>All checks (${c.checks.length})</b></summary>${groups}</details>
${c.coverage.length > 0 ? `<details class="card"><summary><b>Coverage</b>: ${c.coverage.length - uncovered.length} of ${c.coverage.length} clauses have a check</summary><table><thead><tr><th>section</th><th>clause</th><th>checks</th></tr></thead><tbody>${c.coverage
    .map((x) => `<tr><td>${clauseLink(x.section)}</td><td>${esc(x.clause)}</td><td class="small">${x.checkIds.length > 0 ? esc(x.checkIds.join(', ')) : `<span class="muted">not covered${x.uncoveredReason ? `: ${esc(x.uncoveredReason)}` : ''}</span>`}</td></tr>`)
    .join('')}</tbody></table></details>` : ''}`;
}

function stepsTable(s: LoadScenarioResult): string {
  const row = (st: StepResult) => {
    const p = st.latency.percentiles;
    const q = st.serviceTime.percentiles;
    const total = st.counts['2xx'] + st.counts['429'] + st.counts['4xx'] + st.counts['5xx'] + st.counts.network_error;
    return `<tr><td class="mono">${esc(st.step)}</td><td class="num">${fmtCount(total)}</td><td class="num">${fmtCount(st.counts['2xx'])}</td><td class="num">${fmtCount(st.counts['429'])}</td><td class="num">${fmtCount(st.counts['4xx'])}</td><td class="num">${fmtCount(st.counts['5xx'])}</td><td class="num">${fmtCount(st.counts.network_error)}</td>
<td class="num">${fmtMs(p.p50)}</td><td class="num">${fmtMs(p.p90)}</td><td class="num">${fmtMs(p.p99)}</td><td class="num">${fmtMs(p.p999)}</td><td class="num">${fmtMs(p.max)}</td><td class="num muted">${fmtMs(q.p50)} / ${fmtMs(q.p99)}</td>
${st.attempts ? `<td class="num small">max ${st.attempts.maxAttempts} tries, ${st.attempts.gaveUp} gave up; e2e p99 ${fmtMs(st.attempts.endToEnd.percentiles.p99)}</td>` : '<td class="muted small">–</td>'}</tr>`;
  };
  return `<table><thead><tr><th>step</th><th class="num">requests</th><th class="num">2xx</th><th class="num">429</th><th class="num">4xx</th><th class="num">5xx</th><th class="num">net err</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">p99.9</th><th class="num">max</th><th class="num">service p50 / p99</th><th>429 backoff</th></tr></thead><tbody>${s.steps.map(row).join('')}</tbody></table>
<p class="small muted">Latency is measured from each request's intended start (corrected for coordinated omission); service time from the actual send.</p>`;
}

function statusCodes(s: LoadScenarioResult): string {
  const rows: string[] = [];
  for (const st of s.steps) {
    const entries = Object.entries(st.statusCodes).sort((a, b) => b[1] - a[1]);
    const total = entries.reduce((a, [, n]) => a + n, 0) + st.counts.network_error;
    if (total === 0) continue;
    const all: Array<[string, number]> = st.counts.network_error > 0 ? [...entries, ['no answer', st.counts.network_error]] : entries;
    for (const [code, n] of all) {
      const col = code.startsWith('2') ? 'var(--pass)' : code === '429' ? '#ff7f0e' : code.startsWith('4') ? '#9467bd' : 'var(--fail)';
      const pct = (n / total) * 100;
      rows.push(`<tr><td class="mono">${esc(st.step)}</td><td class="mono">${esc(code)}</td><td class="num">${fmtCount(n)}</td><td class="num">${fmtRatio(n / total)}</td><td style="width:45%"><span class="bar" style="width:${Math.max(0.5, pct).toFixed(2)}%;background:${col}"></span></td></tr>`);
    }
  }
  if (rows.length === 0) return '';
  return `<h4>HTTP status codes</h4><table><thead><tr><th>step</th><th>status</th><th class="num">count</th><th class="num">share</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function chartCards(charts: ChartSpec[]): string {
  if (charts.length === 0) return '';
  return `<div class="charts">${charts
    .map((c) => `<div class="chart-card"><h3>${esc(c.title)}</h3>${c.note ? `<div class="note">${esc(c.note)}</div>` : ''}<div class="chart" id="${esc(c.id)}" role="img" aria-label="${esc(c.title)}"></div></div>`)
    .join('')}</div>`;
}

function scenarioSection(s: LoadScenarioResult, charts: ChartSpec[], strict: boolean): string {
  const t = scenarioTotals(s);
  const warnings = validityWarnings(s.validity);
  const v = s.validity;
  return `<div class="card" id="scenario-${esc(s.name)}">
<div class="scenario-head"><h3>${esc(s.name)} ${badge(s.verdict.status)}</h3><span class="muted small">${esc(s.executor)} · ${esc(fmtDuration(s.durationMs))} · started ${esc(s.startedAt)}${s.shards ? ` · ${s.shards} shards merged` : ''}</span></div>
<p>${esc(s.description)}</p>
<p><b>${esc(s.verdict.summary)}</b> · ${fmtCount(t.total)} requests · ${esc(fmtRate(v.achievedRatePerSec))} achieved${v.targetRatePerSec !== undefined ? ` of ${esc(fmtRate(v.targetRatePerSec))} asked` : ''} · 429: ${fmtRatio(t.total ? t['429'] / t.total : null)} · errors: ${fmtRatio(t.total ? (t['4xx'] + t['5xx'] + t.network_error) / t.total : null)}</p>
${s.verdict.status === 'inconclusive' ? `<div class="warnings"><b>Inconclusive</b>: the scenario could not set up what it judges, so it neither passed nor found a violation; ${strict ? 'this run was judged with --strict, so it fails the run' : 'it does not fail the run (--strict makes it fail)'}. Findings marked precondition say what was not reached.</div>` : ''}
${warnings.length > 0 ? `<div class="warnings"><b>Generator validity</b><ul>${warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></div>` : `<p class="small muted">Generator validity: kept up (send lateness p99 ${fmtMs(v.sendLateness.percentiles.p99)}, event-loop delay p99 ${fmtMs(v.eventLoopDelayMs.p99)}, ${v.droppedIterations} dropped, CPU ${Math.round(v.generatorCpuPercent)}%, ${v.threads} thread${v.threads === 1 ? '' : 's'}).</p>`}
${v.warmup ? `<p class="small muted">Warm-up before the schedule (not recorded): ${v.warmup.connectionsOpened} connection${v.warmup.connectionsOpened === 1 ? '' : 's'} opened in ${fmtMs(v.warmup.connectMs)}${v.warmup.localIterations > 0 ? `; ${fmtCount(v.warmup.localIterations)} rehearsal iterations against a local sink in ${fmtMs(v.warmup.localMs)} (none reached the target)` : ''}.</p>` : ''}
${s.verdict.findings.length > 0 ? `<h4>Findings against documented values</h4><table><thead><tr><th></th><th>finding</th><th>clause</th><th>expected</th><th>observed</th></tr></thead><tbody>${s.verdict.findings
    .map((f) => `<tr><td>${badge(findingOutcome(f, s.verdict.status))}${f.precondition === true ? '<div class="small muted">precondition</div>' : ''}</td><td>${esc(f.label)}</td><td>${esc(f.clause ?? '')}</td><td>${esc(f.expected)}</td><td>${esc(f.observed)}</td></tr>`)
    .join('')}</tbody></table>` : ''}
${s.thresholds.length > 0 ? `<h4>Thresholds</h4><table><thead><tr><th></th><th>metric</th><th>threshold</th><th class="num">observed</th><th></th></tr></thead><tbody>${s.thresholds
    .map((x) => `<tr><td>${badge(x.passed ? 'pass' : 'fail')}</td><td class="mono">${esc(x.metric)}</td><td class="mono">${esc(x.expression)}</td><td class="num">${x.observed === null ? 'no data' : esc(Number(x.observed.toPrecision(6)))}</td><td class="small muted">${x.abortOnFail ? 'aborts the run' : ''}</td></tr>`)
    .join('')}</tbody></table>` : ''}
<h4>Steps</h4>${stepsTable(s)}
${statusCodes(s)}
${chartCards(charts)}
</div>`;
}

function fuzzSection(r: QbenchResult): string {
  const f = r.fuzz;
  if (!f) return '';
  const row = (p: FuzzProperty) =>
    `<tr><td>${badge(p.status)}</td><td>${esc(p.name)}</td><td>${clauseLink(p.clause.section)}<div class="small muted">“${esc(p.clause.quote)}”</div></td><td>${esc(p.kind)}</td><td class="num">${fmtCount(p.runs)}</td><td class="num">${esc(fmtDuration(p.durationMs))}</td></tr>`;
  const findings = f.properties
    .filter((p) => p.status !== 'pass')
    .map((p) => {
      const x = p.finding;
      const head = `<summary>${badge(p.status)} <b>${esc(p.clause.section)}</b> ${esc(p.name)}</summary>`;
      if (!x) return `<details class="fail" open>${head}<p>${esc(p.error ?? 'failed without a recorded counterexample')}</p></details>`;
      return `<details class="fail" open>${head}
<dl class="evidence"><dt>expected</dt><dd>${esc(x.expected)}</dd><dt>observed</dt><dd>${esc(x.observed)}</dd><dt>counterexample</dt><dd class="mono">${esc(x.counterexample)}</dd><dt>replay</dt><dd class="mono">${esc(fuzzReplayCommand(p, r.meta.target) ?? `seed ${x.seed}, path ${x.path}`)}</dd></dl>
${x.curl ? `<h4>reproduce</h4>${curlBlock(x.curl)}` : ''}${x.exchanges.length > 0 ? `<h4>exchanges</h4>${x.exchanges.map(exchangeBlock).join('')}` : ''}</details>`;
    })
    .join('');
  return `<h2 id="fuzz">Fuzz <span class="muted small">seed ${esc(f.seed)} · ${fmtCount(f.numRuns)} runs per property · ${esc(fmtDuration(f.durationMs))}</span></h2>
${findings ? `<div class="card"><h3>Findings</h3>${findings}</div>` : ''}
<table><thead><tr><th></th><th>property</th><th>clause</th><th>kind</th><th class="num">runs</th><th class="num">time</th></tr></thead><tbody>${f.properties.map(row).join('')}</tbody></table>`;
}

/** Render a result as one self-contained HTML page. */
export function renderHtml(r: QbenchResult): string {
  const charts: ChartSpec[] = [];
  const scenarios = (r.load?.scenarios ?? []).map((s, i) => {
    const cs = scenarioCharts(s, i, r.meta.target.rateWindowRealMs);
    charts.push(...cs);
    return scenarioSection(s, cs, r.overall.strict === true);
  });
  const toc = [
    r.conformance ? '<a href="#conformance">Conformance</a>' : '',
    r.load ? '<a href="#load">Load</a>' : '',
    ...(r.load?.scenarios ?? []).map((s) => `<a href="#scenario-${esc(s.name)}">${esc(s.name)}</a>`),
    r.fuzz ? '<a href="#fuzz">Fuzz</a>' : '',
    r.plan ? '<a href="#plan">Plan</a>' : '',
    r.llm ? '<a href="#llm">LLM</a>' : '',
    r.llmPlan ? '<a href="#llm-plan">LLM plan</a>' : '',
  ].filter(Boolean);
  const plan = r.plan ? planHtml(r.plan, { esc, badge, chartCards }) : undefined;
  if (plan) charts.push(...plan.charts);
  const llm = r.llm ? llmHtml(r.llm, { esc, badge, chartCards }) : undefined;
  if (llm) charts.push(...llm.charts);
  const llmPlan = r.llmPlan ? llmPlanHtml(r.llmPlan, { esc, badge, chartCards }) : undefined;
  if (llmPlan) charts.push(...llmPlan.charts);
  const headline = `${r.meta.target.kind === 'emulator' ? 'Emulator' : r.meta.target.kind === 'simulation' ? 'Simulated twin' : 'Remote target'} ${r.meta.target.queueUrl}, ${fmtDuration(r.meta.durationMs)}, ${r.meta.startedAt}`;
  const body = `<h1>qbench report</h1>
${verdictBlock(r.overall.status, r.overall.exitCode, headline, r.overall.status === 'pass' ? [] : r.overall.reasons)}
${r.overall.status === 'pass' ? `<p class="small">${esc(r.overall.reasons.join('; '))}</p>` : ''}
<div class="card">${metaBlock(r)}${toc.length > 0 ? `<nav class="toc">${toc.join('')}</nav>` : ''}</div>
${conformanceSection(r)}
${r.load ? `<h2 id="load">Load</h2>${r.load.cost ? `<p class="card small" id="cost">${esc(costLine(r.load.cost))}</p>` : ''}${scenarios.join('\n')}` : ''}
${fuzzSection(r)}
${plan ? plan.html : ''}
${llm ? llm.html : ''}
${llmPlan ? llmPlan.html : ''}
<footer>qbench ${esc(r.meta.qbenchVersion)} · result schema ${esc(r.schemaVersion)} · charts by uPlot, inlined · this file makes no network requests</footer>`;
  return page(`qbench ${r.overall.status.toUpperCase()} · ${r.meta.startedAt}`, body, charts);
}

/** Render a comparison as one self-contained HTML page (tables, no charts needed). */
export function renderComparisonHtml(c: QbenchComparison): string {
  const units = comparisonUnits(c);
  const rows = units
    .flatMap((s) =>
      s.rows.flatMap((st) =>
        st.metrics.map((m, i) => {
          const u = changeUnit(m);
          const flag = m.regression ? badge('fail', 'regression') : m.improvement ? badge('pass', 'better') : m.significant ? badge('info', 'changed') : '';
          const head = i === 0 ? `<b>${esc(st.label)}</b><div class="small muted">${fmtCount(st.baselineCount)} → ${fmtCount(st.candidateCount)} requests</div>` : '';
          return `<tr${i === 0 ? ' class="group-start"' : ''}><td class="mono">${head}</td><td>${esc(m.metric)}</td><td class="num">${esc(fmtMetricValue(m, m.baseline))}</td><td class="num">${esc(fmtMetricValue(m, m.candidate))}</td><td class="num">${esc(fmtChange(m.changePct, u))}</td><td class="num">${m.ci ? esc(`${fmtChange(m.ci.lowPct, u)} … ${fmtChange(m.ci.highPct, u)}`) : m.unjudged !== undefined ? `<span title="${esc(m.unjudged)}">too few requests</span>` : '–'}</td><td class="num">${m.maxRegressionPct === null ? '–' : esc(`${m.maxRegressionPct}${u}`)}</td><td>${flag}</td></tr>`;
        }),
      ),
    )
    .join('');
  const only = units.filter((s) => s.presence !== 'both').map((s) => `<li>${esc(s.name)}: ${presenceNote(s.presence)}</li>`);
  const body = `<h1>qbench compare</h1>
${verdictBlock(c.verdict.status, c.verdict.exitCode, `${c.baseline.file} → ${c.candidate.file}`, c.verdict.reasons)}
<div class="card"><dl class="meta"><dt>baseline</dt><dd>${esc(`${c.baseline.file} · ${c.baseline.startedAt} · qbench ${c.baseline.qbenchVersion} · ${c.baseline.target}`)}</dd><dt>candidate</dt><dd>${esc(`${c.candidate.file} · ${c.candidate.startedAt} · qbench ${c.candidate.qbenchVersion} · ${c.candidate.target}`)}</dd>
<dt>method</dt><dd>${esc(`${c.options.latency} latency; ${Math.round(c.options.confidenceLevel * 100)}% bootstrap confidence intervals on each percentile difference from the HDR histograms (${c.options.iterations} resamples, seed ${c.options.seed}); a regression is a significant change worse than its margin`)}</dd></dl></div>
<table><thead><tr><th>scenario/step or LLM level</th><th>metric</th><th class="num">baseline</th><th class="num">candidate</th><th class="num">change</th><th class="num">confidence interval</th><th class="num">margin</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${only.length > 0 ? `<ul>${only.join('')}</ul>` : ''}
<footer>qbench · comparison schema ${esc(SCHEMA_VERSION)} · this file makes no network requests</footer>`;
  return page(`qbench compare ${c.verdict.status.toUpperCase()}`, body, []);
}

export { PALETTE };
