// Jobs made by POST /openai/v1/* (WIRE-COMPAT: input {openai_route, openai_input}). The
// handler answers in the OpenAI shapes a vLLM worker gives: models list, chat.completion,
// text_completion; with `stream: true` it emits one OpenAI chunk object per token batch,
// which the server relays as server-sent events.
import type { HandlerContext, HandlerOutcome } from './types.js';
import { generate, LlmParams } from './llm.js';

export const OPENAI_MODEL = 'qbench-emulated-model';

/** The OpenAI routes the emulated worker serves; others answer 404 before any job is made. */
export const OPENAI_ROUTES: ReadonlySet<string> = new Set(['/v1/models', '/v1/chat/completions', '/v1/completions']);

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

export async function runOpenAiJob(route: string, body: unknown, ctx: HandlerContext): Promise<HandlerOutcome> {
  const req = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const model = typeof req['model'] === 'string' ? req['model'] : OPENAI_MODEL;
  const created = Math.floor(ctx.clock.now() / 1000);
  if (route === '/v1/models') {
    return { kind: 'output', refresh: false, output: { object: 'list', data: [{ id: OPENAI_MODEL, object: 'model', created, owned_by: 'qbench' }] } };
  }
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
  const id = `${chat ? 'chatcmpl' : 'cmpl'}-${ctx.jobId}`;
  const texts: string[] = [];
  await generate(params, ctx, (c) => {
    const text = c.tokens.join('');
    texts.push(text);
    if (!stream) return;
    ctx.emit(
      chat
        ? { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: { content: text }, finish_reason: c.generated >= params.output_tokens ? 'length' : null }] }
        : { id, object: 'text_completion', created, model, choices: [{ index: 0, text, finish_reason: c.generated >= params.output_tokens ? 'length' : null }] },
    );
  });
  const content = texts.join('');
  const usage = { prompt_tokens: params.prompt_tokens, completion_tokens: params.output_tokens, total_tokens: params.prompt_tokens + params.output_tokens };
  const output = chat
    ? { id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'length' }], usage }
    : { id, object: 'text_completion', created, model, choices: [{ index: 0, text: content, finish_reason: 'length' }], usage };
  return { kind: 'output', output, refresh: false };
}
