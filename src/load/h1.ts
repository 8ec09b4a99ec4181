// The load generator's own HTTP/1.1 client, built for speed: keep-alive connections that
// write a pre-serialised request head and parse answers straight from the socket's buffers
// (status, content-length, chunked, close-delimited, 1xx, no-body statuses), with optional
// pipelining, one sweep timer for request timeouts and no per-request promise, timer or
// header object. It exists because the generator's cost per request is the measurement's
// budget: at 20,000 req/s on one core, the undici dispatch path used the whole core (about
// 50 us a request) and started requests hundreds of ms late; this one costs a fraction of
// that. The typed clients of src/client keep undici: there, features matter more than
// microseconds.
import net from 'node:net';
import tls from 'node:tls';

/**
 * A request ready to write: the head (request line, headers and CRLFCRLF, written as UTF-8;
 * a small text body may follow it in the same string) and an optional binary body.
 */
export interface H1Request {
  readonly head: string;
  readonly body?: Buffer | undefined;
  /** HEAD requests have no response body whatever the headers say. */
  readonly isHead?: boolean | undefined;
}

/** A complete answer. The header block is kept raw and parsed only when read. */
export interface H1Response {
  readonly status: number;
  /** The bytes between the status line and the blank line (header lines, CRLF separated). */
  readonly headerBlock: Buffer;
  /** Body bytes: null (empty), one Buffer or several. */
  readonly body: Buffer | Buffer[] | null;
  readonly bytes: number;
}

export interface H1Handler {
  /** The request was written to a connection (a free one, or after waiting for one). */
  readonly onSent?: ((nowMs: number) => void) | undefined;
  /** Called once, with the answer or with a network error code (never both). */
  onResponse(res: H1Response): void;
  onError(code: string, message: string): void;
}

export interface H1PoolOptions {
  /** Most connections (each carries `pipelining` requests at a time). */
  readonly connections: number;
  readonly pipelining?: number | undefined;
  /** A request with no complete answer after this long fails with code TIMEOUT. */
  readonly requestTimeoutMs: number;
  /** Close connections idle longer than this (below the common 5 s server keep-alive). */
  readonly idleTimeoutMs?: number | undefined;
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const STATUS_PREFIX = Buffer.from('HTTP/1.', 'latin1');
/** A response head larger than this is refused (undici's default is 16 KiB too). */
const MAX_HEAD_BYTES = 64 * 1024;
const DEFAULT_IDLE_MS = 4_000;

type BodyMode = 0 | 1 | 2 | 3; // none, length, chunked, until close
const NONE: BodyMode = 0;
const LENGTH: BodyMode = 1;
const CHUNKED: BodyMode = 2;
const UNTIL_CLOSE: BodyMode = 3;

// Chunked decoding states.
const C_SIZE = 0;
const C_DATA = 1;
const C_DATA_END = 2;
const C_TRAILER = 3;

/**
 * An empty array already of the "any object" element kind. A plain `[]` starts as small-
 * integer kind and changes kind on its first push; code optimised on a warm pool's arrays
 * then meets a fresh pool's `[]` as a "wrong map" and is thrown away (measured at the start
 * of the run that follows the warm-up).
 */
function objectArray<T>(): T[] {
  const a: T[] = [undefined as T];
  a.length = 0;
  return a;
}

export class H1Error extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  readonly req: H1Request;
  readonly handler: H1Handler;
  sentAtMs: number;
}

/** Parse the header block into lower-case names; repeated headers become arrays. */
export function parseHeaderBlock(block: Buffer): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const text = block.toString('latin1');
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out;
}

const EMPTY = Buffer.alloc(0);

/** ASCII case-insensitive compare of buf[start, start+name.length) with a lower-case name. */
function nameIs(buf: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) {
    const c = buf[start + i]!;
    if ((c >= 0x41 && c <= 0x5a ? c + 32 : c) !== name.charCodeAt(i)) return false;
  }
  return true;
}

function trimmedValue(buf: Buffer, start: number, end: number): string {
  while (start < end && (buf[start] === 0x20 || buf[start] === 0x09)) start++;
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x09)) end--;
  return buf.toString('latin1', start, end);
}

class Connection {
  readonly socket: net.Socket;
  /** Requests written and not yet answered, oldest first. */
  readonly queue: Pending[] = objectArray();
  connected = false;
  closed = false;
  /** In the pool's free list. */
  listed = false;
  readonly openedAtMs: number;
  /** The server asked to close after the current answer (Connection: close or HTTP/1.0). */
  private closeAfter = false;
  idleSinceMs = 0;

  // Parser state.
  private head: Buffer | null = null;
  private inBody = false;
  private mode: BodyMode = NONE;
  private remaining = 0;
  private status = 0;
  private headerBlock: Buffer = EMPTY;
  private body: Buffer | Buffer[] | null = null;
  private bytes = 0;
  private chunkState = C_SIZE;
  private line: Buffer | null = null;

  constructor(
    private readonly pool: H1Pool,
    url: URL,
  ) {
    this.openedAtMs = pool.nowMs();
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (url.protocol === 'https:') {
      this.socket = tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] } as tls.ConnectionOptions);
      this.socket.once('secureConnect', () => this.onConnect());
    } else {
      this.socket = net.connect({ host, port });
      this.socket.once('connect', () => this.onConnect());
    }
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.fail(err.code ?? 'ESOCKET', err.message));
    this.socket.on('close', () => this.fail('ECONNRESET', 'the connection closed before the answer was complete'));
  }

  private onConnect(): void {
    this.connected = true;
    this.pool.connectionReady(this);
  }

  write(p: Pending, nowMs: number): void {
    p.sentAtMs = nowMs;
    this.queue.push(p);
    p.handler.onSent?.(nowMs);
    const { head, body } = p.req;
    if (body === undefined || body.length === 0) this.socket.write(head);
    else {
      this.socket.cork();
      this.socket.write(head);
      this.socket.write(body);
      this.socket.uncork();
    }
  }

  private onData(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length && !this.closed) {
      if (!this.inBody) {
        const used = this.parseHead(chunk, pos);
        if (used < 0) return; // head incomplete: kept in this.head
        pos = used;
        continue;
      }
      pos = this.parseBody(chunk, pos);
    }
  }

  /** Parse a response head starting at chunk[pos]; the index after it, or -1 if incomplete. */
  private parseHead(chunk: Buffer, pos: number): number {
    let buf: Buffer;
    let base: number;
    if (this.head === null) {
      buf = chunk;
      base = pos;
    } else {
      buf = Buffer.concat([this.head, chunk.subarray(pos)]);
      base = 0;
    }
    const end = buf.indexOf(HEAD_END, base);
    if (end < 0) {
      if (buf.length - base > MAX_HEAD_BYTES) return this.protocolError('the response head is larger than 64 KiB');
      this.head = buf === chunk ? Buffer.from(chunk.subarray(pos)) : buf;
      return -1;
    }
    const consumedFromChunk = this.head === null ? end + 4 : end + 4 - this.head.length + pos;
    this.head = null;
    // Status line: HTTP/1.x SSS reason (exactly three digits, then a space or the line's end)
    if (end - base < 12 || STATUS_PREFIX.compare(buf, base, base + 7) !== 0 || buf[base + 8] !== 0x20) return this.protocolError('the response does not start with an HTTP/1.x status line');
    if (buf[base + 12] !== 0x20 && buf[base + 12] !== 0x0d) return this.protocolError('the status code is not three digits');
    const minor = buf[base + 7]!;
    const s0 = buf[base + 9]! - 48;
    const s1 = buf[base + 10]! - 48;
    const s2 = buf[base + 11]! - 48;
    if (s0 < 0 || s0 > 9 || s1 < 0 || s1 > 9 || s2 < 0 || s2 > 9) return this.protocolError('the status code is not three digits');
    const status = s0 * 100 + s1 * 10 + s2;
    const blockStart = buf.indexOf('\r\n', base, 'latin1') + 2;
    let length = -1;
    let chunked = false;
    let close = minor === 0x30; // HTTP/1.0 closes unless it says keep-alive
    // Scan the header lines for the framing headers only.
    let ls = blockStart;
    while (ls < end) {
      let le = buf.indexOf('\r\n', ls, 'latin1');
      if (le < 0 || le > end) le = end;
      const colon = buf.indexOf(0x3a, ls);
      if (colon > ls && colon < le) {
        const first = buf[ls]! | 0x20;
        if (first === 0x63) {
          if (nameIs(buf, ls, colon, 'content-length')) {
            const v = Number(trimmedValue(buf, colon + 1, le));
            if (!Number.isInteger(v) || v < 0) return this.protocolError('the content-length header is not a non-negative integer');
            length = v;
          } else if (nameIs(buf, ls, colon, 'connection')) {
            const v = trimmedValue(buf, colon + 1, le).toLowerCase();
            if (v.includes('close')) close = true;
            else if (v.includes('keep-alive')) close = false;
          }
        } else if (first === 0x74 && nameIs(buf, ls, colon, 'transfer-encoding')) {
          if (trimmedValue(buf, colon + 1, le).toLowerCase().endsWith('chunked')) chunked = true;
        } else if (first === 0x6b && !this.pool.hinted && nameIs(buf, ls, colon, 'keep-alive')) {
          const m = /timeout\s*=\s*(\d+)/i.exec(trimmedValue(buf, colon + 1, le));
          if (m) this.pool.serverKeepAliveHint(Number(m[1]) * 1000);
        }
      }
      ls = le + 2;
    }
    // Interim answers (100 Continue, 103 Early Hints): skip, the real one follows.
    if (status >= 100 && status < 200 && status !== 101) return consumedFromChunk;
    if (status === 101) return this.protocolError('unexpected protocol upgrade (101)');
    const current = this.queue[0];
    if (current === undefined) return this.protocolError('an answer arrived with no request waiting for it');
    this.status = status;
    this.headerBlock = blockStart < end ? Buffer.from(buf.subarray(blockStart, end)) : EMPTY;
    this.body = null;
    this.bytes = 0;
    this.closeAfter = close;
    if (current.req.isHead || status === 204 || status === 304) this.mode = NONE;
    else if (chunked) {
      this.mode = CHUNKED;
      this.chunkState = C_SIZE;
      this.line = null;
    } else if (length >= 0) {
      this.mode = length === 0 ? NONE : LENGTH;
      this.remaining = length;
    } else this.mode = UNTIL_CLOSE;
    if (this.mode === NONE) this.complete();
    else this.inBody = true;
    return consumedFromChunk;
  }

  private addBody(part: Buffer): void {
    this.bytes += part.length;
    const b = this.body;
    if (b === null) this.body = part;
    else if (Buffer.isBuffer(b)) this.body = [b, part];
    else b.push(part);
  }

  /** Consume body bytes from chunk[pos]; the index after what was used. */
  private parseBody(chunk: Buffer, pos: number): number {
    if (this.mode === LENGTH) {
      const take = Math.min(this.remaining, chunk.length - pos);
      this.addBody(chunk.subarray(pos, pos + take));
      this.remaining -= take;
      if (this.remaining === 0) this.complete();
      return pos + take;
    }
    if (this.mode === UNTIL_CLOSE) {
      this.addBody(chunk.subarray(pos));
      return chunk.length;
    }
    // Chunked.
    while (pos < chunk.length && this.inBody) {
      if (this.chunkState === C_DATA) {
        const take = Math.min(this.remaining, chunk.length - pos);
        this.addBody(chunk.subarray(pos, pos + take));
        this.remaining -= take;
        pos += take;
        if (this.remaining === 0) {
          this.chunkState = C_DATA_END;
          this.line = null;
        }
        continue;
      }
      // A line: chunk size, the CRLF after data, or a trailer line.
      const nl = chunk.indexOf(0x0a, pos);
      const upTo = nl < 0 ? chunk.length : nl + 1;
      const piece = chunk.subarray(pos, upTo);
      this.line = this.line === null ? piece : Buffer.concat([this.line, piece]);
      pos = upTo;
      if (nl < 0) {
        if (this.line.length > 4096) {
          this.protocolError('a chunk-size or trailer line is longer than 4 KiB');
          return chunk.length;
        }
        continue;
      }
      const text = this.line.toString('latin1').trim();
      this.line = null;
      if (this.chunkState === C_DATA_END) {
        if (text !== '') {
          this.protocolError('chunk data is not followed by CRLF');
          return chunk.length;
        }
        this.chunkState = C_SIZE;
      } else if (this.chunkState === C_SIZE) {
        const hex = text.split(';')[0]!.trim();
        const size = /^[0-9a-fA-F]{1,12}$/.test(hex) ? parseInt(hex, 16) : NaN;
        if (!Number.isFinite(size)) {
          this.protocolError('a chunk size is not hexadecimal');
          return chunk.length;
        }
        if (size === 0) this.chunkState = C_TRAILER;
        else {
          this.chunkState = C_DATA;
          this.remaining = size;
        }
      } else if (text === '') this.complete(); // end of trailers
    }
    return pos;
  }

  private complete(): void {
    this.inBody = false;
    const p = this.queue.shift()!;
    const res: H1Response = { status: this.status, headerBlock: this.headerBlock, body: this.body, bytes: this.bytes };
    this.body = null;
    this.headerBlock = EMPTY;
    if (this.closeAfter) {
      this.closed = true;
      this.socket.destroy();
      this.pool.connectionGone(this, 'ECONNRESET', 'the server closed the connection (Connection: close) with requests pipelined on it');
    } else if (this.queue.length === 0) this.idleSinceMs = this.pool.nowMs();
    p.handler.onResponse(res);
    if (!this.closed) this.pool.connectionFree(this);
    this.pool.afterAnswer?.();
  }

  private onEnd(): void {
    if (this.inBody && this.mode === UNTIL_CLOSE) {
      this.closeAfter = true;
      this.complete();
      return;
    }
    this.fail('ECONNRESET', 'the server closed the connection before the answer was complete');
  }

  private protocolError(message: string): number {
    this.fail('HPE_INVALID', `invalid HTTP response: ${message}`);
    return Number.MAX_SAFE_INTEGER;
  }

  /** Fail everything on this connection and drop it from the pool. */
  fail(code: string, message: string): void {
    if (this.closed && this.queue.length === 0) return;
    this.closed = true;
    this.socket.destroy();
    this.pool.connectionGone(this, code, message);
  }

  /** Take the unanswered requests (the connection is gone). */
  drain(): Pending[] {
    return this.queue.splice(0);
  }
}

/**
 * Connections to one origin. `dispatch` writes a request on a free connection right away
 * (opening one when fewer than `connections` exist) or queues it FIFO until one frees.
 */
export class H1Pool {
  private readonly url: URL;
  private readonly pipelining: number;
  private readonly all = new Set<Connection>();
  /** Connections that can take another request now (connected, below the pipelining depth). */
  private readonly free: Connection[] = objectArray();
  private readonly waiting: Pending[] = objectArray();
  private waitingHead = 0;
  private sweep: NodeJS.Timeout | undefined;
  private idleTimeoutMs: number;
  private destroyed = false;
  private connecting = 0;
  private readyWaiters: (() => void)[] = [];

  constructor(
    origin: string,
    private readonly opts: H1PoolOptions,
    readonly nowMs: () => number = () => performance.now(),
  ) {
    this.url = new URL(origin);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') throw new H1Error('EPROTO', `unsupported protocol ${this.url.protocol} (http: or https: only)`);
    this.pipelining = Math.max(1, opts.pipelining ?? 1);
    this.idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  }

  /** The Host header value for this origin. */
  get host(): string {
    return this.url.host;
  }

  /**
   * Open up to `count` connections now (before a schedule starts, so its first seconds do not
   * pay for connecting); resolves with the number connected once all have connected or failed.
   */
  warm(count = this.opts.connections): Promise<number> {
    if (this.destroyed) return Promise.resolve(0);
    const want = Math.min(count, this.opts.connections);
    while (this.all.size < want) this.open();
    const connected = () => [...this.all].filter((c) => c.connected).length;
    if (this.connecting === 0) return Promise.resolve(connected());
    return new Promise((resolve) => this.readyWaiters.push(() => resolve(connected())));
  }

  /** Connections currently open. */
  get size(): number {
    return this.all.size;
  }

  /** Whether a request dispatched now would go out at once (a connection is free, or may be opened). */
  hasFreeConnection(): boolean {
    if (this.all.size < this.opts.connections) return true;
    for (let i = this.free.length - 1; i >= 0; i--) if (!this.free[i]!.closed) return true;
    return false;
  }

  dispatch(req: H1Request, handler: H1Handler): void {
    if (this.destroyed) {
      handler.onError('ABORT_ERR', 'the pool was closed');
      return;
    }
    const p: Pending = { req, handler, sentAtMs: 0 };
    const c = this.takeFree();
    if (c) {
      c.write(p, this.nowMs());
      if (c.queue.length < this.pipelining) {
        c.listed = true;
        this.free.push(c);
      }
      return;
    }
    this.waiting.push(p);
    if (this.all.size < this.opts.connections) this.open();
  }

  private takeFree(): Connection | undefined {
    const now = this.nowMs();
    for (;;) {
      const c = this.free.pop();
      if (c === undefined) return undefined;
      c.listed = false;
      if (c.closed) continue;
      // A connection idle longer than the server may keep it is closed, not reused (a write
      // racing the server's close would fail a request that never reached the server).
      if (c.queue.length === 0 && now - c.idleSinceMs > this.idleTimeoutMs) {
        c.closed = true;
        c.socket.destroy();
        this.all.delete(c);
        continue;
      }
      return c;
    }
  }

  private open(): void {
    this.ensureSweep();
    const c = new Connection(this, this.url);
    this.all.add(c);
    this.connecting++;
  }

  /** @internal */
  connectionReady(c: Connection): void {
    this.connecting--;
    c.idleSinceMs = this.nowMs();
    this.settleReady();
    this.connectionFree(c);
  }

  private settleReady(): void {
    if (this.connecting === 0 && this.readyWaiters.length > 0) for (const r of this.readyWaiters.splice(0)) r();
  }

  /** @internal A connection can take more: give it the oldest waiting request. */
  connectionFree(c: Connection): void {
    while (c.queue.length < this.pipelining && !c.closed) {
      const p = this.waiting[this.waitingHead];
      if (p === undefined) break;
      this.waiting[this.waitingHead] = undefined as unknown as Pending;
      this.waitingHead++;
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      c.write(p, this.nowMs());
    }
    if (this.waitingHead === this.waiting.length && this.waitingHead > 0) {
      this.waiting.length = 0;
      this.waitingHead = 0;
    }
    if (c.queue.length < this.pipelining && !c.closed && !c.listed) {
      c.listed = true;
      this.free.push(c);
    }
  }

  /**
   * Called after every answer is handed over (and its connection freed). The open-loop
   * scheduler hooks in here: one poll of the event loop can carry hundreds of answers, and
   * without a look at the schedule between them, starts due meanwhile wait for the end of
   * the whole batch (measured: 5-20 ms at 100-200 connections and 20,000 req/s).
   */
  afterAnswer: (() => void) | undefined;

  /** The server's keep-alive hint was read (servers send the same one on every answer). */
  hinted = false;

  /** @internal */
  serverKeepAliveHint(ms: number): void {
    this.hinted = true;
    // Reuse a connection only while the server still keeps it: 1 s below its hint.
    if (ms > 0) this.idleTimeoutMs = Math.min(this.opts.idleTimeoutMs ?? DEFAULT_IDLE_MS, Math.max(500, ms - 1000));
  }

  /** @internal A connection failed or closed: fail its requests, open another for waiters. */
  connectionGone(c: Connection, code: string, message: string): void {
    if (!this.all.delete(c)) return;
    if (!c.connected) {
      this.connecting--;
      this.settleReady();
    }
    const failed = c.drain();
    // A connection that never connected fails the requests waiting for one too (the target
    // is unreachable); requests already written fail with the socket's error.
    if (!c.connected) failed.push(...this.takeAllWaiting());
    for (const p of failed) p.handler.onError(code, message);
    if (!this.destroyed && this.waitingHead < this.waiting.length && this.all.size < this.opts.connections) this.open();
  }

  private takeAllWaiting(): Pending[] {
    const out = this.waiting.slice(this.waitingHead);
    this.waiting.length = 0;
    this.waitingHead = 0;
    return out;
  }

  private ensureSweep(): void {
    if (this.sweep) return;
    const every = Math.max(5, Math.min(1000, Math.floor(this.opts.requestTimeoutMs / 4)));
    this.sweep = setInterval(() => this.expire(), every);
    this.sweep.unref();
  }

  /** Fail requests older than the timeout (their connection is closed: its stream is lost). */
  private expire(): void {
    const now = this.nowMs();
    const limit = this.opts.requestTimeoutMs;
    for (const c of [...this.all]) {
      if (!c.connected) {
        if (now - c.openedAtMs > limit) c.fail('ETIMEDOUT', `could not connect within ${limit} ms`);
        continue;
      }
      const oldest = c.queue[0];
      if (oldest !== undefined && now - oldest.sentAtMs > limit) c.fail('TIMEOUT', `no complete answer within ${limit} ms`);
    }
  }

  /** Fail every request (written or waiting) with `code`, and close every connection. */
  abortAll(code: string, message: string): void {
    for (const p of this.takeAllWaiting()) p.handler.onError(code, message);
    for (const c of [...this.all]) c.fail(code, message);
  }

  destroy(): void {
    this.destroyed = true;
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = undefined;
    this.abortAll('ABORT_ERR', 'the pool was closed');
    // Emptied in place: a new array would change the field's hidden class, which throws away
    // every optimised function that reads it (measured: a de-optimisation cascade at the
    // start of the run that follows a warm-up's pool being destroyed).
    this.free.length = 0;
  }
}
