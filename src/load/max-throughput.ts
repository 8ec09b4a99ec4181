// The `max-throughput` executor: closed-loop saturation of one request, every
// answer recorded into the same HDR/bucket path as the open-loop executors (closed loop:
// latency = service time). Two engines: 'qbench' (the default) keeps `connections` x
// `pipelining` requests in flight on the generator's own HTTP/1.1 client (src/load/h1-pool.ts),
// each answer immediately followed by the next request with no promise or per-request
// handler; 'autocannon' runs autocannon itself with a recording hook. The default is ours
// because the hook costs autocannon its margin: measured side by side in bench/load.bench.ts,
// autocannon-with-hook ran at 0.91-1.15x bare autocannon, ours above it.
import type autocannon from 'autocannon';
import type { LoadTarget } from './context.js';
import { H1Pool, type H1Handler } from './h1-pool.js';
import type { H1Response } from './h1-parser.js';
import { buildPath, serializeRequest } from './http.js';
import { hrNowMs, ShardRecorder } from './recorder.js';
import { stepMetricName, type Scenario } from './scenario.js';
import type { Warmup } from '../result/model.js';
import type { BucketSink, ShardEndWire } from './wire.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { eventLoopPercentiles, ELD_RESOLUTION_MS } from './shard.js';

type MaxThroughputScenario = Extract<Scenario, { executor: 'max-throughput' }>;

export interface AutocannonRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly headers: Record<string, string>;
}

/** The one request a max-throughput scenario repeats. */
export function requestOf(s: MaxThroughputScenario, target: LoadTarget): AutocannonRequest {
  const step = s.steps[0];
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.apiKey) headers['authorization'] = `Bearer ${target.apiKey}`;
  const noId = 'qbench-max-throughput';
  const iter = { iteration: 0, shard: 0, target, scheduleStartMs: 0, jobId: undefined, state: undefined, signal: new AbortController().signal, request: () => Promise.reject(new Error('no requests here')), recordTrend: () => undefined, stop: () => undefined };
  const job = (input: unknown, policy: unknown) => JSON.stringify({ input: typeof input === 'function' ? (input as (c: typeof iter) => unknown)(iter) : input, ...(policy ? { policy } : {}) });
  // Plain Errors here and below: parseScenario refuses a max-throughput scenario without exactly one
  // single-request step, so neither is reachable from a scenario file.
  if (!step) throw new Error('max-throughput needs one step');
  switch (step.kind) {
    case 'runsync':
      return { method: 'POST', path: buildPath(target, { method: 'POST', path: '/runsync', ...(step.waitMs !== undefined ? { query: { wait: step.waitMs } } : {}) }), body: job(step.input, step.policy), headers: { ...headers, 'content-type': 'application/json' } };
    case 'run':
      return { method: 'POST', path: buildPath(target, { method: 'POST', path: '/run' }), body: job(step.input, step.policy), headers: { ...headers, 'content-type': 'application/json' } };
    case 'status':
    case 'stream':
      return { method: 'GET', path: buildPath(target, { method: 'GET', path: `/${step.kind}/${encodeURIComponent(step.jobId ?? noId)}` }), headers };
    case 'cancel':
      return { method: 'POST', path: buildPath(target, { method: 'POST', path: `/cancel/${encodeURIComponent(step.jobId ?? noId)}` }), body: '', headers: { ...headers, 'content-type': 'application/json' } };
    case 'health':
      return { method: 'GET', path: buildPath(target, { method: 'GET', path: '/health' }), headers };
    case 'purge-queue':
      return { method: 'POST', path: buildPath(target, { method: 'POST', path: '/purge-queue' }), body: '', headers: { ...headers, 'content-type': 'application/json' } };
    case 'custom':
      throw new Error('max-throughput cannot run a custom step');
  }
}

export interface MaxThroughputRun {
  readonly end: ShardEndWire;
  /** Requests the engine sent (autocannon's own count for that engine: a cross-check of ours). */
  readonly requestsSent: number;
}

/** Run the scenario; `start` is called once the engine is ready and returns the schedule's t0. */
export async function runMaxThroughput(s: MaxThroughputScenario, target: LoadTarget, start: () => number, signal: AbortSignal, sink: BucketSink): Promise<MaxThroughputRun> {
  if (s.engine !== 'autocannon') return runOwn(s, target, start, signal, sink);
  // autocannon is imported only for the scenarios that ask for it, before the clock starts.
  const { default: autocannonRun } = await import('autocannon');
  return runAutocannon(autocannonRun, s, target, start(), signal, sink);
}

/** One in-flight slot of the closed loop: sends, records the answer, sends again. */
class Slot implements H1Handler {
  private sentMs = 0;
  private consecutiveErrors = 0;
  constructor(private readonly loop: OwnLoop) {}
  readonly onSent = (nowMs: number): void => {
    this.sentMs = nowMs;
  };
  send(): void {
    if (!this.loop.mayStart()) {
      this.loop.slotDone();
      return;
    }
    this.loop.started(this);
  }
  onResponse(res: H1Response): void {
    this.consecutiveErrors = 0;
    this.loop.record(this.sentMs, res.status);
    this.send();
  }
  onError(): void {
    this.loop.record(this.sentMs === 0 ? hrNowMs() : this.sentMs, null);
    this.sentMs = 0;
    // An unreachable target fails at once: do not spin on it (10 ms pause after 10 in a row).
    if (++this.consecutiveErrors >= 10) setTimeout(() => this.send(), 10);
    else setImmediate(() => this.send());
  }
}

interface OwnLoop {
  mayStart(): boolean;
  started(slot: Slot): void;
  record(sentMs: number, status: number | null): void;
  slotDone(): void;
}

async function runOwn(s: MaxThroughputScenario, target: LoadTarget, start: () => number, signal: AbortSignal, sink: BucketSink): Promise<MaxThroughputRun> {
  const metric = stepMetricName(s.steps[0]!);
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  const pool = new H1Pool(target.queueUrl, { connections: s.connections, pipelining: s.pipelining, requestTimeoutMs: s.requestTimeoutMs }, hrNowMs);
  const req = requestOf(s, target);
  const request = serializeRequest(req.method, req.path, `host: ${pool.host}\r\n`, req.headers, req.body);
  // The answers still out when the time is up get gracefulStopMs, then the pool is closed.
  const onAbort = () => pool.abortAll('ABORT_ERR', 'the run was aborted');
  signal.addEventListener('abort', onAbort, { once: true });
  let ticker: NodeJS.Timeout | undefined;
  let recorder: ShardRecorder | undefined;
  let sent = 0;
  let warmup: Warmup | undefined;
  try {
    // Connect before the clock starts, as autocannon does.
    const connectStart = hrNowMs();
    const opened = s.warmup.preconnect ? await pool.warm(s.connections) : 0;
    warmup = { connectionsOpened: opened, connectMs: Math.round((hrNowMs() - connectStart) * 10) / 10, localIterations: 0, localMs: 0 };
    const t0Ms = start();
    const endMs = t0Ms + s.durationMs;
    const rec = new ShardRecorder(0, t0Ms, sink, false);
    recorder = rec;
    ticker = setInterval(() => rec.roll(hrNowMs()), 250);
    const wait = t0Ms - hrNowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    eld.enable();
    let budget = s.maxRequests;
    let active = s.connections * s.pipelining;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const loop: OwnLoop = {
      mayStart: () => budget > 0 && !signal.aborted && hrNowMs() < endMs,
      started: (slot) => {
        budget--;
        sent++;
        pool.dispatch(request, slot);
      },
      record: (sentMs, status) => {
        const end = hrNowMs();
        rec.requestStarted(metric, sentMs);
        rec.iterationStartedUnscheduled(sentMs);
        rec.request({ metric, intendedMs: sentMs, sentMs, endMs: end, status });
        rec.iterationDone(end);
      },
      slotDone: () => {
        if (--active === 0) finished();
      },
    };
    for (let i = 0; i < s.connections * s.pipelining; i++) new Slot(loop).send();
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      graceTimer = setTimeout(resolve, Math.max(0, endMs - hrNowMs()) + s.gracefulStopMs);
    });
    await Promise.race([done, grace]);
    clearTimeout(graceTimer);
  } finally {
    signal.removeEventListener('abort', onAbort);
    pool.destroy();
    clearInterval(ticker);
    recorder?.roll(hrNowMs(), true);
    eld.disable();
  }
  return { end: { shard: 0, eventLoopDelayMs: eventLoopPercentiles(eld), aborted: signal.aborted, ...(warmup ? { warmup } : {}) }, requestsSent: sent };
}

async function runAutocannon(autocannonRun: typeof autocannon, s: MaxThroughputScenario, target: LoadTarget, t0Ms: number, signal: AbortSignal, sink: BucketSink): Promise<MaxThroughputRun> {
  const metric = stepMetricName(s.steps[0]!);
  const recorder = new ShardRecorder(0, t0Ms, sink, false);
  const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  eld.enable();
  const req = requestOf(s, target);
  const ticker = setInterval(() => recorder.roll(hrNowMs()), 250);
  try {
    let resolveDone!: (r: autocannon.Result) => void;
    let rejectDone!: (e: unknown) => void;
    const done = new Promise<autocannon.Result>((res, rej) => {
      resolveDone = res;
      rejectDone = rej;
    });
    const instance = autocannonRun({
      url: target.queueUrl,
      connections: s.connections,
      pipelining: s.pipelining,
      duration: s.durationMs / 1000,
      maxOverallRequests: s.maxRequests,
      timeout: Math.ceil(s.requestTimeoutMs / 1000),
      requests: [{ method: req.method, path: req.path, headers: req.headers, ...(req.body !== undefined ? { body: req.body } : {}) }],
    }, (err: unknown, r: autocannon.Result) => (err ? rejectDone(err) : resolveDone(r)));
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      const end = hrNowMs();
      recorder.requestStarted(metric, end - responseTimeMs);
      recorder.iterationStartedUnscheduled(end);
      recorder.request({ metric, intendedMs: end - responseTimeMs, sentMs: end - responseTimeMs, endMs: end, status: statusCode });
    });
    instance.on('reqError', () => {
      const end = hrNowMs();
      recorder.iterationStartedUnscheduled(end);
      recorder.request({ metric, intendedMs: end, sentMs: end, endMs: end, status: null });
    });
    const onAbort = () => instance.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    const result = await done;
    signal.removeEventListener('abort', onAbort);
    return { end: { shard: 0, eventLoopDelayMs: eventLoopPercentiles(eld), aborted: signal.aborted }, requestsSent: result.requests.total };
  } finally {
    clearInterval(ticker);
    recorder.roll(hrNowMs(), true);
    eld.disable();
  }
}
