// The calibration report as one self-contained HTML page (the same uPlot page as the run
// reports): the twin's settings with where each came from, every fit against its samples as a
// CDF overlay with its goodness of fit, the burst's scale-up timeline, the phases and the budget.
import { cdf, quantileMs, type Distribution } from '../deployment/index.js';
import { alignSeries, PALETTE, type ChartSpec } from '../report/render/html-charts.js';
import { badge, chartCards, esc, page } from '../report/render/html.js';
import { fmtDuration, fmtMs } from '../report/render/format.js';
import type { HealthPoint } from './observations.js';
import type { CalibrationReport, FitEntry } from './report.js';

/** A distribution in words: "log-normal, median 6.0 s, sigma 0.50". */
export function describeDist(d: Distribution): string {
  switch (d.kind) {
    case 'constant':
      return `constant ${fmtMs(d.ms)}`;
    case 'uniform':
      return `uniform ${fmtMs(d.minMs)} to ${fmtMs(d.maxMs)}`;
    case 'lognormal':
      return `log-normal, median ${fmtMs(d.medianMs)}, sigma ${d.sigma.toFixed(2)}`;
    case 'empirical':
      return `empirical, ${d.quantiles.length} quantiles (p50 ${fmtMs(quantileMs(d, 0.5))}, p99 ${fmtMs(quantileMs(d, 0.99))})`;
    case 'mixture':
      return `mixture: ${(d.p * 100).toFixed(0)}% ${describeDist(d.first)}; ${((1 - d.p) * 100).toFixed(0)}% ${describeDist(d.second)}`;
  }
}

/** A fit's precision in words: "median ±3.2% (95%), 190 samples for ±5%; fast share 41-78%". */
export function describePrecision(f: FitEntry): string {
  const pr = f.precision;
  if (pr.medianRelative === 0) return 'exact';
  const median = Number.isFinite(pr.medianRelative) ? `median ±${(pr.medianRelative * 100).toFixed(1)}%` : 'median unknown (one sample)';
  const share = pr.share === undefined ? '' : `; fast share ${(pr.share.low * 100).toFixed(0)}-${(pr.share.high * 100).toFixed(0)}%`;
  return `${median}${share} (95%), ${pr.samplesFor5Percent} samples for ±5%`;
}

const fitTitle = (f: FitEntry): string => `${f.part}${f.classId !== undefined ? ` (class ${f.classId})` : ''}`;

/** The samples' step CDF and the fitted CDF on one x column (the samples and a grid between them). */
export function cdfChart(f: FitEntry, id: string): ChartSpec {
  const xs = [...f.samplesMs].sort((a, b) => a - b);
  const first = xs[0] ?? 0;
  const last = Math.max(xs.at(-1) ?? 1, quantileMs(f.dist, 0.995));
  // Every sample equal (a constant): a span around it, so that the step shows.
  const pad = last > first ? 0 : Math.max(1, Math.abs(first) * 0.1);
  const lo = first - pad;
  const hi = last + pad;
  const logX = lo > 0 && hi / lo > 20;
  const grid = Array.from({ length: 120 }, (_, i) => (logX ? lo * (hi / lo) ** (i / 119) : lo + ((hi - lo) * i) / 119));
  const column = [...new Set([...xs, ...grid])].sort((a, b) => a - b);
  const n = xs.length;
  let k = 0;
  const ecdf: Array<[number, number]> = column.map((x) => {
    while (k < n && (xs[k] as number) <= x) k += 1;
    return [x, k / n];
  });
  const fitted: Array<[number, number]> = column.map((x) => [x, cdf(f.dist, x)]);
  return {
    id,
    title: `${fitTitle(f)}: ${n} samples against the fit`,
    note: `${describeDist(f.dist)}. KS ${f.gof.ks.toFixed(3)} (5% critical ${f.gof.critical05.toFixed(3)}); ${describePrecision(f)}. ${f.derivation}.${f.outliersMs.length > 0 ? ` Left out as far outliers: ${f.outliersMs.map((x) => fmtMs(x)).join(', ')}.` : ''}`,
    xLabel: 'target ms',
    yLabel: 'share of samples at or below',
    xKind: 'linear',
    logY: false,
    ...(logX ? { logX } : {}),
    series: [
      { name: 'samples (ECDF)', color: PALETTE[0] },
      { name: 'fitted CDF', color: PALETTE[1], dash: [6, 4] },
    ],
    data: alignSeries([ecdf, fitted]),
    refs: [],
  };
}

function burstChart(r: CalibrationReport): ChartSpec | undefined {
  const b = r.burst;
  if (b === undefined || b.timeline.length === 0) return undefined;
  const timeline = b.timeline;
  const series = (pick: (p: HealthPoint) => number): Array<[number, number]> => timeline.map((p) => [p.tMs / 1000, pick(p)]);
  return {
    id: 'burst-timeline',
    title: `Scale-up during a burst of ${b.jobs} jobs`,
    note: `/health polled throughout (target seconds since the burst was sent). First scale-up ${b.firstScaleUpMs === undefined ? 'not seen' : `after ${fmtMs(b.firstScaleUpMs)}`}; at most ${b.peakWorkers} workers up, first at ${fmtMs(b.peakAtMs)}.`,
    xLabel: 'target s since the burst',
    yLabel: 'workers / jobs',
    xKind: 'linear',
    logY: false,
    series: [
      { name: 'initializing', color: PALETTE[4] },
      { name: 'running', color: PALETTE[2] },
      { name: 'idle', color: PALETTE[0] },
      { name: 'throttled', color: PALETTE[3] },
      { name: 'in queue', color: PALETTE[1], dash: [6, 4] },
    ],
    data: alignSeries([series((p) => p.initializing), series((p) => p.running), series((p) => p.idle), series((p) => p.throttled), series((p) => p.inQueue)]),
    refs: [],
  };
}

/** The LLM probe's fit in one line: the engine's rates and how far the observations sit from them. */
export function describeLlmFit(l: NonNullable<CalibrationReport['llm']>): string {
  const e = l.engine;
  return `decode ${e.decodeTokensPerSec} tok/s alone, contention ${e.decodeContention} per stream${e.decodeMsPerContextToken !== undefined && e.decodeMsPerContextToken > 0 ? `, +${e.decodeMsPerContextToken} ms a step per context token of each stream` : ''}; prefill ${e.prefillTokensPerSec} tok/s + ${e.prefillBaseMs} ms${l.queueMs !== undefined ? ` (after the ${l.queueMs} ms the twin's queue adds)` : ''}${e.scheduler !== undefined ? `, scheduler ${e.scheduler}${e.maxBatchedTokens !== undefined ? ` of ${e.maxBatchedTokens} tokens` : ''}` : ''} (residuals: TTFT ${l.fit.ttftResidualMaxMs.toFixed(1)} ms, gap ${(l.fit.itlResidualMaxShare * 100).toFixed(1)}% at most; ${l.requestsSent} requests)`;
}

/** The LLM probe's section: its observations beside the fitted lines, and the engine written. */
function llmSection(r: CalibrationReport): string {
  const l = r.llm;
  if (l === undefined) return '';
  const e = l.engine;
  const ttft = l.ttft.map((t) => `<tr><td class="num">${t.promptTokens}</td><td class="num">${esc(fmtMs(t.ttftMs))}</td><td class="num">${esc(fmtMs(e.prefillBaseMs + (t.promptTokens / e.prefillTokensPerSec) * 1_000))}</td></tr>`).join('');
  const decode = l.decode.map((d) => `<tr><td class="num">${d.streams}</td><td class="num">${esc(fmtMs(d.itlMs))}</td><td class="num">${esc(fmtMs((1_000 / e.decodeTokensPerSec) * (1 + e.decodeContention * (d.streams - 1))))}</td></tr>`).join('');
  return `<h2 id="llm">LLM engine</h2>
<p class="small muted">The probe over the OpenAI completions route (server-sent events): TTFT of 32-token requests sent one at a time (the median of each prompt length; the gap after the first token by its context), then the inter-token gap of n streams decoding together; least-squares lines fitted (deployments.${esc(r.target.endpointId)}.engine).</p>
<p>${esc(describeLlmFit(l))}</p>
<table><thead><tr><th class="num">prompt tokens</th><th class="num">TTFT measured</th><th class="num">fitted</th></tr></thead><tbody>${ttft}</tbody></table>
<table><thead><tr><th class="num">streams</th><th class="num">gap measured</th><th class="num">fitted</th></tr></thead><tbody>${decode}</tbody></table>`;
}

export function renderCalibrationHtml(r: CalibrationReport): string {
  const charts: ChartSpec[] = r.fits.map((f, i) => cdfChart(f, `fit-${i}`));
  const burst = burstChart(r);
  if (burst) charts.push(burst);
  const settings = r.settings
    .map((s) => `<tr><td class="mono">${esc(s.name)}</td><td class="num">${esc(String(s.value))}</td><td>${badge(s.source === 'measured' ? 'pass' : s.source === 'given' ? 'info' : 'skip', s.source)}</td><td class="small">${esc(s.detail)}</td></tr>`)
    .join('');
  const fits = r.fits
    .map(
      (f) =>
        `<tr><td class="mono">${esc(fitTitle(f))}</td><td class="num">${f.n}</td><td>${esc(describeDist(f.dist))}</td><td class="num">${f.gof.ks.toFixed(3)}</td><td class="num">${f.gof.critical05.toFixed(3)}</td><td>${badge(f.gof.accepted ? 'pass' : 'warn', f.gof.accepted ? 'fits' : 'off')}</td><td class="small">${esc(describePrecision(f))}</td><td class="small">${esc(f.why)}</td></tr>`,
    )
    .join('');
  const phases = r.phases.map((p) => `<tr><td>${esc(p.phase)}</td><td>${badge(p.status === 'done' ? 'pass' : p.status === 'partial' ? 'warn' : 'skip', p.status)}</td><td class="num">${p.jobs}</td><td class="num">${esc(fmtDuration(p.realMs))}</td><td class="small">${esc(p.reason ?? '')}</td></tr>`).join('');
  const b = r.budget;
  const body = `<h1>qbench calibrate</h1>
<div class="card"><dl class="meta">
<dt>target</dt><dd>${esc(`${r.target.queueUrl} · endpoint ${r.target.endpointId}`)}</dd>
<dt>started</dt><dd>${esc(`${r.startedAt} (${fmtDuration(b.realMs)})`)}</dd>
<dt>time scale</dt><dd>${esc(r.timeScale.value === 1 ? 'real time' : `×${r.timeScale.value} (${r.timeScale.source}): every duration here is in the target's ms`)}</dd>
<dt>budget</dt><dd>${esc(`${b.jobsSent} of at most ${b.plan.maxJobs} jobs sent (plan ${b.plan.totalJobs}); at most ${b.cost.workerSecondsAtMost} worker-seconds${b.cost.dollarsAtMost !== undefined ? `, $${b.cost.dollarsAtMost.toFixed(2)}` : ''} (${b.cost.basis})${b.cancelledAtEnd > 0 ? `; ${b.cancelledAtEnd} unfinished job(s) cancelled at the end` : ''}`)}</dd>
<dt>round trip</dt><dd>${esc(`${fmtMs(r.rttRealMs)} real (the floor of every /health round trip), taken out of the overhead`)}</dd>
<dt>command</dt><dd class="mono">${esc(r.command.join(' '))}</dd>
<dt>qbench</dt><dd>${esc(r.qbenchVersion)}</dd>
</dl></div>
<h2 id="settings">The twin's settings</h2>
<p class="small muted">Measured through the public interface, given on the command line or in the config file, or the service's documented default where neither.</p>
<table><thead><tr><th>setting</th><th class="num">value</th><th>source</th><th>how</th></tr></thead><tbody>${settings}</tbody></table>
<h2 id="fits">Timing fits</h2>
<p class="small muted">Each part fitted as log-normal, a two-part log-normal mixture (cold starts) or the samples' own quantiles when no parametric fit passes the Kolmogorov-Smirnov test at 5% (conservative: the parameters come from the same samples). Precision: the 95% interval of each median (and of a mixture's fast share) that the samples allow, and the samples a median known to ±5% would take; the twin inherits this error, and a queue near capacity multiplies it.</p>
<table><thead><tr><th>part</th><th class="num">samples</th><th>fit</th><th class="num">KS</th><th class="num">5% critical</th><th></th><th>precision</th><th>why</th></tr></thead><tbody>${fits}</tbody></table>
${chartCards(charts)}
${llmSection(r)}
<h2 id="phases">Phases</h2>
<table><thead><tr><th>phase</th><th>status</th><th class="num">jobs</th><th class="num">real time</th><th>note</th></tr></thead><tbody>${phases}</tbody></table>
${r.notes.length > 0 ? `<div class="warnings"><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>` : ''}
<h2 id="config">emulator.json</h2>
<p class="small">Serve the twin: <code>qbench emulate --emulator-config emulator.json</code> (the key from QBENCH_API_KEY or --api-key-env).</p>
<pre>${esc(JSON.stringify(r.emulatorConfig, null, 2))}</pre>
<footer>qbench ${esc(r.qbenchVersion)} · calibration schema ${r.schemaVersion} · charts by uPlot, inlined · this file makes no network requests</footer>`;
  return page(`qbench calibrate · ${r.target.endpointId} · ${r.startedAt}`, body, charts);
}
