// The work of `qbench emulate` (declared in emulate.ts): the emulator config from flags, the
// config file and --emulator-config, then a worker environment printed or the emulator served.
import { readFile } from 'node:fs/promises';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { usageError, configError } from '../../errors.js';
import { WORKER_PROTOCOL } from '../../spec/index.js';
import { startEmulator, parseEmulatorConfig } from '../../emulator/index.js';
import { describeDeployment } from '../../deployment/index.js';
import { workerEnv, formatShellEnv, MIN_WORKER_PING_INTERVAL_MS } from '../../worker/worker-env.js';
import { apiKeyEnvName } from '../../target/index.js';
import type { CliIo } from '../command.js';
import type { Flags } from '../options.js';
import { DEFAULT_PORT, SETTINGS, type EMULATE_OPTIONS } from './emulate.js';

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
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw configError(`--emulator-config: ${file} is not a JSON object: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw configError(`--emulator-config: ${file} is not a JSON object: the file must hold a JSON object`);
  return parsed as Record<string, unknown>;
}

export async function runEmulate(f: Flags<typeof EMULATE_OPTIONS>, io: CliIo): Promise<ExitCode> {
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
}
