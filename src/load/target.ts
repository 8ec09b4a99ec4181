// Where `qbench load` sends its traffic: `emulator` starts the in-process emulator (port 0,
// a random key, optional time scale and scaled rate windows); a URL names a real or remote
// endpoint (http://host:port[/v2/<endpoint_id>]). An emulator answers GET /_qbench/info,
// whose advertised limits the shipped scenarios aim at.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { registerSecret, usageError } from '../errors.js';
import { API_VERSIONS } from '../spec/index.js';
import type { EmulatorConfigInput } from '../emulator/index.js';
import { EmulatorInfoFacts } from '../emulator/info-schema.js';
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

/**
 * GET /_qbench/info (with the key when there is one: an emulator may require it); undefined
 * when the target is not an emulator or hides the route. The answer is checked against the
 * emulator's own contract (src/emulator/info-schema.ts), then kept whole for scenarios.
 */
export async function fetchEmulatorInfo(queueUrl: string, apiKey?: string): Promise<Record<string, unknown> | undefined> {
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
    const res = await request(`${queueUrl}/_qbench/info`, { method: 'GET', headers, signal: AbortSignal.timeout(INFO_TIMEOUT_MS), headersTimeout: INFO_TIMEOUT_MS, bodyTimeout: INFO_TIMEOUT_MS });
    const text = await res.body.text();
    if (res.statusCode !== 200) return undefined;
    const body = JSON.parse(text) as unknown;
    return EmulatorInfoFacts.safeParse(body).success ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function resolveTarget(o: ResolveTargetOptions): Promise<ResolvedTarget> {
  if (o.target === 'emulator') {
    const { startEmulator } = await import('../emulator/index.js');
    const apiKey = o.apiKey ?? `qb-${randomBytes(12).toString('hex')}`;
    registerSecret(apiKey);
    const emu = await startEmulator({ ...o.emulator, apiKey, port: 0, host: '127.0.0.1' });
    const endpointId = o.endpointId ?? emu.config.endpoints[0] ?? 'demo';
    if (!emu.config.endpoints.includes(endpointId)) {
      await emu.close();
      throw usageError(`--endpoint-id: the emulator serves ${emu.config.endpoints.join(', ')}, not "${endpointId}"`);
    }
    const info = await fetchEmulatorInfo(emu.url, apiKey);
    return {
      target: { kind: 'emulator', queueUrl: emu.url, endpointId, apiKey, timeScale: emu.clock.scale, info },
      close: () => emu.close(),
    };
  }
  let url: URL;
  try {
    url = new URL(o.target);
  } catch {
    throw usageError(`--target: "${o.target}" is neither "emulator" nor a URL (http://host:port[/v2/<endpoint_id>])`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--target: only http and https URLs, got ${url.protocol}`);
  const m = new RegExp(`^/${API_VERSIONS.queue}/([^/]+)/?$`).exec(url.pathname);
  const endpointId = o.endpointId ?? (m ? decodeURIComponent(m[1] ?? '') : undefined);
  if (!endpointId) throw usageError('--endpoint-id is required when --target is a URL without /v2/<endpoint_id>');
  if (o.apiKey) registerSecret(o.apiKey);
  const queueUrl = url.origin;
  const info = await fetchEmulatorInfo(queueUrl, o.apiKey);
  const scale = info && typeof info['timeScale'] === 'number' ? info['timeScale'] : 1;
  return {
    target: { kind: 'remote', queueUrl, endpointId, apiKey: o.apiKey, timeScale: scale, info },
    close: () => Promise.resolve(),
  };
}
