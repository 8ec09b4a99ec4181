// The queue endpoint's operations (§4.1 plus the WIRE-COMPAT routes status-sync, POST
// status/stream, openai, requests), served once ../server.ts has routed, authenticated and
// admitted a request and read its body within the payload cap.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RUNSYNC_WAIT_MS, JOB_STATES, isTerminal, HTTP_STATUS } from '../../spec/index.js';
import type { JobState } from '../../spec/index.js';
import type { EmulatorCore } from '../core.js';
import type { QueueEndpoint } from '../queue/endpoint.js';
import type { Job } from '../queue/job.js';
import { acceptableBodyType, parseJson, sendError, sendJson } from '../json-io.js';
import { OPENAI_ROUTES } from '../queue/handlers/openai.js';

const STATUS_CODES = { ...HTTP_STATUS, unsupportedMediaType: 415 } as const;

/** /requests page size: default and maximum. */
const REQUESTS_PAGE = { defaultLimit: 100, maxLimit: 1000 } as const;

export type QueueOperation = 'run' | 'runsync' | 'status' | 'status-sync' | 'stream' | 'cancel' | 'retry' | 'purge-queue' | 'health' | 'requests' | 'openai';

/** An AbortSignal that fires when the client goes away (long-polls stop waiting). */
function closedSignal(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.once('close', () => ac.abort());
  return ac.signal;
}

/** A path segment, percent-decoded when it decodes (left as sent when it does not). */
export function decodeSeg(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export class QueueOperations {
  constructor(private readonly core: EmulatorCore) {}

  /** Serve one admitted request whose body has been read (empty for operations without one). */
  operation(op: QueueOperation, ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, jobId: string, query: string, body: Buffer, rest: string[]): Promise<void> | undefined {
    switch (op) {
      case 'run':
        this.run(ep, req, res, body);
        return undefined;
      case 'runsync':
        return this.runsync(ep, req, res, query, body);
      case 'status':
        this.status(ep, res, jobId, query);
        return undefined;
      case 'status-sync':
        return this.statusSync(ep, res, jobId, query);
      case 'stream':
        return this.stream(ep, res, jobId);
      case 'cancel': {
        const r = ep.cancel(jobId);
        if (r.ok) sendJson(res, STATUS_CODES.ok, { id: r.id, status: r.status });
        else if (r.reason === 'not-found') this.noJob(res, jobId);
        else sendError(res, STATUS_CODES.badRequest, `job ${jobId} is ${r.status}; cancel applies to IN_QUEUE or IN_PROGRESS jobs`, { id: jobId, status: r.status });
        return undefined;
      }
      case 'retry': {
        const r = ep.retry(jobId);
        if (r.ok) sendJson(res, STATUS_CODES.ok, { id: r.id, status: r.status });
        else if (r.reason === 'not-found') this.noJob(res, jobId);
        else sendError(res, STATUS_CODES.badRequest, `job ${jobId} is ${r.status}; retry is accepted only from FAILED or TIMED_OUT`, { id: jobId, status: r.status });
        return undefined;
      }
      case 'purge-queue': {
        const removed = ep.purge();
        sendJson(res, STATUS_CODES.ok, { removed, status: this.core.faults.has('purge-wrong-status-word') ? 'COMPLETED' : 'completed' });
        return undefined;
      }
      case 'health':
        sendJson(res, STATUS_CODES.ok, ep.health());
        return undefined;
      case 'requests':
        this.requests(ep, res, query);
        return undefined;
      case 'openai':
        return this.openai(ep, req, res, rest, body);
    }
  }

  private noJob(res: ServerResponse, jobId: string): void {
    sendError(res, STATUS_CODES.notFound, `job ${jobId} not found: unknown, expired (ttl or retention) or purged`, { id: jobId });
  }

  private badRequest(res: ServerResponse, error: string, issues: unknown): void {
    sendError(res, STATUS_CODES.badRequest, error, { issues });
  }

  /** /run: the job is queued and answered at once, without a promise (the hot path of a load test). */
  private run(ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    if (this.refusedType(req, res)) return;
    const job = this.accept('run', ep, res, body, undefined);
    if (job === undefined) return;
    sendJson(res, STATUS_CODES.ok, { id: job.id, status: this.core.faults.has('run-answer-wrong-status') ? 'QUEUED' : 'IN_QUEUE' });
  }

  private async runsync(ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, query: string, body: Buffer): Promise<void> {
    if (this.refusedType(req, res)) return;
    const w = this.core.validator.waitQuery(query === '' ? null : new URLSearchParams(query).get('wait'));
    if (!w.ok) return this.badRequest(res, w.error, w.issues);
    const waitMs = w.value;
    const job = this.accept('runsync', ep, res, body, waitMs);
    if (job === undefined) return;
    await ep.waitUntil(job, waitMs ?? RUNSYNC_WAIT_MS.defaultValue, () => isTerminal(job.status), closedSignal(res));
    this.answerRecord(ep, res, job);
  }

  /** A job body's content type is not JSON (or what clients send for JSON text): answered 415. */
  private refusedType(req: IncomingMessage, res: ServerResponse): boolean {
    if (acceptableBodyType(req)) return false;
    sendError(res, STATUS_CODES.unsupportedMediaType, `content-type "${req.headers['content-type'] ?? ''}" is not accepted; send the job as application/json`);
    return true;
  }

  /** Check a job body's JSON and schema and submit it; undefined once a 400 is answered. */
  private accept(op: 'run' | 'runsync', ep: QueueEndpoint, res: ServerResponse, body: Buffer, waitMs: number | undefined): Job | undefined {
    const parsed = parseJson(body);
    if (!parsed.ok) {
      sendError(res, STATUS_CODES.badRequest, parsed.error);
      return undefined;
    }
    const jb = this.core.validator.jobBody(parsed.value);
    if (!jb.ok) {
      this.badRequest(res, jb.error, jb.issues);
      return undefined;
    }
    // Named fields, not a spread: one object shape for submit (a spread of the validated body
    // made every /run a slow property definition and a missed load).
    const v = jb.value;
    return ep.submit(op, { input: v.input, webhook: v.webhook, s3Config: v.s3Config, policy: v.policy, waitMs });
  }

  private answerRecord(ep: QueueEndpoint, res: ServerResponse, job: Job): void {
    if (ep.get(job.id) !== job) this.noJob(res, job.id);
    else sendJson(res, STATUS_CODES.ok, ep.record(job));
  }

  private status(ep: QueueEndpoint, res: ServerResponse, jobId: string, query: string): void {
    let ttl: number | undefined;
    if (query !== '') {
      const t = this.core.validator.ttlQuery(new URLSearchParams(query).get('ttl'));
      if (!t.ok) return this.badRequest(res, t.error, t.issues);
      ttl = t.value;
    }
    const job = ep.get(jobId);
    if (!job) {
      if (this.core.faults.has('unknown-job-ok')) sendJson(res, STATUS_CODES.ok, { id: jobId, status: 'IN_QUEUE' });
      else this.noJob(res, jobId);
      return;
    }
    const record = ep.record(job);
    if (ttl !== undefined) ep.setTtl(job, ttl);
    sendJson(res, STATUS_CODES.ok, record);
  }

  private async statusSync(ep: QueueEndpoint, res: ServerResponse, jobId: string, query: string): Promise<void> {
    const w = this.core.validator.waitQuery(query === '' ? null : new URLSearchParams(query).get('wait'));
    if (!w.ok) return this.badRequest(res, w.error, w.issues);
    const job = ep.get(jobId);
    if (!job) return this.noJob(res, jobId);
    await ep.waitUntil(job, w.value ?? RUNSYNC_WAIT_MS.defaultValue, () => isTerminal(job.status), closedSignal(res));
    this.answerRecord(ep, res, job);
  }

  private async stream(ep: QueueEndpoint, res: ServerResponse, jobId: string): Promise<void> {
    const job = ep.get(jobId);
    if (!job) return this.noJob(res, jobId);
    if (!ep.streamReady(job)) {
      // Long-poll: the JS SDK calls /stream in a tight loop. The wait is real time.
      const waitMs = this.core.config.stream.longPollMs * this.core.clock.scale;
      await ep.waitUntil(job, waitMs, () => ep.streamReady(job), closedSignal(res));
    }
    if (ep.get(jobId) !== job) return this.noJob(res, jobId);
    if (res.destroyed) return;
    sendJson(res, STATUS_CODES.ok, ep.takeStream(job));
  }

  private requests(ep: QueueEndpoint, res: ServerResponse, query: string): void {
    const p = new URLSearchParams(query);
    const limitRaw = p.get('limit');
    let limit: number = REQUESTS_PAGE.defaultLimit;
    if (limitRaw !== null) {
      const n = /^\d+$/.test(limitRaw) ? Number(limitRaw) : NaN;
      if (!(n >= 1 && n <= REQUESTS_PAGE.maxLimit)) {
        sendError(res, STATUS_CODES.badRequest, `limit must be an integer from 1 to ${REQUESTS_PAGE.maxLimit}`, { issues: [{ path: 'limit', message: 'out of range' }] });
        return;
      }
      limit = n;
    }
    const statusRaw = p.get('status');
    if (statusRaw !== null && !(JOB_STATES as readonly string[]).includes(statusRaw)) {
      sendError(res, STATUS_CODES.badRequest, `status must be one of ${JOB_STATES.join(', ')}`, { issues: [{ path: 'status', message: 'unknown job state' }] });
      return;
    }
    const { jobs, total } = ep.listJobs(limit, (statusRaw ?? undefined) as JobState | undefined);
    sendJson(res, STATUS_CODES.ok, {
      requests: jobs.map((j) => ({ ...ep.record(j), kind: j.kind, submittedAt: new Date(j.submittedAtMs).toISOString(), lowPriority: j.lowPriority })),
      total,
      limit,
    });
  }

  private async openai(ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, rest: string[], body: Buffer): Promise<void> {
    const route = `/${rest.map(decodeSeg).join('/')}`;
    if (!OPENAI_ROUTES.has(route)) {
      sendError(res, STATUS_CODES.notFound, `no such OpenAI route ${route}; supported: ${[...OPENAI_ROUTES].map((r) => `/openai${r}`).join(', ')}`);
      return;
    }
    let openaiInput: unknown = null;
    if (req.method === 'POST') {
      if (!acceptableBodyType(req)) {
        sendError(res, STATUS_CODES.unsupportedMediaType, 'send the OpenAI request as application/json');
        return;
      }
      if (body.length > 0) {
        const parsed = parseJson(body);
        if (!parsed.ok) {
          sendError(res, STATUS_CODES.badRequest, parsed.error);
          return;
        }
        openaiInput = parsed.value;
      }
    }
    // An endpoint whose simulated workers run an engine refuses what the engine cannot serve before
    // any job, as vLLM answers 400 (external workers judge their own requests).
    const refused = ep.pool.settings.simulated ? ep.model.engine?.parseOpenAi(route, openaiInput) : undefined;
    if (refused?.ok === false) {
      sendError(res, STATUS_CODES.badRequest, refused.error, { type: 'BadRequestError', param: refused.field });
      return;
    }
    const job = ep.submit('runsync', { input: { openai_route: route, openai_input: openaiInput } });
    const closed = closedSignal(res);
    const streaming = typeof openaiInput === 'object' && openaiInput !== null && (openaiInput as Record<string, unknown>)['stream'] === true;
    if (streaming) {
      res.writeHead(STATUS_CODES.ok, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // An engine's stream lasts as long as its generation (its job's ttl ends it at worst); the
      // mock handler's is cut at the /runsync wait, as it always was.
      const deadline = this.core.clock.now() + (ep.model.engine === undefined ? RUNSYNC_WAIT_MS.defaultValue : job.ttlMs);
      while (!closed.aborted && ep.get(job.id) === job) {
        await ep.waitUntil(job, deadline - this.core.clock.now(), () => ep.streamReady(job), closed);
        const take = ep.takeStream(job);
        // The chunks of one take (an engine's batch of events, or chunks due together) go in one write.
        if (take.stream.length > 0) {
          let events = '';
          for (const c of take.stream) events += `data: ${JSON.stringify(c.output)}\n\n`;
          res.write(events);
        }
        if (isTerminal(job.status) || this.core.clock.now() >= deadline) {
          if (job.status === 'FAILED') res.write(`data: ${JSON.stringify({ error: { message: job.error ?? 'job failed', type: 'server_error' } })}\n\n`);
          break;
        }
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    await ep.waitUntil(job, RUNSYNC_WAIT_MS.defaultValue, () => isTerminal(job.status), closed);
    if (ep.get(job.id) !== job) return this.noJob(res, job.id);
    if (job.status === 'COMPLETED') sendJson(res, STATUS_CODES.ok, job.output);
    else if (isTerminal(job.status)) sendError(res, STATUS_CODES.internalError, job.error ?? `job ${job.status}`, { id: job.id, status: job.status });
    else sendJson(res, STATUS_CODES.ok, { id: job.id, status: job.status });
  }
}
