// The target a fuzz run talks to: where its three interfaces live (§4.1 queue endpoint,
// §4.2 REST templates, §4.3 GraphQL pods), the key (§5), and the emulator's time scale and
// rate-window scaling (the target's facts, src/target), so waits and budgets follow it.
import { API_VERSIONS } from '../spec/index.js';
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

/** `{queueUrl}/v2/{endpointId}{path}` */
export function queuePath(target: FuzzTarget, endpointId: string, path: string): string {
  return `${target.queueUrl.replace(/\/$/, '')}/${API_VERSIONS.queue}/${encodeURIComponent(endpointId)}${path}`;
}

/** `{restUrl}/v1{path}` */
export function restPath(target: FuzzTarget, path: string): string {
  return `${(target.restUrl ?? '').replace(/\/$/, '')}/${API_VERSIONS.rest}${path}`;
}
