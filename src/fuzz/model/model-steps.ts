// One HTTP step of the model-based run and its judgement against the model: submit (§4.1
// /run, /runsync), observe (/status, /stream), cancel, retry, purge (§3.1 rows, refusals as
// §7 documents them), and the §2.4 health gauges checked after every step.
import { z } from 'zod';
import {
  CANCELLABLE_STATES,
  CancelAnswer,
  HTTP_STATUS,
  HealthRecord,
  JobRecord,
  PurgeAnswer,
  RETRYABLE_STATES,
  RUNSYNC_WAIT_MS,
  RetryAnswer,
  RunAnswer,
  SYNC_ID_PATTERN,
  StreamAnswer,
  isTerminal,
} from '../../spec/index.js';
import type { HttpExchange } from '../../result/model.js';
import type { FuzzAnswer, FuzzRequest } from '../http.js';
import { Disagreement, observedText, type PropertyContext } from '../property.js';
import { queuePath } from '../target.js';
import type { JobPlan } from './job-plans.js';
import {
  describeStates,
  gaugeUpperBounds,
  narrow,
  observe,
  possibleAt,
  serviceClosure,
  type JobModel,
  type ModelJob,
  type ModelState,
} from './job-model.js';

/** The system under test as the commands see it. */
export interface ModelReal {
  readonly ctx: PropertyContext;
  readonly endpointId: string;
  /** Emulated ms (real ms times the target's time scale). */
  now(): number;
  /** The latest exchanges (evidence for a finding). */
  readonly recent: HttpExchange[];
  /** Steps taken in this run, for the finding text. */
  readonly trail: string[];
}

/** Statuses a refused command may carry: §7 names 400 for bad requests; 409 is HTTP's conflict. */
export const REFUSAL_STATUSES: readonly number[] = [HTTP_STATUS.badRequest, 409];
const KEEP_EXCHANGES = 6;

interface Stepped {
  readonly a: FuzzAnswer;
  readonly sentAtMs: number;
  readonly receivedAtMs: number;
}

async function step(
  real: ModelReal,
  req: Omit<FuzzRequest, 'auth' | 'url'> & { path: string; endpointId?: string; auth?: FuzzRequest['auth'] },
  label: string,
): Promise<Stepped> {
  const sentAtMs = real.now();
  const { path, endpointId, auth, ...rest } = req;
  const a = await real.ctx.http.send({ ...rest, url: queuePath(real.ctx.target, endpointId ?? real.endpointId, path), auth: auth ?? 'header-bearer' }, real.ctx.signal);
  const receivedAtMs = real.now();
  real.recent.push(a.exchange);
  if (real.recent.length > KEEP_EXCHANGES) real.recent.shift();
  real.trail.push(`${label} -> ${a.status ?? 'no answer'}`);
  return { a, sentAtMs, receivedAtMs };
}

function fail(real: ModelReal, s: Stepped, expected: string, observed?: string): never {
  throw new Disagreement(`${expected} [steps: ${real.trail.join('; ')}]`, observed ?? observedText(s.a), [...real.recent], s.a.curl);
}

function parse<T>(real: ModelReal, s: Stepped, schema: z.ZodType<T>, what: string): T {
  const r = schema.safeParse(s.a.json);
  if (!r.success) fail(real, s, `${what}`, `${observedText(s.a)} (${z.prettifyError(r.error).replace(/\s*\n\s*/g, '; ')})`);
  return r.data;
}

/** §2.2 "delayTime, executionTime: present on results of /runsync and /status". */
function requireTimings(real: ModelReal, s: Stepped, rec: { delayTime?: number | undefined; executionTime?: number | undefined }, where: string): void {
  const missing = (['delayTime', 'executionTime'] as const).filter((k) => rec[k] === undefined);
  if (missing.length > 0) fail(real, s, `§2.2 delayTime and executionTime are present on results of ${where}`, `${observedText(s.a)} (no ${missing.join(', ')})`);
}

export function jobLabel(model: JobModel, job: ModelJob): string {
  return `job#${model.jobs.indexOf(job)} (${job.plan.name} via /${job.submit})`;
}

/** §4.1 POST /run: 200 {id, status: IN_QUEUE}. */
export async function submitRun(model: JobModel, real: ModelReal, plan: JobPlan): Promise<ModelJob> {
  const s = await step(real, { operation: 'run', method: 'POST', path: '/run', body: { kind: 'json', value: plan.body } }, `run(${plan.name})`);
  if (s.a.status !== HTTP_STATUS.ok) fail(real, s, `§3.1 (none) -> IN_QUEUE: /run of a valid request answers 200 {id, status: IN_QUEUE}`);
  const ans = parse(real, s, RunAnswer, '§4.1 /run answer {id, status: IN_QUEUE}');
  const job: ModelJob = {
    id: ans.id,
    submit: 'run',
    plan,
    waitGiven: false,
    submittedAtMs: s.sentAtMs,
    ttlMs: plan.ttlMs,
    possible: new Set<ModelState>(['IN_QUEUE']),
    observedAtMs: s.receivedAtMs,
    endedAfterMs: undefined,
    endedByMs: undefined,
    ttlCertain: true,
  };
  model.jobs.push(job);
  return job;
}

/**
 * §4.1 POST /runsync: a job record; `sync-` id (§2.2); COMPLETED when it finished in time,
 * otherwise (WIRE-COMPAT) any state the service can reach from IN_QUEUE for this plan.
 * Plans that run long are sent with the smallest `wait` so the call returns at once.
 */
export async function submitRunsync(model: JobModel, real: ModelReal, plan: JobPlan, withWait: boolean): Promise<ModelJob> {
  const wait = withWait || plan.runMs > 0 ? RUNSYNC_WAIT_MS.min : undefined;
  const path = wait === undefined ? '/runsync' : `/runsync?wait=${wait}`;
  const s = await step(real, { operation: 'runsync', method: 'POST', path, body: { kind: 'json', value: plan.body } }, `runsync(${plan.name}${wait === undefined ? '' : `, wait=${wait}`})`);
  if (s.a.status !== HTTP_STATUS.ok) fail(real, s, `§3.1 (none) -> COMPLETED: /runsync of a valid request answers 200 with the job record`);
  const rec = parse(real, s, JobRecord, '§2.2 job record from /runsync');
  requireTimings(real, s, rec, '/runsync');
  if (!SYNC_ID_PATTERN.test(rec.id)) fail(real, s, `§2.2 a /runsync id is "sync-" followed by a UUID`, `id ${rec.id}`);
  const allowed = serviceClosure(new Set(['IN_QUEUE']), plan);
  if (!allowed.has(rec.status)) fail(real, s, `§3.1 a ${plan.name} job from /runsync is one of ${describeStates(allowed)}`, `status ${rec.status}`);
  const terminal = isTerminal(rec.status);
  const job: ModelJob = {
    id: rec.id,
    submit: 'runsync',
    plan,
    waitGiven: wait !== undefined,
    submittedAtMs: s.sentAtMs,
    ttlMs: plan.ttlMs,
    possible: new Set<ModelState>([rec.status]),
    observedAtMs: s.receivedAtMs,
    endedAfterMs: terminal ? s.sentAtMs : undefined,
    endedByMs: terminal ? s.receivedAtMs : undefined,
    ttlCertain: true,
  };
  model.jobs.push(job);
  return job;
}

function expectDeletedAllowed(real: ModelReal, s: Stepped, model: JobModel, job: ModelJob, allowed: ReadonlySet<ModelState>, what: string): void {
  if (!allowed.has('deleted')) {
    fail(real, s, `§3.1/§2.2 ${what} of ${jobLabel(model, job)}: the job exists (one of ${describeStates(allowed)}) so not 404`);
  }
  observe(job, 'deleted', s.sentAtMs, s.receivedAtMs);
}

/**
 * §4.1 GET /status/{id}: the state must be one the model allows; 404 only once ttl or
 * retention may have deleted it. With `ttlMs`, the call also sets the job's ttl (§4.1
 * "sets the job's ttl", counted like policy.ttl from submission, §2.1).
 */
export async function observeStatus(model: JobModel, real: ModelReal, job: ModelJob, ttlMs?: number): Promise<void> {
  const query = ttlMs === undefined ? '' : `?ttl=${ttlMs}`;
  const s = await step(real, { operation: 'status', method: 'GET', path: `/status/${encodeURIComponent(job.id)}${query}` }, `status(#${model.jobs.indexOf(job)}${query})`);
  const allowed = possibleAt(model, job, s.receivedAtMs, s.sentAtMs);
  if (s.a.status === HTTP_STATUS.notFound) return expectDeletedAllowed(real, s, model, job, allowed, 'status');
  if (s.a.status !== HTTP_STATUS.ok) fail(real, s, `/status of ${jobLabel(model, job)} answers 200 or 404 (one of ${describeStates(allowed)})`);
  const rec = parse(real, s, JobRecord, '§2.2 job record from /status');
  requireTimings(real, s, rec, '/status');
  if (rec.id !== job.id) fail(real, s, `/status answers the record of the job asked for (${job.id})`, `id ${rec.id}`);
  if (!allowed.has(rec.status)) fail(real, s, `§3.1 ${jobLabel(model, job)} is one of ${describeStates(allowed)}`, `status ${rec.status}`);
  observe(job, rec.status, s.sentAtMs, s.receivedAtMs);
  if (ttlMs !== undefined) job.ttlMs = ttlMs;
}

/** §4.1 GET /stream/{id}: object form carries the status (WIRE-COMPAT); array form is accepted as is. */
export async function observeStream(model: JobModel, real: ModelReal, job: ModelJob): Promise<void> {
  const s = await step(real, { operation: 'stream', method: 'GET', path: `/stream/${encodeURIComponent(job.id)}` }, `stream(#${model.jobs.indexOf(job)})`);
  const allowed = possibleAt(model, job, s.receivedAtMs, s.sentAtMs);
  if (s.a.status === HTTP_STATUS.notFound) return expectDeletedAllowed(real, s, model, job, allowed, 'stream');
  if (s.a.status !== HTTP_STATUS.ok) fail(real, s, `/stream of ${jobLabel(model, job)} answers 200 or 404 (one of ${describeStates(allowed)})`);
  const ans = parse(real, s, StreamAnswer, '§4.1 stream answer (chunks, or WIRE-COMPAT {status, stream})');
  if (Array.isArray(ans)) return;
  if (!allowed.has(ans.status)) fail(real, s, `§3.1 ${jobLabel(model, job)} is one of ${describeStates(allowed)}`, `stream status ${ans.status}`);
  observe(job, ans.status, s.sentAtMs, s.receivedAtMs);
}

const setOf = (xs: Iterable<ModelState>) => new Set<ModelState>(xs);

/** §3.1 cancel: IN_QUEUE or IN_PROGRESS -> CANCELLED; otherwise refused (400), or 404 once deleted. */
export async function cancelJob(model: JobModel, real: ModelReal, job: ModelJob): Promise<void> {
  const s = await step(real, { operation: 'cancel', method: 'POST', path: `/cancel/${encodeURIComponent(job.id)}` }, `cancel(#${model.jobs.indexOf(job)})`);
  const allowed = possibleAt(model, job, s.receivedAtMs, s.sentAtMs);
  const cancellable = [...allowed].filter((x) => x !== 'deleted' && CANCELLABLE_STATES.has(x));
  const notCancellable = [...allowed].filter((x) => x !== 'deleted' && !CANCELLABLE_STATES.has(x));
  if (s.a.status === HTTP_STATUS.notFound) return expectDeletedAllowed(real, s, model, job, allowed, 'cancel');
  if (s.a.status === HTTP_STATUS.ok) {
    const ans = parse(real, s, CancelAnswer, '§4.1 cancel answer {id, status: CANCELLED}');
    if (ans.id !== job.id) fail(real, s, `cancel answers the id of the job cancelled (${job.id})`, `id ${ans.id}`);
    // Cancelling a cancelled job again changes nothing; the table has no row for it, so 200 or a refusal both pass.
    if (cancellable.length === 0 && !allowed.has('CANCELLED')) {
      fail(real, s, `§3.1 cancel applies to IN_QUEUE or IN_PROGRESS; ${jobLabel(model, job)} is one of ${describeStates(allowed)}, so it is refused`);
    }
    if (cancellable.length > 0 && job.endedAfterMs === undefined) {
      job.endedAfterMs = s.sentAtMs;
      job.endedByMs = s.receivedAtMs;
    }
    observe(job, 'CANCELLED', s.sentAtMs, s.receivedAtMs);
    return;
  }
  if (s.a.status !== null && REFUSAL_STATUSES.includes(s.a.status)) {
    if (notCancellable.length === 0) fail(real, s, `§3.1 cancel of ${jobLabel(model, job)} (one of ${describeStates(allowed)}) answers 200 {status: CANCELLED}`);
    narrow(job, setOf(notCancellable), s.receivedAtMs);
    return;
  }
  fail(real, s, `cancel of ${jobLabel(model, job)} answers 200, a refusal (${REFUSAL_STATUSES.join('/')}) or 404`);
}

/** §3.1 retry: FAILED or TIMED_OUT -> IN_QUEUE with the same id; refused from every other state. */
export async function retryJob(model: JobModel, real: ModelReal, job: ModelJob): Promise<void> {
  const s = await step(real, { operation: 'retry', method: 'POST', path: `/retry/${encodeURIComponent(job.id)}` }, `retry(#${model.jobs.indexOf(job)})`);
  const allowed = possibleAt(model, job, s.receivedAtMs, s.sentAtMs);
  const retryable = [...allowed].filter((x) => x !== 'deleted' && RETRYABLE_STATES.has(x));
  const notRetryable = [...allowed].filter((x) => x !== 'deleted' && !RETRYABLE_STATES.has(x));
  if (s.a.status === HTTP_STATUS.notFound) return expectDeletedAllowed(real, s, model, job, allowed, 'retry');
  if (s.a.status === HTTP_STATUS.ok) {
    if (retryable.length === 0) fail(real, s, `§3.1 "Retry is accepted only from FAILED or TIMED_OUT"; ${jobLabel(model, job)} is one of ${describeStates(allowed)}, so retry is refused`);
    const ans = parse(real, s, RetryAnswer, '§4.1 retry answer {id, status: IN_QUEUE}');
    if (ans.id !== job.id) fail(real, s, `§3.1 retry keeps the "Same id" (${job.id})`, `id ${ans.id}`);
    observe(job, 'IN_QUEUE', s.sentAtMs, s.receivedAtMs);
    job.ttlCertain = false;
    model.retries += 1;
    return;
  }
  if (s.a.status !== null && REFUSAL_STATUSES.includes(s.a.status)) {
    if (notRetryable.length === 0) fail(real, s, `§3.1 retry of ${jobLabel(model, job)} (one of ${describeStates(allowed)}) is accepted: 200 {id, status: IN_QUEUE}`);
    narrow(job, setOf(notRetryable), s.receivedAtMs);
    return;
  }
  fail(real, s, `retry of ${jobLabel(model, job)} answers 200, a refusal (${REFUSAL_STATUSES.join('/')}) or 404`);
}

/** §3.1 "Purge removes queued jobs only; jobs in progress continue." */
export async function purgeQueue(model: JobModel, real: ModelReal): Promise<void> {
  const s = await step(real, { operation: 'purge-queue', method: 'POST', path: '/purge-queue', body: { kind: 'json', value: {} } }, 'purge');
  if (s.a.status !== HTTP_STATUS.ok) fail(real, s, '§4.1 /purge-queue answers 200 {removed, status: "completed"}');
  const ans = parse(real, s, PurgeAnswer, '§4.1 purge answer {removed: integer, status: "completed"}');
  const maybeQueued = model.jobs.filter((j) => possibleAt(model, j, s.receivedAtMs, s.sentAtMs).has('IN_QUEUE'));
  if (ans.removed > maybeQueued.length) {
    fail(real, s, `§3.1 purge removes queued jobs only: at most ${maybeQueued.length} of this run's jobs may be queued`, `removed ${ans.removed}`);
  }
  for (const job of maybeQueued) {
    const allowed = possibleAt(model, job, s.receivedAtMs, s.sentAtMs);
    if (ans.removed === maybeQueued.length) observe(job, 'deleted', s.sentAtMs, s.receivedAtMs);
    else {
      const rest = setOf([...allowed].filter((x) => x !== 'IN_QUEUE'));
      if (ans.removed > 0) rest.add('deleted');
      narrow(job, rest, s.receivedAtMs);
    }
  }
}

/** §2.4 health gauges after a step: never more queued or running jobs than the model allows. */
export async function checkHealth(model: JobModel, real: ModelReal): Promise<{ inQueue: number; inProgress: number }> {
  const s = await step(real, { operation: 'health', method: 'GET', path: '/health' }, 'health');
  if (s.a.status !== HTTP_STATUS.ok) fail(real, s, '§4.1 /health answers 200 with the §2.4 record');
  const h = parse(real, s, HealthRecord, '§2.4 health record');
  const bound = gaugeUpperBounds(model, s.receivedAtMs);
  if (h.jobs.inQueue > bound.inQueue || h.jobs.inProgress > bound.inProgress) {
    fail(
      real,
      s,
      `§2.4 health counts this run's jobs: inQueue <= ${bound.inQueue}, inProgress <= ${bound.inProgress} (the endpoint has no other traffic)`,
      `inQueue ${h.jobs.inQueue}, inProgress ${h.jobs.inProgress}`,
    );
  }
  return { inQueue: h.jobs.inQueue, inProgress: h.jobs.inProgress };
}

/** §7 "404 Not Found: Unknown endpoint id". */
export async function healthOfUnknownEndpoint(real: ModelReal, endpointId: string): Promise<void> {
  const s = await step(real, { operation: 'health', method: 'GET', path: '/health', endpointId }, `health(unknown endpoint ${endpointId})`);
  if (s.a.status !== HTTP_STATUS.notFound) fail(real, s, `§7 404 for an unknown endpoint id (${endpointId})`);
}

/** §5, §7: a request without the API key is refused with 401. */
export async function statusWithoutKey(model: JobModel, real: ModelReal, job: ModelJob | undefined): Promise<void> {
  const id = job?.id ?? 'no-such-job';
  const s = await step(real, { operation: 'status', method: 'GET', path: `/status/${encodeURIComponent(id)}`, auth: 'none' }, `status(${job ? `#${model.jobs.indexOf(job)}` : 'unknown'}, no key)`);
  if (s.a.status !== HTTP_STATUS.unauthorized) fail(real, s, '§5/§7 401 for a request without the API key');
}

/** §7 GET /status of a job that never existed: 404. */
export async function statusOfUnknown(real: ModelReal, id: string): Promise<void> {
  const s = await step(real, { operation: 'status', method: 'GET', path: `/status/${encodeURIComponent(id)}` }, 'status(unknown id)');
  if (s.a.status !== HTTP_STATUS.notFound) fail(real, s, `§7 404 for a job id that was never issued (${id})`);
}

