// The LLM section of every report: per path and load level, TTFT, ITL (per token), TPOT and e2e
// percentiles, tokens per second per request and in aggregate, request throughput and goodput
// against the SLOs, where the token counts came from, the native paths' TTFT split, cold against
// warm TTFT; in the HTML page, charts of TTFT and ITL against the load, tokens/s against
// concurrency, goodput against rate, cold against warm TTFT and §2.3 engine metrics over time.
import type { LlmRun, LlmSection } from '../../result/model.js';
import { llmLoadLabel, llmRunLabel } from '../../result/overall.js';
import { costLine, fmtCount, fmtMs, fmtUsd } from './format.js';
import { alignSeries, PALETTE, type ChartSpec } from './html-charts.js';

const color = (i: number): string => PALETTE[i % PALETTE.length] ?? '#1f77b4';
const fmtTok = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const pair = (a: number, b: number, n: number): string => (n === 0 ? '–' : `${fmtMs(a)} / ${fmtMs(b)}`);

/** Where the run's output tokens were counted from, in words. */
export function tokenSourceText(r: LlmRun): string {
  const { usage, chunks } = r.tokenSource;
  if (usage + chunks === 0) return '–';
  if (chunks === 0) return 'usage';
  if (usage === 0) return 'chunks (estimate)';
  return `usage ${usage}, chunks ${chunks}`;
}

export const LLM_COLUMNS = ['run', 'ok / failed', 'TTFT p50 / p99', 'ITL p50 / p99', 'TPOT p50 / p99', 'e2e p50 / p99', 'tok/s/req p50', 'tok/s', 'req/s', 'goodput/s', 'tokens from'] as const;

/** One row per run, in LLM_COLUMNS order. */
export function llmRows(llm: LlmSection): string[][] {
  return llm.runs.map((r) => {
    const t = r.ttft.percentiles;
    const i = r.itl.percentiles;
    const p = r.tpot.percentiles;
    const e = r.e2e.percentiles;
    return [
      `${llmRunLabel(r)}${r.saturated === true ? ' (saturated)' : ''}`,
      `${fmtCount(r.requests.completed)} / ${fmtCount(r.requests.failed)}${r.requests.dropped > 0 ? ` (+${r.requests.dropped} dropped)` : ''}`,
      pair(t.p50, t.p99, t.count),
      pair(i.p50, i.p99, i.count),
      pair(p.p50, p.p99, p.count),
      pair(e.p50, e.p99, e.count),
      fmtTok(r.outputTokensPerSecPerRequest.count === 0 ? null : r.outputTokensPerSecPerRequest.p50),
      fmtTok(r.throughput.outputTokensPerSec),
      r.throughput.requestsPerSec.toFixed(2),
      r.throughput.goodputPerSec.toFixed(2),
      tokenSourceText(r),
    ];
  });
}

/** Notes under the table: SLOs that failed, invalid runs, TTFT splits, cold starts, sweep answers. */
export function llmNotes(llm: LlmSection): string[] {
  const out: string[] = [];
  for (const r of llm.runs) {
    const label = llmRunLabel(r);
    for (const s of r.slos) {
      const sent = r.requests.completed + r.requests.failed;
      const figure = s.kind === 'percentile' ? `observed ${s.valueMs === null ? 'no data' : fmtMs(s.valueMs)}` : `${s.metRequests} of ${sent} requests met it`;
      if (!s.holds) out.push(`${r.role === 'fixed' ? 'FAIL' : 'miss'} ${label}: SLO ${s.text}: ${figure}${r.role === 'fixed' ? '' : ' (a sweep level: measured, not judged)'}`);
    }
    if (!r.validity.valid) out.push(`INVALID ${label}: ${r.validity.reasons.join('; ')}`);
    if (r.requests.errors.length > 0) out.push(`errors ${label}: ${r.requests.errors.join(' | ')}`);
    if (r.tokenSource.chunksDisagree > 0) {
      out.push(`tokens per chunk ${label}: in ${r.tokenSource.chunksDisagree} requests the usage count differs from the chunks (several tokens to a chunk, unlisted): their ITL samples are per chunk, not per token; --logprobs makes every chunk list its tokens`);
    }
    if (r.ttftSplit) {
      const s = r.ttftSplit;
      out.push(`TTFT split ${label} (p50): submit ${fmtMs(s.submit.percentiles.p50)}, delayTime ${fmtMs(s.delay.percentiles.p50)}, worker to first chunk ${fmtMs(s.workerFirstChunk.percentiles.p50)}`);
    }
    if (r.coldWarm && r.coldWarm.cold.count > 0) {
      const c = r.coldWarm;
      out.push(`cold starts ${label}: ${c.cold.count} cold (TTFT p50 ${fmtMs(c.cold.ttft.p50)}, max ${fmtMs(c.cold.ttft.max)}), ${c.warm.count} warm (TTFT p50 ${fmtMs(c.warm.ttft.p50)}, p99 ${fmtMs(c.warm.ttft.p99)})`);
    }
  }
  if (llm.cost) out.push(`cost: ${costLine(llm.cost)}${llm.costPerMillionOutputTokensUsd !== undefined && llm.costPerMillionOutputTokensUsd !== null ? `; ${fmtUsd(llm.costPerMillionOutputTokensUsd)} per million output tokens counted` : ''}`);
  for (const a of llm.sweepAnswers ?? []) {
    out.push(`sweep ${a.path}: saturation at ${a.saturationRatePerSec === null ? '–' : `${a.saturationRatePerSec.toFixed(2)} req/s`}; ${llm.slos.length === 0 ? 'no SLO given' : a.maxRatePerSec === null ? 'no rate level met every SLO' : `highest rate meeting every SLO: ${a.maxRatePerSec} req/s`}`);
  }
  return out;
}

export function llmScope(llm: LlmSection): string {
  return `mode ${llm.mode}; prompts: ${llm.workload.prompt}; output: ${llm.workload.output}; seed ${llm.workload.seed}${llm.model !== null ? `; model ${llm.model}` : ''}${llm.slos.length > 0 ? `; SLOs ${llm.slos.join(', ')}` : ''}`;
}

const TABLE_NOTE = 'TTFT to the first chunk carrying a token, from the intended start; ITL one sample per token (an arrival of k tokens, the chunks one read brings, after a gap g gives k samples of g/k); TPOT (e2e - TTFT) / (tokens - 1); ms.';

export function llmConsoleLines(llm: LlmSection, bold: (s: string) => string, table: (cols: { header: string; align?: 'left' | 'right' }[], rows: string[][]) => string): string[] {
  const cols = LLM_COLUMNS.map((h, i) => ({ header: h, ...(i > 0 && i < 10 ? { align: 'right' as const } : {}) }));
  return [bold('LLM'), `  ${llmScope(llm)}`, table(cols, llmRows(llm)), ...llmNotes(llm).map((n) => `  ${n}`), `  (${TABLE_NOTE})`, ''];
}

export function llmMarkdownLines(llm: LlmSection, cell: (s: string) => string): string[] {
  return [
    '### LLM',
    '',
    cell(llmScope(llm)),
    '',
    `| ${LLM_COLUMNS.join(' | ')} |`,
    `|---|${LLM_COLUMNS.slice(1).map(() => '---:').join('|')}|`,
    ...llmRows(llm).map((r) => `| ${r.map(cell).join(' | ')} |`),
    '',
    ...llmNotes(llm).map((n) => `- ${cell(n)}`),
    ...(llmNotes(llm).length > 0 ? [''] : []),
    `_${TABLE_NOTE} ${cell(llm.workload.approximation)}._`,
    '',
  ];
}

// ---------------------------------------------------------------- charts

/** The x of a run against its load: the offered rate, or the concurrency. */
const loadX = (r: LlmRun): number => (r.load.kind === 'rate' ? r.load.ratePerSec : r.load.concurrency);

function byPath(llm: LlmSection): Map<string, LlmRun[]> {
  const m = new Map<string, LlmRun[]>();
  for (const r of llm.runs) {
    const key = `${r.path}${r.path === 'openai' ? ` ${r.api}` : ''}`;
    m.set(key, [...(m.get(key) ?? []), r]);
  }
  return m;
}

/** Percentile lines of one metric against the load: per path, p50 solid and p99 dashed. */
function percentileChart(llm: LlmSection, id: string, metric: 'ttft' | 'itl', title: string, kind: 'rate' | 'concurrency'): ChartSpec | undefined {
  const series: ChartSpec['series'] = [];
  const points: Array<Array<[number, number]>> = [];
  let k = 0;
  for (const [path, runs] of byPath(llm)) {
    const rs = runs.filter((r) => r.load.kind === kind && r[metric].percentiles.count > 0);
    if (rs.length === 0) continue;
    series.push({ name: `${path} p50`, color: color(k) }, { name: `${path} p99`, color: color(k), dash: [6, 4] });
    points.push(
      rs.map((r) => [loadX(r), r[metric].percentiles.p50]),
      rs.map((r) => [loadX(r), r[metric].percentiles.p99]),
    );
    k += 1;
  }
  if (series.length === 0) return undefined;
  return { id, title, xLabel: kind === 'rate' ? 'offered rate (requests/s)' : 'requests in flight', yLabel: `${metric.toUpperCase()} (ms)`, xKind: 'linear', logY: false, series, data: alignSeries(points), refs: [] };
}

/** The chart data of the LLM section. */
export function llmCharts(llm: LlmSection): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const paths = [...byPath(llm)];
  for (const kind of ['rate', 'concurrency'] as const) {
    const t = percentileChart(llm, `llm-ttft-${kind}`, 'ttft', `TTFT against ${kind === 'rate' ? 'rate' : 'concurrency'}`, kind);
    if (t) charts.push(t);
    const i = percentileChart(llm, `llm-itl-${kind}`, 'itl', `ITL against ${kind === 'rate' ? 'rate' : 'concurrency'}`, kind);
    if (i) charts.push(i);
  }
  // Tokens/s against the measured mean concurrency (Little's law), every run of a path.
  charts.push({
    id: 'llm-tokens-concurrency',
    title: 'Output tokens/s against concurrency',
    note: 'x: mean requests in flight over the run (sum of e2e over the wall time); solid: aggregate tokens/s, dashed: p50 per request',
    xLabel: 'mean requests in flight',
    yLabel: 'output tokens/s',
    xKind: 'linear',
    logY: false,
    series: paths.flatMap(([p], k) => [
      { name: `${p} aggregate`, color: color(k) },
      { name: `${p} per request p50`, color: color(k), dash: [6, 4] },
    ]),
    data: alignSeries(
      paths.flatMap(([, runs]) => {
        const rs = [...runs].sort((a, b) => a.throughput.meanConcurrency - b.throughput.meanConcurrency);
        return [rs.map((r): [number, number] => [r.throughput.meanConcurrency, r.throughput.outputTokensPerSec]), rs.map((r): [number, number] => [r.throughput.meanConcurrency, r.outputTokensPerSecPerRequest.p50])];
      }),
    ),
    refs: [],
  });
  const rated = paths.map(([p, runs]) => [p, runs.filter((r) => r.load.kind === 'rate')] as const).filter(([, rs]) => rs.length > 0);
  if (rated.length > 0) {
    charts.push({
      id: 'llm-goodput-rate',
      title: 'Goodput against rate',
      note: llm.slos.length > 0 ? `requests/s meeting every per-request SLO (${llm.slos.join(', ')}); dashed: all completed requests/s` : 'no SLO given: goodput is every completed request',
      xLabel: 'offered rate (requests/s)',
      yLabel: 'requests/s',
      xKind: 'linear',
      logY: false,
      series: rated.flatMap(([p], k) => [
        { name: `${p} goodput`, color: color(k) },
        { name: `${p} throughput`, color: color(k), dash: [6, 4] },
      ]),
      data: alignSeries(rated.flatMap(([, rs]) => [rs.map((r): [number, number] => [loadX(r), r.throughput.goodputPerSec]), rs.map((r): [number, number] => [loadX(r), r.throughput.requestsPerSec])])),
      refs: [],
    });
  }
  const cw = llm.runs.filter((r) => r.coldWarm !== undefined && r.coldWarm.cold.count + r.coldWarm.warm.count > 0);
  if (cw.length > 0) {
    const at = (i: number, v: number, n: number): [number, number][] => (n > 0 ? [[i, v]] : []);
    charts.push({
      id: 'llm-cold-warm',
      title: 'Cold against warm TTFT',
      note: `one column per run; ${cw[0]?.coldWarm?.by ?? ''}`,
      xLabel: 'run',
      yLabel: 'TTFT (ms)',
      xKind: 'category',
      logY: false,
      categories: cw.map((r) => llmRunLabel(r)),
      series: [
        { name: 'cold p50', color: color(1), pointsOnly: true },
        { name: 'cold max', color: color(1), dash: [6, 4], pointsOnly: true },
        { name: 'warm p50', color: color(0), pointsOnly: true },
        { name: 'warm p99', color: color(0), dash: [6, 4], pointsOnly: true },
      ],
      data: alignSeries([
        cw.flatMap((r, i) => at(i, r.coldWarm?.cold.ttft.p50 ?? 0, r.coldWarm?.cold.count ?? 0)),
        cw.flatMap((r, i) => at(i, r.coldWarm?.cold.ttft.max ?? 0, r.coldWarm?.cold.count ?? 0)),
        cw.flatMap((r, i) => at(i, r.coldWarm?.warm.ttft.p50 ?? 0, r.coldWarm?.warm.count ?? 0)),
        cw.flatMap((r, i) => at(i, r.coldWarm?.warm.ttft.p99 ?? 0, r.coldWarm?.warm.count ?? 0)),
      ]),
      refs: [],
    });
  }
  // A sweep's engine metrics are charted at its saturating level only: the busiest, one chart per path.
  llm.runs.forEach((r, n) => {
    const e = r.engineMetrics;
    if (!e || e.points.length === 0 || r.role === 'sweep-serial' || r.role === 'sweep-rate') return;
    charts.push({
      id: `llm-engine-${n}`,
      title: `Engine metrics (§2.3), ${llmRunLabel(r)}`,
      note: 'the last value each second of the stream chunks\' metrics; KV cache usage as a share (0-1)',
      xLabel: 'seconds',
      yLabel: 'value',
      xKind: 'time',
      logY: false,
      series: e.fields.map((f, i) => ({ name: f, color: color(i) })),
      data: alignSeries(e.fields.map((_, i) => e.points.map((p): [number, number] => [p[0] ?? 0, p[i + 1] ?? 0]))),
      refs: [],
    });
  });
  return charts;
}

export interface LlmHtmlParts {
  readonly esc: (s: string | number) => string;
  readonly badge: (status: string, text?: string) => string;
  readonly chartCards: (charts: ChartSpec[]) => string;
}

function runStatus(r: LlmRun): string {
  if (!r.validity.valid) return 'invalid';
  if (r.requests.completed === 0 && r.requests.failed > 0) return 'fail';
  if (r.slos.some((s) => !s.holds)) return r.role === 'fixed' ? 'fail' : 'warn';
  return r.slos.length > 0 ? 'pass' : 'info';
}

/** The LLM section of the HTML page and its charts. */
export function llmHtml(llm: LlmSection, h: LlmHtmlParts): { html: string; charts: ChartSpec[] } {
  const charts = llmCharts(llm);
  const rows = llmRows(llm)
    .map((cells, i) => {
      const r = llm.runs[i] as LlmRun;
      // The run's label reads on one or two lines, not one word a line.
      return `<tr><td>${h.badge(runStatus(r))}</td>${cells.map((c, j) => `<td class="${j === 0 ? 'mono small' : j < 10 ? 'num' : 'small'}"${j === 0 ? ' style="min-width:16em"' : ''}>${h.esc(c)}</td>`).join('')}</tr>`;
    })
    .join('');
  const sloRows = llm.runs
    .flatMap((r) =>
      r.slos.map((s) => {
        const sent = r.requests.completed + r.requests.failed;
        const figure = s.kind === 'percentile' ? (s.valueMs === null ? 'no data' : fmtMs(s.valueMs)) : `${s.metRequests} of ${sent}`;
        return `<tr><td>${h.badge(s.holds ? 'pass' : r.role === 'fixed' ? 'fail' : 'warn', s.holds ? 'met' : 'missed')}</td><td class="mono small">${h.esc(llmRunLabel(r))}</td><td class="mono">${h.esc(s.text)}</td><td class="num">${h.esc(figure)}</td><td class="small muted">${r.role === 'fixed' ? '' : 'sweep level: measured, not judged'}</td></tr>`;
      }),
    )
    .join('');
  const splits = llm.runs
    .filter((r) => r.ttftSplit !== undefined)
    .map((r) => {
      const s = r.ttftSplit;
      const cellsOf = (x: NonNullable<LlmRun['ttftSplit']>['submit']) => `<td class="num">${h.esc(fmtMs(x.percentiles.p50))}</td><td class="num">${h.esc(fmtMs(x.percentiles.p99))}</td>`;
      return s ? `<tr><td class="mono small">${h.esc(llmRunLabel(r))}</td>${cellsOf(s.submit)}${cellsOf(s.delay)}${cellsOf(s.workerFirstChunk)}<td class="num">${h.esc(fmtMs(r.ttft.percentiles.p50))}</td></tr>` : '';
    })
    .join('');
  const cold = llm.runs
    .filter((r) => r.coldWarm !== undefined)
    .map((r) => {
      const c = r.coldWarm;
      return c ? `<tr><td class="mono small">${h.esc(llmRunLabel(r))}</td><td class="num">${c.cold.count}</td><td class="num">${h.esc(c.cold.count > 0 ? `${fmtMs(c.cold.ttft.p50)} / ${fmtMs(c.cold.ttft.max)}` : '–')}</td><td class="num">${c.warm.count}</td><td class="num">${h.esc(c.warm.count > 0 ? `${fmtMs(c.warm.ttft.p50)} / ${fmtMs(c.warm.ttft.p99)}` : '–')}</td></tr>` : '';
    })
    .join('');
  const texts = llm.runs.filter((r) => r.sampleText !== undefined);
  const notes = llmNotes(llm).filter((n) => /^(sweep |errors |INVALID |cost: |tokens per chunk )/.test(n));
  const html = `<h2 id="llm">LLM</h2>
<div class="card"><dl class="meta">
<dt>workload</dt><dd>${h.esc(llmScope(llm))}</dd>
<dt>tokens</dt><dd>${h.esc(llm.workload.approximation)}</dd>
<dt>metrics</dt><dd>${h.esc(TABLE_NOTE)} Output tokens come from the server's usage when it sent it, else are counted from the chunks (the "tokens from" column).</dd>
</dl></div>
<div class="card"><h3>Per path and load level</h3><table><thead><tr><th></th>${LLM_COLUMNS.map((c, j) => `<th${j > 0 && j < 10 ? ' class="num"' : ''}>${h.esc(c)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>
${notes.length > 0 ? `<ul>${notes.map((n) => `<li>${h.esc(n)}</li>`).join('')}</ul>` : ''}</div>
${sloRows ? `<div class="card"><h3>SLOs</h3><table><thead><tr><th></th><th>run</th><th>SLO</th><th class="num">figure</th><th></th></tr></thead><tbody>${sloRows}</tbody></table></div>` : ''}
${splits ? `<div class="card"><h3>TTFT split (native paths)</h3><table><thead><tr><th>run</th><th class="num">submit p50</th><th class="num">p99</th><th class="num">delayTime p50</th><th class="num">p99</th><th class="num">worker to first chunk p50</th><th class="num">p99</th><th class="num">TTFT p50</th></tr></thead><tbody>${splits}</tbody></table><p class="small muted">submit: intended start to the /run answer; delayTime: the job record's queue time (cold start included); the rest of TTFT: the worker to its first chunk, and the /stream poll that brought it.</p></div>` : ''}
${cold ? `<div class="card"><h3>Cold and warm requests</h3><table><thead><tr><th>run</th><th class="num">cold</th><th class="num">cold TTFT p50 / max</th><th class="num">warm</th><th class="num">warm TTFT p50 / p99</th></tr></thead><tbody>${cold}</tbody></table><p class="small muted">${h.esc(llm.runs.find((r) => r.coldWarm)?.coldWarm?.by ?? '')}</p></div>` : ''}
${h.chartCards(charts)}
${texts.length > 0 ? `<details class="card"><summary><b>First answer of each run</b> (to compare the paths)</summary><table><tbody>${texts.map((r) => `<tr><td class="mono small">${h.esc(llmRunLabel(r))}</td><td class="small">${h.esc(r.sampleText ?? '')}</td></tr>`).join('')}</tbody></table></details>` : ''}`;
  return { html, charts };
}

export { llmLoadLabel };
