// `qbench worker --handler <module>`: the reference worker (src/worker) attached to a queue
// endpoint over the worker protocol, until SIGINT/SIGTERM. URLs come from the RUNPOD_WEBHOOK_*
// environment a real worker gets, or from --url/--endpoint for the emulator. A job that asks
// for a refresh (stopPod) retires the worker: a fresh one (new worker id) takes over in this
// process, as the platform would start a new pod, or the process exits with --exit-on-refresh.
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { EXIT } from '../../exit-codes.js';
import { usageError, configError, registerSecret } from '../../errors.js';
import { runWorker, urlsFromEnv, emulatorUrls, type WorkerHandler, type WorkerUrls } from '../../worker/index.js';
import { importUserModule } from '../../user-module.js';
import { apiKeyEnvName, parseTarget } from '../../target/index.js';
import { defineCommand } from '../command.js';
import { option } from '../options.js';
import { optionalTargetOptions, targetKeyOption } from '../target-options.js';

const MAX_CONCURRENCY = 256;
const MAX_DROP_STOPS_MS = 10_000;
const CONCURRENCY = `must be an integer from 1 to ${MAX_CONCURRENCY}`;
const DROP_STOPS = `must be a number of ms from 0 to ${MAX_DROP_STOPS_MS}`;

export const workerCommand = defineCommand({
  command: 'worker',
  describe: 'Run a queue worker (worker protocol) with a handler module against the emulator or a service',
  options: {
    handler: option({ flag: 'handler', required: true, schema: z.string().min(1), help: 'Module whose default (or `handler`) export handles a job' }),
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
  },
  run: async (f, io) => {
    const { concurrency, dropStopsWithinMs } = f;
    let urls: WorkerUrls;
    let workerId: string;
    let apiKey: string | undefined;
    let pingIntervalMs: number | undefined;
    let url: string | undefined;
    let endpoint = 'demo';
    if (f.target !== undefined) {
      const spec = parseTarget(f.target, f.endpoint);
      if (spec.kind !== 'url') throw usageError('--target: a worker attaches to a running emulator; give its URL (start one with qbench emulate --external-workers)');
      url = spec.queueUrl;
      endpoint = spec.endpointId ?? endpoint;
    }
    const keyEnv = f.apiKeyEnv;
    const keyFromEnv = keyEnv !== undefined ? io.env[keyEnv] : (io.env['RUNPOD_AI_API_KEY'] ?? io.env[apiKeyEnvName(undefined, io.env)]);
    if (url !== undefined) {
      workerId = f.workerId ?? io.env['RUNPOD_POD_ID'] ?? `qbench-worker-${randomUUID().slice(0, 8)}`;
      urls = emulatorUrls(url, endpoint, workerId);
      apiKey = f.apiKey ?? keyFromEnv;
      const interval = Number(io.env['RUNPOD_PING_INTERVAL']);
      if (io.env['RUNPOD_PING_INTERVAL'] !== undefined && Number.isFinite(interval) && interval > 0) pingIntervalMs = interval;
    } else {
      const fromEnv = urlsFromEnv(io.env);
      if (!fromEnv) throw usageError('give --target (and --endpoint) or the RUNPOD_WEBHOOK_GET_JOB, RUNPOD_WEBHOOK_POST_OUTPUT, RUNPOD_WEBHOOK_POST_STREAM, RUNPOD_WEBHOOK_PING, RUNPOD_POD_ID and RUNPOD_AI_API_KEY environment');
      ({ urls, workerId, apiKey, pingIntervalMs } = fromEnv);
      apiKey = f.apiKey ?? (keyEnv !== undefined ? io.env[keyEnv] : apiKey);
    }
    if (!apiKey) throw usageError(`no API key: set ${keyEnv ?? `RUNPOD_AI_API_KEY or ${apiKeyEnvName(undefined, io.env)}`} (or name the variable with --api-key-env)`);
    registerSecret(apiKey);

    const modPath = resolve(f.handler);
    let mod: Record<string, unknown>;
    try {
      mod = await importUserModule(modPath);
    } catch (e) {
      throw configError(`--handler: cannot load ${modPath}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const handler = (typeof mod['default'] === 'function' ? mod['default'] : mod['handler']) as WorkerHandler | undefined;
    if (typeof handler !== 'function') throw configError(`--handler: ${modPath} exports no default or \`handler\` function`);

    const exitOnRefresh = f.exitOnRefresh === true;
    for (let generation = 0; ; generation++) {
      const id = generation === 0 || url === undefined ? workerId : `${workerId}-r${generation}`;
      const genUrls = generation === 0 || url === undefined ? urls : emulatorUrls(url, endpoint, id);
      io.stdout(`qbench worker ${id}: taking jobs from ${genUrls.getJob.replace('$ID', id)} (concurrency ${concurrency})\n`);
      const stats = await runWorker({
        urls: genUrls,
        apiKey,
        workerId: id,
        handler,
        concurrency,
        stopLongPoll: f.stopLongPoll === true,
        dropStopsWithinMs,
        signal: io.signal,
        log: (l) => io.stderr(`${l}\n`),
        ...(pingIntervalMs === undefined ? {} : { pingIntervalMs }),
      });
      io.stdout(`qbench worker ${id}: ${stats.recycled ? 'recycled (stopPod)' : 'stopped'} after ${stats.taken} jobs (${stats.completed} completed, ${stats.failed} failed, ${stats.stopped} stopped)\n`);
      if (!stats.recycled || exitOnRefresh || io.signal.aborted) break;
    }
    return EXIT.OK;
  },
});
