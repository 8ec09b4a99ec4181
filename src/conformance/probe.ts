// The conformance suite's own HTTP layer on undici `request`: exact control of every byte
// (missing or wrong auth, malformed JSON, oversized bodies, raw query strings), every
// exchange recorded with secrets redacted (authorization, api_key, s3Config.accessSecret)
// and a curl reproduction. §5 auth per interface: queue header, REST bearer, GraphQL query.
import type { Dispatcher } from 'undici';
import { redactSecrets, registerSecret } from '../errors.js';
import type { HttpExchange } from '../result/model.js';
import type { TargetAddresses, TargetKey } from '../target/index.js';
import { EXCHANGE_BODY_LIMIT_CHARS, recordBody } from '../client/exchange-record.js';
import { parseAnswerJson, recordResponse, scrubKey, sendExchange, type ExchangeMethod } from '../client/exchange-http.js';
import { answerBreach, type AnswerBreach } from '../client/answer-contract.js';
import { renderCurl, type CurlAuth } from './curl.js';

export type ProbeInterface = 'queue' | 'rest' | 'graphql';
export type HttpMethod = ExchangeMethod;

/**
 * key: the interface's documented form (queue: raw key header; REST: Bearer; GraphQL: ?api_key=).
 * bearer / raw: the queue header in that form. none: no credentials. wrong: a wrong key in the documented form.
 */
export type ProbeAuth = 'key' | 'bearer' | 'raw' | 'none' | 'wrong';

export interface ProbeRequest {
  readonly iface: ProbeInterface;
  readonly method: HttpMethod;
  /** Path below the interface's base URL (e.g. `/v2/ep/run`), or an absolute URL. */
  readonly path: string;
  /** Query string without `?`, sent byte for byte (raw values such as `wait=1e3`). */
  readonly rawQuery?: string;
  readonly auth?: ProbeAuth;
  /** Serialized with JSON.stringify and sent with content-type application/json. */
  readonly json?: unknown;
  /** Sent as is (malformed JSON, oversized bodies). */
  readonly body?: string | Uint8Array;
  /** Content type for `body`; null sends none. Default application/json. */
  readonly contentType?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  /** Real ms for the whole exchange (default 30 s). */
  readonly timeoutMs?: number;
  /** Shell command printing `body`, for the curl line of large bodies. */
  readonly bodyRecipe?: string;
  /** Aborts the exchange and the caller's await (the send rejects). */
  readonly signal?: AbortSignal;
  /**
   * Ends an exchange the check holds open on purpose (a request the target keeps waiting):
   * the send resolves with status 0 and `released`, so the request stays in the log and can be
   * a failure's evidence.
   */
  readonly release?: AbortSignal;
}

export interface ProbeResponse {
  /** 0 when no answer came (network error); see `exchange.error`. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** Parsed body, or undefined when it is not JSON. */
  readonly json: unknown;
  readonly bodyBytes: number;
  readonly durationMs: number;
  readonly exchange: HttpExchange;
  readonly curl: string;
  /** Real time (performance.now()) the request was sent and the answer completed. */
  readonly sentAtMs: number;
  readonly doneAtMs: number;
  /** True when the check ended the exchange with `release` before any answer came. */
  readonly released?: boolean;
  /** The contract this answer breaks (src/client/answer-contract.ts), whatever the check asked it for. */
  readonly breach?: AnswerBreach;
}

/** The target's addresses, and the key with the variable curl lines name instead of it. */
export interface ProbeConfig extends TargetAddresses, TargetKey {
  readonly dispatcher?: Dispatcher;
}

/** A key that no target accepts (for the 401 checks). Not a secret: shown as is. */
export const WRONG_API_KEY = 'qbench-wrong-key-0000';
/** Bodies recorded in a report are cut to this many characters (the shared exchange record's limit). */
export const EVIDENCE_BODY_LIMIT_CHARS = EXCHANGE_BODY_LIMIT_CHARS;
const DEFAULT_TIMEOUT_MS = 30_000;

export class Probe {
  /** Every exchange this probe made, oldest first. */
  readonly log: ProbeResponse[] = [];
  /** The answers of `log` that break the contract, oldest first: the runner fails the check on the first. */
  readonly breaches: ProbeResponse[] = [];
  /** Called with each answer that breaks the contract, as it arrives (the runner stops the check). */
  onBreach: ((res: ProbeResponse) => void) | undefined;

  constructor(private readonly config: ProbeConfig) {
    // Whatever a check does with the key (an error message, a thrown exception), the report never shows it.
    registerSecret(config.apiKey);
  }

  /** A probe with the same target and a fresh log (one per check). */
  fork(): Probe {
    return new Probe(this.config);
  }

  baseUrl(iface: ProbeInterface): string {
    const u = iface === 'queue' ? this.config.queueUrl : iface === 'rest' ? this.config.restUrl : this.config.graphqlUrl;
    if (u === undefined) throw new Error(`no ${iface} address was given for this target`);
    return u.replace(/\/+$/, '');
  }

  hasInterface(iface: ProbeInterface): boolean {
    return iface === 'queue' || (iface === 'rest' ? this.config.restUrl : this.config.graphqlUrl) !== undefined;
  }

  private authFor(iface: ProbeInterface, mode: ProbeAuth): { header?: [string, string]; query?: [string, string]; curl: CurlAuth } {
    const key = mode === 'wrong' ? WRONG_API_KEY : this.config.apiKey;
    const secret = mode !== 'wrong';
    if (mode === 'none') return { curl: { kind: 'none' } };
    if (iface === 'graphql' && (mode === 'key' || mode === 'wrong')) {
      return {
        query: ['api_key', key],
        curl: secret ? { kind: 'query', param: 'api_key', secret: true } : { kind: 'query', param: 'api_key', value: key, secret: false },
      };
    }
    const bearer = mode === 'bearer' || (iface !== 'queue' && mode !== 'raw');
    const prefix = bearer ? 'Bearer ' : '';
    const name = iface === 'queue' ? 'authorization' : 'Authorization';
    return {
      header: [name, `${prefix}${key}`],
      curl: secret ? { kind: 'header', name, prefix, secret: true } : { kind: 'header', name, value: `${prefix}${key}`, secret: false },
    };
  }

  async send(req: ProbeRequest): Promise<ProbeResponse> {
    const base = req.path.startsWith('http://') || req.path.startsWith('https://') ? '' : this.baseUrl(req.iface);
    const plainUrl = `${base}${req.path}${req.rawQuery !== undefined ? `?${req.rawQuery}` : ''}`;
    const auth = this.authFor(req.iface, req.auth ?? 'key');
    let sendUrl = plainUrl;
    if (auth.query) sendUrl += `${plainUrl.includes('?') ? '&' : '?'}${auth.query[0]}=${encodeURIComponent(auth.query[1])}`;

    const headers: Record<string, string> = { accept: 'application/json', ...(req.headers ?? {}) };
    let body: string | Uint8Array | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    } else if (req.body !== undefined) {
      body = req.body;
      if (req.contentType !== null) headers['content-type'] = req.contentType ?? 'application/json';
    }
    const bodyBytes = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const sentHeaders = { ...headers };
    if (auth.header) sentHeaders[auth.header[0]] = auth.header[1];

    const bodyText = body === undefined ? undefined : typeof body === 'string' ? body : bodyBytes <= EVIDENCE_BODY_LIMIT_CHARS ? Buffer.from(body).toString('utf8') : undefined;
    const recordedHeaders: Record<string, string> = { ...headers };
    if (auth.header) recordedHeaders[auth.header[0]] = auth.curl.kind === 'header' && !auth.curl.secret ? auth.header[1] : `${auth.header[1].startsWith('Bearer ') ? 'Bearer ' : ''}[REDACTED]`;
    const recordedUrl = auth.query ? `${plainUrl}${plainUrl.includes('?') ? '&' : '?'}api_key=${auth.curl.kind === 'query' && !auth.curl.secret ? auth.query[1] : '[REDACTED]'}` : plainUrl;
    // The curl line is built from redacted parts (the key is an env-var reference); scrubbing the
    // whole line with the generic patterns would mangle that reference, so only the raw key is scrubbed.
    const curl = scrubKey(renderCurl({
      method: req.method,
      url: plainUrl,
      headers,
      auth: auth.curl,
      apiKeyEnv: this.config.apiKeyEnv,
      ...(bodyText !== undefined ? { body: redactSecrets(bodyText) } : {}),
      bodyBytes,
      ...(req.bodyRecipe !== undefined ? { bodyRecipe: req.bodyRecipe } : {}),
    }), this.config.apiKey);
    const requestRecord: HttpExchange['request'] = {
      method: req.method,
      url: recordedUrl,
      headers: recordedHeaders,
      ...(bodyText !== undefined ? { body: recordBody(bodyText) } : bodyBytes > 0 ? { body: `[${bodyBytes} bytes not recorded]` } : {}),
      bodyBytes,
    };

    const timeoutMs = Math.ceil(req.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signals = [AbortSignal.timeout(timeoutMs), ...(req.signal ? [req.signal] : []), ...(req.release ? [req.release] : [])];
    const startedAtMs = performance.now();
    let result: ProbeResponse;
    try {
      const a = await sendExchange({
        url: sendUrl,
        method: req.method,
        headers: sentHeaders,
        body,
        signal: AbortSignal.any(signals),
        dispatcher: this.config.dispatcher,
      });
      const response = recordResponse(a);
      const json = parseAnswerJson(a.text);
      const path = req.path.startsWith('http://') || req.path.startsWith('https://') ? new URL(req.path).pathname : req.path;
      // Only a GraphQL answer is judged against its request (the query's selection): no other body is parsed.
      const breach = answerBreach({ iface: req.iface, method: req.method, path, ...(req.json !== undefined ? { json: req.json } : req.iface === 'graphql' && typeof req.body === 'string' ? { json: parseAnswerJson(req.body) } : {}) }, { status: a.status, text: a.text, json });
      result = {
        status: a.status,
        headers: response.headers,
        text: a.text,
        json,
        bodyBytes: a.bodyBytes,
        durationMs: response.durationMs,
        curl,
        sentAtMs: a.sentAtMs,
        doneAtMs: a.doneAtMs,
        exchange: { request: requestRecord, response },
        ...(breach !== null ? { breach } : {}),
      };
    } catch (e) {
      const doneAtMs = performance.now();
      if (req.signal?.aborted) throw e;
      const released = req.release?.aborted === true;
      const message = released
        ? `no answer after ${Math.round(doneAtMs - startedAtMs)} ms: held open, then released by the check`
        : redactSecrets(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
      result = {
        status: 0, headers: {}, text: '', json: undefined, bodyBytes: 0, durationMs: doneAtMs - startedAtMs, curl, sentAtMs: startedAtMs, doneAtMs,
        exchange: { request: requestRecord, error: message },
        ...(released ? { released } : {}),
      };
    }
    this.log.push(result);
    if (result.breach !== undefined) {
      this.breaches.push(result);
      this.onBreach?.(result);
    }
    return result;
  }
}
