// Flags win over the config file: the file fills in only what the command line left out.
// `--target <name>` picks a named target (its URL, endpoint, interface URLs, key variable
// name and spare endpoints); each command then takes the sections that apply to it.
import { isAbsolute, resolve } from 'node:path';
import type { LoadedConfig } from './load-config.js';
import { EMULATOR_TARGET, parseTarget } from '../target/index.js';

/** Where the load and start commands find the config's scenario entries (files with params and thresholds). */
export const CONFIG_SCENARIOS_KEY = 'qbench-config-scenarios';
/** Where `emulate` finds the config's per-endpoint deployments (no flag spells them). */
export const CONFIG_DEPLOYMENTS_KEY = 'qbench-config-deployments';

type Section = 'target' | 'interfaces' | 'spares' | 'conformance' | 'load' | 'fuzz' | 'emulator' | 'unobservable' | 'reportDir';

/**
 * What each command takes from the file. `start` runs on its own in-process emulators, so it
 * takes no target; `emulate` takes only its `emulator` section.
 */
const SECTIONS: Readonly<Record<string, readonly Section[]>> = {
  check: ['target', 'interfaces', 'spares', 'conformance', 'reportDir'],
  load: ['target', 'load', 'reportDir'],
  fuzz: ['target', 'interfaces', 'fuzz', 'reportDir'],
  worker: ['target'],
  start: ['conformance', 'load', 'fuzz', 'reportDir'],
  emulate: ['emulator'],
  calibrate: ['target', 'unobservable'],
};

/** The commands that read the config file. */
export const CONFIG_COMMANDS: ReadonlySet<string> = new Set(Object.keys(SECTIONS));

/** Raw command-line tokens say whether a flag (or one of its spellings) was given. */
export function flagGiven(tokens: readonly string[], ...names: string[]): boolean {
  return tokens.some((t) => names.some((n) => t === `--${n}` || t.startsWith(`--${n}=`) || t === `--no-${n}`));
}

/** Fill `argv` (the parsed flags of `command`) from the config where the flags were not given. */
export function applyConfig(command: string, argv: Record<string, unknown>, tokens: readonly string[], loaded: LoadedConfig): void {
  const c = loaded.config;
  const takes = new Set(SECTIONS[command] ?? []);
  const fill = (key: string, value: unknown, ...spellings: string[]) => {
    if (value !== undefined && !flagGiven(tokens, key, ...spellings)) argv[key] = value;
  };
  const path = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(loaded.dir, p));

  const name = argv['target'];
  const t = typeof name === 'string' && takes.has('target') ? c.targets[name] : undefined;
  if (t) {
    argv['target'] = t.url;
    fill('endpoint', t.endpoint, 'endpoint-id');
    fill('api-key-env', t.apiKeyEnv);
    if (takes.has('interfaces')) {
      fill('rest-url', t.restUrl);
      fill('graphql-url', t.graphqlUrl);
    }
    if (takes.has('spares')) fill('spare-endpoint', t.spareEndpoints);
  }
  if (takes.has('conformance')) {
    fill('profile', c.conformance.profile);
    fill('only', c.conformance.only);
    fill('skip', c.conformance.skip);
    fill('expect', path(c.conformance.expectations));
  }
  if (takes.has('fuzz')) {
    fill('runs', c.fuzz.runs);
    fill('model-runs', c.fuzz.modelRuns);
    fill('max-commands', c.fuzz.maxCommands);
    fill('max-duration', c.fuzz.maxDuration);
  }
  if (takes.has('load')) {
    const named = argv['scenarios'];
    const none = named === undefined || (Array.isArray(named) && named.length === 0);
    if (none && c.load.scenarios) argv[CONFIG_SCENARIOS_KEY] = c.load.scenarios.map((e) => ({ ...e, file: path(e.file) }));
  }
  if (takes.has('emulator')) {
    const e = c.emulator;
    fill('port', e.port);
    fill('host', e.host);
    fill('api-key-env', e.apiKeyEnv);
    fill('endpoint', e.endpoints);
    fill('time-scale', e.timeScale);
    fill('scale-rate-windows', e.scaleRateWindows);
    fill('workers-min', e.workers?.min);
    fill('workers-max', e.workers?.max);
    fill('jobs-per-worker', e.workers?.jobsPerWorker);
    fill('cold-start-ms', e.workers?.coldStartMs);
    fill('idle-timeout-ms', e.workers?.idleTimeoutMs);
    fill('limits', e.limits?.enabled);
    fill('requests-per-worker', e.limits?.requestsPerWorker);
    fill('external-workers', e.externalWorkers);
    fill('simulated-workers', e.simulatedWorkers);
    fill('worker-ping-interval-ms', e.workerPingIntervalMs);
    fill('fault', e.faults);
    if (e.deployments) argv[CONFIG_DEPLOYMENTS_KEY] = e.deployments;
  }
  if (takes.has('unobservable')) {
    // What calibration cannot see through the queue interface, from the endpoint's deployment
    // in the emulator section (the values it measures are measured, not taken from the file).
    const target = argv['target'];
    const named = argv['endpoint'];
    const endpoint = typeof named === 'string' ? named : typeof target === 'string' && target !== EMULATOR_TARGET ? parseTarget(target).endpointId : undefined;
    const d = endpoint === undefined ? undefined : c.emulator.deployments?.[endpoint];
    fill('workers-max', d?.workersMax);
    fill('gpu-type', d?.gpuTypeId);
    fill('gpu-count', d?.gpuCount);
  }
  if (takes.has('reportDir')) fill('out', path(c.reportDir));
}
