// k6-style thresholds (issue 6): `{ "runsync.latency": ["p(99)<2000"], "run.status_429.rate":
// ["rate<0.01"] }`, each expression checked against the run's merged metrics, with
// abortOnFail evaluated every second. An unknown metric or a malformed expression is a
// scenario error listing the known metric names, never a silent pass.
import type { ThresholdResult } from '../report/model.js';
import { OUTCOME_CLASSES } from '../report/model.js';
import { scenarioError } from '../errors.js';
import type { Aggregator } from './aggregate.js';
import type { Histogram } from './histogram.js';
import { stepMetricName, type Scenario } from './scenario.js';

type MetricKind = 'trend' | 'rate' | 'counter';

export interface ParsedThreshold {
  readonly metric: string;
  readonly expression: string;
  readonly kind: MetricKind;
  readonly aggregate: { fn: 'p'; percentile: number } | { fn: 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' };
  readonly op: '<' | '<=' | '>' | '>=' | '==' | '!=';
  readonly value: number;
  readonly abortOnFail: boolean;
  readonly delayAbortEvalMs: number;
}

const ALLOWED: Record<MetricKind, readonly string[]> = {
  trend: ['p(N)', 'avg', 'min', 'max', 'med', 'count'],
  rate: ['rate'],
  counter: ['count', 'rate'],
};

/** Every metric a scenario can be held to, with its kind. */
export function knownMetrics(s: Scenario): Map<string, MetricKind> {
  const m = new Map<string, MetricKind>();
  const addStep = (name: string) => {
    m.set(`${name}.latency`, 'trend');
    m.set(`${name}.service_time`, 'trend');
    m.set(`${name}.reqs`, 'counter');
    m.set(`${name}.errors.rate`, 'rate');
    for (const cls of OUTCOME_CLASSES) m.set(cls === 'network_error' ? `${name}.network_error.rate` : `${name}.status_${cls}.rate`, 'rate');
    if (s.on429.mode === 'backoff') {
      m.set(`${name}.attempts`, 'trend');
      m.set(`${name}.end_to_end`, 'trend');
    }
  };
  for (const step of s.steps) {
    if (step.kind === 'custom') {
      for (const name of step.metrics ?? [step.name]) {
        addStep(name);
        m.set(name, 'trend');
      }
      continue;
    }
    addStep(stepMetricName(step));
    if (step.kind === 'run' && step.follow !== 'none') addStep(step.follow === 'poll' ? 'status' : 'stream');
  }
  m.set('iterations', 'counter');
  m.set('dropped_iterations', 'counter');
  m.set('http_reqs', 'counter');
  m.set('send_lateness', 'trend');
  return m;
}

const EXPR = /^\s*(p\(\s*(\d+(?:\.\d+)?)\s*\)|avg|min|max|med|count|rate)\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

export function parseThresholds(s: Scenario): ParsedThreshold[] {
  const known = knownMetrics(s);
  const problems: string[] = [];
  const out: ParsedThreshold[] = [];
  for (const [metric, specs] of Object.entries(s.thresholds)) {
    const kind = known.get(metric);
    if (!kind) {
      problems.push(`thresholds: unknown metric "${metric}"; known metrics: ${[...known.keys()].sort().join(', ')}`);
      continue;
    }
    for (const spec of specs) {
      const text = typeof spec === 'string' ? spec : spec.threshold;
      const m = EXPR.exec(text);
      if (!m) {
        problems.push(`thresholds["${metric}"]: cannot parse "${text}"; write e.g. "p(99)<2000", "avg<=100", "rate<0.01", "count>10"`);
        continue;
      }
      const fnText = m[1] ?? '';
      const agg: ParsedThreshold['aggregate'] = fnText.startsWith('p(')
        ? { fn: 'p', percentile: Number(m[2]) }
        : { fn: fnText as 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' };
      const allowed = ALLOWED[kind];
      const ok = agg.fn === 'p' ? allowed.includes('p(N)') : allowed.includes(agg.fn);
      if (!ok) {
        problems.push(`thresholds["${metric}"]: "${fnText}" does not apply to a ${kind} metric; use ${allowed.join(', ')}`);
        continue;
      }
      if (agg.fn === 'p' && (agg.percentile <= 0 || agg.percentile > 100)) {
        problems.push(`thresholds["${metric}"]: percentile must be in (0, 100], got ${agg.percentile}`);
        continue;
      }
      out.push({
        metric,
        expression: text.trim(),
        kind,
        aggregate: agg,
        op: m[3] as ParsedThreshold['op'],
        value: Number(m[4]),
        abortOnFail: typeof spec === 'string' ? false : spec.abortOnFail,
        delayAbortEvalMs: typeof spec === 'string' ? 0 : spec.delayAbortEvalMs,
      });
    }
  }
  if (problems.length > 0) throw scenarioError(`scenario "${s.name}" has invalid thresholds:\n${problems.map((p) => `✖ ${p}`).join('\n')}`);
  return out;
}

function trendValue(h: Histogram | undefined, agg: ParsedThreshold['aggregate']): number | null {
  if (!h || h.totalCount === 0) return agg.fn === 'count' ? 0 : null;
  const ms = (us: number) => us / 1000;
  switch (agg.fn) {
    case 'p':
      return ms(h.getValueAtPercentile(agg.percentile));
    case 'avg':
      return ms(h.mean);
    case 'min':
      return ms(h.getValueAtPercentile(0));
    case 'max':
      return ms(h.getValueAtPercentile(100));
    case 'med':
      return ms(h.getValueAtPercentile(50));
    case 'count':
      return h.totalCount;
    default:
      return null;
  }
}

/** The observed value of a threshold's aggregate; null when there is no data yet. */
export function observe(t: ParsedThreshold, agg: Aggregator, elapsedMs: number): number | null {
  const perSec = (n: number) => (elapsedMs > 0 ? n / (elapsedMs / 1000) : 0);
  const counter = (n: number) => (t.aggregate.fn === 'rate' ? perSec(n) : n);
  switch (t.metric) {
    case 'iterations':
      return counter(agg.startedIterations);
    case 'dropped_iterations':
      return counter(agg.dropped);
    case 'http_reqs': {
      let n = 0;
      for (const st of agg.steps.values()) for (const cls of OUTCOME_CLASSES) n += st.counts[cls];
      return counter(n);
    }
    case 'send_lateness':
      return trendValue(agg.lateness, t.aggregate);
  }
  const dot = t.metric.indexOf('.');
  const step = dot < 0 ? t.metric : t.metric.slice(0, dot);
  const rest = dot < 0 ? '' : t.metric.slice(dot + 1);
  if (rest === '') return trendValue(agg.trends.get(step), t.aggregate);
  const st = agg.steps.get(step);
  const total = st ? OUTCOME_CLASSES.reduce((a, c) => a + st.counts[c], 0) : 0;
  switch (rest) {
    case 'latency':
      return trendValue(st?.latency, t.aggregate);
    case 'service_time':
      return trendValue(st?.service, t.aggregate);
    case 'attempts': {
      const v = trendValue(st?.attempts?.attempts, t.aggregate);
      // Attempt counts are stored as "ms" readings; count keeps its own meaning.
      return v;
    }
    case 'end_to_end':
      return trendValue(st?.attempts?.endToEnd, t.aggregate);
    case 'reqs':
      return counter(total);
    case 'errors.rate':
      return total === 0 || !st ? null : (total - st.counts['2xx']) / total;
    case 'network_error.rate':
      return total === 0 || !st ? null : st.counts.network_error / total;
  }
  const m = /^status_(2xx|429|4xx|5xx)\.rate$/.exec(rest);
  if (m && st && total > 0) return st.counts[m[1] as '2xx' | '429' | '4xx' | '5xx'] / total;
  return null;
}

function compare(v: number, op: ParsedThreshold['op'], x: number): boolean {
  switch (op) {
    case '<':
      return v < x;
    case '<=':
      return v <= x;
    case '>':
      return v > x;
    case '>=':
      return v >= x;
    case '==':
      return v === x;
    case '!=':
      return v !== x;
  }
}

/** Evaluate at the end of a run. A threshold with no data fails: no sample, no proof. */
export function evaluate(t: ParsedThreshold, agg: Aggregator, elapsedMs: number): ThresholdResult {
  const observed = observe(t, agg, elapsedMs);
  const rounded = observed === null ? null : Math.round(observed * 1e6) / 1e6;
  return {
    metric: t.metric,
    expression: t.expression,
    observed: rounded,
    passed: observed !== null && compare(observed, t.op, t.value),
    abortOnFail: t.abortOnFail,
  };
}

/** The first abortOnFail threshold that fails now, if any (only once its delay has passed). */
export function abortingThreshold(ts: readonly ParsedThreshold[], agg: Aggregator, elapsedMs: number): ThresholdResult | undefined {
  for (const t of ts) {
    if (!t.abortOnFail || elapsedMs < t.delayAbortEvalMs) continue;
    const r = evaluate(t, agg, elapsedMs);
    // No data yet is not a failure mid-run.
    if (r.observed !== null && !r.passed) return r;
  }
  return undefined;
}
