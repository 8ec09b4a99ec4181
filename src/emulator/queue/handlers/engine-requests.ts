// What the engine reads of a job: an OpenAI-route job ({openai_route, openai_input}, WIRE-COMPAT)
// or a worker-vllm native input ({prompt | messages, sampling_params: {max_tokens}, stream,
// max_batch_size, min_batch_size, batch_size_growth_factor}). Prompt tokens are approximated from
// the text (approxPromptTokens: chars / 4, no tokenizer). A request the engine cannot serve is
// refused with the field named: 400 on the OpenAI route, a FAILED job on the native paths.
import { z } from 'zod';
import { approxPromptTokens, type LlmEngine, type StreamBatch } from '../../../deployment/index.js';

export type EngineRequest =
  | { readonly kind: 'models' }
  | {
      readonly kind: 'openai';
      readonly chat: boolean;
      readonly stream: boolean;
      /** stream_options.include_usage: a last chunk carries usage. */
      readonly includeUsage: boolean;
      /** The model the answer names: the request's, else the served one. */
      readonly model: string;
      readonly promptTokens: number;
      readonly maxTokens: number;
    }
  | {
      readonly kind: 'native';
      readonly stream: boolean;
      readonly promptTokens: number;
      readonly maxTokens: number;
      readonly batch: StreamBatch;
    };

export type EngineParse = { readonly ok: true; readonly request: EngineRequest } | { readonly ok: false; readonly error: string; readonly field: string };

const maxTokens = z.number().int().min(1).nullish();
const content = z.union([z.string(), z.null(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]);
const Message = z.looseObject({ role: z.string(), content: content.optional() });
const Messages = z.array(Message).min(1);
const streamOptions = z.looseObject({ include_usage: z.boolean().nullish() }).nullish();
const single = z.union([z.literal(1), z.null()]).optional();

/** The fields both OpenAI generation routes read. */
const GENERATION_FIELDS = { model: z.string().nullish(), max_tokens: maxTokens, stream: z.boolean().nullish(), stream_options: streamOptions, n: single };

const ChatBody = z.looseObject({ ...GENERATION_FIELDS, messages: Messages, max_completion_tokens: maxTokens });

// Batched prompts (a list) would answer several choices: one prompt string is served.
const CompletionBody = z.looseObject({ ...GENERATION_FIELDS, prompt: z.string() });

const NativeInput = z.looseObject({
  prompt: z.string().optional(),
  messages: Messages.optional(),
  stream: z.boolean().optional(),
  sampling_params: z.looseObject({ max_tokens: maxTokens, n: single }).optional(),
  max_batch_size: z.number().int().min(1).max(100_000).optional(),
  min_batch_size: z.number().int().min(1).max(100_000).optional(),
  batch_size_growth_factor: z.number().min(1).max(1_000).optional(),
});

/** The routes the engine answers (others stay with the mock handler, which refuses them). */
const ENGINE_ROUTES: ReadonlySet<string> = new Set(['/v1/models', '/v1/chat/completions', '/v1/completions']);

/** True when the engine serves this job: an OpenAI route it knows, or a native input with a prompt or messages and no mock_* control field. */
export function isEngineInput(input: Record<string, unknown>): boolean {
  const route = input['openai_route'];
  if (typeof route === 'string') return ENGINE_ROUTES.has(route);
  if (!('prompt' in input) && !('messages' in input)) return false;
  for (const k in input) if (k.startsWith('mock_')) return false;
  return true;
}

function messageChars(messages: z.infer<typeof Messages>): number {
  let chars = 0;
  for (const m of messages) {
    const c = m.content;
    if (typeof c === 'string') chars += c.length;
    else if (Array.isArray(c)) for (const part of c) chars += part.text?.length ?? 0;
  }
  return chars;
}

function refused(e: z.ZodError, prefix: string): EngineParse {
  const issue = e.issues[0];
  const field = [prefix, ...(issue?.path ?? []).map(String)].filter((s) => s !== '').join('.') || 'body';
  return { ok: false, field, error: `${field}: ${issue?.message ?? 'invalid'}` };
}

/** vLLM's refusal of a request longer than max_model_len. */
function tooLong(engine: LlmEngine, prompt: number, out: number, field: string): EngineParse | undefined {
  if (prompt + out <= engine.maxModelLen) return undefined;
  return {
    ok: false,
    field,
    error: `This model's maximum context length is ${engine.maxModelLen} tokens. However, you requested ${prompt + out} tokens (${prompt} in the messages, ${out} in the completion). Please reduce the length of the messages or completion.`,
  };
}

/** The OpenAI request of route `route` (a known engine route), or why it is refused. */
export function parseOpenAi(route: string, body: unknown, engine: LlmEngine): EngineParse {
  if (route === '/v1/models') return { ok: true, request: { kind: 'models' } };
  const chat = route === '/v1/chat/completions';
  const r = chat ? ChatBody.safeParse(body) : CompletionBody.safeParse(body);
  if (!r.success) return refused(r.error, '');
  const b = r.data as z.infer<typeof ChatBody> & z.infer<typeof CompletionBody>;
  const promptTokens = approxPromptTokens(chat ? messageChars(b.messages) : b.prompt.length);
  const out = (chat ? (b.max_completion_tokens ?? b.max_tokens) : b.max_tokens) ?? engine.defaultMaxTokens;
  const long = tooLong(engine, promptTokens, out, chat && b.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens');
  if (long) return long;
  return {
    ok: true,
    request: { kind: 'openai', chat, stream: b.stream === true, includeUsage: b.stream_options?.include_usage === true, model: b.model ?? engine.modelName, promptTokens, maxTokens: out },
  };
}

/** A job input the engine serves (isEngineInput), or why it is refused. */
export function parseEngineInput(input: Record<string, unknown>, engine: LlmEngine): EngineParse {
  const route = input['openai_route'];
  if (typeof route === 'string') return parseOpenAi(route, input['openai_input'], engine);
  const r = NativeInput.safeParse(input);
  if (!r.success) return refused(r.error, 'input');
  const n = r.data;
  if (n.prompt === undefined && n.messages === undefined) return { ok: false, field: 'input.prompt', error: 'input.prompt: a prompt string or a messages list is required' };
  const promptTokens = approxPromptTokens((n.prompt?.length ?? 0) + (n.messages === undefined ? 0 : messageChars(n.messages)));
  const out = n.sampling_params?.max_tokens ?? engine.defaultMaxTokens;
  const long = tooLong(engine, promptTokens, out, 'input.sampling_params.max_tokens');
  if (long) return long;
  const d = engine.streamBatch;
  const batch = { max: n.max_batch_size ?? d.max, min: n.min_batch_size ?? d.min, growthFactor: n.batch_size_growth_factor ?? d.growthFactor };
  return { ok: true, request: { kind: 'native', stream: n.stream === true, promptTokens, maxTokens: out, batch } };
}
