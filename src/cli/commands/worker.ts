// `qbench worker --handler <module> | --llama <model.gguf|tiny>`: the reference worker (src/worker) attached to a queue
// endpoint over the worker protocol, until SIGINT/SIGTERM. URLs come from the RUNPOD_WEBHOOK_*
// environment a real worker gets, or from --url/--endpoint for the emulator. A job that asks
// for a refresh (stopPod) retires the worker: a fresh one (new worker id) takes over in this
// process, as the platform would start a new pod, or the process exits with --exit-on-refresh.
import { z } from 'zod';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';
import { optionalTargetOptions, targetKeyOption } from '../target-options.js';
import { LLAMA_INSTALL, LLAMA_PACKAGE } from '../../worker/llama-engine/names.js';

const MAX_CONCURRENCY = 256;
const MAX_DROP_STOPS_MS = 10_000;
const CONCURRENCY = `must be an integer from 1 to ${MAX_CONCURRENCY}`;
const DROP_STOPS = `must be a number of ms from 0 to ${MAX_DROP_STOPS_MS}`;
const LLAMA_THREADS = 'must be an integer from 1 to 256';

export const WORKER_OPTIONS = {
  handler: option({ flag: 'handler', schema: z.string().min(1).optional(), help: 'Module whose default (or `handler`) export handles a job (this or --llama)' }),
  llama: option({
    flag: 'llama',
    schema: z.string().min(1).optional(),
    help: `A real inference engine as the handler: llama.cpp on the CPU (the optional package ${LLAMA_PACKAGE}: ${LLAMA_INSTALL}) serving OpenAI-route and native LLM jobs, --concurrency sequences batched together; a GGUF model file, or "tiny" for a small model written to a temporary file (seeded random weights, nothing downloaded)`,
  }),
  llamaThreads: option({ flag: 'llama-threads', kind: 'number', schema: z.number({ error: LLAMA_THREADS }).int({ error: LLAMA_THREADS }).min(1, { error: LLAMA_THREADS }).max(256, { error: LLAMA_THREADS }), default: 1, help: 'With --llama: CPU threads of the evaluation, 1..256' }),
  ...optionalTargetOptions({
    urlOnly: true,
    targetAlias: 'url',
    notes: {
      target: 'the running emulator to attach to (qbench emulate --external-workers); without it, RUNPOD_WEBHOOK_* from the environment',
      endpoint: 'default demo',
    },
  }),
  ...targetKeyOption("without it RUNPOD_AI_API_KEY (a worker's own variable) comes first"),
  apiKey: option({ flag: 'api-key', schema: z.string().min(1).optional(), help: 'The API key itself (prefer --api-key-env: a key on the command line shows in the process list)' }),
  workerId: option({ flag: 'worker-id', schema: z.string().min(1).optional(), help: 'Worker id (default RUNPOD_POD_ID or a random one)' }),
  concurrency: option({ flag: 'concurrency', kind: 'number', schema: z.number({ error: CONCURRENCY }).int({ error: CONCURRENCY }).min(1, { error: CONCURRENCY }).max(MAX_CONCURRENCY, { error: CONCURRENCY }), default: 1, help: `Jobs run at once, 1..${MAX_CONCURRENCY}` }),
  exitOnRefresh: option({ flag: 'exit-on-refresh', kind: 'boolean', schema: z.boolean().optional(), help: 'Exit after a job asks for a refresh (stopPod) instead of starting a fresh worker in this process' }),
  stopLongPoll: option({ flag: 'stop-long-poll', kind: 'boolean', schema: z.boolean().optional(), help: 'Ask job-stop again as soon as it answers, idle or not (the service holds it open), as the official Python worker does' }),
  dropStopsWithinMs: option({
    flag: 'drop-stops-within-ms',
    kind: 'number',
    schema: z.number({ error: DROP_STOPS }).min(0, { error: DROP_STOPS }).max(MAX_DROP_STOPS_MS, { error: DROP_STOPS }),
    default: 0,
    help: `Ignore a stop for a job taken less than this many ms ago, 0..${MAX_DROP_STOPS_MS}, modelling the official Python worker (~100)`,
  }),
} satisfies OptionSet;

export const workerCommand = defineCommand({
  options: WORKER_OPTIONS,
  run: lazyRun(async () => (await import('./worker-run.js')).runWorkerCommand),
});
