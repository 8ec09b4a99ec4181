// The target a fuzz run talks to: where its three interfaces live (§4.1 queue endpoint,
// §4.2 REST templates, §4.3 GraphQL pods), the key (§5), and the emulator's time scale and
// rate-window scaling read from its reserved info route, so waits and budgets follow it.
import { z } from 'zod';
import { API_VERSIONS, RATE_WINDOW_MS } from '../spec/index.js';
import { registerSecret } from '../errors.js';

export interface FuzzTarget {
  readonly kind: 'emulator' | 'remote';
  /** Origin (plus optional prefix) of the queue interface; paths go `/v2/{endpointId}/...`. */
  readonly queueUrl: string;
  /** Endpoint of the validation fuzz. */
  readonly endpointId: string;
  /** Endpoint of the model-based run: one with no other traffic, as its health is checked exactly. */
  readonly modelEndpointId: string;
  /** REST base (paths `/v1/templates`); undefined skips the template properties. */
  readonly restUrl?: string | undefined;
  /** GraphQL address; undefined skips the pod properties. */
  readonly graphqlUrl?: string | undefined;
  readonly apiKey: string;
  /** Emulated ms per real ms (1 on a real target). */
  readonly timeScale: number;
  /** Real ms of one §8 rate window on this target. */
  readonly rateWindowMs: number;
  /** Emulator faults in force (for the report). */
  readonly faults?: readonly string[];
}

/** The parts of GET /_qbench/info the fuzzer reads; everything else passes through. */
const InfoAnswer = z.looseObject({
  timeScale: z.number().positive().optional(),
  scaleRateWindows: z.boolean().optional(),
  faults: z.array(z.string()).optional(),
  config: z.looseObject({ timeScale: z.number().positive().optional(), scaleRateWindows: z.boolean().optional(), faults: z.array(z.string()).optional() }).optional(),
});

export interface TargetFacts {
  readonly timeScale: number;
  readonly rateWindowMs: number;
  readonly faults?: readonly string[];
}

/** Read the emulator's info route; a real target has none and runs at scale 1 with real windows. */
export async function readTargetFacts(queueUrl: string, apiKey: string, signal?: AbortSignal): Promise<TargetFacts | undefined> {
  registerSecret(apiKey);
  let res: Response;
  try {
    res = await fetch(new URL('/_qbench/info', queueUrl), { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' }, ...(signal ? { signal } : {}) });
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
  const info = InfoAnswer.safeParse(json);
  if (!info.success) return undefined;
  const timeScale = info.data.timeScale ?? info.data.config?.timeScale ?? 1;
  const scaled = info.data.scaleRateWindows ?? info.data.config?.scaleRateWindows ?? false;
  const faults = info.data.faults ?? info.data.config?.faults;
  return { timeScale, rateWindowMs: scaled ? RATE_WINDOW_MS / timeScale : RATE_WINDOW_MS, ...(faults ? { faults } : {}) };
}

/** `{queueUrl}/v2/{endpointId}{path}` */
export function queuePath(target: FuzzTarget, endpointId: string, path: string): string {
  return `${target.queueUrl.replace(/\/$/, '')}/${API_VERSIONS.queue}/${encodeURIComponent(endpointId)}${path}`;
}

/** `{restUrl}/v1{path}` */
export function restPath(target: FuzzTarget, path: string): string {
  return `${(target.restUrl ?? '').replace(/\/$/, '')}/${API_VERSIONS.rest}${path}`;
}
