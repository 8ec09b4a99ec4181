// One plain HTTP exchange bounded in whole by one limit (connecting, headers and body included),
// for the side requests that are not the scenario's traffic: the emulator's info and counters
// routes, the load preflight and the Prometheus remote write. Node's own http client (https
// loaded only for an https URL): these few requests do not need undici, whose import is most of
// `qbench load`'s time before its first request. A connection reset by the path is told apart
// from a dead target (isReset), so a caller can ask again on a fresh connection.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';

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

type Send = (url: URL, options: RequestOptions, answer: (res: IncomingMessage) => void) => ReturnType<typeof httpRequest>;

async function sender(url: URL): Promise<Send> {
  if (url.protocol === 'http:') return httpRequest;
  if (url.protocol === 'https:') return (await import('node:https')).request;
  throw new TypeError(`${url.href}: only http and https URLs are requested`);
}

/** One request and its answer; rejects when no answer came (refused, reset, timed out, aborted). */
export async function boundedRequest(url: string, o: BoundedRequestOptions): Promise<BoundedAnswer> {
  const limit = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, limit]) : limit;
  const target = new URL(url);
  const send = await sender(target);
  signal.throwIfAborted();
  return new Promise<BoundedAnswer>((resolve, reject) => {
    // An abort rejects with its reason (the limit's TimeoutError, or the caller's own).
    const fail = (e: Error) => reject(signal.aborted && e.name === 'AbortError' ? (signal.reason as Error) : e);
    const headers: Record<string, string> = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = String(o.body.length);
    const req = send(target, { method: o.method ?? 'GET', headers, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (o.read !== 'discard') chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: o.read === 'discard' ? '' : Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
      res.on('aborted', () => reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })));
    });
    req.on('error', fail);
    req.end(o.body);
  });
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
