// `qbench calibrate --target <url> --endpoint <id>`: measure a deployment through its public
// queue interface within a budget printed (and confirmed) before anything is sent, and write a
// twin: <out>/emulator.json for `qbench emulate --emulator-config`, calibration.json and .html.
// With --llm, also the LLM engine (TTFT against prompt length, token rate against concurrency) from
// a probe over the OpenAI route, written as deployments.<id>.engine. Exit 0 done, 2 bad flags (or
// no --yes without a terminal), 4 no job completed or the --llm probe did not finish, 5 unreachable.
import { z } from 'zod';
import { SCALER_TYPES, type DeploymentSettings } from '../../deployment/index.js';
import { DurationMs } from '../../spec/index.js';
import { defineCommand, lazyRun } from '../command.js';
import { option, wholeNumber, type Flags, type OptionSet } from '../options.js';
import { commaList, targetKeyOption, targetOptions } from '../target-options.js';
import { LLM_PROBE_DEFAULTS } from '../../calibrate/llm-probe-defaults.js';

/** A comma-separated (or repeated) list of whole numbers from `min` to `max`. */
const wholeList = (min: number, max: number) =>
  commaList.pipe(z.array(z.string().regex(/^\d+$/, { error: 'must list whole numbers' }).transform(Number).pipe(z.number().int({ error: 'must list whole numbers' }).min(min, { error: `must list whole numbers from ${min} to ${max}` }).max(max, { error: `must list whole numbers from ${min} to ${max}` }))).min(1, { error: 'must list at least one number' }));
const ENGINE_SCHEDULERS = ['prefill-first', 'chunked', 'parallel'] as const;

export const CALIBRATE_DEFAULTS = { maxJobs: 100, maxDuration: '10m', warmJobs: 20, coldStarts: 6, coldBatch: 3, burstJobs: 16, streamJobs: 3, seed: 1 } as const;

const count = (max: number) => wholeNumber(0, max);
const positive = (max: number) => wholeNumber(1, max);
const DURATION_RANGE = 'must be from 1s to 24h';
/** --precision, whole %: a median within ±1% takes thousands of samples; shares at ±2x25 points say little. */
const PRECISION_PCT = { min: 1, max: 25 } as const;

export const CALIBRATE_OPTIONS = {
    ...targetOptions({ urlOnly: true }),
    ...targetKeyOption(),
    out: option({ flag: 'out', schema: z.string().min(1, { error: 'must name a directory' }).optional(), help: 'Directory for emulator.json, calibration.json and calibration.html (default reports/calibrate-<timestamp>)' }),
    input: option({ flag: 'input', kind: 'strings', schema: z.array(z.string().min(1)).default([]), help: 'A JSON job body {input, policy?} your handler takes (repeatable: one input class per file; default {"input":{}})' }),
    classField: option({ flag: 'class-field', schema: z.string().min(1).optional(), help: 'With several --input: the input field whose value names the class (default: the one field that tells the files apart)' }),
    maxJobs: option({ flag: 'max-jobs', kind: 'number', schema: positive(10_000), default: CALIBRATE_DEFAULTS.maxJobs, help: 'Most jobs sent, all phases together: never exceeded' }),
    maxDurationMs: option({ flag: 'max-duration', schema: DurationMs.pipe(z.number().min(1_000, { error: DURATION_RANGE }).max(24 * 3_600_000, { error: DURATION_RANGE })), default: CALIBRATE_DEFAULTS.maxDuration, help: 'Wall-clock limit, e.g. 90s, 10m; unfinished jobs are cancelled at it' }),
    yes: option({ flag: 'yes', kind: 'boolean', schema: z.boolean(), default: false, help: 'Start without the confirmation prompt (needed when stdin is not a terminal, e.g. CI)' }),
    warmJobs: option({ flag: 'warm-jobs', kind: 'number', schema: count(1_000), default: CALIBRATE_DEFAULTS.warmJobs, help: 'Jobs per input class, one at a time on a warm worker (dispatch, execution, overhead)' }),
    coldStarts: option({ flag: 'cold-starts', kind: 'number', schema: count(200), default: CALIBRATE_DEFAULTS.coldStarts, help: 'Cold-start jobs, sent after the workers have stopped (an idle gap)' }),
    coldBatch: option({ flag: 'cold-batch', kind: 'number', schema: positive(100), default: CALIBRATE_DEFAULTS.coldBatch, help: 'Cold-start jobs sent at once after each idle gap: every worker they start is a sample (fewer gaps, less wall time); narrowed to the workers one gap started' }),
    burstJobs: option({ flag: 'burst-jobs', kind: 'number', schema: count(400), default: CALIBRATE_DEFAULTS.burstJobs, help: 'Jobs sent at once to watch the scaler (0: no burst)' }),
    streamJobs: option({ flag: 'stream-jobs', kind: 'number', schema: count(200), default: CALIBRATE_DEFAULTS.streamJobs, help: 'Jobs per class read through /stream (the first tells whether the handler streams)' }),
    precision: option({ flag: 'precision', kind: 'number', schema: wholeNumber(PRECISION_PCT.min, PRECISION_PCT.max).optional(), help: "After the queue phases, spend what --max-jobs leaves on more warm jobs and cold batches until the medians of dispatch, execution, overhead and a one-part cold start are known within ±this % and the shares of fast and throttled starts within ±2x this in points, at 95%; the report says what was reached. A queue near capacity multiplies a service time's error in its waits: 3 keeps the twin's delay figures near 10% on most deployments" }),
    timeScale: option({ flag: 'time-scale', kind: 'number', schema: z.number({ error: 'must be a number' }).positive({ error: 'must be above 0' }).max(100_000, { error: 'must be at most 100000' }).optional(), help: "The target's ms per real ms: for an emulator started with --time-scale (default 1, the service)" }),
    healthPollMs: option({ flag: 'health-poll-ms', kind: 'number', schema: z.number({ error: 'must be a number' }).min(1, { error: 'must be 1 to 60000' }).max(60_000, { error: 'must be 1 to 60000' }).optional(), help: 'Real ms between /health polls while watching workers (default 250 / time scale, at least 5)' }),
    llm: option({ flag: 'llm', kind: 'boolean', schema: z.boolean(), default: false, help: "Also fit the endpoint's LLM engine: a probe over /openai/v1/completions (SSE; 25 requests with the default --llm-prompt-tokens and --llm-streams) after the other phases, within --max-jobs; the twin gets deployments.<id>.engine (for qbench plan --llm). Hold the endpoint at one worker" }),
    llmPromptTokens: option({ flag: 'llm-prompt-tokens', kind: 'strings', schema: wholeList(1, 1_000_000), default: LLM_PROBE_DEFAULTS.promptLengths.map(String), help: "--llm: prompt lengths (tokens) of the probe's TTFT requests, comma-separated; two or more, spanning the prompts you will plan for" }),
    llmStreams: option({ flag: 'llm-streams', kind: 'strings', schema: wholeList(1, 256), default: LLM_PROBE_DEFAULTS.concurrency.map(String), help: "--llm: streams decoding together in the probe's decode phase, comma-separated; two or more, at most the worker's concurrency" }),
    llmScheduler: option({ flag: 'llm-scheduler', schema: z.enum(ENGINE_SCHEDULERS, { error: `must be ${ENGINE_SCHEDULERS.join(', ')}` }).optional(), choices: ENGINE_SCHEDULERS, help: "--llm: given, how the engine shares its steps (the probe measures rates, not this): prefill-first (vLLM without chunked prefill), chunked (vLLM's chunked prefill), parallel (llama.cpp through node-llama-cpp); default prefill-first" }),
    llmBatchTokens: option({ flag: 'llm-batch-tokens', kind: 'number', schema: positive(100_000).optional(), help: '--llm: given, tokens one engine step holds with the chunked and parallel schedulers (vLLM max_num_batched_tokens, llama.cpp n_batch); default 8192' }),
    seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }), default: CALIBRATE_DEFAULTS.seed, help: "Seed of the twin's timing sampler" }),
    workersMin: option({ flag: 'workers-min', kind: 'number', schema: count(1_000).optional(), help: 'Given: active workers (otherwise measured at rest)' }),
    workersMax: option({ flag: 'workers-max', kind: 'number', schema: positive(1_000).optional(), help: "Given: most workers (otherwise the config file's deployment of the endpoint, else the most seen in the burst, a lower bound)" }),
    idleTimeoutS: option({ flag: 'idle-timeout', kind: 'number', schema: z.number({ error: 'must be seconds' }).int({ error: 'must be whole seconds' }).min(1, { error: 'must be 1 to 3600 s' }).max(3600, { error: 'must be 1 to 3600 s' }).optional(), help: 'Given: idle timeout in s (otherwise measured on /health)' }),
    scalerType: option({ flag: 'scaler-type', schema: z.enum(SCALER_TYPES, { error: `must be ${SCALER_TYPES.join(' or ')}` }).optional(), choices: SCALER_TYPES, help: 'Given: the scaler (otherwise read from the burst)' }),
    scalerValue: option({ flag: 'scaler-value', kind: 'number', schema: positive(100_000).optional(), help: 'Given: the scaler value, s (QUEUE_DELAY) or jobs per worker (REQUEST_COUNT)' }),
    startOnArrival: option({ flag: 'start-on-arrival', kind: 'boolean', schema: z.boolean().optional(), help: 'Given: a worker starts at once for a job that finds no free slot (otherwise read from the cold batches; --no-start-on-arrival: it waits for the scaler)' }),
    jobsPerWorker: option({ flag: 'jobs-per-worker', kind: 'number', schema: positive(1_000).optional(), help: 'Given: jobs one worker runs at once (otherwise measured in the burst)' }),
    gpuType: option({ flag: 'gpu-type', schema: z.string().min(1).optional(), help: 'Given: the GPU type (prices the budget and the twin), e.g. "4090 PRO"' }),
    gpuCount: option({ flag: 'gpu-count', kind: 'number', schema: positive(16).optional(), help: 'Given: GPUs per worker (default 1)' }),
    pricePerS: option({ flag: 'price-per-s', kind: 'number', schema: z.number({ error: 'must be $ per GPU-second' }).positive({ error: 'must be above 0' }).optional(), help: 'Flex $ per GPU-second, instead of the price table' }),
    /** What the queue interface cannot show (workersMax, GPU) may come from the config file's deployment of the endpoint. */
    deployments: option({ schema: z.record(z.string(), z.custom<DeploymentSettings>()).optional(), config: 'emulator.deployments' }),
} satisfies OptionSet;

/**
 * The settings the user gave: flags, and for what the queue interface cannot show (the worker
 * maximum, the GPU) the config file's deployment of the endpoint being calibrated.
 */
export function givenSettings(f: Flags<typeof CALIBRATE_OPTIONS>, endpointId: string) {
  const fromFile = f.deployments?.[endpointId];
  return {
    workersMin: f.workersMin,
    workersMax: f.workersMax ?? fromFile?.workersMax,
    idleTimeoutS: f.idleTimeoutS,
    scalerType: f.scalerType,
    scalerValue: f.scalerValue,
    startOnArrival: f.startOnArrival,
    jobsPerWorker: f.jobsPerWorker,
    gpuTypeId: f.gpuType ?? fromFile?.gpuTypeId,
    gpuCount: f.gpuCount ?? fromFile?.gpuCount,
  };
}

export const calibrateCommand = defineCommand({
  options: CALIBRATE_OPTIONS,
  builder: (y) =>
    y
      .example('$0 calibrate --target https://api.example --endpoint abc123 --input job.json --gpu-type "4090 PRO" --yes', 'calibrate with your own job body, no prompt')
      .example('$0 calibrate --target https://api.example --endpoint llm123 --llm --workers-max 1 --gpu-type L4 --yes', "also fit the LLM engine (TTFT against prompt length, token rate against concurrency)"),
  run: lazyRun(async () => (await import('./calibrate-run.js')).runCalibrate),
});
