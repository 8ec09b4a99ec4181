// The LLM engine's arithmetic, with no clock: step durations, one worker's step scheduler
// (continuous batching, prefill first or chunked prefill as vLLM schedules), the
// streamed-chunk batch sizes of worker-vllm, and the prompt-token approximation. The emulator runs
// it on its clock (src/emulator/queue/handlers/engine-run.ts); calibrate and plan read the same
// formulas. Settings: engine-schema.ts.
import type { LlmEngine, StreamBatch } from './engine-schema.js';

/**
 * Prompt tokens of `chars` characters of text, with no tokenizer: ceil(chars / 4), at least 1.
 * Four characters a token is the usual reading of English prose with BPE tokenizers (GPT and
 * Llama families); it is within about 25% there, and further off for code, numbers and
 * non-Latin scripts (more tokens than this). A chat template's own tokens are not counted.
 */
export function approxPromptTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/** Ms of one decode step with `streams` sequences decoding on the worker. */
export function decodeStepMs(e: Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention'>, streams: number): number {
  return (1_000 / e.decodeTokensPerSec) * (1 + e.decodeContention * (Math.max(1, streams) - 1));
}

/**
 * Mean ms between one stream's tokens while `streams` decode together (prefill steps aside): a
 * decode step's time, or with the parallel scheduler, where each step leaves one of n >= 2
 * streams out, n / (n - 1) steps of n - 1 streams.
 */
export function streamGapMs(e: Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention'> & Partial<Pick<LlmEngine, 'scheduler'>>, streams: number): number {
  const n = Math.max(1, streams);
  if (e.scheduler === 'parallel' && n > 1) return (decodeStepMs(e, n - 1) * n) / (n - 1);
  return decodeStepMs(e, n);
}

/** Tokens per second of one stream while `streams` decode together (prefill steps aside). */
export function streamTokensPerSec(e: Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention'> & Partial<Pick<LlmEngine, 'scheduler'>>, streams: number): number {
  return 1_000 / streamGapMs(e, streams);
}

/** Ms of one prefill step reading `promptTokens` tokens (of every request it takes together). */
export function prefillStepMs(e: Pick<LlmEngine, 'prefillBaseMs' | 'prefillTokensPerSec'>, promptTokens: number): number {
  return e.prefillBaseMs + (promptTokens / e.prefillTokensPerSec) * 1_000;
}

/** One request on a worker's engine; `owner` is the caller's handle (the emulator's job run). */
export class EngineSeq<T> {
  /** Output tokens produced so far (the first one by the step that read its last prompt token). */
  generated = 0;
  /** Prompt tokens read so far (chunked prefill reads a long prompt over several steps). */
  prefilled = 0;
  /** waiting: for (the rest of) its prefill; prefill: read by the running step; done: finished or removed. */
  state: 'waiting' | 'prefill' | 'decoding' | 'done' = 'waiting';
  constructor(
    readonly promptTokens: number,
    readonly outputTokens: number,
    readonly owner: T,
  ) {}
}

export interface EngineStep<T> {
  readonly durationMs: number;
  /** Streams given a token at the step's end. */
  readonly decode: readonly EngineSeq<T>[];
  /** Requests whose prompt the step reads, and how many of its tokens. */
  readonly prefill: readonly EngineSeq<T>[];
  readonly prefillTokens: readonly number[];
}

export type EngineScheduling = Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention' | 'prefillBaseMs' | 'prefillTokensPerSec'> & Partial<Pick<LlmEngine, 'scheduler' | 'maxBatchedTokens' | 'decodeMsPerContextToken'>>;

/**
 * One worker's engine: requests wait for their prompt to be read, then decode one token a step until
 * they have their output. A step begins only when the previous one ended. `prefill-first` (vLLM's
 * scheduler without chunked prefill): a step reads the whole prompt of every waiting request while
 * decoding streams wait, whenever one waits, else it decodes. `chunked` (vLLM's chunked prefill):
 * every step decodes every stream and reads waiting prompts, oldest first, with the rest of its
 * maxBatchedTokens (a stream counts one), a long prompt over several steps. `parallel` (llama.cpp
 * through node-llama-cpp): as chunked, the rest of maxBatchedTokens shared out evenly among the
 * waiting prompts (evenShares), and while two or more streams decode, the one last given a token
 * sits a step out (node-llama-cpp begins the next step before that sequence has queued its next
 * token), so that each of n streams gets a token in n - 1 steps of n.
 */
export class WorkerEngine<T> {
  private waiting: EngineSeq<T>[] = [];
  private decoding: EngineSeq<T>[] = [];
  private step: EngineStep<T> | undefined;

  constructor(readonly e: EngineScheduling) {}

  /** Requests held (waiting, read by the running step, decoding). */
  get size(): number {
    let n = this.waiting.length + this.decoding.length;
    if (this.step !== undefined) for (const s of this.step.prefill) if (s.state === 'prefill') n += 1;
    return n;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  get decodingCount(): number {
    return this.decoding.length;
  }

  /** True while a step runs. */
  get busy(): boolean {
    return this.step !== undefined;
  }

  /** Every request held, for a walk over the worker (KV-cache use). */
  *seqs(): IterableIterator<EngineSeq<T>> {
    yield* this.waiting;
    yield* this.decoding;
    if (this.step !== undefined) for (const s of this.step.prefill) if (s.state === 'prefill') yield s;
  }

  add(seq: EngineSeq<T>): void {
    seq.state = 'waiting';
    this.waiting.push(seq);
  }

  /** The request leaves (cancelled, timed out): it gets no more tokens; a running step keeps its length. */
  remove(seq: EngineSeq<T>): void {
    if (seq.state === 'waiting') this.waiting = this.waiting.filter((s) => s !== seq);
    else if (seq.state === 'decoding') this.decoding = this.decoding.filter((s) => s !== seq);
    seq.state = 'done';
  }

  /** Begin the next step; undefined while one runs or when nothing is held. */
  begin(): EngineStep<T> | undefined {
    if (this.step !== undefined) return undefined;
    if (this.waiting.length === 0 && this.decoding.length === 0) return undefined;
    const chunked = this.e.scheduler === 'chunked' || this.e.scheduler === 'parallel';
    const prefill: EngineSeq<T>[] = [];
    const prefillTokens: number[] = [];
    let budget = chunked ? Math.max(0, (this.e.maxBatchedTokens ?? Infinity) - this.decoding.length) : Infinity;
    let read = 0;
    if (this.e.scheduler === 'parallel') {
      const shares = evenShares(budget, this.waiting.map((s) => s.promptTokens - s.prefilled));
      this.waiting.forEach((s, i) => {
        const take = shares[i] as number;
        if (take === 0) return;
        s.state = 'prefill';
        prefill.push(s);
        prefillTokens.push(take);
        read += take;
      });
      this.waiting = this.waiting.filter((s) => s.state === 'waiting');
    } else if (chunked || this.waiting.length > 0) {
      let taken = 0;
      for (const s of this.waiting) {
        if (budget <= 0) break;
        const take = Math.min(budget, s.promptTokens - s.prefilled);
        s.state = 'prefill';
        prefill.push(s);
        prefillTokens.push(take);
        budget -= take;
        read += take;
        taken += 1;
      }
      this.waiting = this.waiting.slice(taken);
    }
    // Prefill-first decodes only in a step that reads no prompt; parallel leaves the last stream out.
    const decode = !chunked && prefill.length > 0 ? [] : this.e.scheduler === 'parallel' && this.decoding.length > 1 ? this.decoding.slice(0, -1) : this.decoding.slice();
    let context = 0;
    if ((this.e.decodeMsPerContextToken ?? 0) > 0) for (const s of decode) context += s.promptTokens + s.generated;
    const durationMs = (decode.length > 0 ? decodeStepMs(this.e, decode.length) + (this.e.decodeMsPerContextToken ?? 0) * context : 0) + (prefill.length > 0 ? prefillStepMs(this.e, read) : 0);
    this.step = { durationMs, decode, prefill, prefillTokens };
    return this.step;
  }

  /**
   * The running step ended: each decoding stream of it still held gets one token, and so does each
   * request whose last prompt token it read. Answers them, decoding streams first; a request that
   * reached its output length is done and has left the engine.
   */
  end(): EngineSeq<T>[] {
    const step = this.step;
    this.step = undefined;
    if (step === undefined) return [];
    const got: EngineSeq<T>[] = [];
    let finished = false;
    for (const s of step.decode) {
      if (s.state !== 'decoding') continue;
      s.generated += 1;
      got.push(s);
      if (s.generated >= s.outputTokens) {
        finished = true;
        s.state = 'done';
      }
    }
    // parallel: the stream left out goes first, then those given a token in the step's order (the last of them sits the next step out).
    if (this.e.scheduler === 'parallel' && step.decode.length > 0) {
      const given = new Set(step.decode);
      this.decoding = [...this.decoding.filter((s) => !given.has(s)), ...step.decode];
    }
    if (finished || this.e.scheduler === 'parallel') this.decoding = this.decoding.filter((s) => s.state === 'decoding');
    const unfinished: EngineSeq<T>[] = [];
    step.prefill.forEach((s, i) => {
      if (s.state !== 'prefill') return;
      s.prefilled += step.prefillTokens[i] as number;
      if (s.prefilled < s.promptTokens) {
        s.state = 'waiting';
        unfinished.push(s);
        return;
      }
      s.generated += 1;
      got.push(s);
      if (s.generated >= s.outputTokens) s.state = 'done';
      else {
        s.state = 'decoding';
        this.decoding.push(s);
      }
    });
    // A prompt read in part goes on first at the next step.
    if (unfinished.length > 0) this.waiting = [...unfinished, ...this.waiting];
    return got;
  }
}

/**
 * `budget` tokens shared out among prompts needing `left[i]` more tokens each, as node-llama-cpp's
 * maximumParallelism batching shares a batch: each gets an equal share (the budget over the
 * prompts, rounded down) or what it needs if less, and what that leaves over goes again in equal
 * shares (rounded up) to those still short, in order, until the budget or the needs run out.
 */
export function evenShares(budget: number, left: readonly number[]): number[] {
  const got = left.map(() => 0);
  let spare = Math.max(0, Math.floor(budget));
  let short = left.map((_, i) => i).filter((i) => (left[i] as number) > 0);
  let first = true;
  while (spare > 0 && short.length > 0) {
    const share = first ? Math.max(1, Math.floor(spare / short.length)) : Math.ceil(spare / short.length);
    first = false;
    for (const i of short) {
      const take = Math.min(share, (left[i] as number) - (got[i] as number), spare);
      got[i] = (got[i] as number) + take;
      spare -= take;
    }
    short = short.filter((i) => (got[i] as number) < (left[i] as number));
  }
  return got;
}

/**
 * worker-vllm's BatchSize: how many units (tokens on the native stream, server-sent events on the
 * OpenAI route) one streamed chunk holds before it is sent.
 */
export class StreamBatcher {
  private readonly dynamic: boolean;
  /** Units the chunk being filled holds when it is sent. */
  current: number;

  constructor(private readonly s: StreamBatch) {
    this.dynamic = s.growthFactor > 1 && s.min >= 1 && s.max > s.min;
    this.current = this.dynamic ? s.min : s.max;
  }

  /** A chunk of `units` was sent: the next one may hold more. */
  sent(): void {
    if (this.dynamic) this.current = Math.min(this.current * this.s.growthFactor, this.s.max);
  }
}

/** The first `count` chunk sizes of a batch setting (for docs and tests): 1, 3, 9, 27, 50, ... */
export function streamBatchSizes(s: StreamBatch, count: number): number[] {
  const b = new StreamBatcher(s);
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) {
    out.push(b.current);
    b.sent();
  }
  return out;
}
