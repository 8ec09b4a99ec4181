// Jobs made by POST /openai/v1/* (WIRE-COMPAT: input {openai_route, openai_input}). The
// handler answers in the OpenAI shapes a vLLM worker gives: models list, chat.completion,
// text_completion; with `stream: true` it emits one OpenAI chunk object per token batch,
// which the server relays as server-sent events.
import type { HandlerContext, HandlerOutcome } from './types.js';
import { generate, LlmParams } from './llm.js';

export const OPENAI_MODEL = 'qbench-emulated-model';

/** The OpenAI routes the emulated worker serves; others answer 404 before any job is made. */
export const OPENAI_ROUTES: ReadonlySet<string> = new Set(['/v1/models', '/v1/chat/completions', '/v1/completions']);

/** The mock handler's prompt tokens: ceil(characters of the messages' content and the prompt / 4), as approxPromptTokens. */
function promptTokens(body: Record<string, unknown>): number {
  let chars = 0;
  const messages = body['messages'];
  if (Array.isArray(messages)) {
    for (const m of messages) {
      const content: unknown = typeof m === 'object' && m !== null ? (m as Record<string, unknown>)['content'] : undefined;
      chars += typeof content === 'string' ? content.length : JSON.stringify(content ?? '').length;
    }
  }
  const prompt = body['prompt'];
  if (typeof prompt === 'string') chars += prompt.length;
  return Math.max(1, Math.ceil(chars / 4));
}

/** The answer of GET /v1/models: the one served model. */
export function modelsList(model: string, created: number, ownedBy: string): Record<string, unknown> {
  return { object: 'list', data: [{ id: model, object: 'model', created, owned_by: ownedBy }] };
}

/** What every chunk and answer of one OpenAI request shares. */
export interface OpenAiHead {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly chat: boolean;
}

export interface OpenAiUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export function usageOf(promptTokens: number, completionTokens: number): OpenAiUsage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** One streamed chunk carrying `text` (a chat delta or a completion's text). */
export function textChunk(h: OpenAiHead, text: string, finishReason: string | null): Record<string, unknown> {
  return h.chat
    ? { id: h.id, object: 'chat.completion.chunk', created: h.created, model: h.model, choices: [{ index: 0, delta: { content: text }, finish_reason: finishReason }] }
    : { id: h.id, object: 'text_completion', created: h.created, model: h.model, choices: [{ index: 0, text, finish_reason: finishReason }] };
}

/** The first chunk of a streamed chat answer as vLLM sends it: the role and no token. */
export function roleChunk(h: OpenAiHead): Record<string, unknown> {
  return { id: h.id, object: 'chat.completion.chunk', created: h.created, model: h.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
}

/** The last chunk of a stream asked with stream_options.include_usage: usage and no choice. */
export function usageChunk(h: OpenAiHead, usage: OpenAiUsage): Record<string, unknown> {
  return { id: h.id, object: h.chat ? 'chat.completion.chunk' : 'text_completion', created: h.created, model: h.model, choices: [], usage };
}

/** The whole (non-streamed) answer. */
export function completion(h: OpenAiHead, content: string, finishReason: string, usage: OpenAiUsage): Record<string, unknown> {
  return h.chat
    ? { id: h.id, object: 'chat.completion', created: h.created, model: h.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }], usage }
    : { id: h.id, object: 'text_completion', created: h.created, model: h.model, choices: [{ index: 0, text: content, finish_reason: finishReason }], usage };
}

export async function runOpenAiJob(route: string, body: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
  const req = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const model = typeof req['model'] === 'string' ? req['model'] : OPENAI_MODEL;
  const created = Math.floor(ctx.clock.now() / 1000);
  if (route === '/v1/models') return { kind: 'output', refresh: false, output: modelsList(OPENAI_MODEL, created, 'qbench') };
  const chat = route === '/v1/chat/completions';
  if (!chat && route !== '/v1/completions') {
    return { kind: 'error', refresh: false, error: `unsupported OpenAI route ${route}; supported: /v1/models, /v1/chat/completions, /v1/completions` };
  }
  const maxTokens = req['max_tokens'] ?? req['max_completion_tokens'];
  const params = LlmParams.parse({
    prompt_tokens: promptTokens(req),
    output_tokens: typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens >= 1 && maxTokens <= 100_000 ? maxTokens : 16,
    tokens_per_chunk: 1,
    scenario: 'openai',
  });
  const stream = req['stream'] === true;
  const head: OpenAiHead = { id: `${chat ? 'chatcmpl' : 'cmpl'}-${ctx.jobId}`, created, model, chat };
  const texts: string[] = [];
  await generate(params, ctx, (c) => {
    const text = c.tokens.join('');
    texts.push(text);
    if (stream) ctx.emit(textChunk(head, text, c.generated >= params.output_tokens ? 'length' : null));
  });
  return { kind: 'output', output: completion(head, texts.join(''), 'length', usageOf(params.prompt_tokens, params.output_tokens)), refresh: false };
}
