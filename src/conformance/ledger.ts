// The runner's ledger of rate windows per (endpoint, operation): a check that counts
// admissions or sends a burst takes the operation of its endpoint for itself, and only once
// no other check has sent that operation there within one rate window (§8 counts per endpoint
// and operation over 10 s). On a shared endpoint this keeps one check's burst out of the
// window another check is counting in. A check that only sends the operation (a purge to clean
// up) goes through `use`: it waits for the holder and dirties the window for the next claim.
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

  private slot(endpoint: string, operation: string): Slot {
    const key = `${endpoint} ${operation}`;
    const slot = this.slots.get(key) ?? { tail: Promise.resolve(), cleanAtMs: 0 };
    this.slots.set(key, slot);
    return slot;
  }

  /** The operation counts as used until one clean window after `sentMs`. */
  private used(slot: Slot, sentMs: number): void {
    slot.cleanAtMs = Math.max(slot.cleanAtMs, sentMs + this.windowRealMs * CLEAN_WINDOW_FACTOR + CLEAN_WINDOW_FLOOR_REAL_MS);
  }

  /** Wait until no other check holds (endpoint, operation) and its last window has passed, then hold it. */
  async claim(endpoint: string, operation: string, signal?: AbortSignal): Promise<RateLease> {
    const started = performance.now();
    const slot = this.slot(endpoint, operation);
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
        this.used(slot, lastSentMs);
        done();
      },
    };
  }

  /**
   * Send (endpoint, operation) without counting: wait while a check holds or waits for it, then
   * run `send`. Such uses do not wait for each other, but each one dirties the window, so the
   * next claim waits one clean window after it (a purge after a burst never lands in the window
   * the purge-queue rate check is counting).
   */
  async use<T>(endpoint: string, operation: string, send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const slot = this.slot(endpoint, operation);
    for (let tail = slot.tail; ; tail = slot.tail) {
      await untilSettledOrAborted(tail, signal);
      // A claim queued while this one waited goes first: it was asked for earlier.
      if (slot.tail === tail) break;
    }
    this.used(slot, performance.now());
    try {
      return await send();
    } finally {
      this.used(slot, performance.now());
    }
  }
}

/** Wait for `p`, or reject with the signal's reason once it aborts (the listener is removed either way). */
export async function untilSettledOrAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([p, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
