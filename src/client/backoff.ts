// The 429 policy shared by every client (§7 "clients back off exponentially and retry", §8):
// full-jitter exponential backoff (wait = random * min(cap, base * 2^n)), a maximum attempt
// count, and `Retry-After` (seconds or HTTP-date) honoured up to its own cap. Every attempt
// is recorded so that the load engine can report attempts per request.
import { z } from 'zod';
import { HTTP_STATUS, SECOND_MS } from '../spec/index.js';
import { QbenchError } from '../errors.js';
import { realSleep } from './sleep.js';

/** The abortable wait between attempts (src/client/sleep.ts), kept under its old import path. */
export { realSleep };

/** One HTTP attempt of a logical request. */
export interface AttemptRecord {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Wall-clock start of the attempt (ms since the epoch, after the wait). */
  readonly startedAtMs: number;
  /** How long the policy waited before this attempt (0 for the first). */
  readonly waitedMs: number;
  /** HTTP status of the answer; null when no answer came (network error, timeout, abort). */
  readonly status: number | null;
  /** Time from sending to the full answer (or the failure). */
  readonly durationMs: number;
  /** The `Retry-After` of a 429 answer, in ms, when the server sent a usable one. */
  readonly retryAfterMs?: number;
  /** Error code of a failed attempt (e.g. QB_ERR_TIMEOUT). */
  readonly errorCode?: string;
}

export interface BackoffOptions {
  /** First backoff ceiling; retry n (0-based) waits up to min(capMs, baseMs * 2^n). */
  readonly baseMs: number;
  /** Ceiling of any jittered wait. */
  readonly capMs: number;
  /** Attempts in all, the first included; 1 disables retrying. */
  readonly maxAttempts: number;
  /** Honour a 429's `Retry-After` instead of the jittered wait. */
  readonly honourRetryAfter: boolean;
  /** Ceiling of a `Retry-After` wait (a server asking for an hour gets this much). */
  readonly retryAfterCapMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({
  baseMs: SECOND_MS / 4,
  capMs: 8 * SECOND_MS,
  maxAttempts: 5,
  honourRetryAfter: true,
  retryAfterCapMs: 30 * SECOND_MS,
});

const BackoffOptionsSchema = z
  .strictObject({
    baseMs: z.number().finite().positive({ error: 'backoff.baseMs must be > 0' }),
    capMs: z.number().finite().positive({ error: 'backoff.capMs must be > 0' }),
    maxAttempts: z.number().int({ error: 'backoff.maxAttempts must be an integer' }).min(1, { error: 'backoff.maxAttempts must be at least 1' }),
    honourRetryAfter: z.boolean(),
    retryAfterCapMs: z.number().finite().nonnegative({ error: 'backoff.retryAfterCapMs must be >= 0' }),
  })
  .refine((o) => o.capMs >= o.baseMs, { error: 'backoff.capMs must be >= backoff.baseMs', path: ['capMs'] });

/** Merge partial options over the defaults and validate them (every problem at once). */
export function resolveBackoff(partial: Partial<BackoffOptions> = {}): BackoffOptions {
  const merged = { ...DEFAULT_BACKOFF, ...partial };
  const parsed = BackoffOptionsSchema.safeParse(merged);
  if (!parsed.success) {
    throw new QbenchError('QB_ERR_CONFIG', `invalid backoff options:\n${z.prettifyError(parsed.error)}`);
  }
  return Object.freeze(parsed.data);
}

/** Upper bound of the jittered wait before retry `retryIndex` (0 = the wait after the first attempt). */
export function backoffCeilingMs(retryIndex: number, opts: BackoffOptions): number {
  // 2^n overflows to Infinity for large n; min() with the cap keeps it finite.
  return Math.min(opts.capMs, opts.baseMs * 2 ** retryIndex);
}

/** Full jitter: uniform in [0, ceiling). `random` returns values in [0, 1). */
export function jitteredDelayMs(retryIndex: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * backoffCeilingMs(retryIndex, opts));
}

/**
 * `Retry-After` in ms: delta-seconds ("120", non-negative integer) or an HTTP-date relative
 * to `nowMs`. Undefined when absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfterMs(value: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const raw: unknown = typeof value === 'string' ? value : value?.[0];
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * SECOND_MS;
  // RFC 9110 HTTP-date; Date.parse accepts it (IMF-fixdate and the obsolete forms).
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The wait before retry `retryIndex`, honouring a `Retry-After` when the options say so. */
export function nextWaitMs(retryIndex: number, retryAfterMs: number | undefined, opts: BackoffOptions, random: () => number = Math.random): number {
  if (opts.honourRetryAfter && retryAfterMs !== undefined) return Math.min(retryAfterMs, opts.retryAfterCapMs);
  return jitteredDelayMs(retryIndex, opts, random);
}

/** What one attempt produced, as the policy needs to see it. */
export interface AttemptOutcome<T> {
  readonly status: number;
  readonly retryAfter?: string | readonly string[] | undefined;
  readonly value: T;
}

export interface BackoffRuntime {
  readonly random?: () => number;
  /** Sleep that rejects when the signal aborts. Defaults to a real timer. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Wall clock, ms since the epoch (attempt start times, HTTP-date Retry-After). */
  readonly now?: () => number;
  readonly signal?: AbortSignal | undefined;
  /** Called once per attempt, as soon as it ends. */
  readonly onAttempt?: ((attempt: AttemptRecord) => void) | undefined;
}

/** Raised by a failed attempt; carries the code recorded in its AttemptRecord. */
type AttemptFailure = Error & { code?: unknown };

export interface BackoffResult<T> {
  /** The last attempt's outcome: a non-429 answer, or the 429 that used the last attempt. */
  readonly outcome: AttemptOutcome<T>;
  readonly attempts: readonly AttemptRecord[];
  /** True when the final answer is still a 429 (attempts exhausted). */
  readonly exhausted: boolean;
}

/**
 * Run `attempt` until it answers something other than 429 or `maxAttempts` is used up.
 * An attempt that throws ends the loop (its record, with `status: null`, goes to `onAttempt`
 * first): only 429 is retried, so the caller sees every other failure as it happened.
 */
export async function withBackoff<T>(
  attempt: (attemptNumber: number) => Promise<AttemptOutcome<T>>,
  opts: BackoffOptions,
  runtime: BackoffRuntime = {},
): Promise<BackoffResult<T>> {
  const random = runtime.random ?? Math.random;
  const sleep = runtime.sleep ?? realSleep;
  const now = runtime.now ?? Date.now;
  const attempts: AttemptRecord[] = [];
  let waitedMs = 0;
  for (let n = 1; ; n++) {
    const startedAtMs = now();
    const t0 = performance.now();
    let outcome: AttemptOutcome<T>;
    try {
      outcome = await attempt(n);
    } catch (e) {
      const code = (e as AttemptFailure).code;
      const record: AttemptRecord = {
        attempt: n,
        startedAtMs,
        waitedMs,
        status: null,
        durationMs: performance.now() - t0,
        ...(typeof code === 'string' ? { errorCode: code } : {}),
      };
      attempts.push(record);
      runtime.onAttempt?.(record);
      throw e;
    }
    const is429 = outcome.status === HTTP_STATUS.tooManyRequests;
    const retryAfterMs = is429 ? parseRetryAfterMs(outcome.retryAfter, now()) : undefined;
    const record: AttemptRecord = {
      attempt: n,
      startedAtMs,
      waitedMs,
      status: outcome.status,
      durationMs: performance.now() - t0,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
    attempts.push(record);
    runtime.onAttempt?.(record);
    if (!is429) return { outcome, attempts, exhausted: false };
    if (n >= opts.maxAttempts) return { outcome, attempts, exhausted: true };
    waitedMs = nextWaitMs(n - 1, retryAfterMs, opts, random);
    if (waitedMs > 0) await sleep(waitedMs, runtime.signal);
    else if (runtime.signal?.aborted) throw runtime.signal.reason as Error;
  }
}
