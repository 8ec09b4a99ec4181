// Emulated time as the suite sees it: every timing expectation (ttl, execution timeout,
// retention, webhook spacing) is written in the spec's emulated milliseconds and converted
// with the target's advertised time scale (1 on a real target).
import { realSleep } from '../client/sleep.js';

export interface TimeModel {
  /** Emulated ms per real ms. */
  readonly scale: number;
  toRealMs(emulatedMs: number): number;
  toEmulatedMs(realMs: number): number;
  /** Wait `emulatedMs` of the target's time. */
  sleep(emulatedMs: number, signal?: AbortSignal): Promise<void>;
  /** Wait real ms (polling intervals). */
  sleepReal(realMs: number, signal?: AbortSignal): Promise<void>;
}

export function timeModel(scale: number): TimeModel {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`time scale must be a positive finite number, got ${scale}`);
  return {
    scale,
    toRealMs: (e) => e / scale,
    toEmulatedMs: (r) => r * scale,
    sleep: (e, signal) => realSleep(Math.max(0, e / scale), signal),
    sleepReal: (r, signal) => realSleep(Math.max(0, r), signal),
  };
}
