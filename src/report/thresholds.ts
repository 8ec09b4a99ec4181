// k6-style thresholds (`p(99)<2000`, `rate<0.01`, `avg<=150`) evaluated on a load scenario
// result: one pure evaluator used by the load engine at the end of a run and by `qbench merge`
// on the merged whole. Metric names and their aggregations are listed in THRESHOLD_METRICS.
import { QbenchError } from '../errors.js';
import { SECOND_MS } from '../spec/index.js';
import { decodeHistogram, mergeHistograms, valueAtPercentileMs, type Histogram } from './histogram.js';
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

/** What a metric holds: a latency distribution, a ratio of hits, or a count over the run. */
export type MetricValue =
  | { kind: 'trend'; histogram: Histogram }
  | { kind: 'rate'; hits: number; total: number }
  | { kind: 'counter'; count: number; durationSec: number };

type MetricKind = MetricValue['kind'];

/** Every metric a threshold may name; `name{step:run}` restricts a per-step metric to one step. */
export const THRESHOLD_METRICS: Readonly<Record<string, { kind: MetricKind; describe: string; perStep: boolean }>> = {
  latency: { kind: 'trend', describe: 'latency from the intended start (coordinated-omission corrected), ms', perStep: true },
  http_req_duration: { kind: 'trend', describe: 'alias of latency', perStep: true },
  service_time: { kind: 'trend', describe: 'latency from the actual send (service time), ms', perStep: true },
  end_to_end: { kind: 'trend', describe: 'time including 429 backoff and retries, ms (only with backoff on)', perStep: true },
  send_lateness: { kind: 'trend', describe: 'how late the generator sent against the schedule, ms', perStep: false },
  http_req_failed: { kind: 'rate', describe: 'fraction of requests that did not answer 2xx (429, 4xx, 5xx, network errors)', perStep: true },
  errors: { kind: 'rate', describe: 'alias of http_req_failed', perStep: true },
  rate_limited: { kind: 'rate', describe: 'fraction of requests answered 429', perStep: true },
  server_errors: { kind: 'rate', describe: 'fraction of requests answered 5xx', perStep: true },
  network_errors: { kind: 'rate', describe: 'fraction of requests that got no HTTP answer', perStep: true },
  http_reqs: { kind: 'counter', describe: 'requests sent (count; rate = per second)', perStep: true },
  goodput: { kind: 'counter', describe: 'requests answered 2xx (count; rate = per second)', perStep: true },
  dropped_iterations: { kind: 'counter', describe: 'iterations the generator could not start (count; rate = per second)', perStep: false },
};

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
    if (!(percentile >= 0 && percentile <= 100)) {
      throw new QbenchError('QB_ERR_SCENARIO', `threshold "${expression}": percentile ${pct} is outside 0..100`, { expression });
    }
    aggregation = { kind: 'percentile', percentile };
  } else {
    aggregation = { kind: agg.toLowerCase() as 'avg' | 'min' | 'max' | 'med' | 'count' | 'rate' };
  }
  return { aggregation, operator: op as ThresholdOperator, value: Number(num), expression: expression.trim() };
}

/** Split `latency{step:run}` into the metric name and its step filter. */
export function parseMetricName(metric: string): { name: string; step?: string } {
  const m = /^\s*([a-z_][a-z0-9_]*)\s*(?:\{\s*step\s*:\s*([^}]+?)\s*\})?\s*$/i.exec(metric);
  if (!m?.[1]) {
    throw new QbenchError('QB_ERR_SCENARIO', `threshold metric "${metric}": expected a name such as latency or latency{step:run}`, { metric });
  }
  const name = m[1];
  if (!(name in THRESHOLD_METRICS)) {
    throw new QbenchError(
      'QB_ERR_SCENARIO',
      `threshold metric "${metric}": unknown metric "${name}"; known: ${Object.keys(THRESHOLD_METRICS).join(', ')}`,
      { metric },
    );
  }
  const step = m[2];
  if (step !== undefined && !THRESHOLD_METRICS[name]?.perStep) {
    throw new QbenchError('QB_ERR_SCENARIO', `threshold metric "${metric}": ${name} is measured per scenario, not per step`, { metric });
  }
  return step === undefined ? { name } : { name, step };
}

/** Check a metric/expression pair without a result (for scenario validation at load time). */
export function validateThreshold(metric: string, expression: string): void {
  const { name } = parseMetricName(metric);
  const parsed = parseThresholdExpression(expression);
  aggregationFits(THRESHOLD_METRICS[name]?.kind ?? 'trend', parsed, metric);
}

function aggregationFits(kind: MetricKind, parsed: ParsedThreshold, metric: string): void {
  const a = parsed.aggregation.kind;
  const ok =
    kind === 'trend' ? a !== 'rate' : kind === 'rate' ? a === 'rate' : a === 'count' || a === 'rate';
  if (!ok) {
    throw new QbenchError(
      'QB_ERR_SCENARIO',
      `threshold "${parsed.expression}" on ${metric}: ${a === 'percentile' ? 'p(N)' : a} does not apply to a ${kind} metric; use ${AGGREGATIONS_BY_KIND[kind].join(', ')}`,
      { metric, expression: parsed.expression },
    );
  }
}

const sumCounts = (c: OutcomeCounts): number => c['2xx'] + c['429'] + c['4xx'] + c['5xx'] + c.network_error;

/** Resolve a metric name against a scenario result; undefined when the scenario has no such data (e.g. no such step). */
export function scenarioMetric(scenario: LoadScenarioResult, metric: string): MetricValue | undefined {
  const { name, step } = parseMetricName(metric);
  const steps: StepResult[] = step === undefined ? scenario.steps : scenario.steps.filter((s) => s.step === step);
  if (steps.length === 0 && THRESHOLD_METRICS[name]?.perStep) return undefined;
  const where = `${scenario.name}: ${metric}`;
  const trend = (pick: (s: StepResult) => StepResult['latency'] | undefined): MetricValue | undefined => {
    const hs = steps.flatMap((s) => {
      const l = pick(s);
      return l ? [decodeHistogram(l.histogram, where)] : [];
    });
    return hs.length === 0 ? undefined : { kind: 'trend', histogram: mergeHistograms(hs) };
  };
  const total = steps.reduce((a, s) => a + sumCounts(s.counts), 0);
  const rate = (hits: (c: OutcomeCounts) => number): MetricValue => ({
    kind: 'rate',
    hits: steps.reduce((a, s) => a + hits(s.counts), 0),
    total,
  });
  const durationSec = scenario.durationMs / SECOND_MS;
  switch (name) {
    case 'latency':
    case 'http_req_duration':
      return trend((s) => s.latency);
    case 'service_time':
      return trend((s) => s.serviceTime);
    case 'end_to_end':
      return trend((s) => s.attempts?.endToEnd);
    case 'send_lateness':
      return { kind: 'trend', histogram: decodeHistogram(scenario.validity.sendLateness.histogram, where) };
    case 'http_req_failed':
    case 'errors':
      return rate((c) => sumCounts(c) - c['2xx']);
    case 'rate_limited':
      return rate((c) => c['429']);
    case 'server_errors':
      return rate((c) => c['5xx']);
    case 'network_errors':
      return rate((c) => c.network_error);
    case 'http_reqs':
      return { kind: 'counter', count: total, durationSec };
    case 'goodput':
      return { kind: 'counter', count: steps.reduce((a, s) => a + s.counts['2xx'], 0), durationSec };
    case 'dropped_iterations':
      return { kind: 'counter', count: scenario.validity.droppedIterations, durationSec };
    default:
      return undefined;
  }
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
