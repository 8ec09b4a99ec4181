// The validation properties: each generated request is classified by the oracle (the spec
// schemas) and sent; an answer outside its class is a finding. §2.1 and §4.1 job requests,
// §4.1 /status?ttl, §4.1/§8 payload caps, §2.5/§4.2 template bodies.
import { z } from 'zod';
import {
  RunAnswer,
  RunSyncAnswer,
  SYNC_ID_PATTERN,
  JobRecord,
  TemplateRecord,
  TemplateCreate,
  applyTemplateDefaults,
  HTTP_STATUS,
} from '../spec/index.js';
import { describeBody, type CaseBody } from './case-body.js';
import type { FuzzAnswer } from './http.js';
import {
  agrees,
  classifyJobRequest,
  classifyPayload,
  classifyStatusTtl,
  classifyTemplateCreate,
  classifyTemplateUpdate,
  describeExpectation,
  type Expectation,
} from './oracle.js';
import { Disagreement, observedText, type FuzzPropertyDef, type PropertyContext } from './property.js';
import { jobRequestCase, payloadCase, statusTtlCase, type JobRequestCase, type PayloadCase, type StatusTtlCase } from './queue-cases.js';
import { queuePath, restPath } from './target.js';
import { templateCase, type TemplateCase } from './template-cases.js';

function judge(e: Expectation, a: FuzzAnswer, ctx?: PropertyContext): void {
  ctx?.tally(e.verdict);
  if (!agrees(e, a.status)) throw new Disagreement(describeExpectation(e), observedText(a), [a.exchange], a.curl);
}

/** An accepted answer must also have the documented shape. */
function judgeShape(schema: z.ZodType, a: FuzzAnswer, what: string, extra?: (v: unknown) => string | undefined): void {
  const r = schema.safeParse(a.json);
  const problem = r.success ? extra?.(r.data) : `${what}: ${z.prettifyError(r.error).replace(/\s*\n\s*/g, '; ')}`;
  if (problem !== undefined) throw new Disagreement(`a ${what}`, `${observedText(a)} (${problem})`, [a.exchange], a.curl);
}

function sendJob(ctx: PropertyContext, operation: 'run' | 'runsync', body: CaseBody, wait?: string) {
  const query = wait === undefined ? '' : `?wait=${encodeURIComponent(wait)}`;
  return ctx.http.send(
    { operation, method: 'POST', url: queuePath(ctx.target, ctx.target.endpointId, `/${operation}${query}`), auth: 'header-bearer', body },
    ctx.signal,
  );
}

function judgeAcceptedJob(operation: 'run' | 'runsync', a: FuzzAnswer): void {
  if (operation === 'run') judgeShape(RunAnswer, a, '§4.1 /run answer {id, status: IN_QUEUE}');
  else
    judgeShape(RunSyncAnswer, a, '§4.1 /runsync job record', (v) =>
      SYNC_ID_PATTERN.test((v as { id: string }).id) ? undefined : `id ${(v as { id: string }).id} lacks the sync- prefix of §2.2`,
    );
}

export const jobRequestProperty: FuzzPropertyDef<JobRequestCase> = {
  name: 'job-request-validation',
  clause: { section: '§2.1, §4.1, §7', quote: 'input (JSON object) required; policy.executionTimeout 5 s..7 days, ttl 10 s..7 days; wait 1000..300000; 400 for input validation problems' },
  kind: 'validation',
  skipReason: () => undefined,
  arbitrary: () => jobRequestCase,
  async check(ctx, c) {
    const e = classifyJobRequest(c);
    const a = await sendJob(ctx, c.operation, c.body, c.wait);
    judge(e, a, ctx);
    if (e.verdict === 'accept') judgeAcceptedJob(c.operation, a);
  },
  describe: (c) => `POST /${c.operation}${c.wait === undefined ? '' : `?wait=${c.wait}`} ${describeBody(c.body)}`,
};

/** Milliseconds of real time a request to the emulator may take in the worst case on a busy machine. */
const REAL_MARGIN_MS = 250;

export const statusTtlProperty: FuzzPropertyDef<StatusTtlCase> = {
  name: 'status-ttl-query',
  clause: { section: '§4.1', quote: 'GET /status/{job_id}: optional query ttl (integer, milliseconds) sets the job\'s ttl' },
  kind: 'validation',
  skipReason: () => undefined,
  arbitrary: () => statusTtlCase,
  async check(ctx, c) {
    const submitted = performance.now();
    const run = await sendJob(ctx, 'run', { kind: 'json', value: { input: {} } });
    if (run.status !== HTTP_STATUS.ok || !RunAnswer.safeParse(run.json).success) {
      throw new Disagreement('200 {id, status: IN_QUEUE} for a minimal valid /run', observedText(run), [run.exchange], run.curl);
    }
    const id = (run.json as { id: string }).id;
    const a = await ctx.http.send(
      { operation: 'status', method: 'GET', url: queuePath(ctx.target, ctx.target.endpointId, `/status/${encodeURIComponent(id)}?ttl=${encodeURIComponent(c.ttl)}`), auth: 'header-bearer' },
      ctx.signal,
    );
    const ageMs = (performance.now() - submitted + REAL_MARGIN_MS) * ctx.target.timeScale;
    const e = classifyStatusTtl(c, ageMs);
    judge(e, a, ctx);
    if (e.verdict === 'accept') judgeShape(JobRecord, a, '§2.2 job record');
  },
  describe: (c) => `POST /run {"input":{}} then GET /status/{id}?ttl=${c.ttl}`,
};

export const payloadProperty: FuzzPropertyDef<PayloadCase> = {
  name: 'payload-caps',
  clause: { section: '§4.1, §8', quote: '/run max payload 10 MB; /runsync max payload 20 MB' },
  kind: 'validation',
  // Each case may put 21 MB on the wire: a handful covers every reading of "MB".
  maxRuns: 8,
  skipReason: () => undefined,
  arbitrary: () => payloadCase,
  async check(ctx, c) {
    const e = classifyPayload(c);
    const a = await sendJob(ctx, c.operation, c.body);
    // A server that cuts an oversized body off and closes the connection has refused it too.
    if (e.verdict === 'refuse' && a.status === null) {
      ctx.tally(e.verdict);
      return;
    }
    judge(e, a, ctx);
    if (e.verdict === 'accept') judgeAcceptedJob(c.operation, a);
  },
  describe: (c) => `POST /${c.operation} ${describeBody(c.body)}`,
};

/** Templates this run created, by id, and the name each has now (uniqueness is judged on it). */
interface TemplateBook {
  readonly names: Map<string, string>;
  updateTargetId?: string;
}
/** Per fuzz run (the teardown gets a context with a fresh signal, so key on the run id). */
const books = new Map<string, TemplateBook>();

function book(ctx: PropertyContext): TemplateBook {
  let b = books.get(ctx.runId);
  if (!b) {
    b = { names: new Map() };
    books.set(ctx.runId, b);
  }
  return b;
}

function templateIdOf(a: FuzzAnswer): string | undefined {
  const r = TemplateRecord.pick({ id: true, name: true }).safeParse(a.json);
  return r.success ? r.data.id : undefined;
}

/**
 * §2.5: the create answer echoes the stored values, with the documented defaults for the
 * fields the body left out. Undefined when the record agrees.
 */
function defaultsProblem(body: unknown, record: unknown): string | undefined {
  const parsed = TemplateCreate.safeParse(body);
  if (!parsed.success) return undefined;
  const want = applyTemplateDefaults(parsed.data) as Record<string, unknown>;
  const got = record as Record<string, unknown>;
  const wrong = Object.entries(want).filter(([k, v]) => JSON.stringify(got[k]) !== JSON.stringify(v));
  return wrong.length === 0 ? undefined : `§2.5 stored values and defaults: ${wrong.map(([k, v]) => `${k} should be ${JSON.stringify(v)}, is ${JSON.stringify(got[k])}`).join('; ')}`;
}

export const templateProperty: FuzzPropertyDef<TemplateCase> = {
  name: 'template-validation',
  clause: { section: '§2.5, §4.2', quote: 'imageName and name required on create; name unique; category and isServerless not accepted on update; ports <port>/<http|tcp>; volumeMountPath absolute' },
  kind: 'validation',
  skipReason: (ctx) => (ctx.target.restUrl === undefined ? 'no REST address (--rest-url)' : undefined),
  arbitrary: (ctx) => templateCase(`qbench-fuzz-${ctx.runId}`),
  async setup(ctx) {
    const b = book(ctx);
    const name = `qbench-fuzz-${ctx.runId}-update-target`;
    const a = await ctx.http.send({ operation: 'templates', method: 'POST', url: restPath(ctx.target, '/templates'), auth: 'header-bearer', body: { kind: 'json', value: { name, imageName: 'qbench/mock-worker:1' } } }, ctx.signal);
    const id = templateIdOf(a);
    if (a.status === null || a.status >= 300 || id === undefined) {
      throw new Disagreement('a created template (2xx with the §2.5 record) for a minimal valid create body', observedText(a), [a.exchange], a.curl);
    }
    b.names.set(id, name);
    b.updateTargetId = id;
  },
  async check(ctx, c) {
    const b = book(ctx);
    const existing = { existing: new Set(b.names.values()) };
    const targetId = b.updateTargetId;
    // A plain Error: the model run calls setup before any check, and a failed setup ends the run.
    if (targetId === undefined) throw new Error('template-validation: setup did not run');
    if (c.operation === 'create') {
      const e = classifyTemplateCreate(c.body, existing);
      const a = await ctx.http.send({ operation: 'templates', method: 'POST', url: restPath(ctx.target, '/templates'), auth: 'header-bearer', body: c.body }, ctx.signal);
      const id = a.status !== null && a.status < 300 ? templateIdOf(a) : undefined;
      const name = c.body.kind === 'json' ? (c.body.value as { name?: unknown } | null)?.name : undefined;
      if (id !== undefined && typeof name === 'string') b.names.set(id, name);
      judge(e, a, ctx);
      if (e.verdict === 'accept' && c.body.kind === 'json') {
        judgeShape(TemplateRecord, a, '§2.5 template record', (rec) => defaultsProblem(c.body.kind === 'json' ? c.body.value : undefined, rec));
      }
    } else {
      const currentName = b.names.get(targetId) ?? '';
      const e = classifyTemplateUpdate(c.body, existing, currentName);
      const a = await ctx.http.send({ operation: 'templates', method: 'POST', url: restPath(ctx.target, `/templates/${encodeURIComponent(targetId)}/update`), auth: 'header-bearer', body: c.body }, ctx.signal);
      const name = c.body.kind === 'json' ? (c.body.value as { name?: unknown } | null)?.name : undefined;
      if (a.status !== null && a.status < 300 && typeof name === 'string') b.names.set(targetId, name);
      judge(e, a, ctx);
      if (e.verdict === 'accept') judgeShape(TemplateRecord, a, '§2.5 template record');
    }
  },
  async teardown(ctx) {
    const b = book(ctx);
    for (const id of b.names.keys()) {
      await ctx.http.send({ operation: 'templates', method: 'DELETE', url: restPath(ctx.target, `/templates/${encodeURIComponent(id)}`), auth: 'header-bearer' }, ctx.signal);
    }
    b.names.clear();
    books.delete(ctx.runId);
  },
  describe: (c) => (c.operation === 'create' ? `POST /v1/templates ${describeBody(c.body)}` : `POST /v1/templates/{id}/update ${describeBody(c.body)}`),
};
