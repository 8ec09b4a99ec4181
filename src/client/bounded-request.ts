// One plain HTTP exchange over undici bounded in whole by one limit (connecting, headers and body
// included), for the side requests that are not the scenario's traffic: the emulator's info and
// counters routes, the load preflight and the Prometheus remote write. A connection reset by the
// path is told apart from a dead target (isReset), so a caller can ask again on a fresh connection.
import { request } from 'undici';

export interface BoundedRequestOptions {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** The whole exchange, connecting and reading the body included, real ms. */
  readonly timeoutMs: number;
  /** Aborts the exchange early (with the limit above still in force). */
  readonly signal?: AbortSignal | undefined;
  /** 'discard': the body is drained unread and `text` is empty (an answer only proves reachability). */
  readonly read?: 'text' | 'discard';
}

export interface BoundedAnswer {
  readonly status: number;
  readonly text: string;
}

/** One request and its answer; rejects when no answer came (refused, reset, timed out, aborted). */
export async function boundedRequest(url: string, o: BoundedRequestOptions): Promise<BoundedAnswer> {
  const limit = AbortSignal.timeout(o.timeoutMs);
  const res = await request(url, {
    method: o.method ?? 'GET',
    headers: { ...o.headers },
    ...(o.body === undefined ? {} : { body: o.body }),
    signal: o.signal ? AbortSignal.any([o.signal, limit]) : limit,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
  });
  if (o.read === 'discard') {
    await res.body.dump();
    return { status: res.statusCode, text: '' };
  }
  return { status: res.statusCode, text: await res.body.text() };
}

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** An error that says the connection was reset or closed mid-exchange (not refused, not timed out). */
export function isReset(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 4; cur = cur.cause, depth++) {
    const code = (cur as Error & { code?: unknown }).code;
    if (typeof code === 'string' && RESET_CODES.has(code)) return true;
  }
  return false;
}

export interface ResetRetryOptions {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** The pause before attempt n + 1 is `pauseMs * n`. */
  readonly pauseMs: number;
  /**
   * The limit of all attempts together, real ms from the call: each attempt is given what is left,
   * and no pause is taken that would end past it. Left out when `signal` carries the limit.
   */
  readonly timeoutMs?: number;
  /** No attempt follows once it is aborted. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Run `attempt` (given the ms left of the limit, Infinity without one) until it answers; a
 * connection the path reset is asked again on a fresh one, anything else (a refused connect, an
 * unknown host, no answer in time) rejects at once, as does the last reset.
 */
export async function retryResets<T>(attempt: (remainingMs: number) => Promise<T>, o: ResetRetryOptions): Promise<T> {
  const until = o.timeoutMs === undefined ? Infinity : performance.now() + o.timeoutMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt(until === Infinity ? Infinity : Math.max(1, Math.ceil(until - performance.now())));
    } catch (e) {
      if (!isReset(e) || n >= o.attempts || o.signal?.aborted || performance.now() + o.pauseMs * n >= until) throw e;
      await new Promise((resolve) => setTimeout(resolve, o.pauseMs * n));
    }
  }
}
