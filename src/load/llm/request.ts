// One LLM request over one of the three paths of a queue endpoint, timed from its intended start:
// `openai` (POST {base}/v2/{id}/openai/v1/chat/completions or /completions; server-sent events
// with `stream: true`, one JSON answer without), `stream` (POST /run with the OpenAI request as
// the WIRE-COMPAT job input {openai_route, openai_input}, then /stream polled until the job ends,
// then /status for delayTime), and `runsync` (POST /runsync with the same input). Every path runs
// the same worker code on the same request, so their tokens and text agree and their timings
// compare. The transport is injected: the load run gives undici, the tests a script.
import { isTerminal, type JobState } from '../../spec/index.js';
import type { LlmPath } from '../../result/model.js';
import { SseTokenReader } from './stream-reader.js';
import { TokenTimer, tokensInChunk, type RequestTokenMetrics } from './token-metrics.js';
import type { LlmRequestSpec } from './workload.js';

export type LlmApi = 'chat' | 'completions';

export interface LlmHttpRequest {
  readonly method: 'GET' | 'POST';
  /** Below the queue URL, e.g. `/v2/demo/runsync`. */
  readonly path: string;
  /** JSON text. */
  readonly body?: string;
}

export interface LlmHttpAnswer {
  readonly status: number;
  /** When the request was handed to the socket (the transport's clock). */
  readonly sentAtMs: number;
  /** When the last byte of the body arrived. */
  readonly endAtMs: number;
}

/**
 * Sends one request and hands over each read of its body with its arrival time (ms, one monotonic
 * clock). `onData` returning true says the answer is complete (an event stream's `[DONE]`): the
 * request ends there, and what is left of the body is read and dropped without holding it up.
 */
export interface LlmTransport {
  now(): number;
  send(req: LlmHttpRequest, onData: (atMs: number, bytes: Uint8Array) => boolean | void, signal?: AbortSignal): Promise<LlmHttpAnswer>;
}

/** What every request of a run asks, whatever its path. */
export interface LlmRequestSettings {
  readonly endpointId: string;
  readonly api: LlmApi;
  /** openai: ask for server-sent events (the other paths: /stream always streams, /runsync never does). */
  readonly stream: boolean;
  /** The `model` field; absent: the worker fills in its own. */
  readonly model?: string | undefined;
  /** vLLM's ignore_eos and min_tokens: generate exactly max_tokens (a server that does not know them may refuse them). */
  readonly ignoreEos: boolean;
  /** Ask for logprobs, so that every streamed chunk lists its tokens (exact counts when a chunk holds several). */
  readonly logprobs?: boolean | undefined;
  /** A request still running this long after its send is abandoned and failed. */
  readonly timeoutMs?: number | undefined;
  /** Emulated ms per real ms: a record's delayTime is in the target's ms. */
  readonly timeScale: number;
}

export interface LlmRequestContext extends LlmRequestSettings {
  readonly transport: LlmTransport;
  readonly path: LlmPath;
  /** Pause after a /stream (or /status) answer that brought nothing new and no end (a target that does not long-poll). */
  readonly pollGapMs: number;
  /** §2.3 metrics of a /stream chunk, when it carries them. */
  readonly onEngineMetrics?: ((atMs: number, metrics: Record<string, unknown>) => void) | undefined;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly signal?: AbortSignal | undefined;
}

export interface LlmRequestOutcome {
  readonly ok: boolean;
  /** The status of the answer that made or failed the request (0: none came). */
  readonly status: number;
  readonly error?: string | undefined;
  readonly metrics: RequestTokenMetrics;
  /** Whether the tokens arrived as a stream (otherwise TTFT is the whole answer and TPOT and ITL are not defined). */
  readonly streamed: boolean;
  readonly text: string;
  /** The first request's send, on the transport's clock. */
  readonly sentAtMs: number;
  /** Native paths: intended start to the /run answer, and the record's delayTime and executionTime in real ms. */
  readonly submitMs?: number | undefined;
  readonly delayMs?: number | undefined;
  readonly executionMs?: number | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const OPENAI_ROUTES: Readonly<Record<LlmApi, string>> = { chat: '/v1/chat/completions', completions: '/v1/completions' };

/** The OpenAI request body of `spec` (the openai path's body, and the native paths' openai_input). */
export function openAiBody(ctx: Pick<LlmRequestContext, 'api' | 'model' | 'ignoreEos' | 'logprobs'>, spec: LlmRequestSpec, stream: boolean): Record<string, unknown> {
  return {
    ...(ctx.model !== undefined ? { model: ctx.model } : {}),
    ...(ctx.api === 'chat' ? { messages: spec.messages } : { prompt: spec.prompt }),
    max_tokens: spec.maxTokens,
    ...(ctx.ignoreEos ? { ignore_eos: true, min_tokens: spec.maxTokens } : {}),
    // Chat lists each token under logprobs.content; completions under logprobs.tokens (1: the sampled token's alone).
    ...(ctx.logprobs === true ? (ctx.api === 'chat' ? { logprobs: true } : { logprobs: 1 }) : {}),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

/** The text one chunk or answer carries: chat deltas and messages, completions text, native `output` items. */
export function textOf(chunk: unknown): string {
  if (!isRecord(chunk)) return typeof chunk === 'string' ? chunk : '';
  if (!('choices' in chunk) && 'output' in chunk) {
    const out = chunk['output'];
    if (Array.isArray(out)) return out.map(textOf).join('');
    if (isRecord(out) && Array.isArray(out['text'])) return out['text'].filter((t) => typeof t === 'string').join('');
    return textOf(out);
  }
  const choices = chunk['choices'];
  if (!Array.isArray(choices)) return '';
  let s = '';
  for (const c of choices) {
    if (!isRecord(c)) continue;
    const delta = c['delta'];
    const message = c['message'];
    if (isRecord(delta) && typeof delta['content'] === 'string') s += delta['content'];
    else if (isRecord(message) && typeof message['content'] === 'string') s += message['content'];
    else if (typeof c['text'] === 'string') s += c['text'];
  }
  return s;
}

const decoder = new TextDecoder();

/** The body's bytes, joined. */
function joined(parts: readonly Uint8Array[]): string {
  if (parts.length === 1) return decoder.decode(parts[0]);
  return decoder.decode(Buffer.concat(parts));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A short description of a failed answer. */
function failure(status: number, body: string): string {
  const parsed = parseJson(body);
  const err = isRecord(parsed) ? (parsed['error'] ?? parsed['message']) : undefined;
  const what = err === undefined ? body.slice(0, 200) : typeof err === 'string' ? err : JSON.stringify(err).slice(0, 200);
  return `HTTP ${status}${what.length > 0 ? `: ${what}` : ''}`;
}

/** Metrics of an answer that came whole at `atMs` (no stream): its tokens are all "first" at once. */
function wholeAnswerMetrics(intendedMs: number, atMs: number, answer: unknown): RequestTokenMetrics {
  const timer = new TokenTimer(intendedMs);
  const counted = tokensInChunk(answer);
  const text = textOf(answer);
  // One arrival: TTFT is the whole answer; without usage the tokens are estimated as 1 per answer.
  timer.observeTokens(atMs, { tokens: text.length > 0 ? Math.max(1, counted.tokens) : counted.tokens, usage: counted.usage, error: counted.error });
  return { ...timer.finish(atMs), tpotMs: undefined };
}

const failed = (intendedMs: number, atMs: number, status: number, error: string, sentAtMs: number, streamed: boolean, extra: Partial<LlmRequestOutcome> = {}): LlmRequestOutcome => ({
  ok: false,
  status,
  error,
  metrics: new TokenTimer(intendedMs).finish(atMs),
  streamed,
  text: '',
  sentAtMs,
  ...extra,
});

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Run one request whose intended start was `intendedMs` (the transport's clock). */
export async function executeLlmRequest(context: LlmRequestContext, spec: LlmRequestSpec, intendedMs: number): Promise<LlmRequestOutcome> {
  const limit = context.timeoutMs === undefined ? undefined : AbortSignal.timeout(context.timeoutMs);
  const signal = limit === undefined ? context.signal : context.signal === undefined ? limit : AbortSignal.any([context.signal, limit]);
  const ctx: LlmRequestContext = { ...context, signal };
  const outcome = await byPath(ctx, spec, intendedMs);
  // What an abort by the time limit left: the request failed for its time, whatever the transport said.
  if (limit?.aborted === true && context.signal?.aborted !== true && !outcome.ok) return { ...outcome, error: `no end within ${context.timeoutMs} ms (--timeout)` };
  return outcome;
}

function byPath(ctx: LlmRequestContext, spec: LlmRequestSpec, intendedMs: number): Promise<LlmRequestOutcome> {
  switch (ctx.path) {
    case 'openai':
      return openAiRequest(ctx, spec, intendedMs);
    case 'stream':
      return streamRequest(ctx, spec, intendedMs);
    case 'runsync':
      return runsyncRequest(ctx, spec, intendedMs);
  }
}

async function openAiRequest(ctx: LlmRequestContext, spec: LlmRequestSpec, intendedMs: number): Promise<LlmRequestOutcome> {
  const path = `/v2/${encodeURIComponent(ctx.endpointId)}/openai${OPENAI_ROUTES[ctx.api]}`;
  const body = JSON.stringify(openAiBody(ctx, spec, ctx.stream));
  let text = '';
  const reader = new SseTokenReader(intendedMs, (chunk) => {
    text += textOf(chunk);
  });
  const raw: Uint8Array[] = [];
  let answer: LlmHttpAnswer;
  try {
    answer = await ctx.transport.send({ method: 'POST', path, body }, (at, bytes) => {
      raw.push(bytes);
      if (!ctx.stream) return false;
      reader.push(at, bytes);
      // A server may hold the connection open after [DONE]: the answer is whole there.
      return reader.done;
    }, ctx.signal);
  } catch (e) {
    return failed(intendedMs, ctx.transport.now(), 0, errorText(e), ctx.transport.now(), ctx.stream);
  }
  if (answer.status !== 200) return failed(intendedMs, answer.endAtMs, answer.status, failure(answer.status, joined(raw)), answer.sentAtMs, ctx.stream);
  if (ctx.stream) {
    const r = reader.end(answer.endAtMs);
    if (r.metrics.chunks === 0) {
      // No event at all: a server that answered one JSON body although a stream was asked.
      const whole = parseJson(joined(raw));
      if (isRecord(whole) && Array.isArray(whole['choices'])) {
        return { ok: true, status: 200, metrics: wholeAnswerMetrics(intendedMs, answer.endAtMs, whole), streamed: false, text: textOf(whole), sentAtMs: answer.sentAtMs };
      }
      return failed(intendedMs, answer.endAtMs, 200, `no server-sent event in the answer: ${joined(raw).slice(0, 200)}`, answer.sentAtMs, true);
    }
    const problem = r.metrics.streamError ?? (r.truncated ? 'the stream ended inside an event' : !r.done ? 'the stream ended without data: [DONE]' : undefined);
    return { ok: problem === undefined, status: 200, ...(problem !== undefined ? { error: problem } : {}), metrics: r.metrics, streamed: true, text, sentAtMs: answer.sentAtMs };
  }
  const whole = parseJson(joined(raw));
  // A queue that held the request past its wait answers the job's record ({id, status}) instead of the completion.
  if (!isRecord(whole) || !Array.isArray(whole['choices'])) return failed(intendedMs, answer.endAtMs, 200, `the answer is not a completion (no choices): ${joined(raw).slice(0, 200)}`, answer.sentAtMs, false);
  return { ok: true, status: 200, metrics: wholeAnswerMetrics(intendedMs, answer.endAtMs, whole), streamed: false, text: textOf(whole), sentAtMs: answer.sentAtMs };
}

/** The WIRE-COMPAT job input of the native paths: the OpenAI request the worker would get from the openai route. */
function nativeBody(ctx: LlmRequestContext, spec: LlmRequestSpec, stream: boolean): string {
  return JSON.stringify({ input: { openai_route: OPENAI_ROUTES[ctx.api], openai_input: openAiBody(ctx, spec, stream) } });
}

interface JsonAnswer {
  readonly answer: LlmHttpAnswer;
  readonly json: unknown;
  readonly text: string;
}

async function sendJson(ctx: LlmRequestContext, req: LlmHttpRequest): Promise<JsonAnswer> {
  const raw: Uint8Array[] = [];
  const answer = await ctx.transport.send(req, (_at, bytes) => {
    raw.push(bytes);
  }, ctx.signal);
  const text = joined(raw);
  return { answer, json: parseJson(text), text };
}

const statusOf = (v: unknown): string | undefined => (isRecord(v) && typeof v['status'] === 'string' ? v['status'] : undefined);
const terminal = (s: string | undefined): boolean => s !== undefined && isTerminal(s as JobState);
const msField = (v: unknown, field: string, timeScale: number): number | undefined => {
  const x = isRecord(v) ? v[field] : undefined;
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x / timeScale : undefined;
};

/** POST /run (streamed job input) or /runsync; a request that got no answer is already the outcome. */
async function submitNative(ctx: LlmRequestContext, spec: LlmRequestSpec, intendedMs: number, op: 'run' | 'runsync'): Promise<JsonAnswer | LlmRequestOutcome> {
  try {
    return await sendJson(ctx, { method: 'POST', path: `/v2/${encodeURIComponent(ctx.endpointId)}/${op}`, body: nativeBody(ctx, spec, op === 'run') });
  } catch (e) {
    return failed(intendedMs, ctx.transport.now(), 0, errorText(e), ctx.transport.now(), op === 'run');
  }
}

const isOutcome = (x: JsonAnswer | LlmRequestOutcome): x is LlmRequestOutcome => 'metrics' in x;

async function streamRequest(ctx: LlmRequestContext, spec: LlmRequestSpec, intendedMs: number): Promise<LlmRequestOutcome> {
  const base = `/v2/${encodeURIComponent(ctx.endpointId)}`;
  const submitted = await submitNative(ctx, spec, intendedMs, 'run');
  if (isOutcome(submitted)) return submitted;
  const sentAtMs = submitted.answer.sentAtMs;
  const id = isRecord(submitted.json) && typeof submitted.json['id'] === 'string' ? submitted.json['id'] : undefined;
  if (submitted.answer.status !== 200 || id === undefined) {
    return failed(intendedMs, submitted.answer.endAtMs, submitted.answer.status, submitted.answer.status === 200 ? `/run answered no job id: ${submitted.text.slice(0, 200)}` : failure(submitted.answer.status, submitted.text), sentAtMs, true);
  }
  const submitMs = submitted.answer.endAtMs - intendedMs;
  const timer = new TokenTimer(intendedMs);
  let text = '';
  let streamEndMs: number | undefined;
  let finalStatus: string | undefined;
  try {
    for (;;) {
      const polled = await sendJson(ctx, { method: 'GET', path: `${base}/stream/${encodeURIComponent(id)}` });
      if (polled.answer.status !== 200) return failed(intendedMs, polled.answer.endAtMs, polled.answer.status, `/stream: ${failure(polled.answer.status, polled.text)}`, sentAtMs, true, { submitMs });
      const at = polled.answer.endAtMs;
      // WIRE-COMPAT: {status, stream: [chunk...]}; SERVICE-SPEC: a bare array of chunks.
      const items: unknown[] = Array.isArray(polled.json) ? polled.json : isRecord(polled.json) && Array.isArray(polled.json['stream']) ? polled.json['stream'] : [];
      for (const item of items) {
        timer.observe(at, item);
        text += textOf(item);
        if (isRecord(item) && isRecord(item['metrics'])) ctx.onEngineMetrics?.(at, item['metrics']);
      }
      const status = statusOf(polled.json);
      // The Python client's rule: a terminal status with nothing left to deliver ends the stream.
      if (terminal(status) && items.length === 0) {
        finalStatus = status;
        streamEndMs = at;
        break;
      }
      if (items.length === 0) await ctx.sleep(ctx.pollGapMs, ctx.signal);
    }
  } catch (e) {
    return failed(intendedMs, ctx.transport.now(), 0, `/stream: ${errorText(e)}`, sentAtMs, true, { submitMs });
  }
  // The record gives delayTime and executionTime, and the output whose usage counts the tokens.
  let record: JsonAnswer | undefined;
  try {
    record = await sendJson(ctx, { method: 'GET', path: `${base}/status/${encodeURIComponent(id)}` });
  } catch {
    record = undefined;
  }
  const endMs = streamEndMs ?? submitted.answer.endAtMs;
  const output = record !== undefined && isRecord(record.json) ? record.json['output'] : undefined;
  const usage = tokensInChunk(output).usage;
  if (usage !== undefined) timer.observeTokens(endMs, { tokens: 0, usage, error: undefined });
  const metrics = timer.finish(endMs);
  const delayMs = msField(record?.json, 'delayTime', ctx.timeScale);
  const executionMs = msField(record?.json, 'executionTime', ctx.timeScale);
  const ok = finalStatus === 'COMPLETED' && metrics.streamError === undefined;
  const error = ok ? undefined : finalStatus !== 'COMPLETED' ? `job ended ${finalStatus ?? 'unknown'}${isRecord(record?.json) && typeof record.json['error'] === 'string' ? `: ${record.json['error']}` : ''}` : metrics.streamError;
  return { ok, status: 200, ...(error !== undefined ? { error } : {}), metrics, streamed: true, text, sentAtMs, submitMs, delayMs, executionMs };
}

async function runsyncRequest(ctx: LlmRequestContext, spec: LlmRequestSpec, intendedMs: number): Promise<LlmRequestOutcome> {
  const base = `/v2/${encodeURIComponent(ctx.endpointId)}`;
  const answered = await submitNative(ctx, spec, intendedMs, 'runsync');
  if (isOutcome(answered)) return answered;
  const sentAtMs = answered.answer.sentAtMs;
  if (answered.answer.status !== 200 || !isRecord(answered.json)) return failed(intendedMs, answered.answer.endAtMs, answered.answer.status, failure(answered.answer.status, answered.text), sentAtMs, false);
  let record: JsonAnswer = answered;
  // The wait ran out before the job ended: its record is read again until it has.
  try {
    while (!terminal(statusOf(record.json))) {
      const id = isRecord(record.json) ? record.json['id'] : undefined;
      if (typeof id !== 'string') return failed(intendedMs, record.answer.endAtMs, record.answer.status, `/runsync answered no status and no id: ${record.text.slice(0, 200)}`, sentAtMs, false);
      await ctx.sleep(ctx.pollGapMs, ctx.signal);
      record = await sendJson(ctx, { method: 'GET', path: `${base}/status/${encodeURIComponent(id)}` });
      if (record.answer.status !== 200) return failed(intendedMs, record.answer.endAtMs, record.answer.status, `/status: ${failure(record.answer.status, record.text)}`, sentAtMs, false);
    }
  } catch (e) {
    return failed(intendedMs, ctx.transport.now(), 0, `/status: ${errorText(e)}`, sentAtMs, false);
  }
  const delayMs = msField(record.json, 'delayTime', ctx.timeScale);
  const executionMs = msField(record.json, 'executionTime', ctx.timeScale);
  const status = statusOf(record.json);
  const output = isRecord(record.json) ? record.json['output'] : undefined;
  if (status !== 'COMPLETED') {
    const err = isRecord(record.json) && record.json['error'] !== undefined ? `: ${JSON.stringify(record.json['error']).slice(0, 200)}` : '';
    return failed(intendedMs, record.answer.endAtMs, record.answer.status, `job ended ${status ?? 'unknown'}${err}`, sentAtMs, false, { delayMs, executionMs });
  }
  return { ok: true, status: 200, metrics: wholeAnswerMetrics(intendedMs, record.answer.endAtMs, output), streamed: false, text: textOf(output), sentAtMs, delayMs, executionMs };
}
