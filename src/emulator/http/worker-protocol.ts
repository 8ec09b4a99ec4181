// Real worker processes attached over the worker protocol of WIRE-COMPAT (job-take,
// job-take-batch, job-stop, job-done, job-stream, ping), as external workers of the endpoint's
// pool. job-take and job-stop long-poll (well under the worker's 90 s timeout); cancel,
// execution timeout and ttl reach a running job through job-stop, re-delivered until the
// worker's heartbeat or job-done shows the job gone (worker-stops.ts). A ping with
// status=unhealthy keeps the worker from jobs until a healthy ping.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorCore } from '../core.js';
import type { QueueEndpoint } from '../queue/endpoint.js';
import type { Job } from '../queue/job.js';
import { closeLingering, parseJson, readBody, sendError, sendJson } from '../json-io.js';
import { decodeSeg } from './queue-operations.js';
import type { WorkerRoutes } from '../server.js';
import type { Worker } from '../queue/worker-pool.js';

const OPS = new Set(['job-take', 'job-take-batch', 'job-stop', 'job-done', 'job-stream', 'ping']);
const MAX_BATCH = 64;
const RESULT_BODY_CAP_BYTES = 64 * 1000 * 1000;

function noContent(res: ServerResponse): void {
  res.writeHead(204);
  res.end();
}

/** An external worker silent for this many ping intervals is taken as lost. */
const MISSED_PINGS_LOST = 3;
/**
 * Real ms before a delivered, unconfirmed stop is answered again on job-stop. Above the ~100 ms
 * in which the official worker drops a stop for a job it just took, so the second delivery lands.
 */
export const STOP_REDELIVER_REAL_MS = 250;
/**
 * Real ms after the take before a heartbeat that omits a stopped job confirms it gone: a ping
 * composed before the worker saw the take (in flight meanwhile) must not settle the stop.
 */
export const STOP_CONFIRM_AFTER_TAKE_REAL_MS = 1_000;

export class WorkerProtocolRoutes implements WorkerRoutes {
  private sweeping = false;

  constructor(private readonly core: EmulatorCore) {}

  /** Emulated ms between liveness sweeps: one real ping interval of the worker (workerPingIntervalMs). */
  private get pingIntervalEmulatedMs(): number {
    return this.core.config.workerPingIntervalMs * this.core.clock.scale;
  }

  /** Every ping interval: external workers silent for 3 intervals are lost; their running jobs fail. */
  private startSweep(): void {
    if (this.sweeping) return;
    this.sweeping = true;
    const sweep = () => {
      const now = this.core.clock.now();
      const limit = MISSED_PINGS_LOST * this.pingIntervalEmulatedMs;
      for (const ep of this.core.endpoints.values()) {
        for (const w of [...ep.pool.workers.values()]) {
          if (w.kind === 'external' && w.lastSeenMs !== undefined && now - w.lastSeenMs > limit) {
            ep.workerGone(w, `worker ${w.id} lost: no call for more than ${MISSED_PINGS_LOST} ping intervals`);
          }
        }
      }
      this.core.clock.setTimer(this.pingIntervalEmulatedMs, sweep);
    };
    this.core.clock.setTimer(this.pingIntervalEmulatedMs, sweep);
  }

  owns(op: string): boolean {
    return OPS.has(op);
  }

  private worker(ep: QueueEndpoint, id: string): Worker {
    const w = ep.pool.attachExternal(id, MAX_BATCH);
    w.lastSeenMs = this.core.clock.now();
    this.startSweep();
    return w;
  }

  private jobOf(ep: QueueEndpoint, w: Worker, jobId: string): Job | undefined {
    const j = ep.get(jobId);
    return j !== undefined && j.workerId === w.id && j.status === 'IN_PROGRESS' ? j : undefined;
  }

  private describe(job: Job): Record<string, unknown> {
    const d: Record<string, unknown> = { id: job.id, input: job.input };
    if (job.webhook !== undefined) d['webhook'] = job.webhook;
    if (job.s3Config !== undefined) d['s3Config'] = job.s3Config;
    d['policy'] = { executionTimeout: job.executionTimeoutMs, ttl: job.ttlMs, lowPriority: job.lowPriority };
    return d;
  }

  async handle(ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, rest: string[], query: string): Promise<void> {
    const op = (req.url ?? '').split('?')[0]?.split('/')[3] ?? '';
    const workerId = decodeSeg(rest[0] ?? '');
    if (workerId === '') return sendError(res, 404, `/${op} needs a worker id: /v2/${ep.id}/${op}/{worker_id}`);
    const params = new URLSearchParams(query);
    const w = this.worker(ep, workerId);
    switch (op) {
      case 'ping':
        this.heartbeat(ep, w, params);
        return sendJson(res, 200, { ok: true, workerId });
      case 'job-stop':
        return this.jobStop(ep, w, res);
      case 'job-take':
      case 'job-take-batch': {
        const batch = op === 'job-take' ? 1 : Math.min(MAX_BATCH, Math.max(1, Number(params.get('batch_size') ?? '1') || 1));
        const closed = new AbortController();
        res.once('close', () => closed.abort());
        if (w.unhealthy === true) {
          // Held for the whole long-poll, not answered at once: an unhealthy worker asking in a
          // loop while jobs wait would spin.
          await this.core.clock.sleep(this.core.config.workerTakeLongPollMs * this.core.clock.scale, closed.signal).catch(() => {});
          if (closed.signal.aborted) return;
          if (w.unhealthy === true) return noContent(res);
        }
        let jobs = this.take(ep, w, batch);
        if (jobs.length === 0) {
          await ep.waitForQueued(this.core.config.workerTakeLongPollMs * this.core.clock.scale, closed.signal);
          if (closed.signal.aborted) return;
          jobs = this.take(ep, w, batch);
        }
        if (jobs.length === 0) return noContent(res);
        if (op === 'job-take') return sendJson(res, 200, this.describe(jobs[0] as Job));
        return sendJson(res, 200, jobs.map((j) => this.describe(j)));
      }
      case 'job-done':
      case 'job-stream': {
        const jobId = decodeSeg(rest[1] ?? '');
        const b = await readBody(req, RESULT_BODY_CAP_BYTES);
        if (b.kind === 'aborted') return;
        if (b.kind === 'too-large') return sendError(res, 413, `worker results are at most ${RESULT_BODY_CAP_BYTES} bytes`, undefined, closeLingering(req, RESULT_BODY_CAP_BYTES));
        const job = this.jobOf(ep, w, jobId);
        // The result of a job the worker was told to stop: the worker no longer runs it.
        if (!job && op === 'job-done') ep.confirmStopped(w, jobId);
        if (!job) return sendError(res, 404, `job ${jobId} is not running on worker ${workerId}`);
        const p = parseJson(b.body);
        if (!p.ok) return sendError(res, 400, p.error);
        const msg = (typeof p.value === 'object' && p.value !== null ? p.value : {}) as Record<string, unknown>;
        if (op === 'job-stream') {
          ep.emitChunk(job, job.attempt, msg['output']);
          return sendJson(res, 200, {});
        }
        if (msg['status'] === 'IN_PROGRESS') {
          ep.progress(job, job.attempt, msg['output']);
          return sendJson(res, 200, {});
        }
        const refresh = msg['stopPod'] === true;
        if (typeof msg['error'] === 'string' || (msg['error'] !== undefined && msg['error'] !== null)) {
          ep.finish(job, job.attempt, { kind: 'error', error: typeof msg['error'] === 'string' ? msg['error'] : JSON.stringify(msg['error']), refresh });
        } else {
          ep.finish(job, job.attempt, { kind: 'output', output: msg['output'], refresh });
        }
        return sendJson(res, 200, {});
      }
      default:
        return sendError(res, 404, `no such worker route ${op}`);
    }
  }

  /**
   * ping: `status=unhealthy` (a failed start-up check of the official worker) marks the worker
   * unhealthy, any other ping healthy; `job_id=a,b` lists the jobs it still runs, so a stop owed
   * for a job it no longer lists (taken long enough ago) is settled.
   */
  private heartbeat(ep: QueueEndpoint, w: Worker, params: URLSearchParams): void {
    w.unhealthy = params.get('status') === 'unhealthy';
    const list = params.get('job_id');
    if (list === null) return;
    const running = new Set(list.split(',').filter((id) => id !== ''));
    const now = this.core.clock.now();
    const marginMs = STOP_CONFIRM_AFTER_TAKE_REAL_MS * this.core.clock.scale;
    for (const owed of ep.stops.ofWorker(w.id)) {
      if (!running.has(owed.jobId) && now - owed.takenAtMs >= marginMs) ep.confirmStopped(w, owed.jobId);
    }
  }

  /**
   * job-stop: held open until a stop is owed to this worker (200 `{jobsToStop}`), or for
   * workerStopLongPollMs real ms (204); released when the client goes away or the emulator
   * closes. A delivered stop is answered again every STOP_REDELIVER_REAL_MS until confirmed.
   */
  private async jobStop(ep: QueueEndpoint, w: Worker, res: ServerResponse): Promise<void> {
    const closed = new AbortController();
    res.once('close', () => closed.abort());
    const clock = this.core.clock;
    const deadline = clock.now() + this.core.config.workerStopLongPollMs * clock.scale;
    const redeliverMs = STOP_REDELIVER_REAL_MS * clock.scale;
    for (;;) {
      const now = clock.now();
      const due = ep.stops.takeDue(w.id, now, redeliverMs);
      if (due.jobIds.length > 0) return sendJson(res, 200, { jobsToStop: due.jobIds });
      if (closed.signal.aborted) return;
      if (now >= deadline || ep.stops.isClosed) return noContent(res);
      await ep.stops.wait(w.id, Math.min(deadline, due.nextDueAtMs) - now, closed.signal);
    }
  }

  private take(ep: QueueEndpoint, w: Worker, n: number): Job[] {
    const out: Job[] = [];
    // A worker that left the pool (lost, recycled) or drains after stopPod takes nothing.
    // An unhealthy one takes nothing until it pings healthy.
    if (ep.pool.workers.get(w.id) !== w || w.state !== 'ready' || w.unhealthy === true) return out;
    while (out.length < n && w.jobs.size < w.capacity) {
      const job = ep.takeNext();
      if (!job) break;
      ep.start(job, w);
      out.push(job);
    }
    return out;
  }
}
