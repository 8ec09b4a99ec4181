// §8 rate limits per endpoint and operation: an exact sliding-window log over the 10 s
// window (the (limit+1)-th request inside any window is refused, not an approximation)
// and an in-flight counter for the concurrency column. Only admitted requests count.
import { RATE_LIMITS, RATE_WINDOW_MS, effectiveRateLimit, SECOND_MS } from '../../spec/index.js';
import type { RateLimitedOperation } from '../../spec/index.js';
import type { RateOverride } from '../config.js';

/** A growable ring of admission times; O(1) amortized per request, memory O(limit). */
export class SlidingWindowLog {
  private times = new Float64Array(16);
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Drop admissions that left the window ending at `nowMs`. */
  evict(nowMs: number, windowMs: number): void {
    const cutoff = nowMs - windowMs;
    while (this.count > 0 && (this.times[this.head] as number) <= cutoff) {
      this.head = (this.head + 1) % this.times.length;
      this.count -= 1;
    }
  }

  /** Oldest admission still in the window (after evict), or undefined. */
  oldest(): number | undefined {
    return this.count > 0 ? this.times[this.head] : undefined;
  }

  push(nowMs: number): void {
    if (this.count === this.times.length) {
      const bigger = new Float64Array(this.times.length * 2);
      for (let i = 0; i < this.count; i++) bigger[i] = this.times[(this.head + i) % this.times.length] as number;
      this.times = bigger;
      this.head = 0;
    }
    this.times[(this.head + this.count) % this.times.length] = nowMs;
    this.count += 1;
  }

  clear(): void {
    this.head = 0;
    this.count = 0;
  }
}

export interface RuleInForce {
  requestsPerWindow: number;
  concurrency: number | null;
}

export type Admission =
  | { readonly ok: true; release(): void }
  | { readonly ok: false; readonly reason: 'rate' | 'concurrency'; readonly limit: number; readonly retryAfterSec: number };

export interface OperationCounters {
  admitted: number;
  rejectedRate: number;
  rejectedConcurrency: number;
  inFlight: number;
}

export interface RateLimiterOptions {
  /** Time source of the windows: real ms, or the scaled clock's ms. */
  nowMs: () => number;
  /** Emulated ms per real ms of `nowMs` (1 for real-time windows): converts Retry-After to real seconds. */
  scale: () => number;
  enabled: () => boolean;
  requestsPerWorker: () => number;
  rules: () => Readonly<Record<RateLimitedOperation, RuleInForce>>;
  /** Fault 'rate-limit-late': admit 10% more than the limit. */
  late: boolean;
  /** Fault 'no-concurrency-cap'. */
  noConcurrencyCap: boolean;
}

/** The rule table in force: §8 with per-operation overrides applied. */
export function rulesWithOverrides(overrides: Partial<Record<RateLimitedOperation, RateOverride>>): Record<RateLimitedOperation, RuleInForce> {
  const out = {} as Record<RateLimitedOperation, RuleInForce>;
  for (const op of Object.keys(RATE_LIMITS) as RateLimitedOperation[]) {
    const base = RATE_LIMITS[op];
    const o = overrides[op];
    out[op] = {
      requestsPerWindow: o?.requestsPerWindow ?? base.requestsPerWindow,
      concurrency: o?.concurrency === undefined ? base.concurrency : o.concurrency,
    };
  }
  return out;
}

/** Longest opt-in hold of one request, real ms (a hold is a test aid, never a way to hang clients for long). */
export const HOLD_MAX_REAL_MS = 60_000;

/** The admission of a request when limits are off: nothing to release. */
export const UNLIMITED: Admission = Object.freeze({ ok: true as const, release: () => {} });

/** One endpoint's limiter: a window log and an in-flight count per operation. */
export class EndpointRateLimiter {
  private readonly logs = new Map<RateLimitedOperation, SlidingWindowLog>();
  readonly counters = new Map<RateLimitedOperation, OperationCounters>();
  /**
   * Opt-in hold (POST /_qbench/limits `hold`): real ms an admitted request of the operation
   * waits, keeping its concurrency slot, before it is served, so that a client can hold any
   * operation open and observe its §8 concurrency cap. null (the default): no hold at all.
   */
  holdRealMs: Partial<Record<RateLimitedOperation, number>> | null = null;

  constructor(private readonly opts: RateLimiterOptions) {}

  private countersOf(op: RateLimitedOperation): OperationCounters {
    let c = this.counters.get(op);
    if (!c) {
      c = { admitted: 0, rejectedRate: 0, rejectedConcurrency: 0, inFlight: 0 };
      this.counters.set(op, c);
    }
    return c;
  }

  /** The effective per-window limit right now (§8 dynamic rule). */
  effectiveLimit(op: RateLimitedOperation, runningWorkers: number): number {
    const rule = this.opts.rules()[op];
    const limit = effectiveRateLimit(rule.requestsPerWindow, runningWorkers, this.opts.requestsPerWorker());
    return this.opts.late ? limit + Math.ceil(limit / 10) : limit;
  }

  admit(op: RateLimitedOperation, runningWorkers: number): Admission {
    const c = this.countersOf(op);
    if (!this.opts.enabled()) return this.admitted(c);
    const rule = this.opts.rules()[op];
    if (rule.concurrency !== null && !this.opts.noConcurrencyCap && c.inFlight >= rule.concurrency) {
      c.rejectedConcurrency += 1;
      return { ok: false, reason: 'concurrency', limit: rule.concurrency, retryAfterSec: 1 };
    }
    let log = this.logs.get(op);
    if (!log) {
      log = new SlidingWindowLog();
      this.logs.set(op, log);
    }
    const now = this.opts.nowMs();
    log.evict(now, RATE_WINDOW_MS);
    const limit = this.effectiveLimit(op, runningWorkers);
    if (log.size >= limit) {
      c.rejectedRate += 1;
      const oldest = log.oldest() ?? now;
      const realWaitMs = (oldest + RATE_WINDOW_MS - now) / this.opts.scale();
      return { ok: false, reason: 'rate', limit, retryAfterSec: Math.max(1, Math.ceil(realWaitMs / SECOND_MS)) };
    }
    log.push(now);
    return this.admitted(c);
  }

  private admitted(c: OperationCounters): Admission {
    if (!this.opts.enabled()) {
      c.admitted += 1;
      return UNLIMITED;
    }
    c.admitted += 1;
    c.inFlight += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        c.inFlight -= 1;
      },
    };
  }

  /** Forget every window and counter (POST /_qbench/reset); in-flight counts stay with their requests. */
  reset(): void {
    for (const log of this.logs.values()) log.clear();
    for (const c of this.counters.values()) {
      c.admitted = 0;
      c.rejectedRate = 0;
      c.rejectedConcurrency = 0;
    }
  }

  /**
   * Counters per operation, with `inWindow`: admissions inside the current rate window, so a
   * client can tell whether a window it is about to count in is already in use.
   */
  snapshot(): Record<string, OperationCounters & { inWindow: number }> {
    const out: Record<string, OperationCounters & { inWindow: number }> = {};
    const now = this.opts.nowMs();
    for (const [op, c] of this.counters) {
      const log = this.logs.get(op);
      log?.evict(now, RATE_WINDOW_MS);
      out[op] = { ...c, inWindow: log?.size ?? 0 };
    }
    return out;
  }
}
