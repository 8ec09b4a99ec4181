// The load generator's own HTTP/1.1 client, built for speed: keep-alive connections that
// write a pre-serialised request head and hand the socket's buffers to the response parser
// (src/load/h1-parser.ts), with optional pipelining, one sweep timer for request timeouts and no
// per-request promise, timer or header object. It exists because the generator's cost per
// request is the measurement's budget: at 20,000 req/s on one core, the undici dispatch path
// used the whole core (about 50 us a request) and started requests hundreds of ms late; this
// one costs a fraction of that. The typed clients of src/client keep undici: there, features
// matter more than microseconds.
import net from 'node:net';
import tls from 'node:tls';
import { H1Error, H1ResponseParser, type H1AnswerSink, type H1ParseError, type H1Response } from './h1-parser.js';

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

const DEFAULT_IDLE_MS = 4_000;

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

interface Pending {
  readonly req: H1Request;
  readonly handler: H1Handler;
  sentAtMs: number;
}

/** One keep-alive connection: its socket, the requests written on it, and its answers' parser. */
class Connection implements H1AnswerSink {
  readonly socket: net.Socket;
  /** Requests written and not yet answered, oldest first. */
  readonly queue: Pending[] = objectArray();
  connected = false;
  closed = false;
  /** In the pool's free list. */
  listed = false;
  readonly openedAtMs: number;
  idleSinceMs = 0;
  private readonly parser: H1ResponseParser = new H1ResponseParser(this);

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
    this.socket.on('data', (chunk: Buffer) => this.parser.feed(chunk));
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

  get wantsKeepAliveHint(): boolean {
    return !this.pool.hinted;
  }

  keepAliveHint(ms: number): void {
    this.pool.serverKeepAliveHint(ms);
  }

  pendingIsHead(): boolean | undefined {
    const current = this.queue[0];
    return current === undefined ? undefined : current.req.isHead === true;
  }

  answer(res: H1Response, closeAfter: boolean): void {
    const p = this.queue.shift()!;
    if (closeAfter) {
      this.closed = true;
      this.socket.destroy();
      this.pool.connectionGone(this, 'ECONNRESET', 'the server closed the connection (Connection: close) with requests pipelined on it');
    } else if (this.queue.length === 0) this.idleSinceMs = this.pool.nowMs();
    p.handler.onResponse(res);
    if (!this.closed) this.pool.connectionFree(this);
    this.pool.afterAnswer?.();
  }

  parseError(e: H1ParseError): void {
    this.fail(e.code, e.message);
  }

  private onEnd(): void {
    // A close-delimited body ends here; any other answer was cut off.
    if (this.parser.end()) return;
    this.fail('ECONNRESET', 'the server closed the connection before the answer was complete');
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
