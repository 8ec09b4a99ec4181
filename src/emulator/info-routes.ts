// The reserved /_qbench routes (all need the API key): GET /_qbench/info advertises the time scale,
// endpoints, limits in force, faults and sub-services' facts so suites compute their
// expectations from it; the control routes (key required) reset, resize worker pools,
// change limits and read counters. Shapes are documented in docs/reference/emulator.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  RATE_WINDOW_MS, RETENTION_MS, TTL_MS, EXECUTION_TIMEOUT_MS, RUNSYNC_WAIT_MS, WEBHOOK, EMULATOR_MB_READING, HTTP_STATUS,
  RATE_LIMITS, STREAM_CHUNK,
} from '../spec/index.js';
import type { EmulatorInfoDocument, RateLimitedOperation } from '../spec/index.js';
import { VERSION } from '../version.js';
import type { EmulatorCore } from './core.js';
import { RateOverride, type EmulatorConfig } from './config.js';
import { FAULTS } from './faults.js';
import { MAX_JSON_DEPTH } from './json-limits.js';
import { EMULATOR_INFO_NAME } from './info-schema.js';
import { HOLD_MAX_REAL_MS, type QueueEndpoint } from './queue/index.js';
import { closeIfBodyPending, closeLingering, parseJson, readBody, sendError, sendJson } from './json-io.js';
import { headerAuthorizes } from './auth.js';

const CONTROL_BODY_CAP_BYTES = 64 * 1024;
const OPS = Object.keys(RATE_LIMITS) as [RateLimitedOperation, ...RateLimitedOperation[]];

const WorkersChange = z.strictObject({
  endpoint: z.string().optional(),
  min: z.number().int().nonnegative().optional(),
  max: z.number().int().positive().optional(),
  /** Start this many warm workers now (no cold start), within max. */
  running: z.number().int().nonnegative().max(10_000).optional(),
});

const HoldChange = z.strictObject({
  /** One endpoint; every endpoint when absent. */
  endpoint: z.string().optional(),
  /** Real ms per operation; 0 clears that operation's hold. */
  realMs: z.partialRecord(z.enum(OPS), z.number().int().min(0).max(HOLD_MAX_REAL_MS, { error: `a hold is at most ${HOLD_MAX_REAL_MS} real ms` })),
});

const LimitsChange = z.strictObject({
  enabled: z.boolean().optional(),
  /** Opt-in: admitted requests of these operations wait this long (real ms) before being served, keeping their concurrency slot. */
  hold: HoldChange.optional(),
  requestsPerWorker: z.number().int().nonnegative().optional(),
  scaleRateWindows: z.boolean().optional(),
  rates: z.partialRecord(z.enum(OPS), RateOverride).optional(),
});

/** The info document (GET /_qbench/info). */

/**
 * The pool settings /_qbench/info advertises. External workers bring their own,
 * unknown capacity, so with them no max or jobsPerWorker is advertised (clients that count
 * worker slots from these would undercount); without simulated workers no settings at all.
 */
function advertisedWorkers(cfg: EmulatorConfig): EmulatorInfoDocument['workers'] {
  if (!cfg.externalWorkers) return { ...cfg.workers };
  if (!(cfg.simulatedWorkers ?? false)) return { simulated: false };
  const { max: _max, jobsPerWorker: _perWorker, ...rest } = cfg.workers;
  return { ...rest, simulated: true };
}
export function infoDocument(core: EmulatorCore): EmulatorInfoDocument {
  const cfg = core.config;
  const l = core.limits;
  const rates: EmulatorInfoDocument['limits']['rates'] = {};
  for (const op of OPS) {
    const rule = l.rules[op];
    rates[op] = { method: RATE_LIMITS[op].method, path: RATE_LIMITS[op].path, requestsPerWindow: rule.requestsPerWindow, concurrency: rule.concurrency };
  }
  const sub: EmulatorInfoDocument['subServices'] = {};
  for (const s of core.subServices) sub[s.name] = s.info?.() ?? {};
  const held: EmulatorInfoDocument['limits']['hold']['endpoints'] = {};
  for (const [id, ep] of core.endpoints) if (ep.limiter.holdRealMs) held[id] = { ...ep.limiter.holdRealMs };
  return {
    name: EMULATOR_INFO_NAME,
    version: VERSION,
    timeScale: core.clock.scale,
    scaleRateWindows: l.scaleRateWindows,
    endpoints: [...core.endpoints.keys()],
    externalWorkers: cfg.externalWorkers,
    workerTakeLongPollRealMs: cfg.workerTakeLongPollMs,
    workerStopLongPollRealMs: cfg.workerStopLongPollMs,
    workerPingIntervalRealMs: cfg.workerPingIntervalMs,
    workers: advertisedWorkers(cfg),
    limits: {
      enabled: l.enabled,
      rateWindowMs: RATE_WINDOW_MS,
      rates,
      requestsPerWorker: l.requestsPerWorker,
      dynamicRule: 'effective = max(requestsPerWindow, workers.running * requestsPerWorker), workers.running as in /health',
      payload: {
        mbReading: EMULATOR_MB_READING,
        runBytes: core.faults.has('payload-cap-off') ? null : cfg.limits.runPayloadBytes,
        runsyncBytes: core.faults.has('payload-cap-off') ? null : cfg.limits.runsyncPayloadBytes,
        tooLargeStatus: 413,
      },
      streamChunkBytes: cfg.limits.streamChunkBytes,
      streamChunkMb: STREAM_CHUNK.megabytes,
      retentionMs: {
        run: RETENTION_MS.run,
        runsyncDefault: RETENTION_MS.runsyncDefault,
        runsyncMax: RETENTION_MS.runsyncMax,
        runsyncRule: 'no wait query: runsyncDefault; with wait: clamp(wait, runsyncDefault, runsyncMax)',
      },
      ttlMs: { default: TTL_MS.defaultValue, min: TTL_MS.min, max: TTL_MS.max, statusQuery: { min: 1, max: TTL_MS.max, countedFrom: 'submission' } },
      executionTimeoutMs: { default: EXECUTION_TIMEOUT_MS.defaultValue, min: EXECUTION_TIMEOUT_MS.min, max: EXECUTION_TIMEOUT_MS.max },
      runsyncWaitMs: { default: RUNSYNC_WAIT_MS.defaultValue, min: RUNSYNC_WAIT_MS.min, max: RUNSYNC_WAIT_MS.max, scaled: true },
      webhook: { extraAttempts: WEBHOOK.extraAttempts, retryDelayMs: WEBHOOK.retryDelayMs },
      streamLongPollRealMs: cfg.stream.longPollMs,
      hold: {
        rule: 'POST /_qbench/limits {hold: {endpoint?, realMs: {<op>: ms}}}: an admitted request of <op> waits ms (real time) holding its concurrency slot, then is served; 0 clears',
        operations: OPS,
        maxRealMs: HOLD_MAX_REAL_MS,
        endpoints: held,
      },
    },
    faults: [...core.faults].map((name) => ({ name, ...FAULTS[name] })),
    subServices: sub,
    jsonMaxDepth: MAX_JSON_DEPTH,
    internalErrors: { ...core.incidents.counts },
  };
}

/** The deployment an endpoint runs now (min/max as the control route left them). */
function deploymentSummary(ep: QueueEndpoint): Record<string, unknown> {
  const s = ep.pool.settings;
  const d = ep.model.deployment;
  const summary: Record<string, unknown> = { workersMin: s.min, workersMax: s.max, jobsPerWorker: s.jobsPerWorker, idleTimeoutMs: s.idleTimeoutMs, scaler: d.scaler, gpuTypeId: d.gpuTypeId, gpuCount: d.gpuCount, seed: d.seed };
  // The LLM engine's settings, and the requests its workers hold now (an endpoint without one shows neither).
  if (d.engine !== undefined) summary['engine'] = { ...d.engine, requestsHeld: ep.model.engine?.held() ?? 0 };
  return summary;
}

export function countersDocument(core: EmulatorCore): Record<string, unknown> {
  const endpoints: Record<string, unknown> = {};
  for (const [id, ep] of core.endpoints) {
    endpoints[id] = {
      health: ep.health(),
      jobsHeld: ep.jobs.size,
      workers: [...ep.pool.workers.values()].map((w) => ({ id: w.id, kind: w.kind, state: w.state, jobs: w.jobs.size, capacity: w.capacity, version: w.version })),
      requests: ep.limiter.snapshot(),
      deployment: deploymentSummary(ep),
      billing: ep.model.meter.snapshot(core.clock.now()),
    };
  }
  const mem = process.memoryUsage();
  return {
    emulatedNowMs: core.clock.now(),
    uptimeEmulatedMs: core.clock.now() - core.startedAtMs,
    pendingTimers: core.clock.pendingTimers(),
    webhooks: { ...core.webhooks.counters },
    internalErrors: { ...core.incidents.counts },
    memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
    endpoints,
  };
}

async function readControlBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const b = await readBody(req, CONTROL_BODY_CAP_BYTES);
  if (b.kind === 'aborted') return undefined;
  if (b.kind === 'too-large') {
    sendError(res, 413, `control bodies are at most ${CONTROL_BODY_CAP_BYTES} bytes`, undefined, closeLingering(req, CONTROL_BODY_CAP_BYTES));
    return undefined;
  }
  if (b.body.length === 0) return {};
  const p = parseJson(b.body);
  if (!p.ok) {
    sendError(res, HTTP_STATUS.badRequest, p.error);
    return undefined;
  }
  return p.value;
}

function invalid(res: ServerResponse, err: z.ZodError): void {
  sendError(res, HTTP_STATUS.badRequest, `invalid control body: ${z.prettifyError(err).replace(/\n/g, ' ')}`, {
    issues: err.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message })),
  });
}

const ROUTE_METHODS: Readonly<Record<string, string>> = { '/_qbench/info': 'GET', '/_qbench/reset': 'POST', '/_qbench/workers': 'POST', '/_qbench/limits': 'POST', '/_qbench/counters': 'GET' };

export async function handleInfoRoute(core: EmulatorCore, req: IncomingMessage, res: ServerResponse, path: string, _query: string): Promise<void> {
  const method = req.method ?? 'GET';
  const want = ROUTE_METHODS[path];
  if (want === undefined) return sendError(res, HTTP_STATUS.notFound, `no such emulator route ${path}; see GET /_qbench/info and docs/reference/emulator.md`);
  // The info document lists endpoint, template and pod ids and faults: like every other route, it needs the key.
  if (!headerAuthorizes(req.headers.authorization, core.config.apiKey)) {
    return sendError(res, HTTP_STATUS.unauthorized, 'the /_qbench routes need the API key in the authorization header ("<API_KEY>" or "Bearer <API_KEY>")', undefined, closeIfBodyPending(req));
  }
  if (method !== want) return sendError(res, 405, `use ${want} ${path}`, undefined, { allow: want });

  switch (path) {
    case '/_qbench/info':
      return sendJson(res, HTTP_STATUS.ok, infoDocument(core));
    case '/_qbench/counters':
      return sendJson(res, HTTP_STATUS.ok, countersDocument(core));
    case '/_qbench/reset':
      core.reset();
      return sendJson(res, HTTP_STATUS.ok, { reset: true });
    case '/_qbench/workers': {
      const body = await readControlBody(req, res);
      if (body === undefined) return;
      const r = WorkersChange.safeParse(body);
      if (!r.success) return invalid(res, r.error);
      const targets = r.data.endpoint === undefined ? [...core.endpoints.values()] : [core.endpoints.get(r.data.endpoint)];
      if (targets.some((t) => t === undefined)) return sendError(res, HTTP_STATUS.notFound, `unknown endpoint id "${r.data.endpoint ?? ''}"`);
      for (const ep of targets) {
        if (!ep) continue;
        const min = r.data.min ?? ep.pool.settings.min;
        const max = r.data.max ?? ep.pool.settings.max;
        if (min > max) return sendError(res, HTTP_STATUS.badRequest, `min (${min}) must not exceed max (${max})`, { issues: [{ path: 'min', message: 'exceeds max' }] });
        ep.pool.setBounds(min, max);
        if (r.data.running !== undefined) {
          let up = ep.pool.simulatedCount();
          while (up < Math.min(r.data.running, max)) {
            ep.pool.start(true);
            up += 1;
          }
        }
        ep.pool.autoscale(0);
        ep.dispatch();
      }
      const answer: Record<string, unknown> = {};
      for (const ep of targets) if (ep) answer[ep.id] = { ...ep.pool.settings, workers: ep.pool.counts() };
      return sendJson(res, HTTP_STATUS.ok, { endpoints: answer });
    }
    case '/_qbench/limits': {
      const body = await readControlBody(req, res);
      if (body === undefined) return;
      const r = LimitsChange.safeParse(body);
      if (!r.success) return invalid(res, r.error);
      const holdEp = r.data.hold?.endpoint;
      if (holdEp !== undefined && !core.endpoints.has(holdEp)) {
        return sendError(res, HTTP_STATUS.notFound, `unknown endpoint id "${holdEp}" in hold.endpoint`, { issues: [{ path: 'hold.endpoint', message: 'unknown endpoint id' }] });
      }
      core.setLimits(r.data);
      return sendJson(res, HTTP_STATUS.ok, { limits: (infoDocument(core) as { limits: unknown }).limits });
    }
    default:
      return sendError(res, HTTP_STATUS.notFound, `no such emulator route ${path}`);
  }
}
