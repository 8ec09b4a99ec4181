// The runner's ledger of rate windows per (endpoint, operation): a check that counts
// admissions or sends a burst takes the operation of its endpoint for itself, and only once
// no other check has sent that operation there within one rate window (§8 counts per endpoint
// and operation over 10 s). On a shared endpoint this keeps one check's burst out of the
// window another check is counting in.
import { realSleep } from '../client/sleep.js';

/** Margin past one window before an operation counts as clean again (covers network delay and clock granularity). */
export const CLEAN_WINDOW_FACTOR = 1.1;
/** Real ms added to every clean-window wait: a request sent now reaches a target tens of ms later. */
export const CLEAN_WINDOW_FLOOR_REAL_MS = 250;

export interface RateLease {
  /** Real ms this check waited for the operation (another check's window to pass). */
  readonly waitedMs: number;
  /** Give the operation back; `lastSentMs` (performance.now()) is when this check last sent it. */
  release(lastSentMs?: number): void;
}

interface Slot {
  /** Resolves when the current holder releases. */
  tail: Promise<void>;
  /** performance.now() from which the operation is clean again. */
  cleanAtMs: number;
}

export class RateLedger {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly windowRealMs: number) {}

  /** Wait until no other check holds (endpoint, operation) and its last window has passed, then hold it. */
  async claim(endpoint: string, operation: string, signal?: AbortSignal): Promise<RateLease> {
    const key = `${endpoint} ${operation}`;
    const started = performance.now();
    const slot = this.slots.get(key) ?? { tail: Promise.resolve(), cleanAtMs: 0 };
    this.slots.set(key, slot);
    const previous = slot.tail;
    let done = (): void => undefined;
    slot.tail = previous.then(() => new Promise<void>((resolve) => { done = resolve; }));
    await previous;
    const wait = slot.cleanAtMs - performance.now();
    try {
      if (wait > 0) await realSleep(wait, signal);
    } catch (e) {
      done();
      throw e;
    }
    let released = false;
    return {
      waitedMs: performance.now() - started,
      release: (lastSentMs = performance.now()) => {
        if (released) return;
        released = true;
        slot.cleanAtMs = Math.max(slot.cleanAtMs, lastSentMs + this.windowRealMs * CLEAN_WINDOW_FACTOR + CLEAN_WINDOW_FLOOR_REAL_MS);
        done();
      },
    };
  }
}
