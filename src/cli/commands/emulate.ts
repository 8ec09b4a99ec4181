// `qbench emulate`: serve the queue-endpoint emulator (and the mounted REST/GraphQL parts)
// until SIGINT/SIGTERM. Flags override the `emulator` section of qbench.config (--config),
// which overrides a JSON emulator config file (--emulator-config); the result is validated by
// the one zod schema of src/emulator/config.ts.
import { readFile } from 'node:fs/promises';
import { EXIT } from '../../exit-codes.js';
import { usageError, configError } from '../../errors.js';
import { WORKER_PROTOCOL } from '../../spec/index.js';
import { startEmulator, parseEmulatorConfig } from '../../emulator/index.js';
import { FAULT_NAMES, isFaultName } from '../../emulator/faults.js';
import { describeDeployment } from '../../emulator/deployment/index.js';
import { CONFIG_DEPLOYMENTS_KEY } from '../../config/apply-config.js';
import { workerEnv, formatShellEnv, MIN_WORKER_PING_INTERVAL_MS } from '../../worker/worker-env.js';
import { apiKeyEnvName } from '../../target/index.js';
import type { CommandModule } from '../command.js';
import { apiKeyEnvOption, SHARED_HELP } from '../target-options.js';
import { flagList } from '../flags.js';

const DEFAULT_PORT = 8000;

export const emulateCommand: CommandModule = {
  command: 'emulate',
  describe: 'Serve the queue-endpoint emulator on 127.0.0.1 (http://host:port/v2/<endpoint_id>/...)',
  builder: (y) =>
    apiKeyEnvOption(y, 'the key the emulator accepts')
      .option('port', { type: 'number', describe: `TCP port, 0 picks a free one (default ${DEFAULT_PORT})` })
      .option('host', { type: 'string', describe: 'Address to listen on (default 127.0.0.1)' })
      .option('api-key', { type: 'string', describe: 'Accepted API key (prefer --api-key-env: a key on the command line shows in the process list)' })
      .option('endpoint', { type: 'string', array: true, describe: SHARED_HELP.servedEndpoints })
      .option('time-scale', { type: 'number', describe: 'Emulated ms per real ms for every lifecycle duration (60: 30 min pass in 30 s)' })
      .option('scale-rate-windows', { type: 'boolean', describe: 'Run the 10 s rate windows on the scaled clock too' })
      .option('workers-min', { type: 'number', describe: 'Workers kept up when idle' })
      .option('workers-max', { type: 'number', describe: 'Most workers the autoscaler starts' })
      .option('jobs-per-worker', { type: 'number', describe: 'Jobs one worker runs at once' })
      .option('cold-start-ms', { type: 'number', describe: 'Emulated ms before a new worker takes jobs' })
      .option('idle-timeout-ms', { type: 'number', describe: 'Emulated ms an idle worker above min lives' })
      .option('requests-per-worker', { type: 'number', describe: '§8 dynamic rule: requests per 10 s per running worker' })
      .option('limits', { type: 'boolean', describe: 'Enforce the §8 rate and concurrency limits (--no-limits switches them off)' })
      .option('external-workers', { type: 'boolean', describe: 'Jobs go to real workers attached over the worker protocol (no simulated workers unless --simulated-workers)' })
      .option('simulated-workers', { type: 'boolean', describe: 'With --external-workers: simulated workers run too (a mixed pool)' })
      .option('worker-ping-interval-ms', { type: 'number', describe: 'Real ms between external worker pings; silent for 3 of them a worker is lost (default 10000)' })
      .option('print-worker-env', { type: 'string', describe: 'Print the environment a worker process needs for this endpoint (shell export lines, API key included) and exit' })
      .option('worker-id', { type: 'string', describe: 'With --print-worker-env: the worker id (default <endpoint>-worker-1); one per worker process' })
      .option('fault', { type: 'string', array: true, describe: 'Switch on a fault (repeatable); see src/emulator/faults.ts' })
      .option('emulator-config', { type: 'string', describe: 'JSON emulator config file, every setting of src/emulator/config.ts (the config file and flags override it)' }),
  run: async (argv, io) => {
    const faults = flagList(argv['fault']);
    const bad = faults.filter((f) => !isFaultName(f));
    if (bad.length > 0) throw usageError(`--fault: unknown fault ${bad.map((b) => `"${b}"`).join(', ')}; valid faults: ${FAULT_NAMES.join(', ')}`);

    let base: Record<string, unknown> = {};
    const configPath = argv['emulator-config'];
    if (typeof configPath === 'string') {
      let text: string;
      try {
        text = await readFile(configPath, 'utf8');
      } catch (e) {
        throw configError(`--emulator-config: cannot read ${configPath}: ${e instanceof Error ? e.message : String(e)}`);
      }
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the file must hold a JSON object');
        base = parsed as Record<string, unknown>;
      } catch (e) {
        throw configError(`--emulator-config: ${configPath} is not a JSON object: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const cfg: Record<string, unknown> = { ...base };
    const workers: Record<string, unknown> = { ...(base['workers'] as Record<string, unknown> | undefined) };
    const limits: Record<string, unknown> = { ...(base['limits'] as Record<string, unknown> | undefined) };
    const set = (target: Record<string, unknown>, key: string, flag: string) => {
      if (argv[flag] !== undefined) target[key] = argv[flag];
    };
    cfg['port'] = argv['port'] ?? base['port'] ?? DEFAULT_PORT;
    set(cfg, 'host', 'host');
    const keyEnv = apiKeyEnvName(argv['api-key-env'] as string | undefined, io.env);
    const key = (argv['api-key'] as string | undefined) ?? io.env[keyEnv] ?? (base['apiKey'] as string | undefined);
    if (key === undefined) throw usageError(`--api-key is required (or set ${keyEnv}, or apiKey in --emulator-config)`);
    cfg['apiKey'] = key;
    const endpoints = flagList(argv['endpoint']);
    if (endpoints.length > 0) cfg['endpoints'] = endpoints;
    set(cfg, 'timeScale', 'time-scale');
    set(cfg, 'scaleRateWindows', 'scale-rate-windows');
    set(cfg, 'externalWorkers', 'external-workers');
    set(cfg, 'simulatedWorkers', 'simulated-workers');
    set(cfg, 'workerPingIntervalMs', 'worker-ping-interval-ms');
    set(workers, 'min', 'workers-min');
    set(workers, 'max', 'workers-max');
    set(workers, 'jobsPerWorker', 'jobs-per-worker');
    set(workers, 'coldStartMs', 'cold-start-ms');
    set(workers, 'idleTimeoutMs', 'idle-timeout-ms');
    set(limits, 'requestsPerWorker', 'requests-per-worker');
    set(limits, 'enabled', 'limits');
    cfg['workers'] = workers;
    cfg['limits'] = limits;
    // The config file's deployments win over the JSON file's, endpoint by endpoint.
    const fromConfig = argv[CONFIG_DEPLOYMENTS_KEY] as Record<string, unknown> | undefined;
    if (fromConfig !== undefined) cfg['deployments'] = { ...(base['deployments'] as Record<string, unknown> | undefined), ...fromConfig };
    if (faults.length > 0) cfg['faults'] = [...new Set([...flagList(base['faults']), ...faults])];

    const printFor = argv['print-worker-env'] as string | undefined;
    if (printFor !== undefined) {
      // The one place the key is printed: the worker needs it verbatim (RUNPOD_AI_API_KEY).
      const c = parseEmulatorConfig(cfg);
      if (!c.endpoints.includes(printFor)) throw usageError(`--print-worker-env: endpoint "${printFor}" is not served; served: ${c.endpoints.join(', ')}`);
      if (c.port === 0) throw usageError('--print-worker-env needs a fixed --port (0 picks a free one at start, unknown in advance)');
      if (c.workerPingIntervalMs < MIN_WORKER_PING_INTERVAL_MS) {
        throw usageError(
          `--worker-ping-interval-ms must be from ${MIN_WORKER_PING_INTERVAL_MS} to ${WORKER_PROTOCOL.workerHttpTimeoutMs} for a worker environment, got ${c.workerPingIntervalMs}: the official Python worker floors RUNPOD_PING_INTERVAL to whole seconds and its heartbeat stops below 1000`,
        );
      }
      const host = c.host.includes(':') ? `[${c.host}]` : c.host;
      const env = workerEnv({
        baseUrl: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${c.port}`,
        endpointId: printFor,
        workerId: (argv['worker-id'] as string | undefined) ?? `${printFor}-worker-1`,
        apiKey: c.apiKey,
        pingIntervalMs: c.workerPingIntervalMs,
        timeScale: c.timeScale,
      });
      io.stdout(formatShellEnv(env));
      if (!c.externalWorkers) io.stderr('qbench emulate: note: start the emulator with --external-workers, or workers get no jobs\n');
      return EXIT.OK;
    }
    const em = await startEmulator(parseEmulatorConfig(cfg));
    const c = em.config;
    io.stdout(`qbench emulator ${em.url}\n`);
    for (const ep of c.endpoints) io.stdout(`  endpoint ${ep}: ${em.baseUrl}/${ep}\n`);
    io.stdout(`  time scale ${c.timeScale}x, limits ${em.core.limits.enabled ? 'on' : 'off'}, workers ${c.workers.min}..${c.workers.max}${c.faults.length > 0 ? `, faults: ${c.faults.join(', ')}` : ''}\n`);
    for (const [id, ep] of em.core.endpoints) if (c.deployments[id] !== undefined) io.stdout(`  deployment ${id}: ${describeDeployment(ep.model.deployment)}\n`);
    io.stdout(`  info: ${em.url}/_qbench/info (with the API key, like every route)\n`);
    io.stdout(`ready on ${em.url}\n`);
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      else io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.stdout('qbench emulator: shutting down\n');
    await em.close();
    return EXIT.OK;
  },
};
