// The emulator's one JSON I/O, for all three interfaces (queue, REST, GraphQL): JSON answers
// (always `content-type: application/json`, WIRE-COMPAT), error bodies `{error: "..."}`, body
// reading with a byte cap enforced while the body streams in (§4.1/§8 payload caps), JSON
// parsing within the depth limit (json-limits.ts), and the lingering close with which a body
// refused unread (wrong key, past its cap) is discarded as it arrives and, past a bound, cut.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { depthError, depthViolation } from './json-limits.js';

const JSON_TYPE = 'application/json';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  // The flat [name, value, ...] form: the cheapest header path of node:http (hot on /status).
  const h: string[] = ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(text))];
  if (headers) for (const [k, v] of Object.entries(headers)) h.push(k, v);
  res.writeHead(status, h);
  res.end(text);
}

/** 204: no body, but the content-type stays JSON as on every other answer. */
export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204, ['content-type', JSON_TYPE]);
  res.end();
}

export function sendError(res: ServerResponse, status: number, message: string, extra?: Record<string, unknown>, headers?: Record<string, string>): void {
  sendJson(res, status, extra ? { error: message, ...extra } : { error: message }, headers);
}

export type BodyResult =
  | { readonly kind: 'ok'; readonly body: Buffer }
  | { readonly kind: 'too-large'; readonly declaredBytes: number | undefined }
  | { readonly kind: 'aborted' };

const EMPTY = Buffer.alloc(0);

export function hasBody(req: IncomingMessage): boolean {
  const cl = req.headers['content-length'];
  return (cl !== undefined && cl !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Bounds of a lingering close (real time: network behaviour, not the emulated clock). nginx
 * lingers up to 30 s, 5 s between reads; a test service can be quicker.
 */
export const LINGER = Object.freeze({
  /** At most this long after the answer, whatever the client still sends. */
  maxMs: 5_000,
  /** The client sent nothing for this long. */
  idleMs: 1_000,
  /** Default byte allowance: more than the largest body cap (/runsync, 20 MB). */
  allowanceBytes: 32 * 1024 * 1024,
});

/**
 * Headers for an answer sent before the request's body was read (a wrong key, a body past
 * its cap): `connection: close`, so the unwanted body is never parsed, with a lingering close.
 *
 * node ends a `connection: close` answer with `socket.destroySoon()`: the socket is destroyed as
 * soon as the answer is flushed. With the client's body still arriving, the kernel answers the
 * unread bytes with a reset, and a client (or a proxy) still sending loses the answer: a proxy
 * turns it into 502. Instead, as nginx and Apache do: the answer, then this side's FIN, then what
 * the client still sends is read and dropped until it closes, `allowanceBytes` have arrived,
 * LINGER.maxMs have passed or it was silent LINGER.idleMs; then the socket is destroyed.
 * Nothing is buffered. Returns undefined when no body is pending (nothing to refuse); the
 * allowance is LINGER.allowanceBytes (closeLingering takes another).
 */
export function closeIfBodyPending(req: IncomingMessage): Record<string, string> | undefined {
  if (!hasBody(req) || req.complete) return undefined;
  return closeLingering(req);
}

/** `connection: close` headers for an answer that refuses the rest of the body, with a lingering close (see closeIfBodyPending). */
export function closeLingering(req: IncomingMessage, allowanceBytes: number = LINGER.allowanceBytes): Record<string, string> {
  const socket = req.socket;
  const cut = (): void => {
    socket.destroy();
  };
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > allowanceBytes) cut();
  });
  req.on('error', () => {});
  req.resume();
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.destroyed) return;
    if (this.writable) this.end();
    const total = setTimeout(cut, LINGER.maxMs);
    total.unref();
    this.setTimeout(LINGER.idleMs, cut);
    this.once('close', () => clearTimeout(total));
  };
  return { connection: 'close' };
}

/** The body of a request that declares none (no content-length, or 0, and no transfer-encoding). */
const NO_BODY: BodyResult = Object.freeze({ kind: 'ok', body: EMPTY });

/** A body being read: kept on its request, so that the listeners are shared functions (no closures per request). */
interface BodyReading {
  readonly chunks: Buffer[];
  total: number;
  settled: boolean;
  readonly capBytes: number;
  readonly onBody: (r: BodyResult) => void;
}

const READING = Symbol('qbench.bodyReading');
type ReadingRequest = IncomingMessage & { [READING]?: BodyReading };

const ABORTED: BodyResult = Object.freeze({ kind: 'aborted' });
const TOO_LARGE_WHILE_READING: BodyResult = Object.freeze({ kind: 'too-large', declaredBytes: undefined });

/**
 * Read the whole body and hand it to `onBody` (synchronously when there is none or its
 * declared length is past the cap), refusing it as soon as it passes `capBytes` (declared
 * length or bytes received). Never buffers more than the cap. A callback, not a promise:
 * the queue routes serve a job body without a microtask hop (readBody is the promise form).
 * One reader per request.
 */
export function readBodyThen(req: IncomingMessage, capBytes: number, onBody: (r: BodyResult) => void): void {
  if (!hasBody(req)) return onBody(NO_BODY);
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const n = Number(declared);
    if (Number.isFinite(n) && n > capBytes) return onBody({ kind: 'too-large', declaredBytes: n });
  }
  (req as ReadingRequest)[READING] = { chunks: [], total: 0, settled: false, capBytes, onBody };
  // The listeners stay on the request once it is settled (its stream ends with this body; a
  // refused body is drained by the lingering close): `settled` turns late events into no-ops,
  // and no removal is paid per request.
  req.on('data', onBodyData);
  req.on('end', onBodyEnd);
  req.on('error', onBodyAbort);
  req.on('close', onBodyAbort);
}

function settleBody(req: ReadingRequest, r: BodyResult): void {
  const reading = req[READING];
  if (reading === undefined || reading.settled) return;
  reading.settled = true;
  reading.chunks.length = 0;
  reading.onBody(r);
}

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const reading = this[READING];
  if (reading === undefined || reading.settled) return;
  reading.total += chunk.length;
  if (reading.total > reading.capBytes) settleBody(this, TOO_LARGE_WHILE_READING);
  else reading.chunks.push(chunk);
}

function onBodyEnd(this: ReadingRequest): void {
  const reading = this[READING];
  if (reading === undefined || reading.settled) return;
  const { chunks, total } = reading;
  const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  settleBody(this, { kind: 'ok', body });
}

function onBodyAbort(this: ReadingRequest): void {
  settleBody(this, ABORTED);
}

/** readBodyThen as a promise, or the result itself when it is known without reading. */
export function readBody(req: IncomingMessage, capBytes: number): Promise<BodyResult> | BodyResult {
  let known: BodyResult | undefined;
  let resolveLater: ((r: BodyResult) => void) | undefined;
  readBodyThen(req, capBytes, (r) => {
    if (resolveLater) resolveLater(r);
    else known = r;
  });
  return known ?? new Promise<BodyResult>((resolve) => (resolveLater = resolve));
}

/** Content types a job body may carry: JSON, or what curl and the worker protocol send for JSON text. */
export function acceptableBodyType(req: IncomingMessage): boolean {
  const ct = req.headers['content-type'];
  if (ct === undefined || ct === '' || ct === JSON_TYPE) return true;
  const base = (ct.split(';')[0] ?? '').trim().toLowerCase();
  return base === JSON_TYPE || base.endsWith('+json') || base === 'text/plain' || base === 'application/x-www-form-urlencoded' || base === '*/*';
}

/** A JSON text read: the value, or why it was refused. */
export type JsonDocument =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'invalid-json'; readonly reason: string }
  /** Valid JSON nested past MAX_JSON_DEPTH: `reason` names the path and the limit. */
  | { readonly kind: 'too-deep'; readonly reason: string };

/** Parse JSON text; refused when malformed or nested past MAX_JSON_DEPTH (json-limits.ts). */
export function parseJsonText(text: string): JsonDocument {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return { kind: 'invalid-json', reason: e instanceof Error ? e.message : String(e) };
  }
  const deep = depthViolation(value);
  return deep === undefined ? { kind: 'json', value } : { kind: 'too-deep', reason: depthError(deep) };
}

export type JsonParse = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** Parse a queue-endpoint body (already read within its cap) into a value or the error text to answer with. */
export function parseJson(body: Buffer): JsonParse {
  if (body.length === 0) return { ok: false, error: 'request body is empty; expected a JSON object' };
  const doc = parseJsonText(body.toString('utf8'));
  if (doc.kind === 'json') return { ok: true, value: doc.value };
  return { ok: false, error: doc.kind === 'invalid-json' ? `malformed JSON body: ${doc.reason}` : doc.reason };
}

/** The REST and GraphQL bodies are small documents; the service states no cap, so this is the emulator's choice. */
export const MAX_DOCUMENT_BODY_BYTES = 1_000_000;

export type BodyRead =
  | { readonly kind: 'empty' }
  | JsonDocument
  | { readonly kind: 'too-large'; readonly limitBytes: number }
  /** The client went away before the body ended: there is nobody to answer. */
  | { readonly kind: 'aborted' };

/**
 * Read a REST or GraphQL body within `limitBytes` and parse it as JSON whatever the
 * content-type says (clients differ). A refused body is answered with `closeLingering`.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes = MAX_DOCUMENT_BODY_BYTES): Promise<BodyRead> {
  const read = await readBody(req, limitBytes);
  if (read.kind === 'too-large') return { kind: 'too-large', limitBytes };
  if (read.kind === 'aborted') return read;
  const text = read.body.toString('utf8');
  return text.trim() === '' ? { kind: 'empty' } : parseJsonText(text);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
