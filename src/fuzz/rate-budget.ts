// Keeps the fuzzer well below the §8 rate table so that it measures validation and state,
// never 429s: one token bucket per operation, refilled at a fraction of the documented
// requests per window. Operations the table does not name share a conservative default.
import { realSleep } from '../client/sleep.js';
import { RATE_LIMITS, RATE_WINDOW_MS, SECOND_MS, type RateLimitedOperation } from '../spec/index.js';

/** A token bucket: `ratePerSec` sustained, at most `burst` at once. */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    readonly ratePerSec: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(ratePerSec > 0) || !(burst >= 1)) throw new RangeError(`token bucket needs ratePerSec > 0 and burst >= 1, got ${ratePerSec}, ${burst}`);
    this.tokens = burst;
    this.lastMs = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.lastMs) / SECOND_MS) * this.ratePerSec);
    this.lastMs = t;
  }

  /** Take a token now if one is there; otherwise say how many ms until one will be. */
  tryTake(): { ok: true } | { ok: false; waitMs: number } {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, waitMs: Math.ceil(((1 - this.tokens) / this.ratePerSec) * SECOND_MS) };
  }

  /** Wait for a token (rejects when the signal aborts). */
  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const r = this.tryTake();
      if (r.ok) return;
      await sleepMs(r.waitMs, signal);
    }
  }
}

/** The client's abortable real-time sleep (src/client/sleep.ts), under the name the fuzzer uses. */
export const sleepMs = realSleep;

/** Budgeted operations: the §8 ones plus those the table leaves out. */
export type BudgetOperation = RateLimitedOperation | 'retry' | 'health' | 'templates' | 'graphql';

/**
 * Operations §8 does not name are budgeted like the documented operation they resemble:
 * reads like /status, mutations like /cancel (the tightest per-job mutation of the table).
 */
export const UNLISTED_OPERATION_PROXY: Readonly<Record<Exclude<BudgetOperation, RateLimitedOperation>, RateLimitedOperation>> = {
  retry: 'cancel',
  health: 'status',
  templates: 'cancel',
  graphql: 'cancel',
};

export interface RateBudgetOptions {
  /** Share of each documented rate the fuzzer may use (0 < f <= 1). */
  readonly fraction: number;
  /** Length of the target's rate window in real ms (shorter when the emulator scales its windows). */
  readonly windowMs: number;
}

export const DEFAULT_RATE_BUDGET: RateBudgetOptions = { fraction: 0.5, windowMs: RATE_WINDOW_MS };

/**
 * One bucket per operation, refilled at `fraction` of its documented rate, with a burst of
 * half that share: in any window at most 1.5 x fraction of the documented count is sent.
 */
export class RateBudget {
  private readonly buckets = new Map<BudgetOperation, TokenBucket>();

  constructor(readonly options: RateBudgetOptions = DEFAULT_RATE_BUDGET) {
    if (!(options.fraction > 0 && options.fraction <= 1)) throw new RangeError(`rate fraction must be in (0, 1], got ${options.fraction}`);
    if (!(options.windowMs > 0)) throw new RangeError(`rate window must be > 0 ms, got ${options.windowMs}`);
  }

  /** Requests per second the fuzzer allows itself for `op`. */
  ratePerSec(op: BudgetOperation): number {
    const documented: RateLimitedOperation = Object.hasOwn(UNLISTED_OPERATION_PROXY, op)
      ? UNLISTED_OPERATION_PROXY[op as keyof typeof UNLISTED_OPERATION_PROXY]
      : (op as RateLimitedOperation);
    return (RATE_LIMITS[documented].requestsPerWindow * this.options.fraction * SECOND_MS) / this.options.windowMs;
  }

  bucket(op: BudgetOperation): TokenBucket {
    let b = this.buckets.get(op);
    if (!b) {
      const rate = this.ratePerSec(op);
      b = new TokenBucket(rate, Math.max(1, Math.floor((rate * this.options.windowMs) / SECOND_MS / 2)));
      this.buckets.set(op, b);
    }
    return b;
  }

  take(op: BudgetOperation, signal?: AbortSignal): Promise<void> {
    return this.bucket(op).take(signal);
  }
}
