// `qbench emulate`: serve the queue-endpoint emulator (and the mounted REST/GraphQL parts)
// until SIGINT/SIGTERM. Flags override the `emulator` section of qbench.config (--config),
// which overrides a JSON emulator config file (--emulator-config); the result is validated by
// the one zod schema of src/emulator/config.ts.
import { z } from 'zod';
import { EndpointId } from '../../spec/index.js';
import { defineCommand, lazyRun } from '../command.js';
import { option, type OptionSet } from '../options.js';
import { apiKeyEnvOption, faultOption, SHARED_HELP } from '../target-options.js';

export const DEFAULT_PORT = 8000;
const number = z.number({ error: 'must be a number' }).optional();
const flag = z.boolean().optional();

/**
 * The emulator settings a flag (or the config file's `emulator` section, under the same key)
 * sets: the key after `emulator.` is the setting's path in src/emulator/config.ts, whose schema
 * judges the values together at start.
 */
export const SETTINGS = {
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

export const EMULATE_OPTIONS = {
  apiKeyEnv: apiKeyEnvOption('the key the emulator accepts', 'emulator.apiKeyEnv'),
  apiKey: option({ flag: 'api-key', schema: z.string().min(1).optional(), help: 'Accepted API key (prefer --api-key-env: a key on the command line shows in the process list)' }),
  ...SETTINGS,
  printWorkerEnv: option({ flag: 'print-worker-env', schema: z.string().min(1).optional(), help: 'Print the environment a worker process needs for this endpoint (shell export lines, API key included) and exit' }),
  workerId: option({ flag: 'worker-id', schema: z.string().min(1).optional(), help: 'With --print-worker-env: the worker id (default <endpoint>-worker-1); one per worker process' }),
  faults: faultOption('Switch on a fault (repeatable); see src/emulator/faults.ts', 'emulator.faults'),
  // Only the config file spells per-endpoint deployments (its schema validated them when it was read).
  deployments: option({ schema: z.record(z.string(), z.unknown()).optional(), config: 'emulator.deployments' }),
  emulatorConfig: option({ flag: 'emulator-config', schema: z.string().min(1).optional(), help: 'JSON emulator config file, every setting of src/emulator/config.ts (the config file and flags override it)' }),
} satisfies OptionSet;

export const emulateCommand = defineCommand({
  options: EMULATE_OPTIONS,
  run: lazyRun(async () => (await import('./emulate-run.js')).runEmulate),
});
