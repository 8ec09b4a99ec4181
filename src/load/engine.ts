// Runs one validated scenario against a target and returns its LoadScenarioResult in the
// shared report model: setup and timeline hooks, the shards (in-process, worker
// threads or the max-throughput engine), progress and abortOnFail every second, then steps, series,
// validity, thresholds, charts and the verdict (INVALID before pass/fail).
import { availableParallelism } from 'node:os';
import type { Chart, LoadScenarioResult, ScenarioIdentity, StepResult, ThresholdResult, Warmup } from '../result/model.js';
import { OUTCOME_CLASSES } from '../result/model.js';
import { Aggregator, type StepTotals } from './aggregate.js';
import { expectedCount, inverseCumulative } from './arrivals.js';
import type { Analysis, LoadTarget, RunContext } from './context.js';
import { percentilesOf, percentileMs, summarize } from './histogram.js';
import { TargetHttp } from './http.js';
import type { ScenarioSource } from './loader.js';
import { runMaxThroughput } from './max-throughput.js';
import { hrNowMs } from './recorder.js';
import { plannedDurationMs, scenarioToJson, type Scenario } from './scenario.js';
import { segmentsOf, shareOf } from './drive.js';
import { runShard } from './shard.js';
import { abortingThreshold, evaluate, parseThresholds } from './thresholds.js';
import { runThreads } from './threads.js';
import { scenarioIdentity, type ProcessShard } from './sharding.js';
import { hostname } from 'node:os';
import { scenarioError } from '../errors.js';
import { computeValidity, worstPercentiles } from './validity.js';
import type { ShardEndWire } from './wire.js';
import type { LoadObserver } from './observer.js';

export interface ProgressSnapshot {
  readonly scenario: string;
  readonly elapsedMs: number;
  readonly plannedMs: number;
  readonly startedPerSec: number;
  readonly inFlight: number;
  readonly requests: number;
  readonly status429: number;
  readonly errors: number;
  /** Corrected latency of the first step so far. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly dropped: number;
}

export interface RunScenarioOptions {
  readonly target: LoadTarget;
  readonly signal?: AbortSignal | undefined;
  /** Called about once a second. */
  readonly onProgress?: ((p: ProgressSnapshot) => void) | undefined;
  readonly log?: ((line: string) => void) | undefined;
  /** The scenario's file, needed for threads > 1 when it holds code. */
  readonly source?: ScenarioSource | undefined;
  /** This process runs one shard of the global schedule (src/load/sharding.ts). */
  readonly shard?: ProcessShard | undefined;
  /** The shared start instant (epoch ms): the schedule's time zero for every shard. */
  readonly startAtMs?: number | undefined;
  /** Watches the run (journal, live metrics). */
  readonly observer?: LoadObserver | undefined;
}

/** How far ahead of "now" the schedule starts, so the first intended start is not already late. */
const START_LEAD_MS = 20;

/**
 * Run one scenario, phase by phase: open the run (its control HTTP client, aggregator and
 * abort wiring), the setup hook, drive the shards (each warms up its connections before the
 * schedule starts), collect the result with its validity and thresholds, judge it (the analyze
 * hook and the verdict), and always tear down (the teardown hook, the control HTTP client).
 */
export async function runScenario(scenario: Scenario, opts: RunScenarioOptions): Promise<LoadScenarioResult> {
  const run = await openRun(scenario, opts);
  try {
    await runSetupHook(run);
    const driven = await driveShards(run);
    const base = collectResult(run, driven);
    return await judge(run, base);
  } finally {
    await closeRun(run);
  }
}

/** One scenario's run between its phases: what each phase reads and leaves for the next. */
interface ScenarioRun {
  readonly s: Scenario;
  readonly opts: RunScenarioOptions;
  readonly thresholds: ReturnType<typeof parseThresholds>;
  readonly shard: ProcessShard | undefined;
  readonly identity: ScenarioIdentity | undefined;
  /** Aborted by the caller's signal or an aborting threshold: stops the schedule. */
  readonly controller: AbortController;
  readonly onOuterAbort: () => void;
  readonly log: (line: string) => void;
  /** The hooks' own requests (setup, timeline, analyze, teardown), apart from the load. */
  readonly controlHttp: TargetHttp;
  readonly startedAt: Date;
  readonly agg: Aggregator;
  /** What the setup hook answered, handed to every later hook and shard. */
  state: unknown;
  /** The schedule's time zero (hrNow ms). */
  t0Ms: number;
  abortReason: ThresholdResult | undefined;
  /**
   * When an interrupt or an aborting threshold stopped the schedule: the iterations that drain
   * after it are no part of the time the schedule ran.
   */
  stoppedAtMs: number | undefined;
  readonly timers: NodeJS.Timeout[];
  readonly timelineDone: Promise<void>[];
}

/** What the drive phase leaves for the collect phase. */
interface Driven {
  readonly ends: readonly ShardEndWire[];
  readonly threads: number;
  readonly plannedMs: number;
  /** hrNow ms when the shards started and ended. */
  readonly wall0Ms: number;
  readonly endMs: number;
  readonly cpu: NodeJS.CpuUsage;
}

/** The context every hook gets, read at the call (state and the schedule's start change). */
function hookContext(run: ScenarioRun): RunContext {
  return {
    target: run.opts.target,
    signal: run.controller.signal,
    request: (spec) => run.controlHttp.send(spec, run.controller.signal),
    log: run.log,
    state: run.state,
    scheduleStartMs: run.t0Ms,
  };
}

/** Check the sharding options, compute the shard's identity, and open the run's resources. */
async function openRun(s: Scenario, opts: RunScenarioOptions): Promise<ScenarioRun> {
  const thresholds = parseThresholds(s);
  const shard = opts.shard;
  if (shard && !opts.source) throw scenarioError(`${s.name}: a shard needs the scenario's file (its identity is checked by qbench merge)`);
  const identity = shard && opts.source ? await scenarioIdentity(opts.source.file, opts.source.params, s.seed, scenarioToJson(s)) : undefined;
  const controller = new AbortController();
  const outer = opts.signal;
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const log = opts.log ?? (() => undefined);
  const controlHttp = new TargetHttp(opts.target, { connections: 4, requestTimeoutMs: s.requestTimeoutMs });
  const t0Ms = hrNowMs() + START_LEAD_MS;
  const startedAt = new Date();
  const observer = opts.observer;
  const agg = new Aggregator(s.threads, observer?.bucket ? (b) => observer.bucket?.(s.name, b) : undefined);
  const run: ScenarioRun = {
    s,
    opts,
    thresholds,
    shard,
    identity,
    controller,
    onOuterAbort,
    log,
    controlHttp,
    startedAt,
    agg,
    state: undefined,
    t0Ms,
    abortReason: undefined,
    stoppedAtMs: undefined,
    timers: [],
    timelineDone: [],
  };
  controller.signal.addEventListener('abort', () => (run.stoppedAtMs ??= hrNowMs()), { once: true });
  return run;
}

async function runSetupHook(run: ScenarioRun): Promise<void> {
  if (run.s.hooks?.setup) run.state = await run.s.hooks.setup({ ...hookContext(run), state: undefined });
}

/** Fix the schedule's start and arm the timeline actions relative to it; answers the start. */
function beginSchedule(run: ScenarioRun): number {
  const { s, opts, log } = run;
  // A shared start instant is the same moment on every machine; hrNow counts from the epoch too.
  run.t0Ms = opts.startAtMs !== undefined ? hrNowMs() + (opts.startAtMs - Date.now()) : hrNowMs() + START_LEAD_MS;
  opts.observer?.scheduleStarted?.(s.name, opts.startAtMs ?? run.t0Ms - hrNowMs() + Date.now());
  for (const action of s.hooks?.timeline ?? []) {
    run.timers.push(
      setTimeout(
        () => {
          if (action.label) log(`${s.name}: ${action.label}`);
          run.timelineDone.push(action.action(hookContext(run)).catch((e: unknown) => log(`${s.name}: timeline action "${action.label}" failed: ${e instanceof Error ? e.message : String(e)}`)));
        },
        Math.max(0, run.t0Ms + action.atMs - hrNowMs()),
      ),
    );
  }
  return run.t0Ms;
}

/** Once a second: abortOnFail thresholds, and progress for the caller. */
function startProgress(run: ScenarioRun, plannedMs: number): NodeJS.Timeout {
  const { s, opts, agg, thresholds, log } = run;
  const first = s.steps[0];
  const firstMetric = first ? (first.name ?? first.kind) : '';
  // Start rate over the last few seconds of merged buckets (they arrive once a second).
  const recentStarts: [atMs: number, started: number][] = [];
  return setInterval(() => {
    const elapsedMs = hrNowMs() - run.t0Ms;
    recentStarts.push([hrNowMs(), agg.startedIterations]);
    if (recentStarts.length > 4) recentStarts.shift();
    const [firstAt, firstN] = recentStarts[0] ?? [0, 0];
    const [lastAt, lastN] = recentStarts[recentStarts.length - 1] ?? [0, 0];
    const startedPerSec = lastAt > firstAt ? Math.round(((lastN - firstN) / (lastAt - firstAt)) * 1000) : 0;
    const failing = abortingThreshold(thresholds, agg, elapsedMs);
    if (failing && !run.abortReason) {
      run.abortReason = failing;
      log(`${s.name}: threshold ${failing.metric} ${failing.expression} failed (observed ${failing.observed}); aborting (abortOnFail)`);
      run.controller.abort(new Error('threshold abortOnFail'));
    }
    if (opts.onProgress) {
      const st = agg.steps.get(firstMetric);
      let requests = 0;
      let errors = 0;
      let s429 = 0;
      for (const t of agg.steps.values()) {
        for (const c of OUTCOME_CLASSES) requests += t.counts[c];
        errors += t.counts['4xx'] + t.counts['5xx'] + t.counts.network_error;
        s429 += t.counts['429'];
      }
      opts.onProgress({
        scenario: s.name,
        elapsedMs: Math.max(0, elapsedMs),
        plannedMs,
        startedPerSec,
        inFlight: agg.inFlight(),
        requests,
        status429: s429,
        errors,
        p50Ms: st ? percentileMs(st.latency, 50) : 0,
        p99Ms: st ? percentileMs(st.latency, 99) : 0,
        dropped: agg.dropped,
      });
    }
  }, 1000);
}

/** Announce the scenario, run its shards (in-process, worker threads or max-throughput) to their end. */
async function driveShards(run: ScenarioRun): Promise<Driven> {
  const { s, opts, shard, identity, agg, controller } = run;
  const threads = s.executor === 'max-throughput' ? 1 : s.threads;
  const plannedMs = plannedDurationMs(s);
  const begin = (): number => beginSchedule(run);
  opts.observer?.scenarioStarted?.(
    {
      name: s.name,
      description: s.description,
      executor: s.executor,
      config: scenarioToJson(s),
      startedAt: run.startedAt.toISOString(),
      plannedMs,
      threads,
      ...(shard && identity ? { shard: { index: shard.index, count: shard.count, host: hostname(), identity, ...(opts.startAtMs !== undefined ? { startAt: new Date(opts.startAtMs).toISOString() } : {}) } } : {}),
    },
    agg,
  );
  const cpu0 = process.cpuUsage();
  const wall0Ms = hrNowMs();
  const progress = startProgress(run, plannedMs);
  let ends: ShardEndWire[];
  try {
    if (s.executor === 'max-throughput') {
      ends = [(await runMaxThroughput(s, opts.target, begin, controller.signal, agg)).end];
    } else if (threads > 1) {
      ends = await runThreads({
        init: {
          source: opts.source,
          scenarioJson: opts.source ? undefined : scenarioToJson(s),
          target: opts.target,
          state: run.state,
          lateJoin: opts.startAtMs !== undefined,
        },
        threads,
        processShard: shard,
        signal: controller.signal,
        onBucket: (b) => agg.add(b),
        onReady: begin,
      });
    } else {
      ends = [
        await runShard({
          scenario: s,
          target: opts.target,
          shardIndex: shard?.index ?? 0,
          shardCount: shard?.count ?? 1,
          start: begin,
          state: run.state,
          signal: controller.signal,
          sink: agg,
          inProcess: true,
          lateJoin: opts.startAtMs !== undefined,
        }),
      ];
    }
  } finally {
    clearInterval(progress);
    for (const t of run.timers) clearTimeout(t);
    await Promise.allSettled(run.timelineDone);
  }
  const endMs = hrNowMs();
  const cpu = process.cpuUsage(cpu0);
  agg.finish();
  const shardError = ends.find((e) => e.error !== undefined)?.error;
  if (shardError) run.log(`${s.name}: an iteration failed with an exception: ${shardError}`);
  return { ends, threads, plannedMs, wall0Ms, endMs, cpu };
}

/** The result without its verdict: steps, series, validity (was the generator the bottleneck?) and thresholds. */
function collectResult(run: ScenarioRun, d: Driven): Omit<LoadScenarioResult, 'verdict'> {
  const { s, opts, shard, identity, agg, thresholds, t0Ms } = run;
  const { ends, endMs, plannedMs } = d;
  // The time the schedule actually covered: all of it, or up to the stop, so that a run
  // interrupted after every start due by then was sent is judged to have held its rate.
  const ranMs = Math.max(1, Math.min(plannedMs, (run.stoppedAtMs ?? endMs) - t0Ms));
  // The time it took to start the iterations: the schedule, or longer when the generator
  // fell behind it (then the achieved rate is below the target).
  const startSpanMs = Math.max(ranMs, agg.lastStartMs - t0Ms);
  const segments = segmentsOf(s);
  const isOpen = segments.length > 0;
  // Poisson schedules have a random count: compare with the arrivals actually drawn.
  const poisson = (s.executor === 'constant-arrival-rate' || s.executor === 'ramping-arrival-rate') && s.arrivals === 'poisson';
  // A shard's share of the uniform count: the global starts with its index modulo the count.
  const expected = isOpen ? (poisson ? agg.scheduled : shareOf(expectedCountUpTo(segments, ranMs), shard?.index ?? 0, shard?.count ?? 1)) : undefined;
  const missedAtJoin = ends.reduce((a, e) => a + (e.missedAtJoin ?? 0), 0);
  const validity = computeValidity({
    scenario: s,
    agg,
    expectedIterations: expected,
    targetRatePerSec: isOpen ? expectedCount(segments) / (plannedMs / 1000) / (shard?.count ?? 1) : undefined,
    scheduleMs: startSpanMs,
    eventLoopDelayMs: worstPercentiles(ends.map((e) => e.eventLoopDelayMs)),
    cpuPercent: ((d.cpu.user + d.cpu.system) / 1000 / Math.max(1, endMs - d.wall0Ms)) * 100,
    threads: d.threads,
    availableCores: availableParallelism(),
    warmup: warmupOf(ends),
    missedAtJoin,
    joinedLateMs: Math.max(0, ...ends.map((e) => e.joinedLateMs ?? 0)),
  });
  const thresholdResults = thresholds.map((t) => evaluate(t, agg, ranMs));
  const steps = [...agg.steps.entries()].map(([name, t]) => stepResult(name, t));
  const series = agg.series();
  return {
    name: s.name,
    description: s.description,
    executor: s.executor,
    config: scenarioToJson(s),
    startedAt: run.startedAt.toISOString(),
    durationMs: Math.round(endMs - d.wall0Ms),
    steps,
    series,
    validity,
    thresholds: thresholdResults,
    charts: defaultCharts(series),
    iterations: { scheduled: agg.scheduled, started: agg.startedIterations, dropped: agg.dropped },
    ...(shard && identity
      ? {
          shard: {
            index: shard.index,
            count: shard.count,
            host: hostname(),
            identity,
            ...(opts.startAtMs !== undefined ? { startAt: new Date(opts.startAtMs).toISOString() } : {}),
            scheduleStartedAt: new Date(opts.startAtMs ?? t0Ms - hrNowMs() + Date.now()).toISOString(),
            missedAtJoin,
          },
        }
      : {}),
  };
}

/** The analyze hook's findings and charts, and the verdict (INVALID before pass/fail). */
async function judge(run: ScenarioRun, base: Omit<LoadScenarioResult, 'verdict'>): Promise<LoadScenarioResult> {
  const { s, agg, controller, abortReason } = run;
  let analysis: Analysis | undefined;
  if (s.hooks?.analyze) analysis = await s.hooks.analyze(base, { ...hookContext(run), trends: agg.trends });
  const charts = [...base.charts, ...(analysis?.charts ?? [])];
  const interrupted = controller.signal.aborted && !abortReason;
  const verdict = verdictOf(base.validity.valid, base.validity.reasons, base.thresholds, analysis, abortReason, interrupted);
  return { ...base, charts, verdict: answeredVerdict(verdict, base.steps, interrupted) };
}

/** Always, whatever came before: the teardown hook (its failure is logged), then the control HTTP client. */
async function closeRun(run: ScenarioRun): Promise<void> {
  const { s, opts, log } = run;
  opts.signal?.removeEventListener('abort', run.onOuterAbort);
  try {
    if (s.hooks?.teardown) await s.hooks.teardown({ ...hookContext(run), signal: new AbortController().signal });
  } catch (e) {
    log(`${s.name}: teardown failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  await run.controlHttp.destroy();
}

/** The threads' warm-ups together: counts summed, times of the slowest thread. */
function warmupOf(ends: readonly ShardEndWire[]): Warmup | undefined {
  const ws = ends.flatMap((e) => (e.warmup ? [e.warmup] : []));
  if (ws.length === 0) return undefined;
  return {
    connectionsOpened: ws.reduce((a, w) => a + w.connectionsOpened, 0),
    connectMs: Math.max(...ws.map((w) => w.connectMs)),
    localIterations: ws.reduce((a, w) => a + w.localIterations, 0),
    localMs: Math.max(...ws.map((w) => w.localMs)),
  };
}

function expectedCountUpTo(segments: ReturnType<typeof segmentsOf>, ms: number): number {
  // Count of uniform arrivals whose offset is below `ms`: search Λ^-1.
  const total = expectedCount(segments);
  let lo = 0;
  let hi = Math.ceil(total) + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const at = inverseCumulative(segments, mid);
    if (at !== undefined && at < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function stepResult(name: string, t: StepTotals): StepResult {
  const byOutcome: StepResult['byOutcome'] = {};
  for (const [cls, h] of t.byOutcome) byOutcome[cls] = summarize(h);
  return {
    step: name,
    counts: t.counts,
    latency: summarize(t.latency),
    serviceTime: summarize(t.service),
    byOutcome,
    ...(t.attempts
      ? {
          attempts: {
            histogram: percentilesOf(t.attempts.attempts),
            maxAttempts: t.attempts.maxAttempts,
            gaveUp: t.attempts.gaveUp,
            endToEnd: summarize(t.attempts.endToEnd),
          },
        }
      : {}),
    statusCodes: t.statusCodes,
  };
}

export function defaultCharts(series: ReturnType<Aggregator['series']>): Chart[] {
  const charts: Chart[] = [];
  for (const st of series) {
    charts.push({
      id: `${st.step}-rate`,
      title: `${st.step}: offered vs goodput per second`,
      xLabel: 's',
      yLabel: 'requests/s',
      xKind: 'time',
      series: [
        { name: 'offered', points: st.points.map((p) => [p.tSec, p.offeredPerSec]) },
        { name: '2xx', points: st.points.map((p) => [p.tSec, p.goodputPerSec]) },
        { name: '429', points: st.points.map((p) => [p.tSec, p.counts['429']]) },
      ],
    });
    charts.push({
      id: `${st.step}-latency`,
      title: `${st.step}: latency per second (corrected vs service time)`,
      xLabel: 's',
      yLabel: 'ms',
      xKind: 'time',
      logY: true,
      series: [
        { name: 'p50', points: st.points.map((p) => [p.tSec, p.p50Ms]) },
        { name: 'p99', points: st.points.map((p) => [p.tSec, p.p99Ms]) },
        { name: 'service p99', points: st.points.map((p) => [p.tSec, p.serviceP99Ms]) },
      ],
    });
  }
  return charts;
}

/** Share of requests without an HTTP answer from which a passing verdict line says so. */
export const NETWORK_ERROR_NOTE_SHARE = 0.1;

/**
 * What the answers allow a verdict to say: a scenario none of whose requests got an HTTP
 * answer measured nothing of the target and fails (no thresholds or analysis can pass it); one
 * that sent nothing is not a measurement; a passing or measured-only one with a large share of
 * network errors says so in its line.
 */
export function answeredVerdict(v: LoadScenarioResult['verdict'], steps: readonly StepResult[], interrupted: boolean): LoadScenarioResult['verdict'] {
  let requests = 0;
  let noAnswer = 0;
  for (const st of steps) {
    for (const c of OUTCOME_CLASSES) requests += st.counts[c];
    noAnswer += st.counts.network_error;
  }
  if (requests === 0) {
    if (interrupted || v.status === 'invalid' || v.status === 'fail') return v;
    return { ...v, status: 'invalid', summary: `no request was sent: nothing was measured (${v.summary})` };
  }
  if (noAnswer === requests) {
    if (v.status === 'invalid') return v;
    return { ...v, status: 'fail', summary: `no request got an HTTP answer: all ${requests.toLocaleString('en-US')} failed at the network (refused, reset or timed out); ${v.summary}` };
  }
  const share = noAnswer / requests;
  if ((v.status === 'pass' || v.status === 'info' || v.status === 'inconclusive') && share >= NETWORK_ERROR_NOTE_SHARE) {
    return { ...v, summary: `${v.summary}; but ${(share * 100).toFixed(1)}% of requests (${noAnswer.toLocaleString('en-US')} of ${requests.toLocaleString('en-US')}) got no HTTP answer (network errors)` };
  }
  return v;
}

function verdictOf(
  valid: boolean,
  reasons: readonly string[],
  thresholds: readonly ThresholdResult[],
  analysis: Analysis | undefined,
  abortedBy: ThresholdResult | undefined,
  interrupted: boolean,
): LoadScenarioResult['verdict'] {
  const failed = thresholds.filter((t) => !t.passed);
  const findings = [...(analysis?.findings ?? [])];
  if (!valid) return { status: 'invalid', summary: `INVALID: ${reasons.join('; ')}`, findings };
  if (abortedBy) return { status: 'fail', summary: `aborted: threshold ${abortedBy.metric} ${abortedBy.expression} failed (observed ${abortedBy.observed})`, findings };
  if (failed.length > 0) {
    return { status: 'fail', summary: `${failed.length} of ${thresholds.length} thresholds failed: ${failed.map((t) => `${t.metric} ${t.expression} (observed ${t.observed ?? 'no data'})`).join('; ')}`, findings };
  }
  if (analysis && analysis.status === 'fail') return { status: 'fail', summary: analysis.summary, findings };
  const note = interrupted ? ' (interrupted before the end)' : '';
  if (analysis) return { status: analysis.status, summary: analysis.summary + note, findings };
  if (thresholds.length > 0) return { status: 'pass', summary: `all ${thresholds.length} thresholds passed${note}`, findings };
  return { status: 'info', summary: `measured only: no thresholds${note}`, findings };
}
