// Connecting to a target: build the probe, take the target's facts from src/target (an
// unreachable target stops the run here), and assemble the Target (time scale, limits, spare
// endpoints) that every check computes its expectations from.
import { Agent } from 'undici';
import { registerSecret } from '../errors.js';
import { startEmulator, type EmulatorHandle } from '../emulator/index.js';
import type { FaultName } from '../emulator/faults.js';
import { DEFAULT_EMULATOR_TIME_SCALE, readTargetFacts, type TargetAddresses, type TargetFacts, type TargetKey } from '../target/index.js';
import { Probe } from './probe.js';
import { limitsFromInfo, specLimits, type Target } from './target.js';

export interface ConnectOptions extends TargetAddresses, TargetKey {
  readonly endpointId: string;
  readonly allowBillable: boolean;
  /** Host a target can reach this machine at (webhooks); default: 127.0.0.1 for loopback targets, else none. */
  readonly callbackHost?: string | undefined;
  /** Extra endpoint ids on the same target that checks may take for themselves. */
  readonly spareEndpoints?: readonly string[];
  /** The target's facts when the caller resolved them (src/target resolveTargetFlag); read here otherwise. */
  readonly facts?: TargetFacts | undefined;
}

export interface Connected {
  readonly target: Target;
  readonly probe: Probe;
  close(): Promise<void>;
}

function isLoopback(url: string): boolean {
  const h = new URL(url).hostname;
  return h === '127.0.0.1' || h === 'localhost' || h === '[::1]' || h === '::1';
}

/** Connections the suite opens to one origin at most (bursts included). */
const MAX_CONNECTIONS = 512;
/** Real ms the info read may take before the target counts as unreachable (a slow gateway may sit in front). */
export const CONNECT_INFO_TIMEOUT_MS = 10_000;

export async function connectTarget(o: ConnectOptions): Promise<Connected> {
  registerSecret(o.apiKey);
  const facts = o.facts ?? (await readTargetFacts(o.queueUrl, { apiKey: o.apiKey, unreachable: 'error', timeoutMs: CONNECT_INFO_TIMEOUT_MS }));
  const info = facts.info;
  const dispatcher = new Agent({ connections: MAX_CONNECTIONS, keepAliveTimeout: 4_000, pipelining: 1 });
  const probe = new Probe({ queueUrl: o.queueUrl, restUrl: o.restUrl, graphqlUrl: o.graphqlUrl, apiKey: o.apiKey, apiKeyEnv: o.apiKeyEnv, dispatcher });
  const callbackHost = o.callbackHost ?? (isLoopback(o.queueUrl) ? '127.0.0.1' : null);
  const base = {
    queueUrl: o.queueUrl,
    restUrl: o.restUrl,
    graphqlUrl: o.graphqlUrl,
    endpointId: o.endpointId,
    apiKeyEnv: o.apiKeyEnv,
    callbackHost,
    allowBillable: o.allowBillable,
  };
  const target: Target = info
    ? {
        ...base,
        kind: 'emulator',
        timeScale: facts.timeScale,
        limits: limitsFromInfo(info),
        spareEndpoints: (o.spareEndpoints ?? info.endpoints.filter((e) => e !== o.endpointId)),
        faults: facts.faults,
        info,
      }
    : { ...base, kind: 'remote', timeScale: facts.timeScale, limits: specLimits(), spareEndpoints: o.spareEndpoints ?? [], faults: [] };
  return { target, probe, close: () => dispatcher.close() };
}

/** Endpoint ids an in-process emulator gets: the main one plus spares, one per check that wants its own. */
export const EMULATOR_MAIN_ENDPOINT = 'qbench';
export const EMULATOR_SPARE_ENDPOINTS = 64;
export const EMULATOR_API_KEY_ENV = 'QBENCH_EMULATOR_KEY';

export interface EmulatorTargetOptions {
  readonly timeScale?: number;
  readonly faults?: readonly FaultName[];
  readonly allowBillable?: boolean;
}

export interface EmulatorTarget extends Connected {
  readonly emulator: EmulatorHandle;
}

/** Start an emulator in-process on 127.0.0.1:0 and connect to it (queue, REST and GraphQL on one server). */
export async function startEmulatorTarget(o: EmulatorTargetOptions = {}): Promise<EmulatorTarget> {
  const apiKey = `qbench-emu-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const spares = Array.from({ length: EMULATOR_SPARE_ENDPOINTS }, (_, i) => `qbench-c${i + 1}`);
  const emulator = await startEmulator({
    apiKey,
    port: 0,
    host: '127.0.0.1',
    endpoints: [EMULATOR_MAIN_ENDPOINT, ...spares],
    timeScale: o.timeScale ?? DEFAULT_EMULATOR_TIME_SCALE,
    faults: [...(o.faults ?? [])],
  });
  try {
    const c = await connectTarget({
      queueUrl: emulator.url,
      restUrl: emulator.url,
      graphqlUrl: `${emulator.url}/graphql`,
      endpointId: EMULATOR_MAIN_ENDPOINT,
      apiKey,
      apiKeyEnv: EMULATOR_API_KEY_ENV,
      allowBillable: o.allowBillable ?? true,
      spareEndpoints: spares,
    });
    return {
      ...c,
      emulator,
      close: async () => {
        await c.close();
        await emulator.close();
      },
    };
  } catch (e) {
    await emulator.close();
    throw e;
  }
}
