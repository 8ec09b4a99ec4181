// §6 webhooks: when a job ends, POST its status record (WIRE-COMPAT) to the job's webhook.
// A non-200 answer, refused connection or timeout is retried 2 more times, 10 s apart on the
// emulator clock. Deliveries run off the request path in a bounded pool: they never block
// the queue, and a backlog beyond `maxPending` is dropped and counted.
import { Agent, request } from 'undici';
import { WEBHOOK, SECOND_MS } from '../../spec/index.js';
import type { Clock } from '../clock.js';
import type { FaultSet } from '../faults.js';

export interface WebhookCounters {
  queued: number;
  attempts: number;
  delivered: number;
  failedAttempts: number;
  /** Deliveries that failed every attempt. */
  abandoned: number;
  dropped: number;
  pending: number;
  inFlight: number;
}

interface Delivery {
  url: string;
  body: string;
  attempt: number;
}

export interface WebhookOptions {
  clock: Clock;
  faults: FaultSet;
  maxConcurrent: number;
  maxPending: number;
  attemptTimeoutMs: number;
  /** Told of a record that could not be serialized (the delivery is dropped and counted). */
  onError?: (e: unknown) => void;
}

export class WebhookDispatcher {
  private readonly queue: Delivery[] = [];
  private head = 0;
  /** Made on the first delivery: a core that sends none (the discrete-event mode) holds no pool. */
  private agent: Agent | undefined;
  private closed = false;
  readonly counters: WebhookCounters = { queued: 0, attempts: 0, delivered: 0, failedAttempts: 0, abandoned: 0, dropped: 0, pending: 0, inFlight: 0 };
  private readonly timers = new Set<{ cancel(): void }>();

  constructor(private readonly opts: WebhookOptions) {}

  private dispatcher(): Agent {
    this.agent ??= new Agent({
      connections: this.opts.maxConcurrent,
      headersTimeout: this.opts.attemptTimeoutMs,
      bodyTimeout: this.opts.attemptTimeoutMs,
      connectTimeout: this.opts.attemptTimeoutMs,
    });
    return this.agent;
  }

  /** Attempts in all: the first call plus the §6 retries (none under 'webhook-not-retried'). */
  get maxAttempts(): number {
    return 1 + (this.opts.faults.has('webhook-not-retried') ? 0 : WEBHOOK.extraAttempts);
  }

  /** Emulated ms between attempts (1 s under 'webhook-retry-fast'). */
  get retryDelayMs(): number {
    return this.opts.faults.has('webhook-retry-fast') ? SECOND_MS : WEBHOOK.retryDelayMs;
  }

  send(url: string, record: unknown): void {
    if (this.closed) return;
    this.counters.queued += 1;
    let body: string;
    try {
      body = JSON.stringify(record);
    } catch (e) {
      this.counters.dropped += 1;
      this.opts.onError?.(e);
      return;
    }
    this.enqueue({ url, body, attempt: 1 });
  }

  private enqueue(d: Delivery): void {
    if (this.counters.pending >= this.opts.maxPending) {
      this.counters.dropped += 1;
      return;
    }
    this.queue.push(d);
    this.counters.pending += 1;
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.counters.inFlight < this.opts.maxConcurrent && this.head < this.queue.length) {
      const d = this.queue[this.head] as Delivery;
      this.queue[this.head] = undefined as unknown as Delivery;
      this.head += 1;
      this.counters.pending -= 1;
      this.counters.inFlight += 1;
      void this.attempt(d).finally(() => {
        this.counters.inFlight -= 1;
        this.pump();
      });
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private async attempt(d: Delivery): Promise<void> {
    this.counters.attempts += 1;
    let ok: boolean;
    try {
      const res = await request(d.url, {
        method: 'POST',
        body: d.body,
        headers: { 'content-type': 'application/json' },
        dispatcher: this.dispatcher(),
      });
      ok = res.statusCode === WEBHOOK.expectedStatus;
      // Drain so the connection is reused; the receiver's answer body is not used.
      await res.body.dump();
    } catch {
      ok = false;
    }
    if (ok) {
      this.counters.delivered += 1;
      return;
    }
    this.counters.failedAttempts += 1;
    if (d.attempt >= this.maxAttempts || this.closed) {
      this.counters.abandoned += 1;
      return;
    }
    const handle = this.opts.clock.setTimer(this.retryDelayMs, () => {
      this.timers.delete(handle);
      this.enqueue({ ...d, attempt: d.attempt + 1 });
    });
    this.timers.add(handle);
  }

  /** Drop pending deliveries and retries (reset), keep the dispatcher usable. */
  reset(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.queue.length = 0;
    this.head = 0;
    this.counters.pending = 0;
    for (const k of ['queued', 'attempts', 'delivered', 'failedAttempts', 'abandoned', 'dropped'] as const) this.counters[k] = 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.queue.length = 0;
    this.head = 0;
    this.counters.pending = 0;
    await this.agent?.destroy();
  }
}
