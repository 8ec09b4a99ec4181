// The generator's warm-up (ARCHITECTURE practice 9): before a shard's
// schedule starts, run the generator's own hot path (scheduler, iteration flow, HTTP client,
// recorder, bucket hand-off) against a local in-process sink, then open its connections to
// the target, so the schedule's first seconds run optimised code instead of building a
// backlog. Measured at 20,000 req/s on one core: without it the first second started
// requests up to 150 ms late (p99 of the whole 5 s run 56-166 ms); see bench/load.bench.ts.
// The rehearsal is built to show V8 the same hidden classes as the real run (same scenario
// and target shapes, the pool preconnected, the target's client made afterwards): each
// difference cost a de-optimisation and ~100-250 ms of recompilation at the schedule's start.
// No warm-up request reaches the target; what the warm-up did is reported with the result.
import net from 'node:net';
import type { Warmup } from '../result/model.js';
import type { LoadTarget } from './context.js';
import { Aggregator } from './aggregate.js';
import { drive } from './drive.js';
import { TargetHttp } from './http.js';
import { hrNowMs, ShardRecorder } from './recorder.js';
import { HARD_LIMITS, type Scenario, type Step } from './scenario.js';

/** Below this many iteration starts per second per thread, cold code keeps up: no local warm-up. */
export const WARMUP_MIN_RATE_PER_SEC = 1_000;
/** 'auto' warms with this many seconds' worth of the peak rate, capped. */
const AUTO_WARMUP_SECONDS = 1;
const AUTO_WARMUP_MAX_ITERATIONS = 30_000;
/** 'auto' pre-opens the connections that this much latency would keep busy at the peak rate. */
const AUTO_PRECONNECT_LATENCY_MS = 50;
/** Connections (and at most VUs) of the rehearsal against the sink. */
const LOCAL_CONNECTIONS = 64;
/**
 * Rehearsal passes, each a fresh drive() like the run's: the second runs on closures and
 * objects made after the first, as the run will, so code fitted only to the first pass's
 * objects is re-fitted before the schedule rather than in it.
 */
const REHEARSALS = 2;
/** Rounds of the 1 s bucket hand-off run in the warm-up (measured: warm after the third). */
const HANDOFF_ROUNDS = 4;

/** Starts per second this shard must reach at its peak (open loop), or its VUs (closed loop). */
export function peakLoadPerShard(s: Scenario, shardCount: number): { ratePerSec: number; concurrency: number } {
  switch (s.executor) {
    case 'constant-arrival-rate':
      return { ratePerSec: s.ratePerSec / shardCount, concurrency: 0 };
    case 'ramping-arrival-rate':
      return { ratePerSec: Math.max(s.startRatePerSec, ...s.stages.map((st) => st.targetRatePerSec)) / shardCount, concurrency: 0 };
    case 'constant-concurrency':
    case 'iterations':
      return { ratePerSec: 0, concurrency: Math.ceil(s.vus / shardCount) };
    case 'max-throughput':
      return { ratePerSec: 0, concurrency: s.connections };
  }
}

export function plannedWarmup(s: Scenario, shardCount: number, connections: number): { preconnect: number; localIterations: number } {
  const peak = peakLoadPerShard(s, shardCount);
  const w = s.warmup;
  const preconnect = !w.preconnect
    ? 0
    : Math.min(connections, Math.max(1, peak.concurrency, Math.ceil((peak.ratePerSec * AUTO_PRECONNECT_LATENCY_MS) / 1000)));
  const localIterations =
    w.localIterations !== 'auto'
      ? w.localIterations
      : peak.ratePerSec >= WARMUP_MIN_RATE_PER_SEC
        ? Math.min(AUTO_WARMUP_MAX_ITERATIONS, Math.ceil(peak.ratePerSec * AUTO_WARMUP_SECONDS))
        : 0;
  return { preconnect, localIterations };
}

/**
 * The scenario's built-in steps with constant inputs: no user code runs during the warm-up.
 * The same array when nothing had to change.
 */
function warmupSteps(steps: Step[]): Step[] {
  if (steps.every((st) => st.kind !== 'custom' && !((st.kind === 'run' || st.kind === 'runsync') && typeof st.input === 'function'))) return steps;
  const out: Step[] = [];
  for (const st of steps) {
    if (st.kind === 'custom') continue;
    if ((st.kind === 'run' || st.kind === 'runsync') && typeof st.input === 'function') out.push({ ...st, input: { warmup: true } });
    else out.push(st);
  }
  return out.length > 0 ? out : [{ kind: 'health' }];
}

const SINK_BODY = JSON.stringify({ id: 'qbench-warmup', status: 'COMPLETED', output: { warmup: true } });
const DATE = 'Sun, 22 Nov 2026 00:00:00 GMT';
/**
 * The sink's answers, in rotation: the header layouts of common servers (nginx, Node's http),
 * a chunked body and a 429, so the client's parser and the recorder have seen every branch
 * they take against a real target (a branch first taken after the warm-up de-optimises the
 * code and recompiles it, measured as a few ms of lateness in the first 200 ms).
 */
const SINK_ANSWERS: readonly Buffer[] = [
  `HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: ${DATE}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(SINK_BODY)}\r\nConnection: keep-alive\r\n\r\n${SINK_BODY}`,
  `HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(SINK_BODY)}\r\nDate: ${DATE}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n${SINK_BODY}`,
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${(10).toString(16)}\r\n${SINK_BODY.slice(0, 10)}\r\n${(SINK_BODY.length - 10).toString(16)}\r\n${SINK_BODY.slice(10)}\r\n0\r\n\r\n`,
  `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}`,
  `HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: ${DATE}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(SINK_BODY)}\r\nConnection: keep-alive\r\n\r\n${SINK_BODY}`,
  `HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(SINK_BODY)}\r\nDate: ${DATE}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n${SINK_BODY}`,
].map((a) => Buffer.from(a, 'latin1'));
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');

/** A loopback server that answers every request from SINK_ANSWERS in turn (keep-alive). */
async function startSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => sock.destroy());
    let pending = Buffer.alloc(0);
    let skip = 0;
    let turn = 0;
    const nextAnswer = () => SINK_ANSWERS[turn++ % SINK_ANSWERS.length]!;
    sock.on('data', (chunk: Buffer) => {
      let buf = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      let answers = 0;
      for (;;) {
        if (skip > 0) {
          const n = Math.min(skip, buf.length);
          skip -= n;
          buf = buf.subarray(n);
          if (skip > 0) break;
        }
        const end = buf.indexOf(HEAD_END);
        if (end < 0) break;
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(buf.toString('latin1', 0, end));
        skip = m ? Number(m[1]) : 0;
        buf = buf.subarray(end + 4);
        answers++;
      }
      pending = Buffer.from(buf);
      if (answers === 1) sock.write(nextAnswer());
      else if (answers > 1) sock.write(Buffer.concat(Array.from({ length: answers }, nextAnswer)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The scenario of one rehearsal pass: a copy of `s` (same keys in the same order, values of
 * the same kinds, so V8 gives it the same hidden class) with its built-in steps, a pass's
 * share of the iterations at the same rate, and a short graceful stop. Measured: a copy with
 * other keys or a non-small-integer maxRequests made the real scenario's shape "wrong" to
 * the optimised code, which de-optimised and recompiled for ~250 ms at the schedule's start.
 */
function rehearsalOf(s: Scenario, shardCount: number, iterations: number, connections: number): Scenario {
  const steps = warmupSteps(s.steps);
  const perPass = Math.max(1, Math.ceil(iterations / REHEARSALS));
  const copy = { ...s, maxRequests: HARD_LIMITS.maxRequests, gracefulStopMs: 2_000 };
  if (steps !== s.steps) copy.steps = steps;
  const peak = peakLoadPerShard(s, shardCount);
  const durationMs = Math.max(1, Math.ceil((perPass / Math.max(peak.ratePerSec, 1e-9)) * 1000));
  switch (copy.executor) {
    case 'constant-arrival-rate':
      return { ...copy, durationMs };
    case 'ramping-arrival-rate': {
      const top = Math.max(copy.startRatePerSec, ...copy.stages.map((st) => st.targetRatePerSec));
      return { ...copy, startRatePerSec: top, stages: [{ durationMs, targetRatePerSec: top }] };
    }
    case 'constant-concurrency':
    case 'iterations':
    case 'max-throughput': {
      const { name, description, steps: st, thresholds, on429, maxInFlight, requestTimeoutMs, threads, maxRequests, gracefulStopMs, seed, validity, warmup } = copy;
      const vus = Math.max(1, Math.min(connections, Math.max(1, peak.concurrency) * shardCount));
      return { name, description, steps: st, thresholds, on429, maxInFlight, requestTimeoutMs, threads, maxRequests, gracefulStopMs, seed, validity, warmup, executor: 'iterations', iterations: perPass * shardCount, vus, maxDurationMs: 60_000 };
    }
  }
}

/**
 * The rehearsal: the same executor code (src/load/drive.ts) at this shard's peak rate (open
 * loop) or VUs (closed loop) for `iterations`, with the scenario's built-in steps, against a
 * local sink; then a few rounds of the 1 s bucket hand-off into a throwaway aggregator.
 */
async function rehearse(s: Scenario, real: LoadTarget, state: unknown, encodeBuckets: boolean, shardIndex: number, shardCount: number, connections: number, iterations: number, signal: AbortSignal): Promise<number> {
  const sink = await startSink();
  // The real target's object with the sink's address (same keys, same kinds of values): the
  // optimised code then sees the same hidden classes in the real run. The key, if any, is
  // replaced; nothing is sent beyond this process.
  const target: LoadTarget = { ...real, queueUrl: sink.url, endpointId: 'qbench-warmup', ...(real.apiKey !== undefined ? { apiKey: 'qbench-warmup' } : {}) };
  const conns = Math.max(1, Math.min(LOCAL_CONNECTIONS, connections));
  const http = new TargetHttp(target, { connections: conns, requestTimeoutMs: 10_000 });
  const rehearsal = rehearsalOf(s, shardCount, iterations, conns);
  // Preconnect here too, as the real client will: the pool's first preconnect changes the
  // shape of its fields, and code optimised before that was thrown away at the schedule's
  // start (measured: "code dependencies" de-optimisations of the client's hot functions).
  await http.warm(conns);
  // The 1 s hand-off (encode, decode, merge) is exercised too: cold, its first two rounds
  // took 20-25 ms each (measured), which the schedule's first seconds would pay as lateness.
  const agg = new Aggregator(1);
  let recorder: ShardRecorder | undefined;
  try {
    for (let pass = 0; pass < REHEARSALS && !signal.aborted; pass++) {
      const t0Ms = hrNowMs() + 5;
      recorder = new ShardRecorder(0, t0Ms, agg, encodeBuckets);
      await drive({ scenario: rehearsal, target, http, recorder, shardIndex, shardCount, t0Ms, state, signal });
    }
    const started = agg.startedIterations;
    for (let round = 0; recorder && round < HANDOFF_ROUNDS && !signal.aborted; round++) {
      for (let i = 0; i < 2_000; i++) {
        const now = hrNowMs();
        recorder.iterationScheduled(now, now, true);
        recorder.requestStarted('warmup', now);
        recorder.request({ metric: 'warmup', intendedMs: now - (i % 97), sentMs: now - (i % 13), endMs: now, status: i % 50 === 0 ? 429 : 200 });
      }
      recorder.roll(hrNowMs(), true);
    }
    return started;
  } finally {
    await http.destroy();
    await sink.close();
  }
}

/**
 * Warm a shard up: the rehearsal, then `makeHttp()` (the target's client, made only now so
 * that it and its connections are built after the rehearsal, like the objects the optimised
 * code saw) and its preconnect. Nothing here sends a request to the target.
 */
export async function warmUp(
  s: Scenario,
  target: LoadTarget,
  state: unknown,
  encodeBuckets: boolean,
  makeHttp: () => TargetHttp,
  shardIndex: number,
  shardCount: number,
  connections: number,
  signal: AbortSignal,
): Promise<{ warmup: Warmup; http: TargetHttp }> {
  const plan = plannedWarmup(s, shardCount, connections);
  // The rehearsal first, then the target's client and connections: objects made before the
  // rehearsal (sockets, pools) can carry other hidden classes than the ones it optimised for
  // (measured: "wrong map" bailouts and ~250 ms of recompilation in the schedule's first 350 ms).
  const localStart = hrNowMs();
  const localIterations = plan.localIterations > 0 && !signal.aborted ? await rehearse(s, target, state, encodeBuckets, shardIndex, shardCount, connections, plan.localIterations, signal) : 0;
  const localMs = hrNowMs() - localStart;
  const http = makeHttp();
  const start = hrNowMs();
  let opened = 0;
  if (plan.preconnect > 0 && !signal.aborted) opened = await http.warm(plan.preconnect);
  const round = (n: number) => Math.round(n * 10) / 10;
  return { warmup: { connectionsOpened: opened, connectMs: round(hrNowMs() - start), localIterations, localMs: round(localMs) }, http };
}
