// k6-style thresholds (`p(99)<2000`, `rate<0.01`, `avg<=1e3`): the one grammar, metric
// vocabulary and aggregation for live runs (src/load/thresholds.ts feeds it the engine's live
// metrics) and saved results (`qbench merge` re-evaluates on the merged whole of shards).
import { QbenchError } from '../errors.js';
import { SECOND_MS } from '../spec/index.js';
import { decodeHistogram, valueAtPercentileMs, type Histogram } from './histogram.js';
import type { LoadScenarioResult, OutcomeCounts, StepResult, ThresholdResult } from './model.js';

export type ThresholdOperator = '<' | '<=' | '>' | '>=' | '==' | '!=';

export type ThresholdAggregation =
  | { kind: 'percentile'; percentile: number }
  | { kind: 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' };

export interface ParsedThreshold {
  aggregation: ThresholdAggregation;
  operator: ThresholdOperator;
  value: number;
  expression: string;
}

const AGGREGATIONS_BY_KIND: Readonly<Record<MetricKind, readonly string[]>> = {
  trend: ['avg', 'min', 'max', 'med', 'count', 'p(N)'],
  rate: ['rate'],
  counter: ['count', 'rate'],
};

const EXPRESSION = /^\s*(avg|min|max|med|count|rate|p\(\s*(\d+(?:\.\d+)?)\s*\))\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*$/i;

/** Parse one k6-style threshold expression; a malformed one is a QB_ERR_SCENARIO naming it. */
export function parseThresholdExpression(expression: string): ParsedThreshold {
  const m = EXPRESSION.exec(expression);
  if (!m) {
    throw new QbenchError(
      'QB_ERR_SCENARIO',
      `threshold "${expression}": expected <aggregation><operator><number>, e.g. "p(99)<2000" or "rate<0.01"; aggregations: avg, min, max, med, count, rate, p(N); operators: < <= > >= == !=`,
      { expression },
    );
  }
  const [, agg = '', pct, op = '<', num = '0'] = m;
  let aggregation: ThresholdAggregation;
  if (pct !== undefined) {
    const percentile = Number(pct);
    if (!(percentile > 0 && percentile <= 100)) {
      throw new QbenchError('QB_ERR_SCENARIO', `threshold "${expression}": percentile ${pct} is outside (0, 100]`, { expression });
    }
    aggregation = { kind: 'percentile', percentile };
  } else {
    aggregation = { kind: agg.toLowerCase() as 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' };
  }
  return { aggregation, operator: op as ThresholdOperator, value: Number(num), expression: expression.trim() };
}

/** What a metric holds: a latency distribution, a ratio of hits, or a count over the run. */
export type MetricValue =
  | { kind: 'trend'; histogram: Histogram }
  | { kind: 'rate'; hits: number; total: number }
  | { kind: 'counter'; count: number; durationSec: number };

export type MetricKind = MetricValue['kind'];

/** Write a parsed expression back in its canonical form: parsing it again gives the same threshold. */
export function formatThresholdExpression(p: Pick<ParsedThreshold, 'aggregation' | 'operator' | 'value'>): string {
  const agg = p.aggregation.kind === 'percentile' ? `p(${p.aggregation.percentile})` : p.aggregation.kind;
  return `${agg}${p.operator}${String(p.value)}`;
}

/**
 * The kind of a metric in the one vocabulary: `<step>.latency`, `<step>.service_time`,
 * `<step>.end_to_end`, `<step>.attempts`, a bare `<name>` (a custom step's trend), `<step>.reqs`,
 * `<step>.errors.rate`, `<step>.status_<2xx|429|4xx|5xx>.rate`, `<step>.network_error.rate`,
 * `http_reqs`, `iterations`, `dropped_iterations`, `send_lateness`.
 */
export function metricKind(metric: string): MetricKind | undefined {
  if (metric === 'http_reqs' || metric === 'dropped_iterations' || metric === 'iterations') return 'counter';
  if (metric === 'send_lateness') return 'trend';
  const dot = metric.indexOf('.');
  if (dot < 0) return /^[\w-]+$/.test(metric) ? 'trend' : undefined;
  const rest = metric.slice(dot + 1);
  if (rest === 'latency' || rest === 'service_time' || rest === 'end_to_end' || rest === 'attempts') return 'trend';
  if (rest === 'reqs') return 'counter';
  if (rest === 'errors.rate' || rest === 'network_error.rate' || /^status_(2xx|429|4xx|5xx)\.rate$/.test(rest)) return 'rate';
  return undefined;
}

/** Check a metric/expression pair without a result. */
export function validateThreshold(metric: string, expression: string): void {
  const kind = metricKind(metric);
  if (!kind) {
    throw new QbenchError(
      'QB_ERR_SCENARIO',
      `threshold metric "${metric}": unknown metric; use <step>.latency, <step>.service_time, <step>.end_to_end, <step>.reqs, <step>.errors.rate, <step>.status_429.rate (or 2xx, 4xx, 5xx), <step>.network_error.rate, http_reqs, iterations, dropped_iterations or send_lateness`,
      { metric },
    );
  }
  aggregationFits(kind, parseThresholdExpression(expression), metric);
}

/** Throw QB_ERR_SCENARIO when the expression's aggregation does not apply to a metric of `kind`. */
export function aggregationFits(kind: MetricKind, parsed: ParsedThreshold, metric: string): void {
  const a = parsed.aggregation.kind;
  const ok = kind === 'trend' ? a !== 'rate' : kind === 'rate' ? a === 'rate' : a === 'count' || a === 'rate';
  if (!ok) {
    throw new QbenchError(
      'QB_ERR_SCENARIO',
      `threshold "${parsed.expression}" on ${metric}: ${a === 'percentile' ? 'p(N)' : a} does not apply to a ${kind} metric; use ${AGGREGATIONS_BY_KIND[kind].join(', ')}`,
      { metric, expression: parsed.expression },
    );
  }
}

const sumCounts = (c: OutcomeCounts): number => c['2xx'] + c['429'] + c['4xx'] + c['5xx'] + c.network_error;

/**
 * Resolve a metric against a scenario result; undefined when the result does not hold it
 * (no such step; `iterations`, `<step>.attempts` and custom trends are not kept).
 */
export function scenarioMetric(scenario: LoadScenarioResult, metric: string): MetricValue | undefined {
  const where = `${scenario.name}: ${metric}`;
  const durationSec = scenario.durationMs / SECOND_MS;
  switch (metric) {
    case 'http_reqs':
      return { kind: 'counter', count: scenario.steps.reduce((a, s) => a + sumCounts(s.counts), 0), durationSec };
    case 'dropped_iterations':
      return { kind: 'counter', count: scenario.validity.droppedIterations, durationSec };
    case 'send_lateness':
      return { kind: 'trend', histogram: decodeHistogram(scenario.validity.sendLateness.histogram, where) };
    case 'iterations':
      return undefined;
  }
  const dot = metric.indexOf('.');
  if (dot < 0) return undefined;
  const stepName = metric.slice(0, dot);
  const rest = metric.slice(dot + 1);
  const st: StepResult | undefined = scenario.steps.find((s) => s.step === stepName);
  if (!st) return undefined;
  const total = sumCounts(st.counts);
  const rate = (hits: number): MetricValue => ({ kind: 'rate', hits, total });
  switch (rest) {
    case 'latency':
      return { kind: 'trend', histogram: decodeHistogram(st.latency.histogram, where) };
    case 'service_time':
      return { kind: 'trend', histogram: decodeHistogram(st.serviceTime.histogram, where) };
    case 'end_to_end':
      return st.attempts ? { kind: 'trend', histogram: decodeHistogram(st.attempts.endToEnd.histogram, where) } : undefined;
    case 'reqs':
      return { kind: 'counter', count: total, durationSec };
    case 'errors.rate':
      return rate(total - st.counts['2xx']);
    case 'network_error.rate':
      return rate(st.counts.network_error);
  }
  const m = /^status_(2xx|429|4xx|5xx)\.rate$/.exec(rest);
  if (m?.[1]) return rate(st.counts[m[1] as '2xx' | '429' | '4xx' | '5xx']);
  return undefined;
}

/** The observed value of an aggregation on a metric; null when there is nothing to aggregate. */
export function aggregate(value: MetricValue, parsed: ParsedThreshold, metric = 'metric'): number | null {
  aggregationFits(value.kind, parsed, metric);
  const a = parsed.aggregation;
  switch (value.kind) {
    case 'trend': {
      const h = value.histogram;
      if (a.kind === 'count') return h.totalCount;
      if (h.totalCount === 0) return null;
      if (a.kind === 'percentile') return valueAtPercentileMs(h, a.percentile);
      if (a.kind === 'med') return valueAtPercentileMs(h, 50);
      if (a.kind === 'min') return valueAtPercentileMs(h, 0);
      if (a.kind === 'max') return valueAtPercentileMs(h, 100);
      return h.mean / 1_000;
    }
    case 'rate':
      return value.total === 0 ? null : value.hits / value.total;
    case 'counter':
      if (a.kind === 'count') return value.count;
      return value.durationSec > 0 ? value.count / value.durationSec : null;
  }
}

export function compare(observed: number, operator: ThresholdOperator, bound: number): boolean {
  switch (operator) {
    case '<':
      return observed < bound;
    case '<=':
      return observed <= bound;
    case '>':
      return observed > bound;
    case '>=':
      return observed >= bound;
    case '==':
      return observed === bound;
    case '!=':
      return observed !== bound;
  }
}

export interface ThresholdSpec {
  metric: string;
  expression: string;
  abortOnFail?: boolean;
}

/**
 * Evaluate one threshold. A metric with no data fails (observed null): a threshold that
 * cannot be checked must not pass silently.
 */
export function evaluateThreshold(scenario: LoadScenarioResult, spec: ThresholdSpec): ThresholdResult {
  const parsed = parseThresholdExpression(spec.expression);
  const value = scenarioMetric(scenario, spec.metric);
  const observed = value === undefined ? null : aggregate(value, parsed, spec.metric);
  const rounded = observed === null ? null : Math.round(observed * 1e6) / 1e6;
  return {
    metric: spec.metric,
    expression: parsed.expression,
    observed: rounded,
    passed: observed !== null && compare(observed, parsed.operator, parsed.value),
    abortOnFail: spec.abortOnFail ?? false,
  };
}

/** Evaluate every threshold of a scenario. */
export function evaluateThresholds(scenario: LoadScenarioResult, specs: readonly ThresholdSpec[]): ThresholdResult[] {
  return specs.map((s) => evaluateThreshold(scenario, s));
}
