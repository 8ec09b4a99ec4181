// Self-validation of a run (ARCHITECTURE practice 9): send lateness, achieved vs
// target start rate, dropped iterations, event-loop delay and generator CPU. When the
// generator, not the target, was the bottleneck the run is INVALID and says why.
import type { Percentiles, Validity, Warmup } from '../result/model.js';
import { summarize } from './histogram.js';
import type { Aggregator } from './aggregate.js';
import type { Scenario } from './scenario.js';

export interface ValidityInput {
  readonly scenario: Scenario;
  readonly agg: Aggregator;
  /** Expected iterations of the schedule (open-loop) over the time actually run. */
  readonly expectedIterations: number | undefined;
  readonly targetRatePerSec: number | undefined;
  /** Wall time the iterations took to start: the schedule, longer when the generator fell behind. */
  readonly scheduleMs: number;
  readonly eventLoopDelayMs: Percentiles;
  readonly cpuPercent: number;
  readonly threads: number;
  readonly availableCores: number;
  readonly warmup?: Warmup | undefined;
  /** Starts a shard missed by joining its shared start late (part of agg.dropped). */
  readonly missedAtJoin?: number | undefined;
  /** How late the shard joined its shared start, ms (when it did). */
  readonly joinedLateMs?: number | undefined;
}

const CPU_MIN_RUN_MS = 2000;
const fmt = (n: number) => (Math.round(n * 100) / 100).toString();

export function computeValidity(v: ValidityInput): Validity {
  const limits = v.scenario.validity;
  const reasons: string[] = [];
  const lateness = summarize(v.agg.lateness);
  const achieved = v.scheduleMs > 0 ? v.agg.startedIterations / (v.scheduleMs / 1000) : 0;
  const openLoop = v.scenario.executor === 'constant-arrival-rate' || v.scenario.executor === 'ramping-arrival-rate';
  if (openLoop) {
    if (lateness.percentiles.p99 > limits.maxSendLatenessP99Ms) {
      reasons.push(`send lateness p99 ${fmt(lateness.percentiles.p99)} ms > ${limits.maxSendLatenessP99Ms} ms: the generator started requests later than scheduled`);
    }
    if (v.targetRatePerSec !== undefined && v.targetRatePerSec > 0 && v.expectedIterations !== undefined && v.expectedIterations >= 1) {
      // Both the count (iterations never started) and the pace (started, but late) count.
      const ratio = Math.min(v.agg.startedIterations / v.expectedIterations, achieved / v.targetRatePerSec);
      if (ratio < limits.minAchievedRatio) {
        reasons.push(
          `achieved ${fmt(achieved)}/s with ${v.agg.startedIterations} of ${Math.round(v.expectedIterations)} scheduled iterations started (${fmt(ratio * 100)}% < ${fmt(limits.minAchievedRatio * 100)}% of the target): the generator could not hold the target rate`,
        );
      }
    }
    const missed = v.missedAtJoin ?? 0;
    if (missed > 0) {
      reasons.push(`${missed} iterations missed: this shard joined the shared start ${fmt(v.joinedLateMs ?? 0)} ms late (its pod or process started after --start-at); give the shards more time before the start`);
    }
    const capped = v.agg.dropped - missed;
    const droppedRatio = v.agg.scheduled > 0 ? capped / v.agg.scheduled : 0;
    if (droppedRatio > limits.maxDroppedRatio) {
      reasons.push(
        `${capped} iterations dropped (${fmt(droppedRatio * 100)}%): maxInFlight ${v.scenario.maxInFlight} was reached; raise maxInFlight to measure the target's latency at this rate`,
      );
    }
  }
  if (v.eventLoopDelayMs.p99 > limits.maxEventLoopDelayP99Ms) {
    reasons.push(`event-loop delay p99 ${fmt(v.eventLoopDelayMs.p99)} ms > ${limits.maxEventLoopDelayP99Ms} ms: the generator's thread was saturated`);
  }
  const usable = Math.max(1, Math.min(v.threads, v.availableCores)) * 100;
  // Open-loop runs show a saturated generator as lateness (checked above). A closed loop
  // has no schedule to fall behind: there a CPU-bound generator caps the measured
  // throughput itself. Runs under CPU_MIN_RUN_MS are too short for a CPU share to mean much.
  if (!openLoop && limits.cpuBoundInvalidates && v.scheduleMs >= CPU_MIN_RUN_MS && v.cpuPercent >= 0.95 * usable) {
    reasons.push(`generator CPU ${fmt(v.cpuPercent)}% of ${usable}% available: the generator was CPU-bound`);
  }
  return {
    valid: reasons.length === 0,
    reasons,
    ...(v.targetRatePerSec !== undefined ? { targetRatePerSec: v.targetRatePerSec } : {}),
    achievedRatePerSec: Math.round(achieved * 1000) / 1000,
    droppedIterations: v.agg.dropped,
    sendLateness: lateness,
    eventLoopDelayMs: v.eventLoopDelayMs,
    generatorCpuPercent: Math.round(v.cpuPercent * 10) / 10,
    threads: v.threads,
    ...(v.warmup ? { warmup: v.warmup } : {}),
  };
}

/** Worst of several threads' event-loop delays, value by value (not mergeable exactly). */
export function worstPercentiles(list: readonly Percentiles[]): Percentiles {
  const first = list[0];
  if (!first) return { count: 0, min: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  return list.slice(1).reduce<Percentiles>(
    (a, b) => ({
      count: a.count + b.count,
      min: Math.min(a.min, b.min),
      mean: Math.max(a.mean, b.mean),
      stddev: Math.max(a.stddev, b.stddev),
      p50: Math.max(a.p50, b.p50),
      p90: Math.max(a.p90, b.p90),
      p95: Math.max(a.p95, b.p95),
      p99: Math.max(a.p99, b.p99),
      p999: Math.max(a.p999, b.p999),
      max: Math.max(a.max, b.max),
    }),
    first,
  );
}
