// The LLM engine's arithmetic, with no clock: step durations, one worker's step scheduler
// (continuous batching with prefill first, as vLLM's scheduler without chunked prefill), the
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

/** Tokens per second of one stream while `streams` decode together (prefill steps aside). */
export function streamTokensPerSec(e: Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention'>, streams: number): number {
  return 1_000 / decodeStepMs(e, streams);
}

/** Ms of one prefill step reading `promptTokens` tokens (of every request it takes together). */
export function prefillStepMs(e: Pick<LlmEngine, 'prefillBaseMs' | 'prefillTokensPerSec'>, promptTokens: number): number {
  return e.prefillBaseMs + (promptTokens / e.prefillTokensPerSec) * 1_000;
}

/** One request on a worker's engine; `owner` is the caller's handle (the emulator's job run). */
export class EngineSeq<T> {
  /** Output tokens produced so far (the first one by the prefill step). */
  generated = 0;
  /** waiting: for its prefill; done: finished or removed. */
  state: 'waiting' | 'prefill' | 'decoding' | 'done' = 'waiting';
  constructor(
    readonly promptTokens: number,
    readonly outputTokens: number,
    readonly owner: T,
  ) {}
}

export interface EngineStep<T> {
  readonly kind: 'prefill' | 'decode';
  readonly durationMs: number;
  readonly seqs: readonly EngineSeq<T>[];
}

/**
 * One worker's engine: requests wait for a prefill step, then decode one token a step until they
 * have their output. A step begins only when the previous one ended; a prefill step (every waiting
 * request together) goes before decoding whenever a request waits.
 */
export class WorkerEngine<T> {
  private waiting: EngineSeq<T>[] = [];
  private decoding: EngineSeq<T>[] = [];
  private step: EngineStep<T> | undefined;

  constructor(readonly e: Pick<LlmEngine, 'decodeTokensPerSec' | 'decodeContention' | 'prefillBaseMs' | 'prefillTokensPerSec'>) {}

  /** Requests held (waiting, in prefill, decoding). */
  get size(): number {
    let n = this.waiting.length + this.decoding.length;
    if (this.step?.kind === 'prefill') for (const s of this.step.seqs) if (s.state === 'prefill') n += 1;
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
    if (this.step?.kind === 'prefill') for (const s of this.step.seqs) if (s.state === 'prefill') yield s;
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
    if (this.waiting.length > 0) {
      const seqs = this.waiting;
      this.waiting = [];
      let prompt = 0;
      for (const s of seqs) {
        s.state = 'prefill';
        prompt += s.promptTokens;
      }
      this.step = { kind: 'prefill', durationMs: prefillStepMs(this.e, prompt), seqs };
    } else if (this.decoding.length > 0) {
      this.step = { kind: 'decode', durationMs: decodeStepMs(this.e, this.decoding.length), seqs: this.decoding.slice() };
    }
    return this.step;
  }

  /**
   * The running step ended: each of its requests still held gets one token. Answers them, in
   * step order; a request that reached its output length is done and has left the engine.
   */
  end(): EngineSeq<T>[] {
    const step = this.step;
    this.step = undefined;
    if (step === undefined) return [];
    const got: EngineSeq<T>[] = [];
    let finished = false;
    for (const s of step.seqs) {
      if (s.state === 'done') continue;
      s.generated += 1;
      got.push(s);
      if (s.generated >= s.outputTokens) {
        finished ||= s.state === 'decoding';
        s.state = 'done';
      } else if (s.state === 'prefill') {
        s.state = 'decoding';
        this.decoding.push(s);
      }
    }
    if (finished) this.decoding = this.decoding.filter((s) => s.state !== 'done');
    return got;
  }
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
