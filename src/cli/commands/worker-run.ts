// The work of `qbench worker` (declared in worker.ts): the URLs and key from the flags or the
// environment, the handler module, then one worker generation after another until stopped.
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { usageError, configError, registerSecret } from '../../errors.js';
import { runWorker, urlsFromEnv, emulatorUrls, type WorkerHandler, type WorkerUrls } from '../../worker/index.js';
import { importUserModule } from '../../user-module.js';
import { apiKeyEnvName, parseTarget } from '../../target/index.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import type { WORKER_OPTIONS } from './worker.js';

export async function runWorkerCommand(f: Flags<typeof WORKER_OPTIONS>, io: CliIo): Promise<ExitCode> {
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
}
