// Where `qbench load` sends its traffic: `emulator` starts the in-process emulator (port 0,
// a random key, optional time scale and scaled rate windows); a URL names a real or remote
// endpoint (http://host:port[/v2/<endpoint_id>]). An emulator answers GET /_qbench/info,
// whose advertised limits the shipped scenarios aim at.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { registerSecret, usageError } from '../errors.js';
import { parseEmulatorInfo, type EmulatorInfoDocument } from '../spec/index.js';
import { parseTarget, requireEndpoint } from '../target/index.js';
import type { EmulatorConfigInput } from '../emulator/index.js';
import { endpointCountersFacts, type EndpointCountersFacts } from '../emulator/info-schema.js';
import type { LoadTarget } from './context.js';

export interface ResolveTargetOptions {
  /** 'emulator' or a URL. */
  readonly target: string;
  readonly endpointId?: string | undefined;
  readonly apiKey?: string | undefined;
  /** Emulator only. */
  readonly emulator?: Partial<EmulatorConfigInput> | undefined;
}

export interface ResolvedTarget {
  readonly target: LoadTarget;
  close(): Promise<void>;
}

/** The whole info request, connecting included, real ms: an unreachable host costs no more. */
const INFO_TIMEOUT_MS = 5000;

/** GET a /_qbench route (with the key when there is one: an emulator requires it); its JSON, or undefined on any other answer or failure. */
async function getQbenchJson(queueUrl: string, route: 'info' | 'counters', apiKey: string | undefined): Promise<unknown> {
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
    const res = await request(`${queueUrl}/_qbench/${route}`, { method: 'GET', headers, signal: AbortSignal.timeout(INFO_TIMEOUT_MS), headersTimeout: INFO_TIMEOUT_MS, bodyTimeout: INFO_TIMEOUT_MS });
    const text = await res.body.text();
    return res.statusCode === 200 ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * GET /_qbench/info; undefined when the target is not an emulator or hides the route. The
 * answer is parsed with the one schema of the document (src/spec/schemas/emulator-info.ts) and
 * kept whole for scenarios.
 */
export async function fetchEmulatorInfo(queueUrl: string, apiKey?: string): Promise<EmulatorInfoDocument | undefined> {
  const body = await getQbenchJson(queueUrl, 'info', apiKey);
  return body === undefined ? undefined : parseEmulatorInfo(body);
}

/** GET /_qbench/counters and pick `endpointId`'s jobs and billing; undefined when not an emulator or the route is hidden. */
export async function fetchEndpointCounters(queueUrl: string, endpointId: string, apiKey?: string): Promise<EndpointCountersFacts | undefined> {
  const body = await getQbenchJson(queueUrl, 'counters', apiKey);
  return body === undefined ? undefined : endpointCountersFacts(body, endpointId);
}

export async function resolveTarget(o: ResolveTargetOptions): Promise<ResolvedTarget> {
  const spec = parseTarget(o.target, o.endpointId);
  if (spec.kind === 'emulator') {
    const { startEmulator } = await import('../emulator/index.js');
    const apiKey = o.apiKey ?? `qb-${randomBytes(12).toString('hex')}`;
    registerSecret(apiKey);
    const emu = await startEmulator({ ...o.emulator, apiKey, port: 0, host: '127.0.0.1' });
    const endpointId = spec.endpointId ?? emu.config.endpoints[0] ?? 'demo';
    if (!emu.config.endpoints.includes(endpointId)) {
      await emu.close();
      throw usageError(`--endpoint: the emulator serves ${emu.config.endpoints.join(', ')}, not "${endpointId}"`);
    }
    const info = await fetchEmulatorInfo(emu.url, apiKey);
    return {
      target: { kind: 'emulator', queueUrl: emu.url, endpointId, apiKey, timeScale: emu.clock.scale, info },
      close: () => emu.close(),
    };
  }
  const endpointId = requireEndpoint(spec);
  if (o.apiKey) registerSecret(o.apiKey);
  const info = await fetchEmulatorInfo(spec.queueUrl, o.apiKey);
  return {
    target: { kind: 'remote', queueUrl: spec.queueUrl, endpointId, apiKey: o.apiKey, timeScale: info?.timeScale ?? 1, info },
    close: () => Promise.resolve(),
  };
}
