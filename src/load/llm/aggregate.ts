// A run's requests into the LLM section's figures: HDR histograms of TTFT, ITL (per token), TPOT
// and e2e over the requests that succeeded, tokens per second per request and in aggregate,
// request throughput and goodput against the SLOs, TTFT split into its parts on the native paths,
// cold and warm TTFT apart, §2.3 engine metrics by the second, and the generator's lateness.
import { histogramFromMs, percentilesOf, summarize } from '../../result/histogram.js';
import type { LlmLoad, LlmPath, LlmRequestRecord, LlmRun, LlmSloResult } from '../../result/model.js';
import { goodput, requestMeets, type Slo } from './goodput.js';
import type { LlmApi, LlmRequestOutcome } from './request.js';

/** Send lateness p99 above this and the run does not show the target's latency at its intended load. */
export const LLM_MAX_LATENESS_P99_MS = 10;
/** Requests kept one by one in the result; the rest are in the histograms only. */
export const LLM_REQUEST_RECORDS = 1_000;
const SAMPLE_TEXT_CHARS = 500;

export interface MeasuredRequest {
  /** Intended start on the transport's clock. */
  readonly intendedMs: number;
  readonly outcome: LlmRequestOutcome;
  /** Told cold (true) or warm (false); undefined when nothing told. */
  readonly cold: boolean | undefined;
}

export interface RawLlmRun {
  readonly path: LlmPath;
  readonly api: LlmApi;
  readonly streamRequested: boolean;
  readonly load: LlmLoad;
  readonly role: LlmRun['role'];
  readonly startedAt: Date;
  /** The schedule's time zero on the transport's clock, and its length. */
  readonly t0Ms: number;
  readonly durationMs: number;
  /** When the last request ended. */
  readonly endMs: number;
  readonly scheduled: number;
  readonly dropped: number;
  readonly requests: readonly MeasuredRequest[];
  /** Intended vs actual send, ms, one per request sent on a schedule (none in a closed loop). */
  readonly latenessMs: readonly number[];
  /** §2.3 metrics as they arrived. */
  readonly engine: readonly { readonly atMs: number; readonly metrics: Record<string, unknown> }[];
  /** How cold requests were told apart, in words (undefined: they were not). */
  readonly coldBy: string | undefined;
}

const ENGINE_FIELDS = ['gpu_kv_cache_usage', 'cpu_kv_cache_usage', 'running', 'pending', 'swapped', 'avg_gen_throughput', 'avg_prompt_throughput'] as const;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const ERRORS_KEPT = 5;

/** §2.3 metrics, the last value of each numeric field in each second of the run: [tSec, ...fields]. */
export function engineSeries(t0Ms: number, engine: RawLlmRun['engine']): LlmRun['engineMetrics'] {
  if (engine.length === 0) return undefined;
  const fields = ENGINE_FIELDS.filter((f) => engine.some((e) => typeof e.metrics[f] === 'number'));
  if (fields.length === 0) return undefined;
  const bySecond = new Map<number, number[]>();
  const last = fields.map(() => 0);
  for (const e of [...engine].sort((a, b) => a.atMs - b.atMs)) {
    fields.forEach((f, i) => {
      const v = e.metrics[f];
      if (typeof v === 'number' && Number.isFinite(v)) last[i] = v;
    });
    bySecond.set(Math.max(0, Math.floor((e.atMs - t0Ms) / 1000)), [...last]);
  }
  return { fields: [...fields], points: [...bySecond.entries()].sort((a, b) => a[0] - b[0]).map(([t, vs]) => [t, ...vs]) };
}

function recordOf(t0Ms: number, r: MeasuredRequest): LlmRequestRecord {
  const o = r.outcome;
  const m = o.metrics;
  const itl = m.itlMs;
  const split = workerFirstChunk(o);
  return {
    startMs: round3(Math.max(0, r.intendedMs - t0Ms)),
    status: o.status,
    ok: o.ok,
    ttftMs: m.ttftMs === undefined ? null : round3(m.ttftMs),
    e2eMs: round3(Math.max(0, m.e2eMs)),
    tpotMs: m.tpotMs === undefined ? null : round3(m.tpotMs),
    itlMeanMs: itl.length === 0 ? null : round3(itl.reduce((a, b) => a + b, 0) / itl.length),
    itlMaxMs: itl.length === 0 ? null : round3(Math.max(...itl)),
    outputTokens: m.outputTokens,
    inputTokens: m.inputTokens ?? null,
    tokenSource: m.tokenSource,
    chunks: m.chunks,
    submitMs: o.submitMs === undefined ? null : round3(o.submitMs),
    delayMs: o.delayMs === undefined ? null : round3(o.delayMs),
    workerFirstChunkMs: split === undefined ? null : round3(split),
    cold: r.cold ?? null,
    ...(o.error !== undefined ? { error: o.error } : {}),
  };
}

/** TTFT less the submit and the queue delay: the worker's time to its first chunk (what polling adds included). */
export function workerFirstChunk(o: LlmRequestOutcome): number | undefined {
  const ttft = o.metrics.ttftMs;
  if (ttft === undefined || o.submitMs === undefined || o.delayMs === undefined || !o.streamed) return undefined;
  return Math.max(0, ttft - o.submitMs - o.delayMs);
}

/**
 * Saturation on a rate level: requests dropped at the in-flight cap, more than 5% failed, or a
 * queue building (the median e2e of the last quarter of the schedule's starts above 1.5 times the
 * first quarter's; a level the endpoint keeps up with has a steady latency).
 */
export function saturated(raw: RawLlmRun): boolean {
  if (raw.dropped > 0) return true;
  const failed = raw.requests.filter((r) => !r.outcome.ok).length;
  if (raw.requests.length > 0 && failed / raw.requests.length > 0.05) return true;
  const median = (xs: number[]): number | undefined => {
    if (xs.length === 0) return undefined;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor((s.length - 1) / 2)];
  };
  const quarter = raw.durationMs / 4;
  const e2eIn = (from: number, to: number) => median(raw.requests.filter((r) => r.outcome.ok && r.intendedMs - raw.t0Ms >= from && r.intendedMs - raw.t0Ms < to).map((r) => r.outcome.metrics.e2eMs));
  const first = e2eIn(0, quarter);
  const last = e2eIn(3 * quarter, raw.durationMs);
  return first !== undefined && last !== undefined && last > 1.5 * first;
}

export function summarizeLlmRun(raw: RawLlmRun, slos: readonly Slo[]): LlmRun {
  const wallMs = Math.max(1, raw.endMs - raw.t0Ms);
  const ok = raw.requests.filter((r) => r.outcome.ok);
  const okMetrics = ok.map((r) => r.outcome.metrics);
  const g = goodput(okMetrics, slos, wallMs);
  const statusCodes: Record<string, number> = {};
  const errors: string[] = [];
  for (const r of raw.requests) {
    const key = r.outcome.status === 0 ? 'no answer' : String(r.outcome.status);
    statusCodes[key] = (statusCodes[key] ?? 0) + 1;
    const e = r.outcome.error;
    if (e !== undefined && errors.length < ERRORS_KEPT && !errors.includes(e)) errors.push(e);
  }
  const sloResults: LlmSloResult[] = slos.map((slo) => {
    const metRequests = okMetrics.filter((m) => requestMeets(slo, m)).length;
    if (slo.kind === 'per-request') return { text: slo.text, kind: slo.kind, metric: slo.metric, valueMs: null, metRequests, holds: raw.requests.length > 0 && metRequests === raw.requests.length };
    const v = g.percentiles.find((p) => p.slo === slo);
    return { text: slo.text, kind: slo.kind, metric: slo.metric, valueMs: v?.valueMs === undefined ? null : round3(v.valueMs), metRequests, holds: v?.holds === true };
  });
  const ttfts = okMetrics.flatMap((m) => (m.ttftMs === undefined ? [] : [m.ttftMs]));
  const outputTokens = okMetrics.reduce((a, m) => a + m.outputTokens, 0);
  const inputs = okMetrics.map((m) => m.inputTokens);
  const inputTokens = inputs.length > 0 && inputs.every((x) => x !== undefined) ? inputs.reduce<number>((a, x) => a + (x ?? 0), 0) : undefined;
  const perSec = (n: number) => round3(n / (wallMs / 1000));
  const sentE2e = raw.requests.reduce((a, r) => a + Math.max(0, r.outcome.metrics.e2eMs), 0);

  const split = ok.filter((r) => workerFirstChunk(r.outcome) !== undefined);
  const classified = ok.filter((r) => r.cold !== undefined && r.outcome.metrics.ttftMs !== undefined);
  const ttftOf = (rs: readonly MeasuredRequest[]) => percentilesOf(histogramFromMs(rs.map((r) => r.outcome.metrics.ttftMs ?? 0)));
  const lateness = percentilesOf(histogramFromMs(raw.latenessMs));
  const reasons: string[] = [];
  if (lateness.p99 > LLM_MAX_LATENESS_P99_MS) reasons.push(`send lateness p99 ${lateness.p99} ms > ${LLM_MAX_LATENESS_P99_MS} ms: the generator started requests later than scheduled`);
  const firstText = ok.find((r) => r.outcome.text.length > 0)?.outcome.text;
  const engine = engineSeries(raw.t0Ms, raw.engine);
  const sorted = [...raw.requests].sort((a, b) => a.intendedMs - b.intendedMs);
  return {
    path: raw.path,
    api: raw.api,
    streamed: raw.path === 'stream' || (raw.path === 'openai' && raw.streamRequested),
    load: raw.load,
    role: raw.role,
    startedAt: raw.startedAt.toISOString(),
    durationMs: raw.durationMs,
    wallMs: round3(wallMs),
    requests: { scheduled: raw.scheduled, dropped: raw.dropped, completed: ok.length, failed: raw.requests.length - ok.length, statusCodes, errors },
    tokenSource: {
      usage: okMetrics.filter((m) => m.tokenSource === 'usage').length,
      chunks: okMetrics.filter((m) => m.tokenSource === 'chunks').length,
      // Only streamed answers count tokens from chunks; a whole answer is one chunk by construction.
      chunksDisagree: ok.filter((r) => r.outcome.streamed && r.outcome.metrics.tokenSource === 'usage' && r.outcome.metrics.chunkTokens !== r.outcome.metrics.outputTokens).length,
    },
    ttft: summarize(histogramFromMs(ttfts)),
    itl: summarize(histogramFromMs(okMetrics.flatMap((m) => m.itlMs))),
    tpot: summarize(histogramFromMs(okMetrics.flatMap((m) => (m.tpotMs === undefined ? [] : [m.tpotMs])))),
    e2e: summarize(histogramFromMs(okMetrics.map((m) => m.e2eMs))),
    outputTokensPerSecPerRequest: percentilesOf(histogramFromMs(okMetrics.flatMap((m) => (m.outputTokensPerSec === undefined ? [] : [m.outputTokensPerSec])))),
    throughput: {
      requestsPerSec: perSec(ok.length),
      outputTokensPerSec: perSec(outputTokens),
      inputTokensPerSec: inputTokens === undefined ? null : perSec(inputTokens),
      goodputPerSec: perSec(g.goodRequests),
      meanConcurrency: round3(sentE2e / wallMs),
    },
    goodRequests: g.goodRequests,
    slos: sloResults,
    ...(split.length > 0
      ? {
          ttftSplit: {
            submit: summarize(histogramFromMs(split.map((r) => r.outcome.submitMs ?? 0))),
            delay: summarize(histogramFromMs(split.map((r) => r.outcome.delayMs ?? 0))),
            workerFirstChunk: summarize(histogramFromMs(split.map((r) => workerFirstChunk(r.outcome) ?? 0))),
          },
        }
      : {}),
    ...(raw.coldBy !== undefined && classified.length > 0
      ? {
          coldWarm: {
            by: raw.coldBy,
            cold: { count: classified.filter((r) => r.cold === true).length, ttft: ttftOf(classified.filter((r) => r.cold === true)) },
            warm: { count: classified.filter((r) => r.cold === false).length, ttft: ttftOf(classified.filter((r) => r.cold === false)) },
          },
        }
      : {}),
    ...(engine !== undefined ? { engineMetrics: engine } : {}),
    validity: { valid: reasons.length === 0, reasons, sendLateness: lateness },
    ...(firstText !== undefined ? { sampleText: firstText.slice(0, SAMPLE_TEXT_CHARS) } : {}),
    requestRecords: sorted.slice(0, LLM_REQUEST_RECORDS).map((r) => recordOf(raw.t0Ms, r)),
    requestsOmitted: Math.max(0, sorted.length - LLM_REQUEST_RECORDS),
    ...(raw.role === 'sweep-rate' ? { saturated: saturated(raw) } : {}),
  };
}
