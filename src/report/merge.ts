// `qbench merge`: combine results of the same scenarios run by several generator
// processes or machines (shards). Histograms are merged losslessly and counts summed, so the
// whole-run percentiles are exactly those of one run over the union of samples; time series are
// aligned on wall-clock seconds; thresholds are evaluated again on the merged whole.
import path from 'node:path';
import { QbenchError } from '../errors.js';
import { SECOND_MS } from '../spec/index.js';
import { mergeSummaries } from '../result/histogram.js';
import {
  OUTCOME_CLASSES,
  QbenchResult,
  SCHEMA_VERSION,
  type Chart,
  type CheckResult,
  type ConformanceSection,
  type CoverageRow,
  type FuzzProperty,
  type FuzzSection,
  type IntervalPoint,
  type LatencySummary,
  type LoadScenarioResult,
  type OutcomeClass,
  type OutcomeCounts,
  type Percentiles,
  type StepResult,
  type StepSeries,
  type ScenarioIdentity,
  type ThresholdResult,
  type Validity,
} from '../result/model.js';
import { computeOverall, findingOutcome } from '../result/overall.js';
import { partialMergedRun, partialMergedScenario } from './merge-partial.js';
import { mergeRunCost, refuseUnmergeableSections } from './merge-sections.js';
import { compare, evaluateThreshold, metricKind, parseThresholdExpression, scenarioMetric } from '../result/thresholds.js';

export interface MergeInput {
  result: QbenchResult;
  /** Where it came from (a file name): names the shard in errors, labels and chart series. */
  source: string;
}

export interface MergeOptions {
  command?: readonly string[];
}

const zeroCounts = (): OutcomeCounts => ({ '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 });

function addCounts(into: OutcomeCounts, c: OutcomeCounts): void {
  for (const k of OUTCOME_CLASSES) into[k] += c[k];
}

/** Percentiles summaries without histograms cannot merge exactly: keep the worst of each (an upper bound). */
function worstPercentiles(ps: readonly Percentiles[]): Percentiles {
  const count = ps.reduce((a, p) => a + p.count, 0);
  const pick = (k: keyof Percentiles) => Math.max(0, ...ps.map((p) => p[k]));
  return {
    count,
    min: ps.length > 0 ? Math.min(...ps.map((p) => p.min)) : 0,
    mean: count > 0 ? ps.reduce((a, p) => a + p.mean * p.count, 0) / count : 0,
    stddev: pick('stddev'),
    p50: pick('p50'),
    p90: pick('p90'),
    p95: pick('p95'),
    p99: pick('p99'),
    p999: pick('p999'),
    max: pick('max'),
  };
}

function shardLabel(input: MergeInput): string {
  return input.result.meta.labels?.['shard'] ?? path.basename(input.source).replace(/\.json$/i, '');
}

function mergeSteps(name: string, steps: ReadonlyArray<StepResult>): StepResult {
  const counts = zeroCounts();
  const statusCodes: Record<string, number> = {};
  for (const s of steps) {
    addCounts(counts, s.counts);
    for (const [code, n] of Object.entries(s.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  }
  const merged: StepResult = {
    step: name,
    counts,
    latency: mergeSummaries(steps.map((s) => s.latency), `${name}.latency`),
    serviceTime: mergeSummaries(steps.map((s) => s.serviceTime), `${name}.serviceTime`),
    statusCodes,
  };
  const byOutcome: Partial<Record<OutcomeClass, LatencySummary>> = {};
  for (const cls of OUTCOME_CLASSES) {
    const parts = steps.flatMap((s) => (s.byOutcome?.[cls] ? [s.byOutcome[cls]] : []));
    if (parts.length > 0) byOutcome[cls] = mergeSummaries(parts, `${name}.byOutcome.${cls}`);
  }
  if (Object.keys(byOutcome).length > 0) merged.byOutcome = byOutcome;
  const attempts = steps.flatMap((s) => (s.attempts ? [s.attempts] : []));
  if (attempts.length > 0) {
    merged.attempts = {
      histogram: worstPercentiles(attempts.map((a) => a.histogram)),
      maxAttempts: Math.max(...attempts.map((a) => a.maxAttempts)),
      gaveUp: attempts.reduce((a, x) => a + x.gaveUp, 0),
      endToEnd: mergeSummaries(attempts.map((a) => a.endToEnd), `${name}.attempts.endToEnd`),
    };
  }
  return merged;
}

/**
 * When a result's 1 s series starts: a shard's schedule start (shards of one run share it),
 * else the result's start.
 */
const seriesBaseMs = (s: LoadScenarioResult): number => Date.parse(s.shard?.scheduleStartedAt ?? s.startedAt);

/** Align per-second points of every shard on wall-clock seconds since the earliest shard's start. */
function mergeSeries(shards: ReadonlyArray<LoadScenarioResult>): StepSeries[] {
  const bySteps = new Map<string, Map<number, IntervalPoint>>();
  const startMs = Math.min(...shards.map(seriesBaseMs));
  for (const s of shards) {
    const offsetSec = Math.round((seriesBaseMs(s) - startMs) / SECOND_MS);
    for (const ser of s.series) {
      const points = bySteps.get(ser.step) ?? new Map<number, IntervalPoint>();
      bySteps.set(ser.step, points);
      for (const p of ser.points) {
        const t = p.tSec + offsetSec;
        const q = points.get(t);
        if (!q) {
          points.set(t, { ...p, tSec: t, counts: { ...p.counts } });
          continue;
        }
        addCounts(q.counts, p.counts);
        // per-interval percentiles are not mergeable without per-interval histograms: keep the highest shard's (an upper bound)
        q.p50Ms = Math.max(q.p50Ms, p.p50Ms);
        q.p90Ms = Math.max(q.p90Ms, p.p90Ms);
        q.p99Ms = Math.max(q.p99Ms, p.p99Ms);
        q.maxMs = Math.max(q.maxMs, p.maxMs);
        q.serviceP99Ms = Math.max(q.serviceP99Ms, p.serviceP99Ms);
        q.offeredPerSec += p.offeredPerSec;
        q.goodputPerSec += p.goodputPerSec;
      }
    }
  }
  return [...bySteps.entries()].map(([step, points]) => ({ step, points: [...points.values()].sort((a, b) => a.tSec - b.tSec) }));
}

function mergeValidity(shards: ReadonlyArray<{ s: LoadScenarioResult; label: string }>): Validity {
  const vs = shards.map((x) => x.s.validity);
  const targets = vs.map((v) => v.targetRatePerSec);
  const allTargets = targets.every((t) => t !== undefined);
  const v: Validity = {
    valid: vs.every((x) => x.valid),
    reasons: shards.flatMap((x) => x.s.validity.reasons.map((r) => `${x.label}: ${r}`)),
    achievedRatePerSec: vs.reduce((a, x) => a + x.achievedRatePerSec, 0),
    droppedIterations: vs.reduce((a, x) => a + x.droppedIterations, 0),
    sendLateness: mergeSummaries(vs.map((x) => x.sendLateness), 'validity.sendLateness'),
    eventLoopDelayMs: worstPercentiles(vs.map((x) => x.eventLoopDelayMs)),
    generatorCpuPercent: Math.max(0, ...vs.map((x) => x.generatorCpuPercent)),
    threads: vs.reduce((a, x) => a + x.threads, 0),
  };
  if (allTargets) v.targetRatePerSec = targets.reduce<number>((a, t) => a + (t ?? 0), 0);
  return v;
}

/**
 * Threshold again on the merged whole. Metrics a result does not keep (`iterations`,
 * `<step>.attempts`) fall back to the shards' observed values: counters are summed, trends
 * take the worst shard.
 */
function reevaluate(merged: LoadScenarioResult, shards: ReadonlyArray<LoadScenarioResult>): ThresholdResult[] {
  const seen = new Map<string, ThresholdResult>();
  for (const s of shards) for (const t of s.thresholds) if (!seen.has(`${t.metric}\u0000${t.expression}`)) seen.set(`${t.metric}\u0000${t.expression}`, t);
  return [...seen.values()].map((t) => {
    if (scenarioMetric(merged, t.metric) !== undefined) return evaluateThreshold(merged, { metric: t.metric, expression: t.expression, abortOnFail: t.abortOnFail });
    const parsed = parseThresholdExpression(t.expression);
    const observedByShard = shards.flatMap((s) => s.thresholds.filter((x) => x.metric === t.metric && x.expression === t.expression).map((x) => x.observed));
    let observed: number | null = null;
    if (observedByShard.length > 0 && observedByShard.every((x) => x !== null)) {
      const values = observedByShard;
      observed = metricKind(t.metric) === 'counter' ? values.reduce((a, x) => a + x, 0) : Math.max(...values);
    }
    const rounded = observed === null ? null : Math.round(observed * 1e6) / 1e6;
    const passed = observed !== null && compare(observed, parsed.operator, parsed.value);
    return { metric: t.metric, expression: t.expression, observed: rounded, passed, abortOnFail: t.abortOnFail };
  });
}

function mergeCharts(shards: ReadonlyArray<{ s: LoadScenarioResult; label: string }>): Chart[] {
  if (shards.length === 1) return shards[0]?.s.charts ?? [];
  const byId = new Map<string, Chart>();
  for (const { s, label } of shards) {
    for (const c of s.charts) {
      const renamed = c.series.map((x) => ({ name: `${label}: ${x.name}`, points: x.points }));
      const have = byId.get(c.id);
      if (!have) {
        byId.set(c.id, { ...c, series: renamed });
        continue;
      }
      have.series.push(...renamed);
      const refs = [...(have.referenceLines ?? []), ...(c.referenceLines ?? [])];
      const unique = refs.filter((r, i) => refs.findIndex((q) => q.label === r.label && q.y === r.y) === i);
      if (unique.length > 0) have.referenceLines = unique;
      if (c.categories && (!have.categories || c.categories.length > have.categories.length)) have.categories = c.categories;
    }
  }
  return [...byId.values()];
}

function mergeScenario(group: ReadonlyArray<{ s: LoadScenarioResult; label: string; source: string }>): LoadScenarioResult {
  const first = group[0];
  if (!first) throw new QbenchError('QB_ERR_INTERNAL', 'mergeScenario: empty group');
  if (group.length === 1) return first.s;
  const name = first.s.name;
  const executors = [...new Set(group.map((g) => g.s.executor))];
  if (executors.length > 1) {
    throw new QbenchError(
      'QB_ERR_USAGE',
      `cannot merge scenario "${name}": the shards ran different executors (${group.map((g) => `${g.source}: ${g.s.executor}`).join(', ')}); shards must run the same scenario`,
    );
  }
  const starts = group.map((g) => Date.parse(g.s.startedAt));
  const startMs = Math.min(...starts);
  const endMs = Math.max(...group.map((g, i) => (starts[i] ?? startMs) + g.s.durationMs));
  const stepNames = [...new Set(group.flatMap((g) => g.s.steps.map((st) => st.step)))];
  const merged: LoadScenarioResult = {
    name,
    description: first.s.description,
    executor: first.s.executor,
    config: first.s.config,
    startedAt: new Date(startMs).toISOString(),
    durationMs: endMs - startMs,
    steps: stepNames.map((st) => mergeSteps(st, group.flatMap((g) => g.s.steps.filter((x) => x.step === st)))),
    series: mergeSeries(group.map((g) => g.s)),
    validity: mergeValidity(group),
    thresholds: [],
    charts: mergeCharts(group),
    verdict: { status: 'pass', summary: '', findings: [] },
    shards: group.reduce((a, g) => a + (g.s.shards ?? 1), 0),
  };
  const iterations = group.map((g) => g.s.iterations);
  if (iterations.every((x) => x !== undefined)) {
    merged.iterations = {
      scheduled: iterations.reduce((a, x) => a + x.scheduled, 0),
      started: iterations.reduce((a, x) => a + x.started, 0),
      dropped: iterations.reduce((a, x) => a + x.dropped, 0),
    };
  }
  merged.thresholds = reevaluate(merged, group.map((g) => g.s));
  const judged = group.flatMap((g) => g.s.verdict.findings.map((f) => ({ f: { ...f, label: `${g.label}: ${f.label}` }, outcome: findingOutcome(f, g.s.verdict.status) })));
  const findings = judged.map((j) => j.f);
  const failedThresholds = merged.thresholds.filter((t) => !t.passed);
  const failedFindings = judged.filter((j) => j.outcome === 'fail').map((j) => j.f);
  // A part that could not set up what it judges leaves the whole unjudged, unless another part saw a violation.
  const unjudged = group.filter((g) => g.s.verdict.status === 'inconclusive').map((g) => `${g.label}: ${g.s.verdict.summary}`);
  const status: LoadScenarioResult['verdict']['status'] = !merged.validity.valid
    ? 'invalid'
    : failedThresholds.length > 0 || failedFindings.length > 0
      ? 'fail'
      : unjudged.length > 0 || judged.some((j) => j.outcome === 'inconclusive')
        ? 'inconclusive'
        : group.every((g) => g.s.verdict.status === 'info') && merged.thresholds.length === 0
          ? 'info'
          : 'pass';
  const what =
    status === 'invalid'
      ? 'a shard\'s generator could not keep up'
      : status === 'fail'
        ? [...failedThresholds.map((t) => `threshold ${t.metric} ${t.expression} failed (observed ${t.observed ?? 'no data'})`), ...failedFindings.map((f) => `${f.label} failed`)].join('; ')
        : status === 'inconclusive'
          ? `inconclusive: ${unjudged.length > 0 ? unjudged.join('; ') : judged.filter((j) => j.outcome === 'inconclusive').map((j) => `${j.f.label} not reached`).join('; ')}`
          : merged.thresholds.length > 0
          ? 'all thresholds passed on the merged whole'
          : 'measured';
  merged.verdict = { status, summary: `${merged.shards} shards merged: ${what}`, findings };
  return partialMergedScenario(merged, group);
}

const VERDICT_RANK: Readonly<Record<CheckResult['verdict']['status'], number>> = { pass: 0, skip: 1, inconclusive: 2, fail: 3, error: 4 };

function mergeConformance(sections: ReadonlyArray<ConformanceSection>): ConformanceSection | undefined {
  if (sections.length === 0) return undefined;
  if (sections.length === 1) return sections[0];
  const checks = new Map<string, CheckResult>();
  for (const sec of sections) {
    for (const c of sec.checks) {
      const have = checks.get(c.id);
      if (!have || VERDICT_RANK[c.verdict.status] > VERDICT_RANK[have.verdict.status]) checks.set(c.id, c);
    }
  }
  const coverage = new Map<string, CoverageRow>();
  for (const sec of sections) {
    for (const row of sec.coverage) {
      const key = `${row.section}\u0000${row.clause}`;
      const have = coverage.get(key);
      if (!have) coverage.set(key, { ...row, checkIds: [...row.checkIds] });
      else have.checkIds = [...new Set([...have.checkIds, ...row.checkIds])];
    }
  }
  const list = [...checks.values()];
  const n = (st: string) => list.filter((c) => c.verdict.status === st).length;
  return {
    profile: [...new Set(sections.map((s) => s.profile))].join('+'),
    checks: list,
    coverage: [...coverage.values()].map((r) => (r.checkIds.length > 0 ? { section: r.section, clause: r.clause, checkIds: r.checkIds } : r)),
    summary: {
      pass: n('pass'),
      fail: n('fail'),
      skip: n('skip'),
      error: n('error'),
      inconclusive: n('inconclusive'),
      expectedFailures: list.filter((c) => c.expectation?.matched && c.verdict.status !== 'pass').length,
      unexpectedPasses: list.filter((c) => c.expectation && !c.expectation.matched && c.verdict.status === 'pass').length,
    },
  };
}

const FUZZ_RANK: Readonly<Record<FuzzProperty['status'], number>> = { pass: 0, fail: 1, error: 2 };

function mergeFuzz(sections: ReadonlyArray<FuzzSection>): FuzzSection | undefined {
  const first = sections[0];
  if (!first) return undefined;
  if (sections.length === 1) return first;
  const props = new Map<string, FuzzProperty>();
  for (const sec of sections) {
    for (const p of sec.properties) {
      const have = props.get(p.name);
      if (!have) props.set(p.name, { ...p });
      else {
        const worse = FUZZ_RANK[p.status] > FUZZ_RANK[have.status] ? { ...p } : have;
        worse.runs = have.runs + p.runs;
        worse.durationMs = have.durationMs + p.durationMs;
        props.set(p.name, worse);
      }
    }
  }
  return {
    seed: first.seed,
    numRuns: sections.reduce((a, s) => a + s.numRuns, 0),
    durationMs: sections.reduce((a, s) => a + s.durationMs, 0),
    properties: [...props.values()],
  };
}

const identityText = (s: LoadScenarioResult): string => JSON.stringify(s.shard?.identity ?? null);

/** What differs between two scenario identities, in words. */
function identityDiff(a: ScenarioIdentity, b: ScenarioIdentity): string {
  const parts: string[] = [];
  if (a.file !== b.file) parts.push(`file ${b.file} vs ${a.file}`);
  if (a.fileSha256 !== b.fileSha256) parts.push(`file hash ${b.fileSha256.slice(0, 12)} vs ${a.fileSha256.slice(0, 12)}`);
  if (JSON.stringify(a.params) !== JSON.stringify(b.params)) parts.push(`params ${JSON.stringify(b.params)} vs ${JSON.stringify(a.params)}`);
  if (a.seed !== b.seed) parts.push(`seed ${b.seed} vs ${a.seed}`);
  if (a.configSha256 !== b.configSha256) parts.push(`scenario config (overrides) hash ${b.configSha256.slice(0, 12)} vs ${a.configSha256.slice(0, 12)}`);
  return parts.join(', ');
}

/**
 * Shards of one run (results of `qbench load --shard`): every scenario must come from shards
 * of the same identity and count, each index exactly once. Throws naming every shard that is
 * missing, duplicated or mismatched.
 */
export function checkShardSet(inputs: readonly MergeInput[]): void {
  const problems: string[] = [];
  const names: string[] = [];
  for (const input of inputs) for (const s of input.result.load?.scenarios ?? []) if (!names.includes(s.name)) names.push(s.name);
  for (const name of names) {
    const entries = inputs.flatMap((input) => (input.result.load?.scenarios ?? []).filter((s) => s.name === name).map((s) => ({ s, source: input.source })));
    const plain = entries.filter((e) => !e.s.shard);
    for (const e of plain) problems.push(`${e.source}: scenario ${name} is not a shard (run without --shard) while others are`);
    const shards = entries.flatMap((e) => (e.s.shard ? [{ ...e, shard: e.s.shard }] : []));
    const ref = shards[0];
    if (!ref) continue;
    // The identity most shards share is the run's; the others are named.
    const votes = new Map<string, number>();
    for (const e of shards) votes.set(`${e.shard.count}\u0000${identityText(e.s)}`, (votes.get(`${e.shard.count}\u0000${identityText(e.s)}`) ?? 0) + 1);
    const runKey = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
    const run = shards.find((e) => `${e.shard.count}\u0000${identityText(e.s)}` === runKey) ?? ref;
    const count = run.shard.count;
    const bySlot = new Map<number, string[]>();
    for (const e of shards) {
      if (e.shard.count !== count) {
        problems.push(`${e.source}: scenario ${name} is shard ${e.shard.index}/${e.shard.count}, the others are shards of ${count}`);
        continue;
      }
      if (identityText(e.s) !== identityText(run.s)) {
        problems.push(`${e.source}: scenario ${name} shard ${e.shard.index}/${count} ran a different scenario than ${run.source} (${identityDiff(run.shard.identity, e.shard.identity)})`);
        continue;
      }
      bySlot.set(e.shard.index, [...(bySlot.get(e.shard.index) ?? []), e.source]);
    }
    for (const [index, sources] of [...bySlot.entries()].sort((a, b) => a[0] - b[0])) {
      if (sources.length > 1) problems.push(`scenario ${name} shard ${index}/${count} is duplicated: ${sources.join(', ')}`);
    }
    const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !bySlot.has(i));
    if (missing.length > 0) problems.push(`scenario ${name} is missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')}`);
    const startAts = new Set(shards.map((e) => e.shard.startAt ?? ''));
    if (startAts.size > 1) problems.push(`scenario ${name}: the shards were given different start instants (${[...startAts].map((x) => x || 'none').join(', ')}); give every shard the same --start-at`);
  }
  if (problems.length > 0) throw new QbenchError('QB_ERR_USAGE', `qbench merge: the shards do not form one complete run:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}

/** Merge shards into one result; overall verdict recomputed. */
export function mergeResults(inputs: readonly MergeInput[], options: MergeOptions = {}): QbenchResult {
  const first = inputs[0];
  if (!first) throw new QbenchError('QB_ERR_USAGE', 'merge needs at least one result');
  refuseUnmergeableSections(inputs);
  const sharded = inputs.some((x) => (x.result.load?.scenarios ?? []).some((s) => s.shard !== undefined));
  if (sharded) checkShardSet(inputs);
  else if (inputs.length < 2) throw new QbenchError('QB_ERR_USAGE', 'qbench merge: name at least two result files to merge (or every shard of one qbench load --shard run)');
  const labels = inputs.map(shardLabel);
  const dupes = labels.filter((l, i) => labels.indexOf(l) !== i);
  if (dupes.length > 0) for (let i = 0; i < labels.length; i++) labels[i] = `${labels[i]}#${i + 1}`;

  const names: string[] = [];
  for (const input of inputs) for (const s of input.result.load?.scenarios ?? []) if (!names.includes(s.name)) names.push(s.name);
  const scenarios = names.map((name) =>
    mergeScenario(
      inputs.flatMap((input, i) =>
        (input.result.load?.scenarios ?? []).filter((s) => s.name === name).map((s) => ({ s, label: labels[i] ?? input.source, source: input.source })),
      ),
    ),
  );

  const startMs = Math.min(...inputs.map((x) => Date.parse(x.result.meta.startedAt)));
  const endMs = Math.max(...inputs.map((x) => Date.parse(x.result.meta.endedAt)));
  const targets = [...new Set(inputs.map((x) => `${x.result.meta.target.kind} ${x.result.meta.target.queueUrl}`))];
  const hosts = [...new Set(inputs.map((x) => x.result.meta.machine.hostname))];
  const mergedLabels: Record<string, string> = {};
  for (const x of inputs) Object.assign(mergedLabels, x.result.meta.labels ?? {});
  delete mergedLabels['shard'];
  mergedLabels['shards'] = inputs.map((x, i) => `${labels[i]} (${x.source})`).join(', ');
  mergedLabels['shardHosts'] = hosts.join(', ');
  if (targets.length > 1) mergedLabels['targets'] = targets.join(', ');

  const conformance = mergeConformance(inputs.flatMap((x) => (x.result.conformance ? [x.result.conformance] : [])));
  const fuzz = mergeFuzz(inputs.flatMap((x) => (x.result.fuzz ? [x.result.fuzz] : [])));
  const { cost, omitted: costOmitted } = mergeRunCost(inputs);
  const partial: Omit<QbenchResult, 'overall'> = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'qbench-result',
    meta: {
      ...first.result.meta,
      command: [...(options.command ?? ['qbench', 'merge', ...inputs.map((x) => x.source)])],
      startedAt: new Date(startMs).toISOString(),
      endedAt: new Date(endMs).toISOString(),
      durationMs: Math.max(0, endMs - startMs),
      labels: mergedLabels,
    },
    ...(conformance ? { conformance } : {}),
    ...(scenarios.length > 0 || cost ? { load: { scenarios, ...(cost ? { cost } : {}) } } : {}),
    ...(fuzz ? { fuzz } : {}),
  };
  // A shard judged with --strict keeps its inconclusive checks failing the merged run.
  const strict = inputs.some((x) => x.result.overall.strict === true);
  const overall = computeOverall(partial, { strict });
  const died = partialMergedRun(inputs, labels, overall);
  if (died && costOmitted !== undefined) died.incomplete.note = `${died.incomplete.note}; ${costOmitted}`;
  return QbenchResult.parse({ ...partial, ...(died ? died : { overall }) });
}
