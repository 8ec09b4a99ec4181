// Issue 9: real worker processes attached over the worker protocol of WIRE-COMPAT
// (job-take, job-take-batch, job-stop, job-done, job-stream, ping), as external workers of
// the endpoint's pool. job-take long-polls briefly (well under the worker's 90 s timeout)
// and answers 204 when nothing is queued; cancel reaches a running job through job-stop.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorCore } from './core.js';
import type { QueueEndpoint } from './endpoint.js';
import type { Job } from './job.js';
import { parseJson, readBody, sendError, sendJson } from './http-io.js';
import { decodeSeg } from './queue-operations.js';
import type { WorkerRoutes } from './server.js';
import type { Worker } from './worker-pool.js';

const OPS = new Set(['job-take', 'job-take-batch', 'job-stop', 'job-done', 'job-stream', 'ping']);
const MAX_BATCH = 64;
const RESULT_BODY_CAP_BYTES = 64 * 1000 * 1000;

function noContent(res: ServerResponse): void {
  res.writeHead(204);
  res.end();
}

/** An external worker silent for this many ping intervals is taken as lost. */
const MISSED_PINGS_LOST = 3;

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
        // Stop signals for workers that left (lost, recycled) are never collected.
        for (const [jobId, owner] of ep.stopRequests) if (!ep.pool.workers.has(owner)) ep.stopRequests.delete(jobId);
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
        return sendJson(res, 200, { ok: true, workerId });
      case 'job-stop': {
        const stop: string[] = [];
        for (const [jobId, owner] of ep.stopRequests) if (owner === w.id) stop.push(jobId);
        for (const id of stop) ep.stopRequests.delete(id);
        if (stop.length === 0) return noContent(res);
        return sendJson(res, 200, { jobsToStop: stop });
      }
      case 'job-take':
      case 'job-take-batch': {
        const batch = op === 'job-take' ? 1 : Math.min(MAX_BATCH, Math.max(1, Number(params.get('batch_size') ?? '1') || 1));
        const closed = new AbortController();
        res.once('close', () => closed.abort());
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
        if (b.kind === 'too-large') return sendError(res, 413, `worker results are at most ${RESULT_BODY_CAP_BYTES} bytes`, undefined, { connection: 'close' });
        const job = this.jobOf(ep, w, jobId);
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

  private take(ep: QueueEndpoint, w: Worker, n: number): Job[] {
    const out: Job[] = [];
    // A worker that left the pool (lost, recycled) or drains after stopPod takes nothing.
    if (ep.pool.workers.get(w.id) !== w || w.state !== 'ready') return out;
    while (out.length < n && w.jobs.size < w.capacity) {
      const job = ep.takeNext();
      if (!job) break;
      ep.start(job, w);
      out.push(job);
    }
    return out;
  }
}
