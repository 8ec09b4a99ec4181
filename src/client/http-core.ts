// The HTTP core every client sits on: one keep-alive undici Pool per origin, auth per §5,
// per-request timeouts and AbortSignal, the shared 429 policy (§7, §8), JSON encoding and
// answer checks (content type, JSON, zod schema) that raise typed, redacted errors.
import { Pool, type Dispatcher } from 'undici';
import { z } from 'zod';
import { configError, redactSecrets, registerSecret } from '../errors.js';
import { resolveBackoff, withBackoff, type AttemptRecord, type BackoffOptions, type BackoffRuntime } from './backoff.js';
import {
  HttpStatusError,
  NetworkError,
  RateLimitedError,
  RequestAbortedError,
  RequestTimeoutError,
  SchemaMismatchError,
  InvalidRequestError,
  ClientError,
  type MismatchReason,
  type RequestTarget,
} from './errors.js';

/** §5 auth: a header carrying the raw key or `Bearer <key>`, or a query parameter. */
export type AuthScheme =
  | { readonly kind: 'none' }
  | { readonly kind: 'header'; readonly apiKey: string; readonly form: 'raw' | 'bearer' }
  | { readonly kind: 'query'; readonly apiKey: string; readonly param: string };

/** Options every client method accepts. */
export interface RequestOptions {
  /** Aborts the request (and any backoff wait); the method rejects with QB_ERR_ABORTED. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Per-attempt limit, in ms, for the answer's headers and for each pause in its body
   * (undici headersTimeout/bodyTimeout); QB_ERR_TIMEOUT past it. For the small JSON answers of
   * this service that is the time to the whole answer.
   */
  readonly timeoutMs?: number | undefined;
  /** Called once per HTTP attempt of this request, as soon as it ends. */
  readonly onAttempt?: ((attempt: AttemptRecord) => void) | undefined;
}

export interface HttpCoreOptions {
  /** Origin plus optional path prefix, e.g. `http://127.0.0.1:8080` or `https://api.example/x`. */
  readonly baseUrl: string;
  readonly auth: AuthScheme;
  /** Default per-request timeout (default 30 s). */
  readonly timeoutMs?: number;
  /** Most sockets kept open to the origin (default: no limit). */
  readonly connections?: number;
  /** How long an idle keep-alive socket stays open (default 4 s). */
  readonly keepAliveTimeoutMs?: number;
  /** 429 policy; merged over DEFAULT_BACKOFF. `{ maxAttempts: 1 }` disables retries. */
  readonly backoff?: Partial<BackoffOptions>;
  /** Injected random/sleep/now for tests. */
  readonly backoffRuntime?: Pick<BackoffRuntime, 'random' | 'sleep' | 'now'>;
  /** Use this dispatcher (e.g. one shared Agent) instead of a pool of the client's own; close() leaves it open. */
  readonly dispatcher?: Dispatcher;
  /** Called for every attempt of every request of this client. */
  readonly onAttempt?: (attempt: AttemptRecord, request: RequestTarget) => void;
  readonly userAgent?: string;
  /** Check request bodies against the spec schemas before sending (default true). */
  readonly validateRequests?: boolean;
  /** Check answers against the spec schemas (default true); false trusts the JSON as is. */
  readonly validateAnswers?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_KEEP_ALIVE_MS = 4_000;

/** One request as a client method describes it. */
export interface CallSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** Path below the base URL, already percent-encoded (use `encodePathSegment`). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** Encoded as JSON with `content-type: application/json`. */
  readonly json?: unknown;
}

/** The answer to a request, before schema checks. */
export interface HttpAnswer {
  readonly target: RequestTarget;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly contentType: string | undefined;
  readonly text: string;
  readonly attempts: readonly AttemptRecord[];
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment);
}

function errorCode(e: unknown): string | undefined {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 4; cur = cur.cause, depth++) {
    const code = (cur as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const positiveMs = z.number().finite().positive();

export class HttpCore {
  readonly baseUrl: URL;
  private readonly pathPrefix: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly backoff: BackoffOptions;
  readonly defaultTimeoutMs: number;
  readonly validateRequests: boolean;
  readonly validateAnswers: boolean;
  private closed = false;
  private headerSets: { plain: Readonly<Record<string, string>>; json: Readonly<Record<string, string>> } | undefined;

  constructor(private readonly options: HttpCoreOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw configError(`baseUrl must be an absolute http(s) URL (got ${redactSecrets(String(options.baseUrl))})`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw configError(`baseUrl must use http: or https: (got ${base.protocol})`);
    }
    if (options.auth.kind !== 'none') {
      if (typeof options.auth.apiKey !== 'string' || options.auth.apiKey.trim() === '') {
        throw configError('apiKey must be a non-empty string');
      }
      registerSecret(options.auth.apiKey);
    }
    this.baseUrl = base;
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
    this.backoff = resolveBackoff(options.backoff);
    this.defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!positiveMs.safeParse(this.defaultTimeoutMs).success) {
      throw configError(`timeoutMs must be a positive number of ms (got ${this.defaultTimeoutMs})`);
    }
    this.validateRequests = options.validateRequests ?? true;
    this.validateAnswers = options.validateAnswers ?? true;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = new Pool(base.origin, {
        ...(options.connections !== undefined ? { connections: options.connections } : {}),
        keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS,
        // Each request sets its own headersTimeout/bodyTimeout; undici's 300 s defaults would
        // otherwise apply to requests that ask for more (a long runsync wait plus margin).
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.ownsDispatcher = true;
    }
  }

  /** Path and query of a call (what goes on the request line), with the auth query parameter when the scheme uses one. */
  pathOf(spec: Pick<CallSpec, 'path' | 'query'>): string {
    // Built as a string, to spare a URL object per request on the hot path.
    let query: URLSearchParams | undefined;
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (v === undefined) continue;
      query ??= new URLSearchParams();
      query.set(k, String(v));
    }
    const auth = this.options.auth;
    if (auth.kind === 'query') (query ??= new URLSearchParams()).set(auth.param, auth.apiKey);
    const path = `${this.pathPrefix}${spec.path}` || '/';
    return query ? `${path}?${query.toString()}` : path;
  }

  /** Full URL of a call (for messages and curl lines; redact before printing). */
  urlOf(spec: Pick<CallSpec, 'path' | 'query'>): string {
    return `${this.baseUrl.origin}${this.pathOf(spec)}`;
  }

  /** The request headers: built once per client (undici only reads them). */
  private headersFor(spec: CallSpec): Readonly<Record<string, string>> {
    if (!this.headerSets) {
      const base: Record<string, string> = { accept: 'application/json' };
      if (this.options.userAgent) base['user-agent'] = this.options.userAgent;
      const auth = this.options.auth;
      if (auth.kind === 'header') base['authorization'] = auth.form === 'bearer' ? `Bearer ${auth.apiKey}` : auth.apiKey;
      this.headerSets = { plain: Object.freeze({ ...base }), json: Object.freeze({ ...base, 'content-type': 'application/json' }) };
    }
    return spec.json === undefined ? this.headerSets.plain : this.headerSets.json;
  }

  /** Refuse a request body that breaks `schema`, naming every problem (QB_ERR_INVALID_REQUEST). */
  checkRequest<S extends z.ZodType>(spec: Pick<CallSpec, 'method' | 'path'>, schema: S, value: unknown, what: string): void {
    if (!this.validateRequests) return;
    const r = schema.safeParse(value);
    if (!r.success) {
      throw new InvalidRequestError({ method: spec.method, url: this.urlOf({ path: spec.path }) }, what, z.prettifyError(r.error), r.error.issues);
    }
  }

  /**
   * Send one logical request: attempts under the 429 policy, each bounded by the timeout.
   * Resolves with any non-429 answer; `expectOk` turns non-2xx answers into HttpStatusError.
   */
  async send(spec: CallSpec, opts: RequestOptions = {}, expectOk = true): Promise<HttpAnswer> {
    const path = this.pathOf(spec);
    const origin = this.baseUrl.origin;
    const target: RequestTarget = { method: spec.method, url: `${origin}${path}` };
    if (this.closed) throw new NetworkError(target, new Error('client is closed'), false);
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    if (!positiveMs.safeParse(timeoutMs).success) {
      throw new InvalidRequestError(target, 'timeoutMs', `timeoutMs must be a positive number of ms (got ${timeoutMs})`, []);
    }
    const body = spec.json === undefined ? undefined : JSON.stringify(spec.json);
    const headers = this.headersFor(spec);
    const attempts: AttemptRecord[] = [];
    const onAttempt = (a: AttemptRecord) => {
      attempts.push(a);
      opts.onAttempt?.(a);
      this.options.onAttempt?.(a, target);
    };

    const attempt = async () => {
      // undici enforces the timeout (its coarse timers cost far less than a setTimeout and an
      // AbortController per request); the caller's signal goes to undici as is.
      try {
        const res = await this.dispatcher.request({
          origin,
          path,
          method: spec.method,
          headers,
          body: body ?? null,
          signal: opts.signal ?? null,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const text = await res.body.text();
        return {
          status: res.statusCode,
          retryAfter: res.headers['retry-after'],
          value: { status: res.statusCode, headers: res.headers, contentType: headerValue(res.headers['content-type']), text },
        };
      } catch (e) {
        if (opts.signal?.aborted) throw new RequestAbortedError(target, opts.signal.reason);
        const code = errorCode(e);
        if (code !== undefined && TIMEOUT_CODES.has(code)) throw new RequestTimeoutError(target, timeoutMs);
        throw new NetworkError(target, e, code !== undefined && UNREACHABLE_CODES.has(code));
      }
    };

    let result;
    try {
      result = await withBackoff(attempt, this.backoff, { ...this.options.backoffRuntime, signal: opts.signal, onAttempt });
    } catch (e) {
      const err = e instanceof ClientError ? e : new RequestAbortedError(target, opts.signal?.reason ?? e);
      err.attempts = attempts;
      throw err;
    }
    const answer: HttpAnswer = { target, ...result.outcome.value, attempts };
    if (result.exhausted) throw this.withAttempts(new RateLimitedError(target, attempts, answer.text), attempts);
    if (expectOk && (answer.status < 200 || answer.status > 299)) throw this.statusError(answer);
    return answer;
  }

  /** The HttpStatusError of an answer (with its attempts). */
  statusError(answer: HttpAnswer): HttpStatusError {
    return this.withAttempts(new HttpStatusError(answer.target, answer.status, answer.text, this.tryJson(answer.text)), answer.attempts);
  }

  /** The SchemaMismatchError of an answer (with its attempts); keeps the raw body. */
  mismatch(answer: HttpAnswer, schemaName: string, reason: MismatchReason, summary: string, issues?: readonly z.core.$ZodIssue[]): SchemaMismatchError {
    return this.withAttempts(
      new SchemaMismatchError(answer.target, {
        reason,
        status: answer.status,
        contentType: answer.contentType,
        rawBody: answer.text,
        summary,
        schemaName,
        ...(issues ? { issues } : {}),
      }),
      answer.attempts,
    );
  }

  private withAttempts<E extends ClientError>(e: E, attempts: readonly AttemptRecord[]): E {
    e.attempts = attempts;
    return e;
  }

  private tryJson(text: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Check content type, parse JSON and validate with `schema`; SchemaMismatchError keeps the raw body. */
  parse<S extends z.ZodType>(answer: HttpAnswer, schema: S, schemaName: string): z.output<S> {
    const fail = (reason: MismatchReason, summary: string, issues?: readonly z.core.$ZodIssue[]) => this.mismatch(answer, schemaName, reason, summary, issues);
    if (!answer.contentType || !JSON_CONTENT_TYPE.test(answer.contentType)) {
      throw fail('content-type', `content-type is ${answer.contentType ?? '(none)'}, not application/json`);
    }
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch (e) {
      throw fail('json', `body is not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    if (!this.validateAnswers) return json as z.output<S>;
    const r = schema.safeParse(json);
    if (!r.success) throw fail('schema', z.prettifyError(r.error), r.error.issues);
    return r.data;
  }

  /** Send and parse in one step. */
  async call<S extends z.ZodType>(spec: CallSpec, schema: S, schemaName: string, opts?: RequestOptions): Promise<z.output<S>> {
    return this.parse(await this.send(spec, opts), schema, schemaName);
  }

  /** Close the pool (when the client created it); pending requests finish first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
