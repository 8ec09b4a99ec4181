// The `max-throughput` executor (issue 6): closed-loop saturation through autocannon (its
// own HTTP/1.1 client, pipelining, many connections), with every answer recorded into the
// same HDR/bucket path as the open-loop executors. Closed loop: latency = service time.
import autocannon from 'autocannon';
import type { LoadTarget } from './context.js';
import { buildPath } from './http.js';
import { hrNowMs, ShardRecorder } from './recorder.js';
import { stepMetricName, type Scenario } from './scenario.js';
import type { BucketWire, ShardEndWire } from './wire.js';
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
  /** autocannon's own request count (a cross-check of ours). */
  readonly autocannonRequests: number;
}

export async function runMaxThroughput(s: MaxThroughputScenario, target: LoadTarget, t0Ms: number, signal: AbortSignal, emit: (b: BucketWire) => void): Promise<MaxThroughputRun> {
  const metric = stepMetricName(s.steps[0]!);
  const recorder = new ShardRecorder(0, t0Ms, emit);
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
    const instance = autocannon({
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
    return { end: { shard: 0, eventLoopDelayMs: eventLoopPercentiles(eld), aborted: signal.aborted }, autocannonRequests: result.requests.total };
  } finally {
    clearInterval(ticker);
    recorder.roll(hrNowMs(), true);
    eld.disable();
  }
}
