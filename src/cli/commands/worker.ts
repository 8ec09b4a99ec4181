// `qbench worker --handler <module>`: the reference worker (src/worker) attached to a queue
// endpoint over the worker protocol, until SIGINT/SIGTERM. URLs come from the RUNPOD_WEBHOOK_*
// environment a real worker gets, or from --url/--endpoint for the emulator. A job that asks
// for a refresh (stopPod) retires the worker: a fresh one (new worker id) takes over in this
// process, as the platform would start a new pod, or the process exits with --exit-on-refresh.
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { EXIT } from '../../exit-codes.js';
import { usageError, configError, registerSecret } from '../../errors.js';
import { runWorker, urlsFromEnv, emulatorUrls, type WorkerHandler, type WorkerUrls } from '../../worker/index.js';
import { importUserModule } from '../../user-module.js';
import { apiKeyEnvName, parseTarget } from '../../target/index.js';
import type { CommandModule } from '../command.js';
import { targetOptions } from '../target-options.js';

const MAX_CONCURRENCY = 256;
const MAX_DROP_STOPS_MS = 10_000;

export const workerCommand: CommandModule = {
  command: 'worker',
  describe: 'Run a queue worker (worker protocol) with a handler module against the emulator or a service',
  builder: (y) =>
    targetOptions(y.option('handler', { type: 'string', describe: 'Module whose default (or `handler`) export handles a job', demandOption: true }), {
      optional: true,
      urlOnly: true,
      targetAlias: 'url',
      notes: {
        target: 'the running emulator to attach to (qbench emulate --external-workers); without it, RUNPOD_WEBHOOK_* from the environment',
        endpoint: 'default demo',
        apiKeyEnv: "without it RUNPOD_AI_API_KEY (a worker's own variable) comes first",
      },
    })
      .option('api-key', { type: 'string', describe: 'The API key itself (prefer --api-key-env: a key on the command line shows in the process list)' })
      .option('worker-id', { type: 'string', describe: 'Worker id (default RUNPOD_POD_ID or a random one)' })
      .option('concurrency', { type: 'number', describe: `Jobs run at once, 1..${MAX_CONCURRENCY} (default 1)` })
      .option('exit-on-refresh', { type: 'boolean', describe: 'Exit after a job asks for a refresh (stopPod) instead of starting a fresh worker in this process' })
      .option('stop-long-poll', { type: 'boolean', describe: 'Ask job-stop again as soon as it answers, idle or not (the service holds it open), as the official Python worker does' })
      .option('drop-stops-within-ms', { type: 'number', describe: `Ignore a stop for a job taken less than this many ms ago, 0..${MAX_DROP_STOPS_MS} (default 0), modelling the official Python worker (~100)` }),
  run: async (argv, io) => {
    const concurrency = (argv['concurrency'] as number | undefined) ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) throw usageError(`--concurrency must be an integer from 1 to ${MAX_CONCURRENCY}`);
    const dropStopsWithinMs = (argv['drop-stops-within-ms'] as number | undefined) ?? 0;
    if (!Number.isFinite(dropStopsWithinMs) || dropStopsWithinMs < 0 || dropStopsWithinMs > MAX_DROP_STOPS_MS) throw usageError(`--drop-stops-within-ms must be a number of ms from 0 to ${MAX_DROP_STOPS_MS}`);
    let urls: WorkerUrls;
    let workerId: string;
    let apiKey: string | undefined;
    let pingIntervalMs: number | undefined;
    const targetFlag = argv['target'] as string | undefined;
    let url: string | undefined;
    let endpoint = 'demo';
    if (targetFlag !== undefined) {
      const spec = parseTarget(targetFlag, argv['endpoint'] as string | undefined);
      if (spec.kind !== 'url') throw usageError('--target: a worker attaches to a running emulator; give its URL (start one with qbench emulate --external-workers)');
      url = spec.queueUrl;
      endpoint = spec.endpointId ?? endpoint;
    }
    const keyEnv = argv['api-key-env'] as string | undefined;
    const keyFromEnv = keyEnv !== undefined ? io.env[keyEnv] : (io.env['RUNPOD_AI_API_KEY'] ?? io.env[apiKeyEnvName(undefined, io.env)]);
    if (url !== undefined) {
      workerId = (argv['worker-id'] as string | undefined) ?? io.env['RUNPOD_POD_ID'] ?? `qbench-worker-${randomUUID().slice(0, 8)}`;
      urls = emulatorUrls(url, endpoint, workerId);
      apiKey = (argv['api-key'] as string | undefined) ?? keyFromEnv;
      const interval = Number(io.env['RUNPOD_PING_INTERVAL']);
      if (io.env['RUNPOD_PING_INTERVAL'] !== undefined && Number.isFinite(interval) && interval > 0) pingIntervalMs = interval;
    } else {
      const fromEnv = urlsFromEnv(io.env);
      if (!fromEnv) throw usageError('give --target (and --endpoint) or the RUNPOD_WEBHOOK_GET_JOB, RUNPOD_WEBHOOK_POST_OUTPUT, RUNPOD_WEBHOOK_POST_STREAM, RUNPOD_WEBHOOK_PING, RUNPOD_POD_ID and RUNPOD_AI_API_KEY environment');
      ({ urls, workerId, apiKey, pingIntervalMs } = fromEnv);
      apiKey = (argv['api-key'] as string | undefined) ?? (keyEnv !== undefined ? io.env[keyEnv] : apiKey);
    }
    if (!apiKey) throw usageError(`no API key: set ${keyEnv ?? `RUNPOD_AI_API_KEY or ${apiKeyEnvName(undefined, io.env)}`} (or name the variable with --api-key-env)`);
    registerSecret(apiKey);

    const modPath = resolve(String(argv['handler']));
    let mod: Record<string, unknown>;
    try {
      mod = await importUserModule(modPath);
    } catch (e) {
      throw configError(`--handler: cannot load ${modPath}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const handler = (typeof mod['default'] === 'function' ? mod['default'] : mod['handler']) as WorkerHandler | undefined;
    if (typeof handler !== 'function') throw configError(`--handler: ${modPath} exports no default or \`handler\` function`);

    const exitOnRefresh = argv['exit-on-refresh'] === true;
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
        stopLongPoll: argv['stop-long-poll'] === true,
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
};
