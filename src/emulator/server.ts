// The emulator's HTTP server (node:http): routing of the queue endpoint (§4.1 plus the
// WIRE-COMPAT routes status-sync, POST status/stream, openai, requests), auth (§5), the §8
// limits (429 with Retry-After) and payload caps, 400/401/404 answers naming the problem,
// the reserved /_qbench routes, and the sub-services (REST, GraphQL) for every other path.
// The operations themselves live in http/queue-operations.ts. An exception anywhere in a handler
// becomes a 500 `{error}` answer and an incident counted in /_qbench/info, never a crash.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_STATUS, BYTES_PER_MB, EMULATOR_MB_READING } from '../spec/index.js';
import type { RateLimitedOperation } from '../spec/index.js';
import { headerAuthorizes } from './auth.js';
import type { EmulatorCore } from './core.js';
import { closeIfBodyPending, closeLingering, readBodyThen, sendError } from './json-io.js';
import { handleInfoRoute } from './info-routes.js';
import { UNLIMITED } from './queue/index.js';
import type { QueueEndpoint } from './queue/index.js';
import { QueueOperations, decodeSeg, type QueueOperation } from './http/queue-operations.js';

const STATUS_CODES = { ...HTTP_STATUS, methodNotAllowed: 405, payloadTooLarge: 413 } as const;

/** Bodies of operations that take none (cancel, retry, purge, status, ...) are read up to this and ignored. */
const SMALL_BODY_CAP_BYTES = 64 * 1024;
/** 'payload-cap-off' still refuses past this, so the fault cannot exhaust memory. */
const FAULT_HARD_CAP_BYTES = 256 * 1024 * 1024;
type Route = QueueOperation;

/** The path segments after the operation when there are none (shared: nobody writes to it). */
const NO_SEGMENTS: string[] = [];

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

/** Routes of the worker protocol, mounted under /v2/{endpoint_id}/ beside the client routes. */
export interface WorkerRoutes {
  owns(op: string): boolean;
  handle(ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, rest: string[], query: string): Promise<void>;
}

export class EmulatorHttp {
  private readonly authOff: boolean;
  private readonly operations: QueueOperations;
  workerProtocol: WorkerRoutes | undefined;

  constructor(private readonly core: EmulatorCore) {
    this.authOff = core.faults.has('auth-off');
    this.operations = new QueueOperations(core);
  }

  /** §5: the raw key or `Bearer <key>` (scheme case-insensitive), compared in constant time. */
  authorized(header: string | undefined): boolean {
    return headerAuthorizes(header, this.core.config.apiKey);
  }

  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    try {
      this.route(req, res);
    } catch (e) {
      this.internal(req, res, e);
    }
  };

  /** An exception while serving `req`: a 500 `{error}` when nothing was sent yet, the connection cut otherwise; counted and logged. */
  private internal(req: IncomingMessage, res: ServerResponse, e: unknown): void {
    this.core.incidents.record('request', e, `${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0] ?? '/'}`);
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    try {
      sendError(res, STATUS_CODES.internalError, 'internal emulator error: the request could not be served; the emulator keeps running (see internalErrors in GET /_qbench/info)', undefined, { connection: 'close' });
    } catch {
      res.destroy();
    }
  }

  /** Run a handler's promise, turning a rejection into the 500 answer. */
  private guard(req: IncomingMessage, res: ServerResponse, p: Promise<void> | undefined): void {
    if (p) p.catch((e: unknown) => this.internal(req, res, e));
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    // HTTP/1.1 requires Host (RFC 9112 §3.2); node's own check answers with an empty body.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      sendError(res, STATUS_CODES.badRequest, 'missing Host header: HTTP/1.1 requests must carry one', undefined, { connection: 'close' });
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (path.startsWith('/v2/')) {
      this.queue(req, res, path, query);
      return;
    }
    if (path === '/_qbench' || path.startsWith('/_qbench/')) {
      this.guard(req, res, handleInfoRoute(this.core, req, res, path, query));
      return;
    }
    this.guard(req, res, this.subService(req, res, url));
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
      sendError(res, STATUS_CODES.unauthorized, 'missing or wrong API key: send the header "authorization: <API_KEY>" or "authorization: Bearer <API_KEY>"', undefined, closeIfBodyPending(req));
      return;
    }
    // /v2/{endpoint}/{operation}/{rest...}, cut at its first two slashes (no array for the usual /run).
    const epEnd = path.indexOf('/', 4);
    const epId = decodeSeg(epEnd < 0 ? path.slice(4) : path.slice(4, epEnd));
    let ep = this.core.endpoints.get(epId);
    if (!ep) {
      if (!this.core.faults.has('unknown-endpoint-ok') || epId === '') {
        sendError(res, STATUS_CODES.notFound, `unknown endpoint id "${epId}"`);
        return;
      }
      ep = this.core.defaultEndpoint;
    }
    const opEnd = epEnd < 0 ? -1 : path.indexOf('/', epEnd + 1);
    const opName = epEnd < 0 ? '' : opEnd < 0 ? path.slice(epEnd + 1) : path.slice(epEnd + 1, opEnd);
    const rest = opEnd < 0 ? NO_SEGMENTS : path.slice(opEnd + 1).split('/');
    if (this.workerProtocol?.owns(opName)) {
      this.guard(req, res, this.workerProtocol.handle(ep, req, res, rest, query));
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
    let jobId = '';
    if (spec.needsId) {
      jobId = decodeSeg(rest[0] ?? '');
      if (jobId === '' || rest.length > 1) {
        sendError(res, STATUS_CODES.notFound, `/${opName} needs exactly one job id: /v2/${epId}/${opName}/{job_id}`);
        return;
      }
    } else if (opName !== 'openai' && rest.length > 0 && !(rest.length === 1 && rest[0] === '')) {
      sendError(res, STATUS_CODES.notFound, `no such route: /v2/${epId}/${path.slice(epEnd + 1)}`);
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
    readBodyThen(req, cap, (b) => {
      // Called from a stream event once the body arrived: a throw here must become the 500 answer.
      try {
        if (b.kind === 'aborted') return;
        if (b.kind === 'too-large') return this.tooLarge(req, res, opName, cap, b.declaredBytes);
        if (holdRealMs === undefined) this.serve(opName, endpoint, req, res, jobId, query, b.body, rest);
        else this.afterHold(req, res, holdRealMs, () => this.serve(opName, endpoint, req, res, jobId, query, b.body, rest));
      } catch (e) {
        this.internal(req, res, e);
      }
    });
  }

  private serve(op: Route, ep: QueueEndpoint, req: IncomingMessage, res: ServerResponse, jobId: string, query: string, body: Buffer, rest: string[]): void {
    this.guard(req, res, this.operations.operation(op, ep, req, res, jobId, query, body, rest));
  }

  /** Serve after `realMs` of real time (the request keeps its concurrency slot); nothing if the client leaves first. */
  private afterHold(req: IncomingMessage, res: ServerResponse, realMs: number, serve: () => void): void {
    const onClose = () => timer.cancel();
    const timer = this.core.clock.setTimer(realMs * this.core.clock.scale, () => {
      res.off('close', onClose);
      if (res.destroyed) return;
      try {
        serve();
      } catch (e) {
        this.internal(req, res, e);
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
    // A client a little past the cap (a probe of the cap, a proxy still uploading) finishes sending
    // and reads this answer: up to two caps more are read and dropped before the connection is cut.
    const mb = cap / BYTES_PER_MB[EMULATOR_MB_READING];
    sendError(res, STATUS_CODES.payloadTooLarge, `payload too large: /${op} accepts at most ${cap} bytes (${mb} MB)${declared !== undefined ? `, content-length says ${declared}` : ''}`, { limitBytes: cap }, closeLingering(req, 2 * cap));
  }
}
