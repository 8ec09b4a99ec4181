// The generator's HTTP side: one undici Pool per target origin with as many connections as
// the scenario may hold in flight (no hidden queueing in the client), JSON bodies, auth
// header per §5, and answers that never throw (a network failure is an outcome class).
import { Pool, util as undiciUtil } from 'undici';
import type { Dispatcher } from 'undici';
import { API_VERSIONS } from '../spec/index.js';
import type { HttpAnswer, LoadTarget, RequestSpec } from './context.js';
import { hrNowMs } from './recorder.js';

export interface TargetHttpOptions {
  readonly connections: number;
  readonly requestTimeoutMs: number;
}

/**
 * A FIFO of free connection slots. A request waits here (client-side queueing, counted in
 * corrected latency) until a connection is free, and its service time starts when it gets
 * one: the actual send, as wrk2 measures it.
 */
class SlotQueue {
  private free: number;
  // A FIFO with a moving head: shift() on a long array is O(n), and at 20,000 req/s a
  // stalled target can queue tens of thousands of requests here.
  private waiters: ((granted: boolean) => void)[] = [];
  private head = 0;
  constructor(size: number) {
    this.free = size;
  }
  /** Take a free slot now, if there is one. */
  tryAcquire(): boolean {
    if (this.free > 0) {
      this.free--;
      return true;
    }
    return false;
  }
  /** Wait for a slot (called with false when the run is aborted). */
  wait(granted: (granted: boolean) => void): void {
    this.waiters.push(granted);
  }
  release(): void {
    const next = this.waiters[this.head];
    if (next === undefined) {
      this.free++;
      return;
    }
    this.waiters[this.head] = undefined as unknown as (granted: boolean) => void;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
    next(true);
  }
  /** Refuse every waiting request (the run was aborted). */
  abortAll(): void {
    const waiting = this.waiters.slice(this.head);
    this.waiters = [];
    this.head = 0;
    for (const w of waiting) w(false);
  }
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

function answer(status: number | null, headers: HttpAnswer['headers'], bodyText: string, bytes: number, errorCode?: string): HttpAnswer {
  let parsed: { v: unknown } | undefined;
  return {
    status,
    headers,
    bodyText,
    bytes,
    ...(errorCode !== undefined ? { errorCode } : {}),
    json() {
      if (parsed === undefined) {
        try {
          parsed = { v: JSON.parse(bodyText) as unknown };
        } catch {
          parsed = { v: undefined };
        }
      }
      return parsed.v;
    },
  };
}

const errorCodeOf = (e: unknown): string => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : e instanceof Error ? e.name : String(e);
};

/**
 * A completed answer: headers are parsed and the body decoded only when read (most load
 * steps look at the status alone), so the hot path keeps the raw buffers undici handed over.
 */
class LazyAnswer implements HttpAnswer {
  private rawHeaders: Buffer[] | null;
  private chunks: Buffer[] | Buffer | null;
  private parsedHeaders: HttpAnswer['headers'] | undefined;
  private text: string | undefined;
  private parsed: { v: unknown } | undefined;
  constructor(
    readonly status: number,
    rawHeaders: Buffer[],
    chunks: Buffer[] | Buffer | null,
    readonly bytes: number,
  ) {
    this.rawHeaders = rawHeaders;
    this.chunks = chunks;
  }
  get headers(): HttpAnswer['headers'] {
    if (this.parsedHeaders === undefined) {
      this.parsedHeaders = undiciUtil.parseHeaders(this.rawHeaders ?? []);
      this.rawHeaders = null;
    }
    return this.parsedHeaders;
  }
  get bodyText(): string {
    if (this.text === undefined) {
      const c = this.chunks;
      this.text = c === null ? '' : Buffer.isBuffer(c) ? c.toString('utf8') : Buffer.concat(c).toString('utf8');
      this.chunks = null;
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

/** One request in flight: an undici dispatch handler (no promise chain, no body stream). */
class Exchange {
  abort: ((err: Error) => void) | null = null;
  private status = 0;
  private rawHeaders: Buffer[] = [];
  private chunks: Buffer[] | Buffer | null = null;
  private bytes = 0;
  private done = false;
  /** Set when the run was aborted before undici connected the request. */
  pendingAbort: Error | null = null;
  constructor(
    private readonly owner: TargetHttp,
    private readonly resolve: (a: HttpAnswer) => void,
  ) {}
  onConnect(abort: (err: Error) => void): void {
    if (this.pendingAbort) abort(this.pendingAbort);
    else this.abort = abort;
  }
  onHeaders(statusCode: number, headers: Buffer[]): boolean {
    this.status = statusCode;
    this.rawHeaders = headers;
    return true;
  }
  onData(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    const c = this.chunks;
    if (c === null) this.chunks = chunk;
    else if (Buffer.isBuffer(c)) this.chunks = [c, chunk];
    else c.push(chunk);
    return true;
  }
  onComplete(): void {
    if (this.done) return;
    this.done = true;
    this.owner.finished(this);
    this.resolve(new LazyAnswer(this.status, this.rawHeaders, this.chunks, this.bytes));
  }
  onError(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.owner.finished(this);
    this.resolve(answer(null, {}, '', 0, errorCodeOf(err)));
  }
  onUpgrade(): void {
    this.onError(new Error('unexpected upgrade'));
  }
}

export class TargetHttp {
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;
  private readonly slots: SlotQueue;
  /** Signals already wired to abortAll (one listener per signal, not per request). */
  private readonly hooked = new WeakSet<AbortSignal>();

  constructor(
    readonly target: LoadTarget,
    private readonly opts: TargetHttpOptions,
  ) {
    this.pool = new Pool(target.queueUrl, {
      connections: Math.max(1, opts.connections),
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.requestTimeoutMs,
      bodyTimeout: opts.requestTimeoutMs,
    });
    this.slots = new SlotQueue(Math.max(1, opts.connections));
    this.headers = { accept: 'application/json' };
    if (target.apiKey) this.headers['authorization'] = `Bearer ${target.apiKey}`;
  }

  /** Requests handed to undici and not yet answered (aborted with the run's signal). */
  private readonly inFlight = new Set<Exchange>();

  /** Send one request; `onSent` gets the moment a connection was free and it went out. */
  send(spec: RequestSpec, signal?: AbortSignal, onSent?: (sentMs: number) => void): Promise<HttpAnswer> {
    if (signal) {
      if (signal.aborted) return Promise.resolve(answer(null, {}, '', 0, 'ABORT_ERR'));
      if (!this.hooked.has(signal)) {
        this.hooked.add(signal);
        signal.addEventListener('abort', () => this.abortAll(signal.reason), { once: true });
      }
    }
    const options = this.optionsOf(spec);
    return new Promise<HttpAnswer>((resolve) => {
      if (this.slots.tryAcquire()) {
        this.dispatch(options, resolve, onSent);
        return;
      }
      this.slots.wait((granted) => {
        if (granted) this.dispatch(options, resolve, onSent);
        else resolve(answer(null, {}, '', 0, 'ABORT_ERR'));
      });
    });
  }

  private optionsOf(spec: RequestSpec): Dispatcher.DispatchOptions {
    let body: string | Buffer | undefined;
    let headers: Record<string, string> = this.headers;
    if (spec.headers !== undefined) headers = { ...this.headers, ...spec.headers };
    if (spec.body !== undefined) {
      body = typeof spec.body === 'string' || Buffer.isBuffer(spec.body) ? spec.body : JSON.stringify(spec.body);
      if (headers === this.headers) headers = { ...this.headers };
      headers['content-type'] ??= 'application/json';
    } else if (spec.method === 'POST') {
      if (headers === this.headers) headers = { ...this.headers };
      headers['content-type'] ??= 'application/json';
      body = '';
    }
    const path = buildPath(this.target, spec);
    return body !== undefined ? { path, method: spec.method, headers, body } : { path, method: spec.method, headers };
  }

  private dispatch(options: Dispatcher.DispatchOptions, resolve: (a: HttpAnswer) => void, onSent: ((sentMs: number) => void) | undefined): void {
    onSent?.(hrNowMs());
    const ex = new Exchange(this, resolve);
    this.inFlight.add(ex);
    try {
      this.pool.dispatch(options, ex);
    } catch (e) {
      ex.onError(e as Error);
    }
  }

  /** An exchange ended (answer or error): free its connection slot. */
  finished(ex: Exchange): void {
    if (this.inFlight.delete(ex)) this.slots.release();
  }

  private abortAll(reason: unknown): void {
    this.slots.abortAll();
    const err = reason instanceof Error ? reason : new Error('aborted');
    for (const ex of [...this.inFlight]) {
      if (ex.abort) ex.abort(err);
      else ex.pendingAbort = err;
    }
  }

  async close(): Promise<void> {
    await this.pool.close().catch(() => this.pool.destroy());
  }

  /** Abort everything in flight (after the graceful stop). */
  async destroy(): Promise<void> {
    this.slots.abortAll();
    await this.pool.destroy();
  }
}
