// Rebuilding a load section from a journal: a finished scenario is taken as it was written; the
// scenario in progress is rebuilt by replaying its recorded 1 s buckets through the run's own
// aggregator (so its totals and histograms are exactly what the run had merged), with no
// verdict of its own; the scenarios after it did not run.
import type { LoadScenarioResult } from '../result/model.js';
import { Aggregator } from '../load/aggregate.js';
import { defaultCharts, stepResult } from '../load/engine.js';
import type { Scenario } from '../load/scenario.js';
import type { BucketWire } from '../load/wire.js';
import { computeValidity } from '../load/validity.js';
import type { BucketRecord, CheckpointRecord, JournalRecord, ScenarioStartRecord } from './records.js';

export interface LoadRecovery {
  readonly scenarios: LoadScenarioResult[];
  /** Scenarios that started and did not finish. */
  readonly partial: string[];
  readonly notRun: string[];
  /** Epoch ms up to which the scenario in progress was recorded (undefined when none was). */
  readonly recordedUntilMs: number | undefined;
}

const EMPTY_PERCENTILES = { count: 0, min: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };

export function recoverLoad(records: readonly JournalRecord[], lastAtMs: number): LoadRecovery | undefined {
  const plans = records.filter((r) => r.type === 'plan' && r.section === 'load');
  const starts = records.filter((r): r is ScenarioStartRecord => r.type === 'scenario-start');
  if (plans.length === 0 && starts.length === 0) return undefined;
  const planned = plans.flatMap((p) => (p.type === 'plan' ? p.units : []));
  const done = new Map<string, LoadScenarioResult>();
  for (const r of records) if (r.type === 'scenario') done.set(r.result.name, r.result);
  const scenarios: LoadScenarioResult[] = [];
  const partial: string[] = [];
  const notRun: string[] = [];
  let recordedUntilMs: number | undefined;
  for (const name of planned.length > 0 ? planned : starts.map((s) => s.name)) {
    const finished = done.get(name);
    if (finished) {
      scenarios.push(finished);
      continue;
    }
    const start = starts.find((s) => s.name === name);
    if (!start) {
      notRun.push(name);
      continue;
    }
    const t0 = records.find((r) => r.type === 'schedule' && r.scenario === name);
    const buckets = records.filter((r): r is BucketRecord => r.type === 'bucket' && r.scenario === name);
    const checkpoint = records.findLast((r): r is CheckpointRecord => r.type === 'checkpoint' && r.scenario === name);
    const rebuilt = rebuildScenario(start, t0?.type === 'schedule' ? t0.t0EpochMs : undefined, checkpoint, buckets, lastAtMs);
    scenarios.push(rebuilt.result);
    partial.push(name);
    recordedUntilMs = rebuilt.recordedUntilMs;
  }
  return { scenarios, partial, notRun, recordedUntilMs };
}

/** Seconds every shard has recorded: a second counts once each shard moved past it. */
function recordedSeconds(buckets: readonly BucketRecord[], threads: number): number {
  const lastByShard = new Map<number, number>();
  for (const b of buckets) lastByShard.set(b.bucket.shard, Math.max(lastByShard.get(b.bucket.shard) ?? -1, b.bucket.tSec));
  if (lastByShard.size < threads) return 0;
  return Math.min(...lastByShard.values()) + 1;
}

function rebuildScenario(
  start: ScenarioStartRecord,
  t0EpochMs: number | undefined,
  checkpoint: CheckpointRecord | undefined,
  buckets: readonly BucketRecord[],
  lastAtMs: number,
): { result: LoadScenarioResult; recordedUntilMs: number } {
  const agg = new Aggregator(start.threads);
  // A parsed bucket is the wire bucket with encoded histograms (zod types absent fields as undefined).
  if (checkpoint) agg.seed(checkpoint.totals as BucketWire, checkpoint.series);
  for (const b of buckets) agg.add(b.bucket as BucketWire);
  agg.finish();
  const recordedMs = t0EpochMs === undefined ? 0 : Math.max(checkpoint?.throughSec ?? 0, recordedSeconds(buckets, start.threads)) * 1000;
  const recordedUntilMs = t0EpochMs === undefined ? Date.parse(start.startedAt) : t0EpochMs + recordedMs;
  const steps = [...agg.steps.entries()].map(([name, t]) => stepResult(name, t));
  const series = agg.series();
  // The validated scenario as JSON carries every field validity reads (executor, limits, maxInFlight).
  const validity = computeValidity({
    scenario: start.config as unknown as Scenario,
    agg,
    expectedIterations: undefined,
    targetRatePerSec: undefined,
    scheduleMs: Math.max(1, recordedMs),
    eventLoopDelayMs: EMPTY_PERCENTILES,
    cpuPercent: 0,
    threads: start.threads,
    availableCores: start.threads,
  });
  const at = new Date(lastAtMs).toISOString();
  const note =
    t0EpochMs === undefined
      ? `incomplete: the process ended at ${at} before this scenario's schedule started; nothing was measured`
      : `incomplete: the process ended at ${at}, ${fmtSec(recordedMs / 1000)} s into this scenario's schedule of ${fmtSec(start.plannedMs / 1000)} s; its first ${fmtSec(recordedMs / 1000)} s are recorded; no verdict (thresholds not judged)`;
  return {
    recordedUntilMs,
    result: {
      name: start.name,
      description: start.description,
      executor: start.executor,
      config: start.config,
      startedAt: start.startedAt,
      durationMs: Math.max(0, recordedUntilMs - Date.parse(start.startedAt)),
      steps,
      series,
      validity,
      thresholds: [],
      charts: defaultCharts(series),
      verdict: { status: 'info', summary: note, findings: [] },
      iterations: { scheduled: agg.scheduled, started: agg.startedIterations, dropped: agg.dropped },
      ...(start.shard
        ? { shard: { ...start.shard, scheduleStartedAt: new Date(t0EpochMs ?? Date.parse(start.startedAt)).toISOString(), missedAtJoin: 0 } }
        : {}),
      incomplete: { recordedMs, note },
    },
  };
}

const fmtSec = (s: number): string => (Math.round(s * 10) / 10).toString();
