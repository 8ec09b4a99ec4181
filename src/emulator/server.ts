// The emulator's HTTP server (node:http): routing of the queue endpoint (§4.1 plus the
// WIRE-COMPAT routes status-sync, POST status/stream, openai, requests), auth (§5), the §8
// limits (429 with Retry-After) and payload caps, 400/401/404 answers naming the problem,
// the reserved /_qbench routes, and the sub-services (REST, GraphQL) for every other path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RUNSYNC_WAIT_MS, JOB_STATES, isTerminal, HTTP_STATUS, BYTES_PER_MB, EMULATOR_MB_READING } from '../spec/index.js';
import type { JobState, RateLimitedOperation } from '../spec/index.js';
import type { EmulatorCore } from './core.js';
import type { QueueEndpoint } from './endpoint.js';
import type { Job } from './job.js';
import { acceptableBodyType, discardRest, parseJson, readBody, sendError, sendJson, type BodyResult } from './http-io.js';
import { handleInfoRoute } from './info-routes.js';
import { UNLIMITED } from './rate-limiter.js';
import { OPENAI_ROUTES } from './handlers/openai.js';

const STATUS_CODES = { ...HTTP_STATUS, methodNotAllowed: 405, payloadTooLarge: 413, unsupportedMediaType: 415 } as const;

/** Bodies of operations that take none (cancel, retry, purge, status, ...) are read up to this and ignored. */
const SMALL_BODY_CAP_BYTES = 64 * 1024;
/** 'payload-cap-off' still refuses past this, so the fault cannot exhaust memory. */
const FAULT_HARD_CAP_BYTES = 256 * 1024 * 1024;
/** /requests page size: default and maximum. */
const REQUESTS_PAGE = { defaultLimit: 100, maxLimit: 1000 } as const;

type Route = 'run' | 'runsync' | 'status' | 'status-sync' | 'stream' | 'cancel' | 'retry' | 'purge-queue' | 'health' | 'requests' | 'openai';

interface RouteSpec {
  readonly methods: readonly string[];
  readonly op: RateLimitedOperation | undefined;
  readonly needsId: boolean;
}

const ROUTES: Readonly<Record<Route, RouteSpec>> = {
  run: { methods: ['POST'], op: 'run', needsId: false },
  runsync: { methods: ['POST'], op: 'runsync', needsId: false },
  status: { methods: ['GET', 'POST'], op: 'status', needsId: true },
  'status-sync': { methods: ['GET', 'POST'], op: 'status', needsId: true },
  stream: { methods: ['GET', 'POST'], op: 'stream', needsId: true },
  cancel: { methods: ['POST'], op: 'cancel', needsId: true },
  retry: { methods: ['POST'], op: undefined, needsId: true },
  'purge-queue': { methods: ['POST'], op: 'purge-queue', needsId: false },
  health: { methods: ['GET'], op: undefined, needsId: false },
  requests: { methods: ['GET'], op: 'requests', needsId: false },
  openai: { methods: ['POST', 'GET'], op: 'openai', needsId: false },
};

function isRoute(s: string): s is Route {
  return Object.hasOwn(ROUTES, s);
}

/** An AbortSignal that fires when the client goes away (long-polls stop waiting). */
function closedSignal(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.once('close', () => ac.abort());
  return ac.signal;
}

/** Routes of the worker protocol (issue 9), mounted under /v2/{endpoint_id}/ beside the client routes. */
export interface WorkerRoutes {
  owns(op: string): boolean;
  handle(ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, rest: string[], query: string): Promise<void>;
}

export class EmulatorHttp {
  private readonly rawKey: string;
  private readonly bearerKey: string;
  private readonly authOff: boolean;
  workerProtocol: WorkerRoutes | undefined;

  constructor(private readonly core: EmulatorCore) {
    this.rawKey = core.config.apiKey;
    this.bearerKey = `Bearer ${core.config.apiKey}`;
    this.authOff = core.faults.has('auth-off');
  }

  /** §5: the raw key or `Bearer <key>` (scheme case-insensitive). */
  authorized(header: string | undefined): boolean {
    if (header === undefined) return false;
    if (header === this.rawKey || header === this.bearerKey) return true;
    const m = /^bearer\s+(.+)$/i.exec(header.trim());
    return m !== null && m[1] === this.rawKey;
  }

  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    try {
      this.route(req, res);
    } catch (e) {
      this.internal(res, e);
    }
  };

  private internal(res: ServerResponse, e: unknown): void {
    if (!res.headersSent) sendError(res, STATUS_CODES.internalError, `internal emulator error: ${e instanceof Error ? e.message : String(e)}`);
    else res.destroy();
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (path.startsWith('/v2/')) {
      this.queue(req, res, path, query);
      return;
    }
    if (path === '/_qbench' || path.startsWith('/_qbench/')) {
      void handleInfoRoute(this.core, this, req, res, path, query).catch((e: unknown) => this.internal(res, e));
      return;
    }
    void this.subService(req, res, url).catch((e: unknown) => this.internal(res, e));
  }

  private async subService(req: IncomingMessage, res: ServerResponse, rawUrl: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(rawUrl, `http://${req.headers.host ?? '127.0.0.1'}`);
    } catch {
      sendError(res, STATUS_CODES.badRequest, 'malformed request URL');
      return;
    }
    for (const s of this.core.subServices) {
      if (await s.handle(req, res, parsed)) return;
    }
    sendError(res, STATUS_CODES.notFound, `no such route: ${req.method ?? 'GET'} ${parsed.pathname}; the queue endpoint lives under /v2/{endpoint_id}/, the emulator's own routes under /_qbench/`);
  }

  private queue(req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
    if (!this.authOff && !this.authorized(req.headers.authorization)) {
      sendError(res, STATUS_CODES.unauthorized, 'missing or wrong API key: send the header "authorization: <API_KEY>" or "authorization: Bearer <API_KEY>"');
      return;
    }
    const segs = path.slice(4).split('/');
    const epId = decodeSeg(segs[0] ?? '');
    let ep = this.core.endpoints.get(epId);
    if (!ep) {
      if (!this.core.faults.has('unknown-endpoint-ok') || epId === '') {
        sendError(res, STATUS_CODES.notFound, `unknown endpoint id "${epId}"`);
        return;
      }
      ep = this.core.defaultEndpoint;
    }
    const opName = segs[1] ?? '';
    if (this.workerProtocol?.owns(opName)) {
      void this.workerProtocol.handle(ep, req, res, segs.slice(2), query).catch((e: unknown) => this.internal(res, e));
      return;
    }
    if (!isRoute(opName)) {
      sendError(res, STATUS_CODES.notFound, `no such operation "${opName}" on /v2/${epId}/`);
      return;
    }
    const spec = ROUTES[opName];
    const method = req.method ?? 'GET';
    if (!spec.methods.includes(method)) {
      sendError(res, STATUS_CODES.methodNotAllowed, `${method} is not allowed on /${opName}; use ${spec.methods.join(' or ')}`, undefined, { allow: spec.methods.join(', ') });
      return;
    }
    const rest = segs.slice(2);
    let jobId = '';
    if (spec.needsId) {
      jobId = decodeSeg(rest[0] ?? '');
      if (jobId === '' || rest.length > 1) {
        sendError(res, STATUS_CODES.notFound, `/${opName} needs exactly one job id: /v2/${epId}/${opName}/{job_id}`);
        return;
      }
    } else if (opName !== 'openai' && rest.length > 0 && !(rest.length === 1 && rest[0] === '')) {
      sendError(res, STATUS_CODES.notFound, `no such route: /v2/${epId}/${segs.slice(1).join('/')}`);
      return;
    }
    if (spec.op !== undefined) {
      const adm = ep.limiter.admit(spec.op, ep.pool.busyCount);
      if (!adm.ok) {
        const what = adm.reason === 'rate' ? `more than ${adm.limit} requests per 10 s window` : `more than ${adm.limit} requests in flight`;
        sendError(res, STATUS_CODES.tooManyRequests, `rate limit exceeded on /${opName}: ${what}; retry after ${adm.retryAfterSec} s`, { operation: spec.op, reason: adm.reason, limit: adm.limit, retryAfterSec: adm.retryAfterSec }, { 'retry-after': String(adm.retryAfterSec) });
        return;
      }
      if (adm !== UNLIMITED) res.once('close', () => adm.release());
    }
    const endpoint = ep;
    const cap = this.capFor(opName);
    // Opt-in hold (POST /_qbench/limits `hold`): read once; undefined unless a test asked for one.
    const holdRealMs = spec.op === undefined || ep.limiter.holdRealMs === null ? undefined : ep.limiter.holdRealMs[spec.op];
    const body = readBody(req, cap);
    const go = (b: BodyResult) => {
      if (b.kind === 'aborted') return;
      if (b.kind === 'too-large') {
        this.tooLarge(req, res, opName, cap, b.declaredBytes);
        return;
      }
      const serve = () => {
        const r = this.operation(opName, endpoint, req, res, jobId, query, b.body, rest);
        if (r) r.catch((e: unknown) => this.internal(res, e));
      };
      if (holdRealMs === undefined) serve();
      else this.afterHold(res, holdRealMs, serve);
    };
    if (body instanceof Promise) body.then(go, (e: unknown) => this.internal(res, e));
    else go(body);
  }

  /** Serve after `realMs` of real time (the request keeps its concurrency slot); nothing if the client leaves first. */
  private afterHold(res: ServerResponse, realMs: number, serve: () => void): void {
    const onClose = () => timer.cancel();
    const timer = this.core.clock.setTimer(realMs * this.core.clock.scale, () => {
      res.off('close', onClose);
      if (res.destroyed) return;
      try {
        serve();
      } catch (e) {
        this.internal(res, e);
      }
    });
    res.once('close', onClose);
  }

  private capFor(op: Route): number {
    const l = this.core.config.limits;
    const off = this.core.faults.has('payload-cap-off');
    if (op === 'run') return off ? FAULT_HARD_CAP_BYTES : l.runPayloadBytes;
    if (op === 'runsync' || op === 'openai') return off ? FAULT_HARD_CAP_BYTES : l.runsyncPayloadBytes;
    return SMALL_BODY_CAP_BYTES;
  }

  private tooLarge(req: IncomingMessage, res: ServerResponse, op: Route, cap: number, declared: number | undefined): void {
    const mb = cap / BYTES_PER_MB[EMULATOR_MB_READING];
    sendError(res, STATUS_CODES.payloadTooLarge, `payload too large: /${op} accepts at most ${cap} bytes (${mb} MB)${declared !== undefined ? `, content-length says ${declared}` : ''}`, { limitBytes: cap });
    discardRest(req, cap);
  }

  private operation(op: Route, ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, jobId: string, query: string, body: Buffer, rest: string[]): Promise<void> | undefined {
    switch (op) {
      case 'run':
      case 'runsync':
        return this.submit(op, ep, req, res, query, body);
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

  private async submit(op: 'run' | 'runsync', ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, query: string, body: Buffer): Promise<void> {
    if (!acceptableBodyType(req)) {
      sendError(res, STATUS_CODES.unsupportedMediaType, `content-type "${req.headers['content-type'] ?? ''}" is not accepted; send the job as application/json`);
      return;
    }
    const params = query === '' ? undefined : new URLSearchParams(query);
    let waitMs: number | undefined;
    if (op === 'runsync') {
      const w = this.core.validator.waitQuery(params?.get('wait') ?? null);
      if (!w.ok) return this.badRequest(res, w.error, w.issues);
      waitMs = w.value;
    }
    const parsed = parseJson(body);
    if (!parsed.ok) {
      sendError(res, STATUS_CODES.badRequest, parsed.error);
      return;
    }
    const jb = this.core.validator.jobBody(parsed.value);
    if (!jb.ok) return this.badRequest(res, jb.error, jb.issues);
    const job = ep.submit(op, { ...jb.value, waitMs });
    if (op === 'run') {
      sendJson(res, STATUS_CODES.ok, { id: job.id, status: this.core.faults.has('run-answer-wrong-status') ? 'QUEUED' : 'IN_QUEUE' });
      return;
    }
    await ep.waitUntil(job, waitMs ?? RUNSYNC_WAIT_MS.defaultValue, () => isTerminal(job.status), closedSignal(res));
    this.answerRecord(ep, res, job);
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
    const job = ep.submit('runsync', { input: { openai_route: route, openai_input: openaiInput } });
    const closed = closedSignal(res);
    const streaming = typeof openaiInput === 'object' && openaiInput !== null && (openaiInput as Record<string, unknown>)['stream'] === true;
    if (streaming) {
      res.writeHead(STATUS_CODES.ok, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const deadline = this.core.clock.now() + RUNSYNC_WAIT_MS.defaultValue;
      while (!closed.aborted && ep.get(job.id) === job) {
        await ep.waitUntil(job, deadline - this.core.clock.now(), () => ep.streamReady(job), closed);
        const take = ep.takeStream(job);
        for (const c of take.stream) res.write(`data: ${JSON.stringify(c.output)}\n\n`);
        if (isTerminal(take.status) || this.core.clock.now() >= deadline) {
          if (take.status === 'FAILED') res.write(`data: ${JSON.stringify({ error: { message: job.error ?? 'job failed', type: 'server_error' } })}\n\n`);
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

function decodeSeg(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
