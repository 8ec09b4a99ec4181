// The target a run checks: addresses, key reference, time scale and limits. Against the
// emulator these come from its info document as src/target read it (advertised time scale,
// rate table, payload caps, dedicated endpoints); against a real target the spec's numbers
// (§4.1, §8) and scale 1.
import { EmulatorInfoDocument, RATE_LIMITS, RATE_WINDOW_MS, RUN_PAYLOAD, RUNSYNC_PAYLOAD } from '../spec/index.js';
import type { RateLimitedOperation } from '../spec/index.js';
import { rateWindowRealMs, type TargetAddresses, type TargetKey } from '../target/index.js';

export interface RateLimitFact {
  readonly requestsPerWindow: number;
  /** null: no concurrency cap. */
  readonly concurrency: number | null;
}

export interface TargetLimits {
  readonly rates: Readonly<Record<RateLimitedOperation, RateLimitFact>>;
  /** Length of a rate window in real ms (the emulator runs rate windows in real time unless told otherwise). */
  readonly rateWindowRealMs: number;
  /** §8 dynamic rule's requests_per_worker when the target advertises it; null when unknown. */
  readonly requestsPerWorker: number | null;
  /** Whether rate limits are enforced at all (an emulator may run with limits off). */
  readonly rateLimitsEnabled: boolean;
  /** Payload caps the target advertises (emulator), for the report only: checks judge against the spec. */
  readonly advertisedRunPayloadBytes?: number;
  readonly advertisedRunsyncPayloadBytes?: number;
  readonly advertisedStreamChunkBytes?: number;
}

/** The addresses every command has, and the name (only) of the key's variable: curl lines reference it. */
export interface Target extends TargetAddresses, Pick<TargetKey, 'apiKeyEnv'> {
  readonly kind: 'emulator' | 'remote';
  readonly endpointId: string;
  readonly timeScale: number;
  readonly limits: TargetLimits;
  /** Endpoint ids the checks may take for themselves (emulator); empty on a real target. */
  readonly spareEndpoints: readonly string[];
  /** Host the target can reach this machine at for webhook calls; null: webhook checks skip. */
  readonly callbackHost: string | null;
  readonly allowBillable: boolean;
  /** Fault switches the emulator reports (self-test). */
  readonly faults: readonly string[];
  /** The emulator's info document (emulator only). */
  readonly info?: Readonly<Record<string, unknown>>;
}

/** The spec's rate table as target facts. */
export function specRates(): Record<RateLimitedOperation, RateLimitFact> {
  const out = {} as Record<RateLimitedOperation, RateLimitFact>;
  for (const [op, rule] of Object.entries(RATE_LIMITS) as [RateLimitedOperation, (typeof RATE_LIMITS)[RateLimitedOperation]][]) {
    out[op] = { requestsPerWindow: rule.requestsPerWindow, concurrency: rule.concurrency };
  }
  return out;
}

export function specLimits(): TargetLimits {
  return { rates: specRates(), rateWindowRealMs: RATE_WINDOW_MS, requestsPerWorker: null, rateLimitsEnabled: true };
}

/** The emulator's info document, as the suite reads it: the document's one schema. */
export const EmulatorInfo = EmulatorInfoDocument;
export type EmulatorInfo = EmulatorInfoDocument;

/** Limits as an emulator advertises them: its whole rate table, the spec's for any operation it leaves out. */
export function limitsFromInfo(info: EmulatorInfo): TargetLimits {
  const rates = specRates();
  for (const [op, o] of Object.entries(info.limits.rates)) {
    if (Object.hasOwn(rates, op)) rates[op as RateLimitedOperation] = { requestsPerWindow: o.requestsPerWindow, concurrency: o.concurrency };
  }
  const l = info.limits;
  return {
    rates,
    rateWindowRealMs: rateWindowRealMs(info.timeScale, info.scaleRateWindows),
    requestsPerWorker: l.requestsPerWorker,
    rateLimitsEnabled: l.enabled,
    advertisedRunPayloadBytes: l.payload.runBytes ?? RUN_PAYLOAD.decimalBytes,
    advertisedRunsyncPayloadBytes: l.payload.runsyncBytes ?? RUNSYNC_PAYLOAD.decimalBytes,
    advertisedStreamChunkBytes: l.streamChunkBytes,
  };
}
