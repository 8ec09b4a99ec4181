// k6-style thresholds on a live run: `{ "runsync.latency": ["p(99)<2000"],
// "run.status_429.rate": ["rate<0.01"] }`, each checked against the run's merged metrics, with
// abortOnFail evaluated every second. Grammar, vocabulary and aggregation are
// src/result/thresholds.ts's, so a live verdict and one on the saved result agree. An unknown
// metric or a malformed expression is a scenario error listing the known metric names.
import type { ThresholdResult } from '../result/model.js';
import { OUTCOME_CLASSES } from '../result/model.js';
import {
  aggregate, aggregationFits, compare, parseThresholdExpression, type MetricKind, type MetricValue,
  type ParsedThreshold as ParsedExpression,
} from '../result/thresholds.js';
import { isQbenchError, scenarioError } from '../errors.js';
import type { Aggregator } from './aggregate.js';
import { createHistogram, type Histogram } from './histogram.js';
import { stepMetricName, type Scenario } from './scenario.js';

export interface ParsedThreshold {
  readonly metric: string;
  readonly expression: string;
  readonly kind: MetricKind;
  readonly parsed: ParsedExpression;
  readonly abortOnFail: boolean;
  readonly delayAbortEvalMs: number;
}

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
      try {
        const parsed = parseThresholdExpression(text);
        aggregationFits(kind, parsed, metric);
        out.push({
          metric,
          expression: parsed.expression,
          kind,
          parsed,
          abortOnFail: typeof spec === 'string' ? false : spec.abortOnFail,
          delayAbortEvalMs: typeof spec === 'string' ? 0 : spec.delayAbortEvalMs,
        });
      } catch (e) {
        if (!isQbenchError(e, 'QB_ERR_SCENARIO')) throw e;
        problems.push(`thresholds["${metric}"]: ${e.message}`);
      }
    }
  }
  if (problems.length > 0) throw scenarioError(`scenario "${s.name}" has invalid thresholds:\n${problems.map((p) => `✖ ${p}`).join('\n')}`);
  return out;
}

/** One empty histogram stands in for a trend with no samples yet (count 0, every other aggregate null). */
const EMPTY = createHistogram();
const trend = (h: Histogram | undefined): MetricValue => ({ kind: 'trend', histogram: h ?? EMPTY });

/** A live metric as the shared aggregation reads it; undefined when the run has no such data. */
export function liveMetric(metric: string, agg: Aggregator, elapsedMs: number): MetricValue | undefined {
  const durationSec = elapsedMs / 1000;
  const counter = (count: number): MetricValue => ({ kind: 'counter', count, durationSec });
  switch (metric) {
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
      return trend(agg.lateness);
  }
  const dot = metric.indexOf('.');
  if (dot < 0) return trend(agg.trends.get(metric));
  const st = agg.steps.get(metric.slice(0, dot));
  const rest = metric.slice(dot + 1);
  const total = st ? OUTCOME_CLASSES.reduce((a, c) => a + st.counts[c], 0) : 0;
  const rate = (hits: number): MetricValue => ({ kind: 'rate', hits, total });
  switch (rest) {
    case 'latency':
      return trend(st?.latency);
    case 'service_time':
      return trend(st?.service);
    case 'attempts':
      return trend(st?.attempts?.attempts);
    case 'end_to_end':
      return trend(st?.attempts?.endToEnd);
    case 'reqs':
      return counter(total);
    case 'errors.rate':
      return rate(st ? total - st.counts['2xx'] : 0);
    case 'network_error.rate':
      return rate(st?.counts.network_error ?? 0);
  }
  const m = /^status_(2xx|429|4xx|5xx)\.rate$/.exec(rest);
  return m ? rate(st ? st.counts[m[1] as '2xx' | '429' | '4xx' | '5xx'] : 0) : undefined;
}

/** The observed value of a threshold's aggregate; null when there is no data yet. */
export function observe(t: ParsedThreshold, agg: Aggregator, elapsedMs: number): number | null {
  const value = liveMetric(t.metric, agg, elapsedMs);
  return value === undefined ? null : aggregate(value, t.parsed, t.metric);
}

/** Evaluate at the end of a run. A threshold with no data fails: no sample, no proof. */
export function evaluate(t: ParsedThreshold, agg: Aggregator, elapsedMs: number): ThresholdResult {
  const observed = observe(t, agg, elapsedMs);
  const rounded = observed === null ? null : Math.round(observed * 1e6) / 1e6;
  return {
    metric: t.metric,
    expression: t.expression,
    observed: rounded,
    passed: observed !== null && compare(observed, t.parsed.operator, t.parsed.value),
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
