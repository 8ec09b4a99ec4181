// Chart data for the HTML report, prepared in Node so the page only draws: the HDR percentile
// spectrum (decoded from the encoded histograms), percentiles and throughput over time with the
// §8 documented limits as reference lines, and each scenario's own `charts` entries.
import { RATE_LIMITS, RATE_WINDOW_MS, SECOND_MS, type RateLimitedOperation } from '../../spec/index.js';
import { decodeHistogram, percentileSpectrum } from '../../result/histogram.js';
import type { Chart, LoadScenarioResult } from '../../result/model.js';

/** One chart as the page's script draws it with uPlot: aligned columns, nulls for gaps. */
export interface ChartSpec {
  id: string;
  title: string;
  note?: string;
  xLabel: string;
  yLabel: string;
  /** nines: x is -log10(1 - p); labelled as percentiles. */
  xKind: 'time' | 'linear' | 'category' | 'nines';
  logY: boolean;
  /** A logarithmic x axis (linear x with positive values only). */
  logX?: boolean;
  categories?: string[];
  /** pointsOnly: a scatter (markers, no line between them). */
  series: Array<{ name: string; color: string; dash?: number[]; pointsOnly?: boolean }>;
  /** data[0] is x; data[i] is series i-1. */
  data: Array<Array<number | null>>;
  refs: Array<{ label: string; y: number }>;
}

/** Colour-blind-friendly, saturated palette (the browser test looks for these pixels). */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#e377c2', '#8c564b', '#bcbd22', '#393b79'] as const;
const color = (i: number): string => PALETTE[i % PALETTE.length] ?? '#1f77b4';

/** Align series given as [x, y] points onto one sorted x column. */
export function alignSeries(series: ReadonlyArray<ReadonlyArray<readonly [number, number]>>, logY = false): Array<Array<number | null>> {
  const xs = [...new Set(series.flatMap((s) => s.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const cols: Array<Array<number | null>> = [xs];
  for (const s of series) {
    const col: Array<number | null> = xs.map(() => null);
    for (const [x, y] of s) {
      const i = index.get(x);
      // a log axis cannot show 0 or negatives: leave a gap rather than break the scale
      if (i !== undefined) col[i] = Number.isFinite(y) && (!logY || y > 0) ? y : null;
    }
    cols.push(col);
  }
  return cols;
}

function spectrumChart(s: LoadScenarioResult, idBase: string): ChartSpec | undefined {
  const series: ChartSpec['series'] = [];
  const points: Array<Array<[number, number]>> = [];
  s.steps.forEach((st, i) => {
    const corrected = percentileSpectrum(decodeHistogram(st.latency.histogram, `${s.name}.${st.step}.latency`));
    const service = percentileSpectrum(decodeHistogram(st.serviceTime.histogram, `${s.name}.${st.step}.serviceTime`));
    if (corrected.length > 0) {
      series.push({ name: `${st.step} latency (corrected)`, color: color(i) });
      points.push(corrected);
    }
    if (service.length > 0) {
      series.push({ name: `${st.step} service time`, color: color(i), dash: [6, 4] });
      points.push(service);
    }
    const endToEnd = st.attempts ? percentileSpectrum(decodeHistogram(st.attempts.endToEnd.histogram, `${s.name}.${st.step}.endToEnd`)) : [];
    if (endToEnd.length > 0) {
      series.push({ name: `${st.step} end to end (429 backoff included)`, color: color(i), dash: [2, 3] });
      points.push(endToEnd);
    }
  });
  if (series.length === 0) return undefined;
  return {
    id: `${idBase}-spectrum`,
    title: 'Latency by percentile',
    note: 'HDR spectrum: solid = from the intended start (corrected for coordinated omission), dashed = from the actual send (service time), dotted = end to end with 429 backoff (when on). Each unit right is ten times rarer (90%, 99%, 99.9%); a line ends where its data runs out.',
    xLabel: 'percentile',
    yLabel: 'latency (ms)',
    xKind: 'nines',
    logY: true,
    series,
    data: alignSeries(points, true),
    refs: [],
  };
}

function percentilesOverTime(s: LoadScenarioResult, idBase: string): ChartSpec | undefined {
  const series: ChartSpec['series'] = [];
  const points: Array<Array<[number, number]>> = [];
  const multi = s.series.length > 1;
  s.series.forEach((ss, i) => {
    if (ss.points.length === 0) return;
    const label = (what: string) => (multi ? `${ss.step} ${what}` : what);
    const add = (what: string, pick: (p: (typeof ss.points)[number]) => number, c: string, dash?: number[]) => {
      series.push(dash ? { name: label(what), color: c, dash } : { name: label(what), color: c });
      points.push(ss.points.map((p) => [p.tSec, pick(p)]));
    };
    const base = i * 4;
    add('p50', (p) => p.p50Ms, color(base));
    add('p90', (p) => p.p90Ms, color(base + 1));
    add('p99', (p) => p.p99Ms, color(base + 2));
    add('max', (p) => p.maxMs, color(base + 3), [2, 3]);
  });
  if (series.length === 0) return undefined;
  return {
    id: `${idBase}-latency-time`,
    title: 'Latency percentiles over time',
    note: 'Per 1-second interval, corrected latency; dotted = the interval maximum.',
    xLabel: 'time since start (s)',
    yLabel: 'latency (ms)',
    xKind: 'time',
    logY: true,
    series,
    data: alignSeries(points, true),
    refs: [],
  };
}

/**
 * The §8 base limit for a step named after a rate-limited operation, per real second:
 * requestsPerWindow over the window's real length (the spec's 10 s unless the target runs
 * its windows on a scaled clock).
 */
export function documentedLimitPerSec(step: string, rateWindowRealMs: number = RATE_WINDOW_MS): { label: string; perSec: number } | undefined {
  const key = step.replace(/^\//, '') as RateLimitedOperation;
  const rule = Object.hasOwn(RATE_LIMITS, key) ? RATE_LIMITS[key] : undefined;
  if (!rule) return undefined;
  const perSec = rule.requestsPerWindow / (rateWindowRealMs / SECOND_MS);
  const scaled = rateWindowRealMs !== RATE_WINDOW_MS ? ` (window runs ${rateWindowRealMs / SECOND_MS} s here)` : '';
  return { label: `${rule.section} ${rule.method} ${rule.path} base limit: ${rule.requestsPerWindow} per ${RATE_WINDOW_MS / SECOND_MS} s${scaled}`, perSec };
}

function throughputOverTime(s: LoadScenarioResult, idBase: string, rateWindowRealMs: number | undefined): ChartSpec | undefined {
  const series: ChartSpec['series'] = [];
  const points: Array<Array<[number, number]>> = [];
  const refs: ChartSpec['refs'] = [];
  const multi = s.series.length > 1;
  s.series.forEach((ss, i) => {
    if (ss.points.length === 0) return;
    const label = (what: string) => (multi ? `${ss.step} ${what}` : what);
    const base = i * 3;
    series.push({ name: label('offered/s'), color: color(base), dash: [6, 4] });
    points.push(ss.points.map((p) => [p.tSec, p.offeredPerSec]));
    series.push({ name: label('2xx/s'), color: color(base + 2) });
    points.push(ss.points.map((p) => [p.tSec, p.goodputPerSec]));
    series.push({ name: label('429/s'), color: color(base + 1) });
    points.push(ss.points.map((p) => [p.tSec, p.counts['429']]));
    const limit = documentedLimitPerSec(ss.step, rateWindowRealMs);
    if (limit) refs.push({ label: limit.label, y: limit.perSec });
  });
  if (series.length === 0) return undefined;
  return {
    id: `${idBase}-throughput`,
    title: 'Throughput and 429s over time',
    note: 'Requests started (offered), answered 2xx and answered 429 per second. Red dashed lines: documented §8 base limits; the effective limit can be higher with running workers.',
    xLabel: 'time since start (s)',
    yLabel: 'requests per second',
    xKind: 'time',
    logY: false,
    series,
    data: alignSeries(points),
    refs,
  };
}

function scenarioChart(c: Chart, idBase: string, i: number): ChartSpec {
  const logY = c.logY ?? false;
  const spec: ChartSpec = {
    id: `${idBase}-chart-${i}`,
    title: c.title,
    xLabel: c.xLabel,
    yLabel: c.yLabel,
    xKind: c.xKind,
    logY,
    series: c.series.map((s, j) => ({ name: s.name, color: color(j) })),
    data: alignSeries(c.series.map((s) => s.points), logY),
    refs: c.referenceLines ?? [],
  };
  if (c.categories) spec.categories = c.categories;
  return spec;
}

/** Every chart of a scenario, in reading order. */
export function scenarioCharts(s: LoadScenarioResult, index: number, rateWindowRealMs?: number): ChartSpec[] {
  const idBase = `s${index}`;
  return [
    spectrumChart(s, idBase),
    percentilesOverTime(s, idBase),
    throughputOverTime(s, idBase, rateWindowRealMs),
    ...s.charts.filter((c) => c.series.some((x) => x.points.length > 0)).map((c, i) => scenarioChart(c, idBase, i)),
  ].filter((c): c is ChartSpec => c !== undefined);
}
