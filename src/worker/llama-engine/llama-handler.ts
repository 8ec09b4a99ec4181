// A worker handler backed by a real inference engine: llama.cpp on the CPU through
// node-llama-cpp (an optional peer dependency, imported here and nowhere else, only when this
// handler is made). It serves the job inputs worker-vllm serves: OpenAI-route jobs
// ({openai_route, openai_input}: /v1/models, /v1/chat/completions, /v1/completions, streamed or
// not, usage in a last chunk when stream_options.include_usage asks) and native jobs ({prompt |
// messages, sampling_params: {max_tokens}, stream}), refusing the same inputs the emulator's
// engine refuses (src/emulator/queue/handlers/engine-requests.ts), in the same answer shapes.
//
// One llama.cpp context serves `sequences` jobs at once (the worker's concurrency, worker-vllm's
// MAX_CONCURRENCY), one context sequence each: node-llama-cpp evaluates the pending tokens of
// every sequence in one batch, a new prompt beside the others' next tokens (continuous batching),
// the batch shared evenly among them (its maximumParallelism strategy). A finished job's sequence
// is cleared under the context's lock, which node-llama-cpp's batch loop holds while any sequence
// has tokens queued, so the clearing waits until the engine pauses: the context holds twice as
// many sequences as jobs, so that a new job takes a clean one at once instead of waiting for
// every running job to finish, and a job ends without waiting for its sequence to be cleared.
// Sampling is greedy (temperature 0) and the end-of-sequence token does not stop a generation,
// so every answer has exactly max_tokens tokens and the same prompt gives the same text. Each
// token is streamed as one chunk, in order, without holding up the next token's evaluation.
import { configError, usageError } from '../../errors.js';
import { LlmEngine } from '../../deployment/index.js';
import { parseEngineInput } from '../../emulator/queue/handlers/engine-requests.js';
import { completion, modelsList, roleChunk, textChunk, usageChunk, usageOf, type OpenAiHead } from '../../emulator/queue/handlers/openai.js';
import type { WorkerHandler, WorkerJob, WorkerJobContext } from '../worker.js';
import { LLAMA_INSTALL, LLAMA_PACKAGE } from './names.js';


export interface LlamaHandlerOptions {
  /** A GGUF model file. */
  readonly modelPath: string;
  /** Jobs served at once: one context sequence each. */
  readonly sequences: number;
  /** CPU threads of the evaluation (default 1). */
  readonly threads?: number | undefined;
  /** Tokens one sequence holds, prompt and output (default 4096, at most the model's own). */
  readonly contextTokens?: number | undefined;
  /** The model name the OpenAI answers and /v1/models give (default: the file's name). */
  readonly modelName?: string | undefined;
}

export interface LlamaHandler {
  readonly handler: WorkerHandler;
  /** Tokens one sequence holds. */
  readonly contextTokens: number;
  /** Sequences of the context: twice the jobs served at once (see the header). */
  readonly contextSequences: number;
  readonly modelName: string;
  /** Free the context and the model. */
  close(): Promise<void>;
}

/** Tokens one evaluation batch holds, of every sequence together (llama.cpp's n_batch). */
export const LLAMA_BATCH_TOKENS = 512;

/** The parts of node-llama-cpp this handler uses. */
interface Token {
  readonly __token?: never;
}
interface LlamaSequence {
  evaluate(tokens: Token[], options: { temperature: number; tokenBias?: unknown }): AsyncGenerator<Token, void, void>;
  clearHistory(): Promise<void>;
}
interface LlamaModule {
  getLlama(o: { gpu: false; build: 'never'; logLevel?: unknown }): Promise<{
    loadModel(o: { modelPath: string; gpuLayers: number }): Promise<{
      readonly trainContextSize: number;
      readonly tokens: { readonly bos: Token | null };
      tokenize(text: string, specialTokens?: boolean): Token[];
      detokenize(tokens: readonly Token[], specialTokens?: boolean): string;
      createContext(o: { contextSize: number; sequences: number; threads: number; flashAttention: boolean; batchSize: number }): Promise<{ getSequence(): LlamaSequence; dispose(): Promise<void> }>;
      dispose(): Promise<void>;
    }>;
    dispose(): Promise<void>;
  }>;
  TokenBias: { for(model: unknown): { set(token: Token, bias: 'never'): unknown } };
  LlamaLogLevel: { readonly error: unknown };
}

/** node-llama-cpp, or a clear error naming it and how to install it. */
export async function importLlama(): Promise<LlamaModule> {
  try {
    const mod: unknown = await import(LLAMA_PACKAGE);
    return mod as LlamaModule;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw configError(`the real-engine worker needs the optional package ${LLAMA_PACKAGE} (llama.cpp for Node), which could not be loaded: ${why}. Install it beside qbench: ${LLAMA_INSTALL}`);
  }
}

/** The prompt text of a job: the prompt, or the messages' contents one after another (the tiny model has no chat template). */
function promptText(input: Record<string, unknown>): string {
  const body = typeof input['openai_route'] === 'string' ? (input['openai_input'] as Record<string, unknown>) : input;
  const parts: string[] = [];
  const messages = body['messages'];
  if (Array.isArray(messages)) {
    for (const m of messages as { content?: unknown }[]) {
      const c = m.content;
      if (typeof c === 'string') parts.push(c);
      else if (Array.isArray(c)) for (const p of c as { text?: unknown }[]) if (typeof p.text === 'string') parts.push(p.text);
    }
  }
  if (typeof body['prompt'] === 'string') parts.push(body['prompt']);
  return parts.join('\n');
}

/** A pool of the context's sequences: a job takes a clean one; one given back is cleared, then clean again (dropped if that fails). */
class SequencePool {
  private readonly free: LlamaSequence[];
  private readonly waiters: ((s: LlamaSequence) => void)[] = [];
  constructor(seqs: LlamaSequence[]) {
    this.free = seqs;
  }

  take(): Promise<LlamaSequence> {
    const s = this.free.pop();
    if (s !== undefined) return Promise.resolve(s);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async give(s: LlamaSequence): Promise<void> {
    try {
      await s.clearHistory();
    } catch {
      return;
    }
    const w = this.waiters.shift();
    if (w !== undefined) w(s);
    else this.free.push(s);
  }
}

/** Load `o.modelPath` into a context of `o.sequences` sequences and answer the handler that serves jobs on it. */
export async function createLlamaHandler(o: LlamaHandlerOptions): Promise<LlamaHandler> {
  if (!Number.isInteger(o.sequences) || o.sequences < 1 || o.sequences > 256) throw usageError(`sequences must be an integer from 1 to 256, got ${o.sequences}`);
  const threads = o.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw usageError(`threads must be an integer from 1 to 256, got ${threads}`);
  const lib = await importLlama();
  const llama = await lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel.error });
  let model: Awaited<ReturnType<typeof llama.loadModel>>;
  try {
    model = await llama.loadModel({ modelPath: o.modelPath, gpuLayers: 0 });
  } catch (e) {
    await llama.dispose();
    throw configError(`cannot load the model ${o.modelPath}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const contextTokens = Math.min(o.contextTokens ?? 4096, model.trainContextSize);
  const slots = 2 * o.sequences;
  const context = await model.createContext({ contextSize: contextTokens * slots, sequences: slots, threads, flashAttention: true, batchSize: LLAMA_BATCH_TOKENS });
  const pool = new SequencePool(Array.from({ length: slots }, () => context.getSequence()));
  const modelName = o.modelName ?? o.modelPath.replace(/^.*[\\/]/, '').replace(/\.gguf$/i, '');
  const engine = LlmEngine.parse({ modelName, maxModelLen: contextTokens, defaultMaxTokens: 16, streamBatch: { min: 1, max: 1, growthFactor: 1 } });
  // Control tokens (<s>, </s>, <unk>) are never sampled: every token is text.
  const bias = lib.TokenBias.for(model);
  for (const t of model.tokenize('<unk><s></s>', true)) bias.set(t, 'never');
  const bos = model.tokens.bos;

  const handler: WorkerHandler = async (job: WorkerJob, ctx: WorkerJobContext) => {
    const parsed = parseEngineInput(job.input, engine);
    if (!parsed.ok) throw usageError(parsed.error);
    const req = parsed.request;
    const created = Math.floor(Date.now() / 1000);
    if (req.kind === 'models') return modelsList(modelName, created, 'qbench');
    const prompt = [...(bos === null ? [] : [bos]), ...model.tokenize(promptText(job.input))];
    if (prompt.length + req.maxTokens > contextTokens) throw usageError(`This model's maximum context length is ${contextTokens} tokens. However, you requested ${prompt.length + req.maxTokens} tokens (${prompt.length} in the prompt, ${req.maxTokens} in the completion).`);
    const head: OpenAiHead | undefined = req.kind === 'openai' ? { id: `${req.chat ? 'chatcmpl' : 'cmpl'}-${job.id}`, created, model: req.model, chat: req.chat } : undefined;
    // Chunks go out in order while the next tokens are evaluated.
    let sending: Promise<void> = Promise.resolve();
    const send = (chunk: unknown) => {
      sending = sending.then(() => ctx.stream(chunk));
    };
    const items: unknown[] = [];
    let text = '';
    let generated = 0;
    const seq = await pool.take();
    try {
      for await (const token of seq.evaluate(prompt, { temperature: 0, tokenBias: bias })) {
        if (ctx.signal.aborted) throw new Error('stopped by the service');
        const piece = model.detokenize([token]);
        text += piece;
        generated += 1;
        const last = generated >= req.maxTokens;
        if (req.kind === 'openai' && req.stream && head !== undefined) {
          if (generated === 1 && req.chat) send(roleChunk(head));
          send(textChunk(head, piece, last ? 'length' : null));
          if (last && req.includeUsage) send(usageChunk(head, usageOf(prompt.length, generated)));
        } else if (req.kind === 'native' && req.stream) {
          const item = { choices: [{ tokens: [piece] }], usage: { input: prompt.length, output: generated } };
          items.push(item);
          send(item);
        }
        if (last) break;
      }
    } finally {
      void pool.give(seq);
    }
    await sending;
    if (req.kind === 'openai') return completion(head as OpenAiHead, text, 'length', usageOf(prompt.length, generated));
    return req.stream ? items : [{ choices: [{ tokens: [text] }], usage: { input: prompt.length, output: generated } }];
  };

  return {
    handler,
    contextTokens,
    contextSequences: slots,
    modelName,
    async close() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
