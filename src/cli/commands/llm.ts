// `qbench llm --target <url|emulator> [--path openai,stream,runsync] (--rate R | --vus N | --mode sweep)`:
// LLM load on one endpoint over the OpenAI-compatible route (server-sent events or one answer),
// /run + /stream and /runsync, with the same workload on each path; TTFT, ITL per token, TPOT,
// e2e, tokens/s and goodput against --slo per path and load level. Target, key, rate, VUs,
// duration, request cap and report directory are `qbench load`'s options, spelled the same.
// Exit 0 every SLO held (or none was given), 1 an SLO failed or every request did, 2 bad flags,
// 4 the generator could not keep its schedule.
import { z } from 'zod';
import { DurationMs } from '../../spec/index.js';
import { defineCommand, lazyRun } from '../command.js';
import { loadOptions } from '../load-options.js';
import { option, wholeNumber } from '../options.js';
import { commaList, outOption, targetKeyOption, targetOptions } from '../target-options.js';

export const LLM_PATH_NAMES = ['openai', 'stream', 'runsync'] as const;
export const LLM_MODES = ['constant', 'poisson', 'concurrency', 'sweep'] as const;
export const LLM_DEFAULTS = { duration: '30s', promptTokens: '128', seed: 1, sweepSteps: 4, maxInFlight: 1000, coldDelay: '1s', timeout: '5m' } as const;
const LENGTHS = 'N, uniform:MIN-MAX, normal:MEAN,SD[,MIN,MAX] or file:PATH';
const SLO_FORM = "[pNN(]metric[)] < number unit, metric ttft, itl, tpot or e2e, e.g. 'p99(ttft)<2s', 'itl<=50ms'";

export const LLM_OPTIONS = {
  ...targetOptions(),
  ...targetKeyOption(),
  out: outOption,
  paths: option({
    flag: 'path',
    kind: 'strings',
    schema: commaList.pipe(z.array(z.enum(LLM_PATH_NAMES, { error: `must be ${LLM_PATH_NAMES.join(', ')} (comma-separated or repeated)` })).min(1, { error: `must name a path: ${LLM_PATH_NAMES.join(', ')}` })),
    default: ['openai'],
    help: 'Paths to measure, each with the same workload: openai (the OpenAI-compatible route), stream (/run then /stream), runsync',
  }),
  api: option({ flag: 'api', schema: z.enum(['chat', 'completions'], { error: 'must be chat or completions' }), default: 'chat', choices: ['chat', 'completions'], help: 'OpenAI API: chat (/v1/chat/completions, messages) or completions (/v1/completions, prompt); the native paths send it as the job input {openai_route, openai_input}' }),
  stream: option({ flag: 'stream', kind: 'boolean', schema: z.boolean(), default: true, help: 'openai path: ask for server-sent events with stream_options.include_usage (--no-stream: one JSON answer, TTFT is the whole answer)' }),
  mode: option({ flag: 'mode', schema: z.enum(LLM_MODES, { error: `must be ${LLM_MODES.join(', ')}` }).optional(), choices: LLM_MODES, defaultHelp: 'constant with --rate, concurrency with --vus', help: 'constant or poisson arrivals at --rate (open loop), concurrency: --vus requests in flight (closed loop), sweep: one at a time, then --vus at once, then rates between, stopping at saturation' }),
  ratePerSec: { ...loadOptions.ratePerSec, help: 'Arrival rate, requests/s (constant and poisson modes)' },
  vus: { ...loadOptions.vus, help: 'Requests in flight: the concurrency mode, and the saturating level of a sweep (default 64)' },
  durationMs: { ...loadOptions.durationMs, default: LLM_DEFAULTS.duration, help: 'Length of each run (each path, each sweep level), e.g. 30s, 2m' },
  maxRequests: { ...loadOptions.maxRequests, help: 'Most requests per run' },
  slos: option({ flag: 'slo', kind: 'strings', schema: z.array(z.string()).default([]), help: `A service-level objective (repeatable): ${SLO_FORM}; a bare metric holds for each request (goodput counts the requests meeting all), a percentile over the run` }),
  promptTokens: option({ flag: 'prompt-tokens', schema: z.string().min(1), default: LLM_DEFAULTS.promptTokens, help: `Prompt length in tokens: ${LENGTHS} (no tokenizer: the report states the approximation)` }),
  outputTokens: option({ flag: 'output-tokens', schema: z.string().min(1).optional(), defaultHelp: "128, or a dataset entry's own", help: `Output length (max_tokens) in tokens: ${LENGTHS}` }),
  dataset: option({ flag: 'dataset', schema: z.string().min(1).optional(), help: 'Prompts from a file: JSONL (a prompt string, {prompt}, {text} or {messages} a line) or ShareGPT JSON ([{conversations: [{from, value}]}]), walked in a seeded order' }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }), default: LLM_DEFAULTS.seed, help: 'Seed of the lengths, prompts, dataset order and Poisson arrivals' }),
  model: option({ flag: 'model', schema: z.string().min(1).optional(), help: "The request's model field (default: none, the worker fills in its own)" }),
  ignoreEos: option({ flag: 'ignore-eos', kind: 'boolean', schema: z.boolean(), default: true, help: 'Send ignore_eos and min_tokens (vLLM) so every answer has its max_tokens; --no-ignore-eos for servers that refuse them' }),
  logprobs: option({ flag: 'logprobs', kind: 'boolean', schema: z.boolean(), default: false, help: 'Ask for logprobs so every streamed chunk lists its tokens: exact token counts and ITL when a server puts several tokens in a chunk' }),
  timeoutMs: option({ flag: 'timeout', schema: DurationMs.pipe(z.number().positive({ error: 'must be above 0' }).max(3_600_000, { error: 'must be at most 1h' })), default: LLM_DEFAULTS.timeout, help: 'A request not ended this long after its send is abandoned and counted failed' }),
  sweepSteps: option({ flag: 'sweep-steps', kind: 'number', schema: wholeNumber(1, 20), default: LLM_DEFAULTS.sweepSteps, help: 'Sweep: rate levels between one-at-a-time and saturation' }),
  maxInFlight: option({ flag: 'max-in-flight', kind: 'number', schema: wholeNumber(1, 10_000), default: LLM_DEFAULTS.maxInFlight, help: 'Open loop: a start finding this many requests in flight is dropped and counted' }),
  coldDelayMs: option({ flag: 'cold-delay', schema: DurationMs.pipe(z.number().positive({ error: 'must be above 0' })), default: LLM_DEFAULTS.coldDelay, help: 'A request whose delayTime is at least this is counted cold (as is one sent when /health showed no worker ready)' }),
  timeScale: loadOptions.timeScale,
  emulatorConfig: loadOptions.emulatorConfig,
};

export const llmCommand = defineCommand({
  options: LLM_OPTIONS,
  builder: (y) =>
    y
      .example("$0 llm --target emulator --rate 2 --duration 20s --slo 'p99(ttft)<2s' --slo 'itl<100ms'", 'constant 2 requests/s over the OpenAI route with two SLOs')
      .example('$0 llm --target http://127.0.0.1:8080/v2/demo --path openai,stream,runsync --vus 4 --output-tokens 64', 'the three paths at 4 in flight, compared')
      .example("$0 llm --target emulator --mode sweep --duration 10s --prompt-tokens uniform:64-512 --slo 'p90(ttft)<1s'", 'a sweep with uniform prompt lengths'),
  run: lazyRun(async () => (await import('./llm-run.js')).runLlmCommand),
});
