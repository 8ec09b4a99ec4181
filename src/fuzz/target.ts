// The target a fuzz run talks to: where its three interfaces live (§4.1 queue endpoint,
// §4.2 REST templates, §4.3 GraphQL pods), the key (§5), and the emulator's time scale and
// rate-window scaling read from its reserved info route, so waits and budgets follow it.
import { z } from 'zod';
import { API_VERSIONS, RATE_WINDOW_MS } from '../spec/index.js';
import { QbenchError, registerSecret } from '../errors.js';
import { EmulatorInfoFacts, claimsEmulatorInfo } from '../emulator/info-schema.js';
import type { TargetAddresses, TargetKey } from '../target/index.js';

/** Addresses and key as every command has them (§4.1-4.3, §5); restUrl/graphqlUrl undefined skip those properties. */
export interface FuzzTarget extends TargetAddresses, TargetKey {
  readonly kind: 'emulator' | 'remote';
  /** Endpoint of the validation fuzz. */
  readonly endpointId: string;
  /** Endpoint of the model-based run: one with no other traffic, as its health is checked exactly. */
  readonly modelEndpointId: string;
  /** Emulated ms per real ms (1 on a real target). */
  readonly timeScale: number;
  /** Real ms of one §8 rate window on this target. */
  readonly rateWindowMs: number;
  /** Emulator faults in force (for the report). */
  readonly faults?: readonly string[];
}

export interface TargetFacts {
  readonly timeScale: number;
  readonly rateWindowMs: number;
  readonly faults?: readonly string[];
}

/** The whole info request, connecting included, real ms: an unreachable host costs no more. */
const INFO_TIMEOUT_MS = 5000;

/**
 * Read the emulator's info route (with the key: an emulator may require it). A target with no
 * such route (a deployment, or a proxy that hides /_qbench) runs at scale 1 with real windows:
 * undefined. An answer that calls itself the emulator's but does not match the document this
 * qbench reads is an error, never a silent fall-back to real time.
 */
export async function readTargetFacts(queueUrl: string, apiKey: string, signal?: AbortSignal): Promise<TargetFacts | undefined> {
  registerSecret(apiKey);
  const url = new URL('/_qbench/info', queueUrl);
  let res: Response;
  try {
    const limit = AbortSignal.timeout(INFO_TIMEOUT_MS);
    res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' }, signal: signal ? AbortSignal.any([signal, limit]) : limit });
  } catch {
    return undefined;
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return undefined;
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    return undefined;
  }
  if (!claimsEmulatorInfo(json)) return undefined;
  const info = EmulatorInfoFacts.safeParse(json);
  if (!info.success) {
    throw new QbenchError('QB_ERR_CONFIG', `GET ${url.href} answered an emulator info document this qbench cannot read (a different qbench version?): ${z.prettifyError(info.error).replace(/\n/g, ' ')}`);
  }
  const { timeScale, scaleRateWindows, faults } = info.data;
  return { timeScale, rateWindowMs: scaleRateWindows ? RATE_WINDOW_MS / timeScale : RATE_WINDOW_MS, faults: faults.map((f) => f.name) };
}

/** `{queueUrl}/v2/{endpointId}{path}` */
export function queuePath(target: FuzzTarget, endpointId: string, path: string): string {
  return `${target.queueUrl.replace(/\/$/, '')}/${API_VERSIONS.queue}/${encodeURIComponent(endpointId)}${path}`;
}

/** `{restUrl}/v1{path}` */
export function restPath(target: FuzzTarget, path: string): string {
  return `${(target.restUrl ?? '').replace(/\/$/, '')}/${API_VERSIONS.rest}${path}`;
}
