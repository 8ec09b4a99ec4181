// The generator's HTTP side: one H1Pool (src/load/h1-pool.ts) per target origin with as many
// connections as the scenario may hold in flight (requests beyond that wait FIFO, counted in
// corrected latency, and their service time starts when a connection takes them: the actual
// send, as wrk2 measures it), JSON bodies, auth header per §5, and answers that never throw
// (a network failure is an outcome class).
import { API_VERSIONS } from '../spec/index.js';
import { parseHeaderBlock, type H1Response } from './h1-parser.js';
import { H1Pool, type H1Handler, type H1Request } from './h1-pool.js';
import type { HttpAnswer, LoadTarget, RequestSpec } from './context.js';
import { hrNowMs } from './recorder.js';

export interface TargetHttpOptions {
  readonly connections: number;
  readonly requestTimeoutMs: number;
}

export function endpointBasePath(target: LoadTarget): string {
  return `/${API_VERSIONS.queue}/${encodeURIComponent(target.endpointId)}`;
}

export function buildPath(target: LoadTarget, spec: RequestSpec): string {
  const base = spec.scope === 'origin' ? '' : endpointBasePath(target);
  let path = `${base}${spec.path}`;
  if (spec.query) {
    const qs = new URLSearchParams(Object.entries(spec.query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    if (qs) path += `${path.includes('?') ? '&' : '?'}${qs}`;
  }
  return path;
}

/** The answer to a request that got none (network error, timeout, abort, refused request). */
function failed(errorCode: string): HttpAnswer {
  return { status: null, headers: {}, bodyText: '', bytes: 0, errorCode, json: () => undefined };
}

/**
 * A completed answer: headers are parsed and the body decoded only when read (most load
 * steps look at the status alone), so the hot path keeps the raw buffers the socket gave.
 */
class LazyAnswer implements HttpAnswer {
  readonly status: number;
  readonly bytes: number;
  private res: H1Response | null;
  private parsedHeaders: HttpAnswer['headers'] | undefined;
  private text: string | undefined;
  private parsed: { v: unknown } | undefined;
  constructor(res: H1Response) {
    this.status = res.status;
    this.bytes = res.bytes;
    this.res = res;
  }
  get headers(): HttpAnswer['headers'] {
    if (this.parsedHeaders === undefined) this.parsedHeaders = parseHeaderBlock(this.res?.headerBlock ?? Buffer.alloc(0));
    return this.parsedHeaders;
  }
  get bodyText(): string {
    if (this.text === undefined) {
      const c = this.res?.body ?? null;
      this.text = c === null ? '' : Buffer.isBuffer(c) ? c.toString('utf8') : Buffer.concat(c).toString('utf8');
    }
    return this.text;
  }
  json(): unknown {
    if (this.parsed === undefined) {
      try {
        this.parsed = { v: JSON.parse(this.bodyText) as unknown };
      } catch {
        this.parsed = { v: undefined };
      }
    }
    return this.parsed.v;
  }
  toJSON(): object {
    return { status: this.status, headers: this.headers, bodyText: this.bodyText, bytes: this.bytes };
  }
}

/** One request in flight: resolves its promise with the answer or the network error. */
class Exchange implements H1Handler {
  constructor(
    private readonly resolve: (a: HttpAnswer) => void,
    readonly onSent: ((sentMs: number) => void) | undefined,
  ) {}
  onResponse(res: H1Response): void {
    this.resolve(new LazyAnswer(res));
  }
  onError(code: string): void {
    this.resolve(failed(code));
  }
}

/**
 * One request as HTTP/1.1 bytes: request line, `headerLines` (already CRLF-terminated, e.g.
 * host/accept/authorization), the caller's `headers` (checked: no CR, LF or NUL; host and
 * framing headers are the client's), a JSON content-type unless given, and the body with its
 * content-length (POST/PUT/PATCH always carry one). Throws with code ERR_INVALID_PATH or
 * ERR_INVALID_HEADER instead of writing a request that would break the connection's framing.
 */
export function serializeRequest(method: string, path: string, headerLines: string, headers: Readonly<Record<string, string>> | undefined, body: unknown): H1Request {
  if (BAD_PATH.test(path)) throw Object.assign(new Error(`invalid request path ${JSON.stringify(path)}`), { code: 'ERR_INVALID_PATH' });
  let head = `${method} ${path} HTTP/1.1\r\n${headerLines}`;
  let contentType = false;
  if (headers !== undefined) {
    for (const [name, value] of Object.entries(headers)) {
      if (BAD_HEADER.test(name) || BAD_HEADER.test(value) || name.includes(':')) throw Object.assign(new Error(`invalid header ${JSON.stringify(name)}`), { code: 'ERR_INVALID_HEADER' });
      const lower = name.toLowerCase();
      if (lower === 'host' || lower === 'content-length' || lower === 'transfer-encoding') continue;
      if (lower === 'content-type') contentType = true;
      head += `${name}: ${value}\r\n`;
    }
  }
  let text: string | undefined;
  let binary: Buffer | undefined;
  if (body !== undefined) {
    if (Buffer.isBuffer(body)) binary = body;
    else text = typeof body === 'string' ? body : JSON.stringify(body);
  } else if (method === 'POST' || method === 'PUT' || method === 'PATCH') text = '';
  if (text === undefined && binary === undefined) return { head: `${head}\r\n` };
  if (!contentType) head += 'content-type: application/json\r\n';
  if (binary !== undefined) return { head: `${head}content-length: ${binary.length}\r\n\r\n`, body: binary };
  const t = text ?? '';
  return { head: `${head}content-length: ${Buffer.byteLength(t)}\r\n\r\n${t}` };
}

/** Characters that would break a request line or header (CTLs, space in a path). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const BAD_PATH = /[\x00-\x20\x7f]/;
// eslint-disable-next-line no-control-regex -- as above
const BAD_HEADER = /[\r\n\x00]/;

export class TargetHttp {
  private readonly pool: H1Pool;
  /** Header lines every request carries (host, accept, authorization), CRLF terminated. */
  private readonly commonHeaders: string;
  /** Signals already wired to abortAll (one listener per signal, not per request). */
  private readonly signals = new WeakMap<AbortSignal, { aborted: boolean }>();

  constructor(
    readonly target: LoadTarget,
    opts: TargetHttpOptions,
  ) {
    this.pool = new H1Pool(target.queueUrl, { connections: Math.max(1, opts.connections), requestTimeoutMs: opts.requestTimeoutMs }, hrNowMs);
    let h = `host: ${this.pool.host}\r\naccept: application/json\r\n`;
    if (target.apiKey) h += `authorization: Bearer ${target.apiKey}\r\n`;
    this.commonHeaders = h;
  }

  /** Whether a request sent now would go out at once rather than wait for a connection. */
  hasFreeConnection(): boolean {
    return this.pool.hasFreeConnection();
  }

  /** Run `hook` after every answer (see H1Pool.afterAnswer); undefined removes it. */
  setAfterAnswer(hook: (() => void) | undefined): void {
    this.pool.afterAnswer = hook;
  }

  /** Open `count` connections before the schedule starts; resolves with how many connected. */
  warm(count: number): Promise<number> {
    return this.pool.warm(count);
  }

  /** Send one request; `onSent` gets the moment a connection was free and it went out. */
  send(spec: RequestSpec, signal?: AbortSignal, onSent?: (sentMs: number) => void): Promise<HttpAnswer> {
    if (signal) {
      // A signal's state is read once and then mirrored in a plain object: reading
      // `signal.aborted` on the hot path de-optimised it whenever the run's signal had
      // another hidden class than the warm-up's.
      let state = this.signals.get(signal);
      if (state === undefined) {
        const st = { aborted: signal.aborted };
        state = st;
        this.signals.set(signal, st);
        if (!st.aborted) {
          signal.addEventListener(
            'abort',
            () => {
              st.aborted = true;
              this.pool.abortAll('ABORT_ERR', 'the run was aborted');
            },
            { once: true },
          );
        }
      }
      if (state.aborted) return Promise.resolve(failed('ABORT_ERR'));
    }
    let req: H1Request;
    try {
      req = this.requestOf(spec);
    } catch (e) {
      return Promise.resolve(failed((e as { code?: string }).code ?? 'ERR_INVALID_ARG_VALUE'));
    }
    return new Promise<HttpAnswer>((resolve) => this.pool.dispatch(req, new Exchange(resolve, onSent)));
  }

  private requestOf(spec: RequestSpec): H1Request {
    return serializeRequest(spec.method, buildPath(this.target, spec), this.commonHeaders, spec.headers, spec.body);
  }

  /** Abort everything in flight (after the graceful stop). */
  destroy(): Promise<void> {
    this.pool.destroy();
    return Promise.resolve();
  }
}
