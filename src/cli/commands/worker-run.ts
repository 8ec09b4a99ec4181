// The work of `qbench worker` (declared in worker.ts): the URLs and key from the flags or the
// environment, the handler (a module, or the real engine of --llama), then one worker generation
// after another until stopped.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

  if ((f.handler === undefined) === (f.llama === undefined)) throw usageError('give one handler: --handler <module> (your own) or --llama <model.gguf|tiny> (a real inference engine on the CPU)');
  const served = f.llama !== undefined ? await llamaHandler(f.llama, f.concurrency, f.llamaThreads, io) : { handler: await moduleHandler(f.handler as string), close: async () => {} };
  try {
    return await serve(f, io, served.handler, { urls, workerId, apiKey, pingIntervalMs, url, endpoint });
  } finally {
    await served.close();
  }
}

/** The handler a module exports (its default, or `handler`). */
async function moduleHandler(file: string): Promise<WorkerHandler> {
  const modPath = resolve(file);
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(modPath);
  } catch (e) {
    throw configError(`--handler: cannot load ${modPath}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const handler = (typeof mod['default'] === 'function' ? mod['default'] : mod['handler']) as WorkerHandler | undefined;
  if (typeof handler !== 'function') throw configError(`--handler: ${modPath} exports no default or \`handler\` function`);
  return handler;
}

/** The real-engine handler on `model` (a GGUF file, or "tiny": the tiny model written to a temporary directory, removed at close). */
async function llamaHandler(model: string, sequences: number, threads: number, io: CliIo): Promise<{ handler: WorkerHandler; close(): Promise<void> }> {
  const [{ createLlamaHandler }, { writeTinyModel }] = await Promise.all([import('../../worker/llama-engine/llama-handler.js'), import('../../worker/llama-engine/tiny-model.js')]);
  let dir: string | undefined;
  let modelPath = model;
  if (model === 'tiny') {
    dir = await mkdtemp(join(tmpdir(), 'qbench-tiny-llama-'));
    modelPath = join(dir, 'qbench-tiny-llama.gguf');
    const bytes = await writeTinyModel(modelPath);
    io.stdout(`qbench worker: wrote the tiny model (${(bytes / 2 ** 20).toFixed(1)} MiB) to ${modelPath}\n`);
  }
  const removeDir = async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  try {
    const h = await createLlamaHandler({ modelPath: resolve(modelPath), sequences, threads });
    io.stdout(`qbench worker: llama.cpp on the CPU, model ${h.modelName}, ${sequences} job(s) at once on ${h.contextSequences} sequences of ${h.contextTokens} tokens, ${threads} thread(s)\n`);
    return {
      handler: h.handler,
      async close() {
        await h.close();
        await removeDir();
      },
    };
  } catch (e) {
    await removeDir();
    throw e;
  }
}

interface Attachment {
  readonly urls: WorkerUrls;
  readonly workerId: string;
  readonly apiKey: string;
  readonly pingIntervalMs: number | undefined;
  readonly url: string | undefined;
  readonly endpoint: string;
}

/** One worker generation after another until stopped (a refresh starts the next). */
async function serve(f: Flags<typeof WORKER_OPTIONS>, io: CliIo, handler: WorkerHandler, a: Attachment): Promise<ExitCode> {
  const { concurrency, dropStopsWithinMs } = f;
  const { urls, workerId, apiKey, pingIntervalMs, url, endpoint } = a;
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
