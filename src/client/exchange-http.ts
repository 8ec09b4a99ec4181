// The request+record layer under the conformance probe and the fuzzer: sends a request byte for
// byte with undici (malformed JSON, oversized bodies and raw query strings included, which the
// typed clients refuse to build), reads the whole answer, and keeps it as the shared exchange
// record (src/client/exchange-record.ts). Each caller builds its own request record, since only
// it knows which parts carry the key, and its own curl line with the shared renderer.
import { request, type Dispatcher } from 'undici';
import type { HttpExchange } from '../result/model.js';
import { recordBody, recordHeaders } from './exchange-record.js';

export type ExchangeMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export interface ExchangeSend {
  /** The URL as sent, credentials included: never recorded. */
  readonly url: string;
  readonly method: ExchangeMethod;
  /** Headers as sent, credentials included: never recorded. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  readonly dispatcher?: Dispatcher | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Close the connection after this exchange instead of reusing it. */
  readonly reset?: boolean;
  /** Real ms undici waits for the answer's headers, and between body chunks. */
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
}

export interface ExchangeAnswer {
  readonly status: number;
  /** As undici returned them (a repeated header is an array). */
  readonly rawHeaders: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** Bytes of the answer body on the wire. */
  readonly bodyBytes: number;
  /** Real time (performance.now()) the request was sent and the answer completed. */
  readonly sentAtMs: number;
  readonly doneAtMs: number;
}

/** Send one request and read its whole answer; network errors and aborts are thrown as undici raises them. */
export async function sendExchange(s: ExchangeSend): Promise<ExchangeAnswer> {
  const sentAtMs = performance.now();
  const res = await request(s.url, {
    method: s.method,
    headers: { ...s.headers },
    ...(s.body !== undefined ? { body: s.body } : {}),
    ...(s.dispatcher ? { dispatcher: s.dispatcher } : {}),
    ...(s.signal ? { signal: s.signal } : {}),
    ...(s.reset !== undefined ? { reset: s.reset } : {}),
    ...(s.headersTimeoutMs !== undefined ? { headersTimeout: s.headersTimeoutMs } : {}),
    ...(s.bodyTimeoutMs !== undefined ? { bodyTimeout: s.bodyTimeoutMs } : {}),
  });
  const buf = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, rawHeaders: res.headers, text: buf.toString('utf8'), bodyBytes: buf.byteLength, sentAtMs, doneAtMs: performance.now() };
}

/** The answer's body as JSON, or undefined when it is empty or not JSON. */
export function parseAnswerJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The response half of the exchange record. */
export function recordResponse(a: ExchangeAnswer, bodyBytes: number = a.bodyBytes): NonNullable<HttpExchange['response']> {
  return { status: a.status, headers: recordHeaders(a.rawHeaders), body: recordBody(a.text), bodyBytes, durationMs: a.doneAtMs - a.sentAtMs };
}

/** A curl line with every occurrence of the raw key replaced (the line itself names the key only as a variable). */
export function scrubKey(line: string, apiKey: string): string {
  return apiKey === '' ? line : line.split(apiKey).join('[REDACTED]');
}
