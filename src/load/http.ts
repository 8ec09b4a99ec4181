// The generator's HTTP side: one undici Pool per target origin with as many connections as
// the scenario may hold in flight (no hidden queueing in the client), JSON bodies, auth
// header per §5, and answers that never throw (a network failure is an outcome class).
import { Pool } from 'undici';
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
  acquire(): Promise<boolean> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
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

  /** Send one request; `onSent` gets the moment a connection was free and it went out. */
  async send(spec: RequestSpec, signal?: AbortSignal, onSent?: (sentMs: number) => void): Promise<HttpAnswer> {
    let body: string | Buffer | undefined;
    const headers: Record<string, string> = { ...this.headers, ...spec.headers };
    if (spec.body !== undefined) {
      body = typeof spec.body === 'string' || Buffer.isBuffer(spec.body) ? spec.body : JSON.stringify(spec.body);
      headers['content-type'] ??= 'application/json';
    } else if (spec.method === 'POST') {
      headers['content-type'] ??= 'application/json';
      body = '';
    }
    const options: Dispatcher.RequestOptions = {
      path: buildPath(this.target, spec),
      method: spec.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(signal ? { signal } : {}),
    };
    if (signal) {
      if (signal.aborted) return answer(null, {}, '', 0, 'ABORT_ERR');
      if (!this.hooked.has(signal)) {
        this.hooked.add(signal);
        signal.addEventListener('abort', () => this.slots.abortAll(), { once: true });
      }
    }
    if (!(await this.slots.acquire())) return answer(null, {}, '', 0, 'ABORT_ERR');
    onSent?.(hrNowMs());
    try {
      const res = await this.pool.request(options);
      const text = await res.body.text();
      return answer(res.statusCode, res.headers, text, Buffer.byteLength(text));
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      return answer(null, {}, '', 0, typeof code === 'string' ? code : (e as Error).name);
    } finally {
      this.slots.release();
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
