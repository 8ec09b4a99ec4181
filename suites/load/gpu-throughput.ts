// GPU throughput of an LLM-streaming endpoint: jobs in the emulator's `mock_llm` mode (or a
// real vLLM worker) at rising concurrency, each read from /stream to the end. Measures time
// to first token and the part of it spent queued for a worker (the job record's delayTime;
// of that, the time some worker was starting by /health's workers.initializing), gaps between chunks, the per-stream
// generation rate seen by the client against the worker-reported `avg_gen_throughput` (the
// same basis: tokens per second from the first token on), `gpu_kv_cache_usage` over time,
// and the tokens/s clients received per level (queueing, cold starts and TTFT included).
// Verdict: every stream delivers all its tokens, the §4.1 1 MB chunk cap holds (a big output
// is split), and client and worker agree on the per-stream generation rate within 15%.
// Params (PARAMS below, with their defaults): levels, phaseMs (real ms per level), the mock
// job's tokens, tps and ttftMs, agreement, setupWaitMs (real ms the 1.5 MB output job may take,
// cold start included) and firstTokenMs (real ms a job may wait for its first token before it
// is given up: below the 60 s graceful stop, so a job no worker takes ends as not started, not
// as an aborted stream).
// Preconditions, not rules: a worker took every accepted job (its first token came: no worker,
// or a cold start that never finished, leaves nothing to judge) and the 1.5 MB output job
// finished in time. Unmet, the scenario is inconclusive, unless what it did measure broke a
// rule (an incomplete stream after its first token, an oversized chunk, client and worker
// disagreeing on the rate).
import {
  HTTP_STATUS, SECOND_MS, STREAM_CHUNK, defineScenario, param, type Analysis,
  type HttpAnswer, type IterationContext, type RunContext, type ScenarioInput, type ParamsOf,
} from 'qbench/suite';
import { isTerminalStatus, valueAt } from './lib/answer.js';
import { precondition, setupNote, statusOf } from './lib/verdict.js';

/** Default agreement between client and worker tokens/s (`--param agreement=0.25` to widen). */
const DEFAULT_AGREEMENT = 0.15;
/** One KV-cache sample per this many real ms is kept for the chart. */
const KV_SAMPLE_MS = 100;

interface LevelStats {
  jobs: number;
  /** Jobs whose first token came (a worker took them). */
  startedJobs: number;
  completeJobs: number;
  tokens: number;
  ttftMs: number[];
  gapsMs: number[];
  clientTps: number[];
  reportedTps: number[];
  /** Per job with a readable record: when it was submitted and how long (real ms) it was queued before a worker took it (delayTime). */
  queued: [startMs: number, waitMs: number][];
  firstStartMs: number;
  lastEndMs: number;
}
interface GpuState {
  level: number;
  active: number;
  levels: Map<number, LevelStats>;
  kv: [tSec: number, usage: number][];
  lastKvBucket: number;
  bigChunks: number[];
  /** Why the 1.5 MB output could not be streamed (setup, not the chunk rule). */
  bigError?: string;
  /** /health samples: when, and how many workers were starting (workers.initializing). */
  starting: [atMs: number, initializing: number][];
  sampling: boolean;
  sampler?: Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A /stream answer: its status and chunks (an array body, as some gateways answer, is the chunks of a finished job). */
function streamOf(a: HttpAnswer): { readonly status: unknown; readonly stream: readonly unknown[] } {
  const b = a.json();
  if (Array.isArray(b)) return { status: 'COMPLETED', stream: b };
  const stream = valueAt(b, 'stream');
  return { status: valueAt(b, 'status'), stream: Array.isArray(stream) ? stream : [] };
}

/** Tokens one stream chunk carries: its output_tokens, else the length of its text list. */
function tokensOf(chunk: unknown): number {
  const count = valueAt(chunk, 'output', 'output_tokens');
  if (typeof count === 'number') return count;
  const text = valueAt(chunk, 'output', 'text');
  return Array.isArray(text) ? text.length : 0;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor(s.length / 2)] ?? 0);
};
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
/** Real ms between two /health samples of the worker pool. */
const HEALTH_SAMPLE_MS = 50;

/**
 * How much of [fromMs, toMs] some worker was starting, by the /health samples (each sample's
 * reading holds until the next): the part of a job's queue wait that was a cold start.
 */
export function startingOverlapMs(samples: readonly (readonly [number, number])[], fromMs: number, toMs: number): number {
  let ms = 0;
  for (let i = 0; i < samples.length; i++) {
    const [at, n] = samples[i]!;
    if (n <= 0) continue;
    const until = samples[i + 1]?.[0] ?? at + HEALTH_SAMPLE_MS;
    ms += Math.max(0, Math.min(until, toMs) - Math.max(at, fromMs));
  }
  return ms;
}

/** What a `--param` of real milliseconds accepts. */
const realMs = param.number({ integer: true, min: 1, max: 24 * 3_600_000, unit: 'real ms' });

const PARAMS = {
  levels: param.list(param.number({ integer: true, min: 1, max: 1000, unit: 'concurrent streams' })).default([1, 2, 4, 8]),
  phaseMs: realMs.default(10 * SECOND_MS),
  tokens: param.number({ integer: true, min: 1, max: 1_000_000, unit: 'output tokens per job' }).default(64),
  tps: param.number({ above: 0, max: 1_000_000, unit: 'tokens per second' }).default(50),
  ttftMs: param.number({ min: 0, max: 24 * 3_600_000, unit: 'ms to the first token' }).default(200),
  agreement: param.number({ above: 0, below: 1, unit: 'a share' }).default(DEFAULT_AGREEMENT),
  setupWaitMs: realMs.default(60 * SECOND_MS),
  firstTokenMs: realMs.default(50 * SECOND_MS),
};

export default defineScenario({
  params: PARAMS,
  create: (ctx): ScenarioInput<GpuState> => gpuScenario(ctx.params, ctx.target.timeScale),
});

function gpuScenario({ levels, phaseMs, tokens, tps, ttftMs, agreement: AGREEMENT, setupWaitMs, firstTokenMs }: ParamsOf<typeof PARAMS>, scale: number): ScenarioInput<GpuState> {
  const maxLevel = Math.max(...levels);
  return {
    name: 'gpu-throughput',
    description: `LLM streaming at concurrency ${levels.join(', ')} (${phaseMs} ms each): TTFT, chunk gaps, tokens/s vs avg_gen_throughput, KV cache`,
    executor: 'constant-concurrency',
    globalView: 'its timeline sets the target concurrency levels once and its verdict compares aggregate tokens/s per level',
    vus: maxLevel,
    durationMs: phaseMs * levels.length,
    gracefulStopMs: 60 * SECOND_MS,
    validity: { maxEventLoopDelayP99Ms: 250 },
    steps: [
      {
        kind: 'custom',
        name: 'llm',
        metrics: ['run', 'stream', 'status', 'ttft', 'chunk_gap'],
        fn: async (it) => {
          const st = it.state;
          while (st.active >= st.level && !it.signal.aborted) await sleep(2);
          if (it.signal.aborted) return;
          const level = st.level;
          st.active++;
          try {
            await oneJob(it, st, level, { prompt_tokens: 128, output_tokens: tokens, tokens_per_sec: tps, ttft_ms: ttftMs, scenario: 'qbench-gpu-throughput' }, scale, firstTokenMs);
          } finally {
            st.active--;
          }
        },
      },
    ],
    thresholds: { 'stream.errors.rate': ['rate==0'] },
    hooks: {
      setup: async (rc): Promise<GpuState> => {
        const st: GpuState = { level: levels[0] ?? 1, active: 0, levels: new Map(), kv: [], lastKvBucket: -1, bigChunks: [], starting: [], sampling: true };
        await bigOutputChunks(rc, st, setupWaitMs);
        st.sampler = sampleStarting(rc, st);
        return st;
      },
      teardown: async (rc) => {
        const st = rc.state;
        if (!st) return;
        st.sampling = false;
        await st.sampler;
      },
      timeline: levels.map((level, i) => ({
        atMs: i * phaseMs,
        label: `concurrency ${level}`,
        action: (rc) => {
          rc.state.level = level;
          return Promise.resolve();
        },
      })),
      analyze: (_r, rc): Analysis => {
        const st = rc.state;
        const rows = levels.map((l) => [l, st.levels.get(l)] as const);
        let incomplete = 0;
        let jobs = 0;
        let started = 0;
        const disagreements: string[] = [];
        const rates: string[] = [];
        for (const [l, s] of rows) {
          if (!s) continue;
          jobs += s.jobs;
          started += s.startedJobs;
          incomplete += s.startedJobs - s.completeJobs;
          const c = median(s.clientTps);
          const w = median(s.reportedTps);
          rates.push(`c=${l}: client ${c.toFixed(1)}, worker ${w.toFixed(1)}`);
          if (w > 0 && Math.abs(c - w) / w > AGREEMENT) disagreements.push(`c=${l}: client ${c.toFixed(1)} vs worker ${w.toFixed(1)} tokens/s`);
        }
        const maxChunk = Math.max(0, ...st.bigChunks);
        // Tokens clients received per second of the level, on the target's clock: queueing,
        // cold starts and TTFT included, so below streams x generation rate whenever a
        // stream was not generating.
        const delivered = (s: LevelStats | undefined) => (s && s.lastEndMs > s.firstStartMs ? s.tokens / (((s.lastEndMs - s.firstStartMs) * scale) / SECOND_MS) : 0);
        const generating = (l: number, s: LevelStats | undefined) => median(s?.reportedTps ?? []) * l;
        const queueWaits = (s: LevelStats | undefined) => (s?.queued ?? []).map(([, w]) => w);
        const coldWaits = (s: LevelStats | undefined) => (s?.queued ?? []).map(([at, w]) => startingOverlapMs(st.starting, at, at + w));
        const coldNote = st.starting.length > 0 ? '' : ' (the target reports no workers.initializing in /health: cold starts unknown)';
        const ttftParts = (s: LevelStats | undefined) =>
          `TTFT mean ${mean(s?.ttftMs ?? []).toFixed(0)} ms, of which queued for a worker ${mean(queueWaits(s)).toFixed(0)} ms, ${mean(coldWaits(s)).toFixed(0)} ms of that while a worker was starting${coldNote}`;
        const starting = st.starting.at(-1)?.[1];
        const chunkJudged = st.bigError === undefined;
        const chunkOk = chunkJudged && st.bigChunks.length > 1 && maxChunk <= STREAM_CHUNK.binaryBytes;
        const findings = [
          precondition(
            'a worker took every accepted job (its first token came)',
            `${jobs} of ${jobs} jobs streaming`,
            started === jobs && jobs > 0
              ? `${started} of ${jobs}`
              : `${jobs - started} of ${jobs} accepted jobs never got a first token${starting !== undefined ? ` (/health at the end: ${starting} workers starting)` : ''}: no worker took them, or its cold start did not finish`,
            jobs > 0 && started === jobs,
          ),
          precondition('the 1.5 MB output job finished in time', `streamed to the end within ${setupWaitMs} ms`, st.bigError ?? 'yes', chunkJudged),
          { label: 'every stream delivered all its tokens', clause: '§4.1', expected: `${started} of ${started} started streams with ${tokens} tokens`, observed: `${started - incomplete} complete`, passed: incomplete === 0 },
          {
            label: 'streamed chunk size (a 1.5 MB output)',
            clause: STREAM_CHUNK.section,
            expected: `every chunk <= ${STREAM_CHUNK.megabytes} MB, the output split`,
            observed: chunkJudged ? `${st.bigChunks.length} chunks, largest ${maxChunk.toLocaleString('en-US')} bytes` : 'not measured',
            passed: chunkOk,
          },
          {
            label: 'per-stream generation rate (tokens/s from the first token): client-observed vs worker-reported avg_gen_throughput',
            clause: '§2.3',
            expected: `within ${AGREEMENT * 100}% at every level`,
            observed: disagreements.length === 0 ? `agree (median tokens/s, target clock: ${rates.join('; ')})` : disagreements.join('; '),
            passed: disagreements.length === 0,
          },
          {
            label: 'tokens/s received vs streams x generation rate (measured: the gap is queueing, cold starts and TTFT)',
            expected: 'measured only',
            observed: rows.map(([l, s]) => `c=${l}: ${delivered(s).toFixed(0)} of ${generating(l, s).toFixed(0)} tokens/s; ${ttftParts(s)}`).join('; '),
            passed: true,
          },
        ];
        // What was measured still judges: an incomplete started stream, an oversized chunk, a disagreement.
        const status = statusOf(findings, incomplete > 0 || (chunkJudged && !chunkOk) || disagreements.length > 0);
        return {
          status,
          summary: setupNote(status, findings) + rows.map(([l, s]) => `c=${l}: ${delivered(s).toFixed(0)} tok/s received (${generating(l, s).toFixed(0)} generating), TTFT p50 ${median(s?.ttftMs ?? []).toFixed(0)} ms, mean ${mean(s?.ttftMs ?? []).toFixed(0)} ms (${mean(coldWaits(s)).toFixed(0)} ms of it waiting for a cold start)`).join('; '),
          findings,
          charts: [
            {
              id: 'gpu-throughput-curve',
              title: 'Tokens/s vs concurrency (target clock): generation rate x streams, client and worker on the same basis, and what clients received',
              xLabel: 'concurrent streams',
              yLabel: 'tokens/s',
              xKind: 'category',
              categories: levels.map(String),
              series: [
                { name: 'client: per-stream generation rate x streams', points: rows.map(([l, s], i) => [i, median(s?.clientTps ?? []) * l]) },
                { name: 'worker: avg_gen_throughput x streams', points: rows.map(([l, s], i) => [i, generating(l, s)]) },
                { name: 'client: received (tokens / level time, queueing and cold starts included)', points: rows.map(([, s], i) => [i, delivered(s)]) },
              ],
            },
            {
              id: 'gpu-ttft',
              title: 'Time to first token, the part queued for a worker and the part of that during a worker cold start (real ms), and chunk gap vs concurrency',
              xLabel: 'concurrent streams',
              yLabel: 'ms',
              xKind: 'category',
              categories: levels.map(String),
              series: [
                { name: 'TTFT p50', points: rows.map(([, s], i) => [i, median(s?.ttftMs ?? [])]) },
                { name: 'TTFT mean', points: rows.map(([, s], i) => [i, mean(s?.ttftMs ?? [])]) },
                { name: 'of it queued for a worker (mean delayTime)', points: rows.map(([, s], i) => [i, mean(queueWaits(s))]) },
                { name: 'of that, while a worker was starting (cold start, mean)', points: rows.map(([, s], i) => [i, mean(coldWaits(s))]) },
                { name: 'chunk gap p50', points: rows.map(([, s], i) => [i, median(s?.gapsMs ?? [])]) },
              ],
            },
            { id: 'gpu-kv-cache', title: 'gpu_kv_cache_usage over time', xLabel: 's', yLabel: 'share', xKind: 'time', series: [{ name: 'gpu_kv_cache_usage', points: st.kv }] },
          ],
        };
      },
    },
  };
}

async function oneJob(it: IterationContext, st: GpuState, level: number, llm: Record<string, unknown>, scale: number, firstTokenMs: number): Promise<void> {
  let s = st.levels.get(level);
  if (!s) {
    s = { jobs: 0, startedJobs: 0, completeJobs: 0, tokens: 0, ttftMs: [], gapsMs: [], clientTps: [], reportedTps: [], queued: [], firstStartMs: Number.POSITIVE_INFINITY, lastEndMs: 0 };
    st.levels.set(level, s);
  }
  const start = now();
  s.firstStartMs = Math.min(s.firstStartMs, start);
  const a = await it.request('run', { method: 'POST', path: '/run', body: { input: { mock_llm: llm } } });
  const id = valueAt(a.json(), 'id');
  if (a.status !== HTTP_STATUS.ok || typeof id !== 'string') return;
  s.jobs++;
  let got = 0;
  let first = 0;
  let last = 0;
  let reported = 0;
  for (;;) {
    // No worker took the job in time: given up, it counts as never started.
    if (first === 0 && now() - start > firstTokenMs) return;
    const r = await it.request('stream', { method: 'GET', path: `/stream/${encodeURIComponent(id)}` });
    if (r.status !== HTTP_STATUS.ok) return;
    const t = now();
    const body = streamOf(r);
    for (const chunk of body.stream) {
      const n = tokensOf(chunk);
      if (n === 0) continue;
      if (first === 0) {
        first = t;
        s.startedJobs++;
        s.ttftMs.push(t - start);
        it.recordTrend('ttft', t - start);
      } else if (t > last) {
        s.gapsMs.push(t - last);
        it.recordTrend('chunk_gap', t - last);
      }
      last = t;
      got += n;
      const throughput = valueAt(chunk, 'metrics', 'avg_gen_throughput');
      const kvUsage = valueAt(chunk, 'metrics', 'gpu_kv_cache_usage');
      if (typeof throughput === 'number') reported = throughput;
      if (typeof kvUsage === 'number') {
        const bucket = Math.floor((t - it.scheduleStartMs) / KV_SAMPLE_MS);
        if (bucket > st.lastKvBucket) {
          st.lastKvBucket = bucket;
          st.kv.push([(t - it.scheduleStartMs) / SECOND_MS, kvUsage]);
        }
      }
    }
    if (isTerminalStatus(body.status)) break;
  }
  s.tokens += got;
  s.lastEndMs = Math.max(s.lastEndMs, now());
  if (got === llm['output_tokens']) s.completeJobs++;
  // Generation rate seen by the client from the first token on, per second of the target's
  // clock (real seconds x time scale).
  if (got > 1 && last > first) s.clientTps.push((got - 1) / (((last - first) * scale) / SECOND_MS));
  if (reported > 0) s.reportedTps.push(reported);
  await queueWait(it, s, id, start, scale);
}

/** The job record's delayTime (§2.2: queued before a worker took it, target clock) as real ms. */
async function queueWait(it: IterationContext, s: LevelStats, id: string, startMs: number, scale: number): Promise<void> {
  const r = await it.request('status', { method: 'GET', path: `/status/${encodeURIComponent(id)}` });
  const delayTime = valueAt(r.json(), 'delayTime');
  if (r.status !== HTTP_STATUS.ok || typeof delayTime !== 'number') return;
  s.queued.push([startMs, delayTime / scale]);
}

/** Sample /health's workers.initializing until teardown (a control request, not counted). */
async function sampleStarting(rc: RunContext, st: GpuState): Promise<void> {
  while (st.sampling && !rc.signal.aborted) {
    const h = await rc.request({ method: 'GET', path: '/health' });
    const n = valueAt(h.json(), 'workers', 'initializing');
    if (typeof n === 'number') st.starting.push([now(), n]);
    await sleep(HEALTH_SAMPLE_MS);
  }
}

/** Stream one 1.5 MB output and measure every chunk's serialized size. */
async function bigOutputChunks(rc: RunContext, st: GpuState, waitMs: number): Promise<void> {
  const big = 'x'.repeat(Math.round(STREAM_CHUNK.decimalBytes * 1.5));
  const a = await rc.request({ method: 'POST', path: '/run', body: { input: { mock_return: [big] } } });
  const id = valueAt(a.json(), 'id');
  if (a.status !== HTTP_STATUS.ok || typeof id !== 'string') {
    st.bigError = `POST /run of a 1.5 MB output answered ${a.status ?? 'no answer'}`;
    return;
  }
  const deadline = now() + waitMs;
  while (now() < deadline) {
    const r = await rc.request({ method: 'GET', path: `/stream/${encodeURIComponent(id)}` });
    if (r.status !== HTTP_STATUS.ok) {
      st.bigError = `/stream answered ${r.status ?? 'no answer'}`;
      return;
    }
    const body = streamOf(r);
    for (const c of body.stream) st.bigChunks.push(Buffer.byteLength(JSON.stringify(c)));
    if (isTerminalStatus(body.status)) return;
  }
  st.bigError = `the big-output job did not finish within ${waitMs} ms (no worker, or a cold start that did not finish)`;
}
