// `qbench emulate`: serve the queue-endpoint emulator (and the mounted REST/GraphQL parts)
// until SIGINT/SIGTERM. Flags override the `emulator` section of qbench.config (--config),
// which overrides a JSON emulator config file (--emulator-config); the result is validated by
// the one zod schema of src/emulator/config.ts.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { EXIT } from '../../exit-codes.js';
import { usageError, configError } from '../../errors.js';
import { EndpointId, WORKER_PROTOCOL } from '../../spec/index.js';
import { startEmulator, parseEmulatorConfig } from '../../emulator/index.js';
import { describeDeployment } from '../../emulator/deployment/index.js';
import { workerEnv, formatShellEnv, MIN_WORKER_PING_INTERVAL_MS } from '../../worker/worker-env.js';
import { apiKeyEnvName } from '../../target/index.js';
import { defineCommand } from '../command.js';
import { option, type OptionSet } from '../options.js';
import { apiKeyEnvOption, faultOption, SHARED_HELP } from '../target-options.js';

const DEFAULT_PORT = 8000;
const number = z.number({ error: 'must be a number' }).optional();
const flag = z.boolean().optional();

/**
 * The emulator settings a flag (or the config file's `emulator` section, under the same key)
 * sets: the key after `emulator.` is the setting's path in src/emulator/config.ts, whose schema
 * judges the values together at start.
 */
const SETTINGS = {
  port: option({ flag: 'port', kind: 'number', schema: number, config: 'emulator.port', help: 'TCP port, 0 picks a free one', defaultHelp: String(DEFAULT_PORT) }),
  host: option({ flag: 'host', schema: z.string().min(1).optional(), config: 'emulator.host', help: 'Address to listen on', defaultHelp: '127.0.0.1' }),
  endpoints: option({ flag: 'endpoint', kind: 'strings', schema: z.array(EndpointId).optional(), config: 'emulator.endpoints', help: SHARED_HELP.servedEndpoints }),
  timeScale: option({ flag: 'time-scale', kind: 'number', schema: number, config: 'emulator.timeScale', help: 'Emulated ms per real ms for every lifecycle duration (60: 30 min pass in 30 s)' }),
  scaleRateWindows: option({ flag: 'scale-rate-windows', kind: 'boolean', schema: flag, config: 'emulator.scaleRateWindows', help: 'Run the 10 s rate windows on the scaled clock too' }),
  workersMin: option({ flag: 'workers-min', kind: 'number', schema: number, config: 'emulator.workers.min', help: 'Workers kept up when idle' }),
  workersMax: option({ flag: 'workers-max', kind: 'number', schema: number, config: 'emulator.workers.max', help: 'Most workers the autoscaler starts' }),
  jobsPerWorker: option({ flag: 'jobs-per-worker', kind: 'number', schema: number, config: 'emulator.workers.jobsPerWorker', help: 'Jobs one worker runs at once' }),
  coldStartMs: option({ flag: 'cold-start-ms', kind: 'number', schema: number, config: 'emulator.workers.coldStartMs', help: 'Emulated ms before a new worker takes jobs' }),
  idleTimeoutMs: option({ flag: 'idle-timeout-ms', kind: 'number', schema: number, config: 'emulator.workers.idleTimeoutMs', help: 'Emulated ms an idle worker above min lives' }),
  requestsPerWorker: option({ flag: 'requests-per-worker', kind: 'number', schema: number, config: 'emulator.limits.requestsPerWorker', help: '§8 dynamic rule: requests per 10 s per running worker' }),
  limits: option({ flag: 'limits', kind: 'boolean', schema: flag, config: 'emulator.limits.enabled', help: 'Enforce the §8 rate and concurrency limits (--no-limits switches them off)' }),
  externalWorkers: option({ flag: 'external-workers', kind: 'boolean', schema: flag, config: 'emulator.externalWorkers', help: 'Jobs go to real workers attached over the worker protocol (no simulated workers unless --simulated-workers)' }),
  simulatedWorkers: option({ flag: 'simulated-workers', kind: 'boolean', schema: flag, config: 'emulator.simulatedWorkers', help: 'With --external-workers: simulated workers run too (a mixed pool)' }),
  workerPingIntervalMs: option({ flag: 'worker-ping-interval-ms', kind: 'number', schema: number, config: 'emulator.workerPingIntervalMs', help: 'Real ms between external worker pings; silent for 3 of them a worker is lost', defaultHelp: '10000' }),
} satisfies OptionSet;

/** Write `value` at the dotted `path` of `into`. */
function setPath(into: Record<string, unknown>, path: string, value: unknown): void {
  const [head, ...rest] = path.split('.');
  if (head === undefined) return;
  if (rest.length === 0) {
    into[head] = value;
    return;
  }
  const inner = typeof into[head] === 'object' && into[head] !== null ? { ...(into[head] as Record<string, unknown>) } : {};
  setPath(inner, rest.join('.'), value);
  into[head] = inner;
}

async function readEmulatorConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw configError(`--emulator-config: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the file must hold a JSON object');
    return parsed as Record<string, unknown>;
  } catch (e) {
    throw configError(`--emulator-config: ${file} is not a JSON object: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const emulateCommand = defineCommand({
  command: 'emulate',
  describe: 'Serve the queue-endpoint emulator on 127.0.0.1 (http://host:port/v2/<endpoint_id>/...)',
  options: {
    apiKeyEnv: apiKeyEnvOption('the key the emulator accepts', 'emulator.apiKeyEnv'),
    apiKey: option({ flag: 'api-key', schema: z.string().min(1).optional(), help: 'Accepted API key (prefer --api-key-env: a key on the command line shows in the process list)' }),
    ...SETTINGS,
    printWorkerEnv: option({ flag: 'print-worker-env', schema: z.string().min(1).optional(), help: 'Print the environment a worker process needs for this endpoint (shell export lines, API key included) and exit' }),
    workerId: option({ flag: 'worker-id', schema: z.string().min(1).optional(), help: 'With --print-worker-env: the worker id (default <endpoint>-worker-1); one per worker process' }),
    faults: faultOption('Switch on a fault (repeatable); see src/emulator/faults.ts', 'emulator.faults'),
    // Only the config file spells per-endpoint deployments (its schema validated them when it was read).
    deployments: option({ schema: z.record(z.string(), z.unknown()).optional(), config: 'emulator.deployments' }),
    emulatorConfig: option({ flag: 'emulator-config', schema: z.string().min(1).optional(), help: 'JSON emulator config file, every setting of src/emulator/config.ts (the config file and flags override it)' }),
  },
  run: async (f, io) => {
    // Flags over the config file (already merged) over the JSON emulator config file.
    const base = f.emulatorConfig !== undefined ? await readEmulatorConfigFile(f.emulatorConfig) : {};
    const cfg: Record<string, unknown> = { ...base };
    for (const [key, o] of Object.entries(SETTINGS)) {
      const value = f[key as keyof typeof SETTINGS];
      if (value !== undefined && o.config !== undefined) setPath(cfg, o.config.slice('emulator.'.length), value);
    }
    // The config file's deployments win over the JSON file's, endpoint by endpoint.
    if (f.deployments !== undefined) cfg['deployments'] = { ...(base['deployments'] as Record<string, unknown> | undefined), ...f.deployments };
    cfg['port'] ??= DEFAULT_PORT;
    const keyEnv = apiKeyEnvName(f.apiKeyEnv, io.env);
    const key = f.apiKey ?? io.env[keyEnv] ?? (base['apiKey'] as string | undefined);
    if (key === undefined) throw usageError(`--api-key is required (or set ${keyEnv}, or apiKey in --emulator-config)`);
    cfg['apiKey'] = key;
    if (f.faults.length > 0) cfg['faults'] = [...new Set([...(Array.isArray(base['faults']) ? (base['faults'] as unknown[]).map(String) : []), ...f.faults])];

    const printFor = f.printWorkerEnv;
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
        workerId: f.workerId ?? `${printFor}-worker-1`,
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
});
