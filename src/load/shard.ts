// One shard of a run (the whole run on one thread, or 1/N of it in a worker thread): its
// connections, its warm-up, then its share of the schedule (src/load/drive.ts) recorded into
// a ShardRecorder whose 1 s buckets go to the aggregator.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Percentiles, Warmup } from '../result/model.js';
import type { LoadTarget } from './context.js';
import { drive } from './drive.js';
import { TargetHttp } from './http.js';
import { hrNowMs, ShardRecorder } from './recorder.js';
import type { Scenario } from './scenario.js';
import { warmUp } from './warmup.js';
import type { BucketSink, ShardEndWire } from './wire.js';

export interface ShardPlan {
  readonly scenario: Scenario;
  readonly target: LoadTarget;
  readonly shardIndex: number;
  readonly shardCount: number;
  /**
   * Called once this shard is warmed up (connections open, code warm): returns the scenario's
   * start (hrNow base, shared across threads).
   */
  readonly start: () => number | Promise<number>;
  readonly state: unknown;
  readonly signal: AbortSignal;
  readonly sink: BucketSink;
  /** The shard runs on the aggregator's thread: buckets carry live histograms, not encoded ones. */
  readonly inProcess?: boolean;
  /**
   * The start is a shared instant (`--start-at`): when this shard is ready after it, it
   * joins the schedule where it stands and counts the starts already past as dropped.
   */
  readonly lateJoin?: boolean;
}

export const ELD_RESOLUTION_MS = 10;

export function eventLoopPercentiles(h: ReturnType<typeof monitorEventLoopDelay>): Percentiles {
  const ms = (ns: number) => Math.round((ns / 1e6) * 1000) / 1000;
  // The monitor samples every ELD_RESOLUTION_MS; subtract that expected wait from each value.
  const adj = (ns: number) => Math.max(0, Math.round((ns / 1e6 - ELD_RESOLUTION_MS) * 1000) / 1000);
  if (h.count === 0) return { count: 0, min: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  return {
    count: h.count,
    min: adj(h.min),
    mean: adj(h.mean),
    stddev: ms(Number.isNaN(h.stddev) ? 0 : h.stddev),
    p50: adj(h.percentile(50)),
    p90: adj(h.percentile(90)),
    p95: adj(h.percentile(95)),
    p99: adj(h.percentile(99)),
    p999: adj(h.percentile(99.9)),
    max: adj(h.max),
  };
}

export async function runShard(plan: ShardPlan): Promise<ShardEndWire> {
  const { scenario: s } = plan;
  // A plain Error: the engine sends a max-throughput scenario to its own engine, never here.
  if (s.executor === 'max-throughput') throw new Error('max-throughput runs through its own engine (src/load/max-throughput.ts), not a shard');
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  const connections = s.connections ?? s.maxInFlight;
  let http: TargetHttp | undefined;
  let error: string | undefined;
  let warmup: Warmup;
  let recorder: ShardRecorder | undefined;
  let joinedLateMs = 0;
  try {
    const warm = await warmUp(s, plan.target, plan.state, !plan.inProcess, () => (http = new TargetHttp(plan.target, { connections, requestTimeoutMs: s.requestTimeoutMs })), plan.shardIndex, plan.shardCount, connections, plan.signal);
    warmup = warm.warmup;
    const t0Ms = await plan.start();
    recorder = new ShardRecorder(plan.shardIndex, t0Ms, plan.sink, !plan.inProcess);
    const joinMs = hrNowMs();
    const dropBeforeMs = plan.lateJoin && joinMs > t0Ms ? joinMs : undefined;
    if (dropBeforeMs !== undefined) joinedLateMs = dropBeforeMs - t0Ms;
    // Measure the event loop from the schedule's start, not while the warm-up runs.
    const enable = setTimeout(() => eld.enable(), Math.max(0, t0Ms - hrNowMs()));
    try {
      error = await drive({ scenario: s, target: plan.target, http: warm.http, recorder, shardIndex: plan.shardIndex, shardCount: plan.shardCount, t0Ms, state: plan.state, signal: plan.signal, dropBeforeMs });
    } finally {
      clearTimeout(enable);
      eld.disable();
    }
  } finally {
    await http?.destroy();
  }
  return {
    shard: plan.shardIndex,
    eventLoopDelayMs: eventLoopPercentiles(eld),
    warmup,
    aborted: plan.signal.aborted,
    missedAtJoin: recorder?.missedAtJoin ?? 0,
    joinedLateMs,
    ...(error !== undefined ? { error } : {}),
  };
}
