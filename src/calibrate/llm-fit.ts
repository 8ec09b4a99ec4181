// Fitting the LLM engine's four rates (src/deployment/engine.ts) to what a probe measured: TTFT of
// requests sent one at a time against their prompt tokens (a line: prefillBaseMs + prompt /
// prefillTokensPerSec), and the inter-token gap of n streams decoding together against n (a line:
// step(1) x (1 + decodeContention x (n - 1))). Least squares on each line; the residuals say how
// well the engine's shape fits the endpoint.
import { streamGapMs, type LlmEngine } from '../deployment/index.js';

/** TTFT of one request sent alone (the median of a few), against its prompt tokens. */
export interface TtftObservation {
  readonly promptTokens: number;
  readonly ttftMs: number;
}

/** The inter-token gap per token while `streams` requests decoded together, each holding `contextTokens` tokens on average (prompt and output). */
export interface DecodeObservation {
  readonly streams: number;
  readonly itlMs: number;
  readonly contextTokens?: number | undefined;
}

/** The inter-token gap of one stream decoding alone with a context of `contextTokens` (its prompt and output so far, on average). */
export interface ContextObservation {
  readonly contextTokens: number;
  readonly itlMs: number;
}

export type FittedRates = Pick<LlmEngine, 'prefillBaseMs' | 'prefillTokensPerSec' | 'decodeTokensPerSec' | 'decodeContention'> & Partial<Pick<LlmEngine, 'decodeMsPerContextToken'>>;

export interface LlmFit {
  readonly rates: FittedRates;
  /** Largest |observed - fitted| TTFT, ms. */
  readonly ttftResidualMaxMs: number;
  /** Largest |observed - fitted| / fitted inter-token gap. */
  readonly itlResidualMaxShare: number;
  /** What the fit had to assume (a flat line, too few points). */
  readonly notes: readonly string[];
}

/** The schema's bounds (engine-schema.ts): a fitted value is clamped into them. */
const MAX_PREFILL_TOKENS_PER_SEC = 10_000_000;
const MAX_PREFILL_BASE_MS = 60_000;
const MAX_DECODE_TOKENS_PER_SEC = 100_000;
const MAX_CONTENTION = 10;
const MAX_PER_CONTEXT_MS = 100;

/** Least-squares line y = a + b x; b = 0 when x takes a single value. */
export function fitLine(points: readonly { x: number; y: number }[]): { a: number; b: number } {
  const n = points.length;
  if (n === 0) return { a: 0, b: 0 };
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += p.x;
    sy += p.y;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - mx) * (p.x - mx);
    sxy += (p.x - mx) * (p.y - my);
  }
  const b = sxx > 0 ? sxy / sxx : 0;
  return { a: my - b * mx, b };
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/**
 * The engine rates that fit the observations best, and how far off they leave each point. With
 * the parallel scheduler a gap observed with n >= 2 streams is n / (n - 1) steps of n - 1
 * streams (streamGapMs): the step line is fitted to the steps. With `context` (one stream's gap at
 * several context lengths) the gap's growth per context token is decodeMsPerContextToken, and
 * the decode observations' own context share is taken off before the step line is fitted.
 */
export function fitEngineRates(ttft: readonly TtftObservation[], decode: readonly DecodeObservation[], scheduler?: LlmEngine['scheduler'], context: readonly ContextObservation[] = []): LlmFit {
  const notes: string[] = [];
  const t = fitLine(ttft.map((o) => ({ x: o.promptTokens, y: o.ttftMs })));
  if (new Set(ttft.map((o) => o.promptTokens)).size < 2) notes.push('TTFT was measured at fewer than two prompt lengths: the prefill rate is not measured');
  let prefillTokensPerSec = MAX_PREFILL_TOKENS_PER_SEC;
  if (t.b > 0) prefillTokensPerSec = clamp(1_000 / t.b, 1e-9, MAX_PREFILL_TOKENS_PER_SEC);
  else notes.push('TTFT did not grow with the prompt: prefill taken as instant beyond its fixed part');
  const prefillBaseMs = clamp(t.b > 0 ? t.a : ttft.reduce((s, o) => s + o.ttftMs, 0) / Math.max(1, ttft.length), 0, MAX_PREFILL_BASE_MS);

  const parallel = scheduler === 'parallel';
  const inStep = (n: number) => (parallel && n > 1 ? n - 1 : n);
  let perContext = 0;
  if (new Set(context.map((o) => o.contextTokens)).size >= 2) {
    perContext = clamp(fitLine(context.map((o) => ({ x: o.contextTokens, y: o.itlMs }))).b, 0, MAX_PER_CONTEXT_MS);
  }
  const d = fitLine(decode.map((o) => ({ x: inStep(o.streams) - 1, y: (o.itlMs * inStep(o.streams)) / o.streams - perContext * (o.contextTokens ?? 0) * inStep(o.streams) })));
  if (new Set(decode.map((o) => o.streams)).size < 2) notes.push('decoding was measured at fewer than two concurrencies: the slowdown per stream is not measured');
  const stepMs = d.a > 0 ? d.a : Math.max(1e-6, ...decode.map((o) => o.itlMs));
  const decodeTokensPerSec = clamp(1_000 / stepMs, 1e-9, MAX_DECODE_TOKENS_PER_SEC);
  let decodeContention = d.b / stepMs;
  if (decodeContention < 0) {
    notes.push('the inter-token gap shrank as streams were added: no slowdown per stream assumed');
    decodeContention = 0;
  }
  decodeContention = clamp(decodeContention, 0, MAX_CONTENTION);

  const rates: FittedRates = { prefillBaseMs, prefillTokensPerSec, decodeTokensPerSec, decodeContention, ...(context.length > 0 ? { decodeMsPerContextToken: perContext } : {}) };
  let ttftResidualMaxMs = 0;
  for (const o of ttft) ttftResidualMaxMs = Math.max(ttftResidualMaxMs, Math.abs(o.ttftMs - (prefillBaseMs + (o.promptTokens / prefillTokensPerSec) * 1_000)));
  let itlResidualMaxShare = 0;
  for (const o of decode) {
    // A step of k streams lengthens by perContext x context x k; a stream's gap is n / k such steps.
    const fitted = streamGapMs({ decodeTokensPerSec, decodeContention, ...(scheduler === undefined ? {} : { scheduler }) }, o.streams) + perContext * (o.contextTokens ?? 0) * o.streams;
    itlResidualMaxShare = Math.max(itlResidualMaxShare, Math.abs(o.itlMs - fitted) / fitted);
  }
  return { rates, ttftResidualMaxMs, itlResidualMaxShare, notes };
}
