// The LLM engine of a deployment (deployments.<id>.engine): a vLLM-style worker serving one model
// with continuous batching, as worker-vllm runs it behind the queue (WIRE-COMPAT "LLM workers").
// Absent, an endpoint's jobs keep the emulator's mock-worker handler. The arithmetic these
// settings drive lives in engine.ts; every field says its unit.
import { z } from 'zod';

const positive = (what: string, max: number) =>
  z.number({ error: `${what} must be a number` }).positive({ error: `${what} must be > 0` }).max(max, { error: `${what} must be at most ${max}` });
const wholeIn = (what: string, min: number, max: number) =>
  z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` }).min(min, { error: `${what} must be ${min}..${max}` }).max(max, { error: `${what} must be ${min}..${max}` });

/**
 * Tokens per streamed chunk, as worker-vllm batches them (its DEFAULT_MIN_BATCH_SIZE,
 * DEFAULT_BATCH_SIZE and DEFAULT_BATCH_SIZE_GROWTH_FACTOR): the first chunk holds `min`, each
 * next one `growthFactor` times the last, capped at `max` (1, 3, 9, 27, 50, 50, ... by default).
 * `max: 1` streams one token per chunk. worker-vllm batches only when growthFactor > 1, min >= 1
 * and max > min; otherwise every chunk holds `max`.
 */
export const StreamBatch = z.strictObject({
  min: wholeIn('engine.streamBatch.min', 1, 100_000).default(1),
  max: wholeIn('engine.streamBatch.max', 1, 100_000).default(50),
  growthFactor: z.number({ error: 'engine.streamBatch.growthFactor must be a number' }).min(1, { error: 'engine.streamBatch.growthFactor must be >= 1' }).max(1_000, { error: 'engine.streamBatch.growthFactor must be at most 1000' }).default(3),
});
export type StreamBatch = z.infer<typeof StreamBatch>;

/** worker-vllm's MAX_CONCURRENCY default: the jobs one engine worker runs at once unless the deployment sets jobsPerWorker. */
export const ENGINE_DEFAULT_JOBS_PER_WORKER = 30;

/**
 * One worker's engine. A worker runs steps one after another (the `scheduler` says how prompts
 * and decoding share them); a decode step gives one token to every decoding stream and lasts
 * (1000 / decodeTokensPerSec) x (1 + decodeContention x (n - 1)) ms for n streams, so one stream's
 * rate falls as streams share the worker; reading p prompt tokens costs prefillBaseMs + p /
 * prefillTokensPerSec, and a request's first token comes at the end of the step that read its
 * last prompt token. A worker holds at most jobsPerWorker requests (worker-vllm's
 * MAX_CONCURRENCY, 30 by default with an engine); beyond that they wait in the queue.
 */
export const LlmEngine = z.strictObject({
  /** The served model name: /openai/v1/models lists it; answers carry it when the request names none. */
  modelName: z.string().min(1, { error: 'engine.modelName must not be empty' }).max(200, { error: 'engine.modelName must be at most 200 characters' }).default('qbench-emulated-model'),
  /** Tokens per second of one stream decoding alone on a worker. */
  decodeTokensPerSec: positive('engine.decodeTokensPerSec', 100_000).default(60),
  /** Share by which a decode step lengthens per extra stream on the worker (0: streams do not slow each other). */
  decodeContention: z.number({ error: 'engine.decodeContention must be a number' }).min(0, { error: 'engine.decodeContention must be in [0, 10]' }).max(10, { error: 'engine.decodeContention must be in [0, 10]' }).default(0.03),
  /**
   * Ms a decode step lengthens by per token in the context of each stream it decodes (its prompt
   * and its output so far): attention reading the stream's KV cache. 0 by default: a step's time
   * depends on the streams only.
   */
  decodeMsPerContextToken: z.number({ error: 'engine.decodeMsPerContextToken must be a number' }).min(0, { error: 'engine.decodeMsPerContextToken must be in [0, 100]' }).max(100, { error: 'engine.decodeMsPerContextToken must be in [0, 100]' }).default(0),
  /** Prompt tokens per second a prefill step reads. */
  prefillTokensPerSec: positive('engine.prefillTokensPerSec', 10_000_000).default(5_000),
  /** Fixed ms of every prefill step (scheduling, the first forward pass). */
  prefillBaseMs: z.number({ error: 'engine.prefillBaseMs must be a number' }).min(0, { error: 'engine.prefillBaseMs must be in [0, 60000]' }).max(60_000, { error: 'engine.prefillBaseMs must be in [0, 60000]' }).default(15),
  /** Output tokens of a request that gives no max_tokens (vLLM's SamplingParams default). */
  defaultMaxTokens: wholeIn('engine.defaultMaxTokens', 1, 1_000_000).default(16),
  /** Longest prompt + output in tokens (vLLM max_model_len): a longer request is refused. */
  maxModelLen: wholeIn('engine.maxModelLen', 2, 10_000_000).default(32_768),
  /**
   * How a worker mixes reading prompts with decoding. prefill-first (vLLM without chunked prefill):
   * a step reads every waiting prompt whole while decoding streams wait. chunked (vLLM's chunked
   * prefill, its V1 engine's way): every step decodes every stream and reads waiting prompts, oldest
   * first, with the rest of maxBatchedTokens; it lasts its decode time plus, when it reads any
   * prompt, prefillBaseMs + the tokens read / prefillTokensPerSec. parallel (llama.cpp through
   * node-llama-cpp, its maximumParallelism batching): as chunked, but the rest of maxBatchedTokens
   * goes to every waiting prompt in equal shares (a prompt needing less than its share leaves the
   * spare to the others), so prompts read together finish together; while two or more streams
   * decode, the one last given a token sits a step out (each of n streams gets a token in n - 1
   * steps of n: node-llama-cpp begins a step before that sequence has queued its next token); and
   * a step begins the moment a request reaches an idle worker, so one arriving after it, at the
   * same instant too, waits for the next step.
   */
  scheduler: z.enum(['prefill-first', 'chunked', 'parallel'], { error: 'engine.scheduler must be prefill-first, chunked or parallel' }).default('prefill-first'),
  /** chunked, parallel: tokens one step handles, a decoding stream counting one (vLLM max_num_batched_tokens, llama.cpp n_batch). */
  maxBatchedTokens: wholeIn('engine.maxBatchedTokens', 1, 10_000_000).default(8_192),
  /** KV-cache tokens of one worker: the native stream's gpu_kv_cache_usage = tokens held / this. */
  kvCacheTokens: wholeIn('engine.kvCacheTokens', 1, 1_000_000_000).default(262_144),
  streamBatch: StreamBatch.default({ min: 1, max: 50, growthFactor: 3 }),
});
export type LlmEngine = z.infer<typeof LlmEngine>;
export type LlmEngineInput = z.input<typeof LlmEngine>;
