// An LLM load run: the same workload over each asked path of one endpoint, at a constant or
// Poisson arrival rate (open loop: every request timed from its intended start, whatever the
// answers do), at a fixed concurrency (closed loop), or as a sweep: one request at a time, then a
// saturating concurrency, then arrival rates spread between the two, stopping at the first level
// the endpoint does not keep up with. /health is sampled alongside to tell cold requests apart.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import { Pool } from 'undici';
import { schedule } from '../arrivals.js';
import type { LlmLoad, LlmPath, LlmRun, LlmSection } from '../../result/model.js';
import { llmLoadLabel } from '../../result/overall.js';
import { summarizeLlmRun, type MeasuredRequest, type RawLlmRun } from './aggregate.js';
import type { Slo } from './goodput.js';
import { executeLlmRequest, type LlmRequestContext, type LlmRequestSettings, type LlmTransport } from './request.js';
import type { Workload } from './workload.js';

export type LlmMode = LlmSection['mode'];

export interface LlmRunOptions extends LlmRequestSettings {
  readonly queueUrl: string;
  readonly apiKey?: string | undefined;
  readonly paths: readonly LlmPath[];
  readonly mode: LlmMode;
  /** constant and poisson. */
  readonly ratePerSec?: number | undefined;
  /** concurrency; in a sweep, the saturating level's concurrency. */
  readonly concurrency?: number | undefined;
  /** Rate levels between serial and saturation in a sweep. */
  readonly sweepSteps: number;
  /** Each level's schedule. */
  readonly durationMs: number;
  /** Most requests per level. */
  readonly maxRequests?: number | undefined;
  /** Open loop: a start finding this many in flight is dropped (and counted). */
  readonly maxInFlight: number;
  readonly slos: readonly Slo[];
  /** Every run draws its requests from a fresh workload of this seed: the same requests in the same order. */
  readonly workload: () => Workload;
  readonly seed: number;
  /** A delayTime this long (real ms) marks a request cold. */
  readonly coldDelayMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly log?: ((line: string) => void) | undefined;
  /** Injected for tests: otherwise undici to queueUrl. */
  readonly transport?: LlmTransport | undefined;
}

const HEALTH_EVERY_MS = 500;
const POLL_GAP_MS = 20;
/** After an answer is whole, how long the rest of its body may take before its connection is closed. */
const DRAIN_GRACE_MS = 1000;
/** A schedule starts this long after it is computed, so the first send is not late by the setup itself. */
const LEAD_MS = 5;
export const SWEEP_DEFAULT_CONCURRENCY = 64;

const sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
  if (ms <= 0) return;
  try {
    await sleepTimer(ms, undefined, signal ? { signal } : {});
  } catch {
    // aborted: the caller checks its signal
  }
};

/** undici to the queue URL (origin plus an optional path prefix), the key as a bearer token. */
export function undiciTransport(queueUrl: string, apiKey: string | undefined, connections: number): LlmTransport & { close(): Promise<void> } {
  const base = new URL(queueUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  // No timeouts of undici's own: each request enforces --timeout itself (request.ts), up to 1 h.
  const pool = new Pool(base.origin, { connections, pipelining: 1, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 10_000 });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  return {
    now: () => performance.now(),
    async send(req, onData, signal) {
      const sentAtMs = performance.now();
      const res = await pool.request({ method: req.method, path: `${prefix}${req.path}`, headers, ...(req.body !== undefined ? { body: req.body } : {}), ...(signal ? { signal } : {}) });
      const reads = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      for (let r = await reads.next(); r.done !== true; r = await reads.next()) {
        if (onData(performance.now(), r.value) !== true) continue;
        const endAtMs = performance.now();
        // The rest is drained so the connection is reused; a server that keeps it open past the grace loses it.
        const grace = setTimeout(() => res.body.destroy(), DRAIN_GRACE_MS);
        grace.unref();
        void (async () => {
          try {
            for (let rest = await reads.next(); rest.done !== true; rest = await reads.next());
          } catch {
            // destroyed after the grace, or aborted: nothing is left to measure
          } finally {
            clearTimeout(grace);
          }
        })();
        return { status: res.statusCode, sentAtMs, endAtMs };
      }
      return { status: res.statusCode, sentAtMs, endAtMs: performance.now() };
    },
    close: () => pool.close(),
  };
}

/** /health sampled every half second: whether a worker was ready (idle or running) at a moment. */
class HealthSampler {
  private samples: { atMs: number; ready: number }[] = [];
  private usable = true;
  private readonly stopper = new AbortController();
  private readonly signal: AbortSignal;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly transport: LlmTransport,
    private readonly endpointId: string,
    runSignal: AbortSignal | undefined,
  ) {
    this.signal = runSignal ? AbortSignal.any([runSignal, this.stopper.signal]) : this.stopper.signal;
  }

  /** Resolves once the first sample is in (or /health did not answer), so the run's first request is told too. */
  async start(): Promise<void> {
    await this.sample();
    this.loop = (async () => {
      while (this.usable && !this.signal.aborted) {
        await sleep(HEALTH_EVERY_MS, this.signal);
        if (!this.signal.aborted) await this.sample();
      }
    })();
  }

  private async sample(): Promise<void> {
    const raw: Uint8Array[] = [];
    try {
      const a = await this.transport.send({ method: 'GET', path: `/v2/${encodeURIComponent(this.endpointId)}/health` }, (_t, b) => {
        raw.push(b);
      }, this.signal);
      const json = a.status === 200 ? (JSON.parse(Buffer.concat(raw).toString('utf8')) as { workers?: { idle?: unknown; running?: unknown } }) : undefined;
      const idle = json?.workers?.idle;
      const running = json?.workers?.running;
      if (typeof idle !== 'number' || typeof running !== 'number') {
        this.usable = this.samples.length > 0;
        return;
      }
      // The answer describes the moment it was made: between the send and the arrival.
      this.samples.push({ atMs: a.sentAtMs, ready: idle + running });
    } catch {
      this.usable = this.samples.length > 0;
    }
  }

  /** No worker was ready at `atMs` (by the last sample before it); undefined without a sample. */
  noneReadyAt(atMs: number): boolean | undefined {
    let last: { ready: number } | undefined;
    for (const s of this.samples) {
      if (s.atMs > atMs) break;
      last = s;
    }
    return last === undefined ? undefined : last.ready === 0;
  }

  get sampled(): boolean {
    return this.samples.length > 0;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop;
  }
}

interface LevelSpec {
  readonly path: LlmPath;
  readonly load: LlmLoad;
  readonly role: LlmRun['role'];
}

async function runLevel(o: LlmRunOptions, transport: LlmTransport, level: LevelSpec): Promise<RawLlmRun> {
  const workload = o.workload();
  const requests: MeasuredRequest[] = [];
  const engine: { atMs: number; metrics: Record<string, unknown> }[] = [];
  const lateness: number[] = [];
  const ctx: LlmRequestContext = {
    transport,
    endpointId: o.endpointId,
    path: level.path,
    api: o.api,
    stream: o.stream,
    model: o.model,
    ignoreEos: o.ignoreEos,
    logprobs: o.logprobs,
    timeoutMs: o.timeoutMs,
    timeScale: o.timeScale,
    pollGapMs: POLL_GAP_MS,
    onEngineMetrics: (atMs, metrics) => engine.push({ atMs, metrics }),
    sleep,
    signal: o.signal,
  };
  const health = new HealthSampler(transport, o.endpointId, o.signal);
  await health.start();
  const coldOf = (sendMs: number, delayMs: number | undefined): boolean | undefined => {
    const none = health.noneReadyAt(sendMs);
    if (none === true) return true;
    if (delayMs !== undefined) return delayMs >= o.coldDelayMs;
    return none;
  };
  const one = async (intendedMs: number): Promise<void> => {
    const spec = workload.take();
    const outcome = await executeLlmRequest(ctx, spec, intendedMs);
    requests.push({ intendedMs, outcome, cold: coldOf(outcome.sentAtMs, outcome.delayMs) });
  };
  const startedAt = new Date();
  const t0Ms = transport.now() + LEAD_MS;
  let scheduled = 0;
  let dropped = 0;
  const capped = () => o.maxRequests !== undefined && scheduled >= o.maxRequests;
  if (level.load.kind === 'rate') {
    const inFlight = new Set<Promise<void>>();
    const segments = [{ durationMs: o.durationMs, fromRatePerSec: level.load.ratePerSec, toRatePerSec: level.load.ratePerSec }];
    for (const s of schedule({ segments, arrivals: level.load.arrivals, seed: o.seed, shardIndex: 0, shardCount: 1 })) {
      if (capped() || o.signal?.aborted === true) break;
      scheduled += 1;
      const intendedMs = t0Ms + s.offsetMs;
      await sleep(intendedMs - transport.now(), o.signal);
      if (inFlight.size >= o.maxInFlight) {
        // The request it would have sent is drawn all the same: the next one stays the same request in every run.
        workload.take();
        dropped += 1;
        continue;
      }
      lateness.push(Math.max(0, transport.now() - intendedMs));
      const p: Promise<void> = one(intendedMs).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
  } else {
    const endMs = t0Ms + o.durationMs;
    await sleep(t0Ms - transport.now(), o.signal);
    const vu = async (): Promise<void> => {
      while (transport.now() < endMs && !capped() && o.signal?.aborted !== true) {
        scheduled += 1;
        await one(transport.now());
      }
    };
    await Promise.all(Array.from({ length: level.load.concurrency }, vu));
  }
  const endMs = requests.reduce((a, r) => Math.max(a, r.intendedMs + r.outcome.metrics.e2eMs), t0Ms);
  await health.stop();
  return {
    path: level.path,
    api: o.api,
    streamRequested: o.stream,
    load: level.load,
    role: level.role,
    startedAt,
    t0Ms,
    durationMs: o.durationMs,
    endMs,
    scheduled,
    dropped,
    requests,
    latenessMs: lateness,
    engine,
    coldBy: health.sampled
      ? `no worker ready (idle or running) in the last /health sample before the send (every ${HEALTH_EVERY_MS} ms), or delayTime of at least ${o.coldDelayMs} ms`
      : requests.some((r) => r.outcome.delayMs !== undefined)
        ? `delayTime of at least ${o.coldDelayMs} ms`
        : undefined,
  };
}

export interface LlmRunResult {
  readonly runs: LlmRun[];
  readonly sweepAnswers?: LlmSection['sweepAnswers'];
}

/** Every path at every level of the mode, one after another. */
export async function runLlmLoad(options: LlmRunOptions): Promise<LlmRunResult> {
  // Every request in flight listens to the run's signal: one of our own, without the listener cap.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted === true) stop.abort();
  const o: LlmRunOptions = { ...options, signal: stop.signal };
  const own = o.transport === undefined ? undiciTransport(o.queueUrl, o.apiKey, o.maxInFlight + 8) : undefined;
  const transport: LlmTransport = own ?? (o.transport as LlmTransport);
  const runs: LlmRun[] = [];
  const answers: NonNullable<LlmSection['sweepAnswers']> = [];
  const arrivals = o.mode === 'poisson' ? 'poisson' : 'uniform';
  const aborted = (): boolean => o.signal?.aborted === true;
  const measure = async (level: LevelSpec): Promise<LlmRun> => {
    o.log?.(`llm: ${level.path} at ${llmLoadLabel(level.load)} for ${o.durationMs / 1000} s`);
    const run = summarizeLlmRun(await runLevel(o, transport, level), o.slos);
    runs.push(run);
    o.log?.(`llm: ${level.path} at ${llmLoadLabel(level.load)}: ${run.requests.completed} ok, ${run.requests.failed} failed, TTFT p50 ${run.ttft.percentiles.p50} ms, ${run.throughput.outputTokensPerSec} tokens/s${run.saturated === true ? ' (saturated)' : ''}`);
    return run;
  };
  try {
    for (const path of o.paths) {
      if (aborted()) break;
      if (o.mode === 'constant' || o.mode === 'poisson') {
        await measure({ path, role: 'fixed', load: { kind: 'rate', ratePerSec: o.ratePerSec ?? 1, arrivals } });
        continue;
      }
      if (o.mode === 'concurrency') {
        await measure({ path, role: 'fixed', load: { kind: 'concurrency', concurrency: o.concurrency ?? 1 } });
        continue;
      }
      const serial = await measure({ path, role: 'sweep-serial', load: { kind: 'concurrency', concurrency: 1 } });
      const top = await measure({ path, role: 'sweep-saturation', load: { kind: 'concurrency', concurrency: o.concurrency ?? SWEEP_DEFAULT_CONCURRENCY } });
      const low = serial.throughput.requestsPerSec;
      const high = top.throughput.requestsPerSec;
      let best: number | null = null;
      if (low > 0 && high > low * 1.1) {
        for (let i = 1; i <= o.sweepSteps && !aborted(); i++) {
          const rate = Math.round((low + ((high - low) * i) / (o.sweepSteps + 1)) * 1000) / 1000;
          const run = await measure({ path, role: 'sweep-rate', load: { kind: 'rate', ratePerSec: rate, arrivals } });
          if (o.slos.length > 0 && run.saturated !== true && run.slos.every((s) => s.holds)) best = rate;
          if (run.saturated === true) break;
        }
      }
      answers.push({ path, maxRatePerSec: best, saturationRatePerSec: high > 0 ? high : null });
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await own?.close();
  }
  return { runs, ...(o.mode === 'sweep' ? { sweepAnswers: answers } : {}) };
}

