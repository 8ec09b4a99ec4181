// §4.1/§2.3 /stream: chunk shape, at most 1 MB per chunk (either reading), larger output split
// across chunks with nothing lost, the end-of-stream rule; §6 webhook delivery, 2 retries 10 s
// apart, none after a 200, body (WIRE-COMPAT) the /status record.
import {
  fail, inconclusive, skip, HTTP_STATUS, SECOND_MS, STREAM_CHUNK, StreamAnswer, WEBHOOK, isTerminal, type CheckContext,
  type CheckDefinition, type ProbeResponse, type JobState,
} from 'qbench/suite';
import { describe, expectShape, expectStatus, field, send } from '../lib/http.js';
import { awaitState, endpointFor, getStatus, qpath, submitRun } from '../lib/queue.js';
import { startReceiver, type WebhookCall } from '../lib/receiver.js';
import { SHORT_JOB_MS } from './answers.js';

/** Calls to /stream one check makes at most (each may long-poll about a second). */
const MAX_STREAM_CALLS = 60;
/** Size of the oversized element: 2.5 MB, past both readings of the 1 MB chunk cap. */
const BIG_ELEMENT_CHARS = Math.round(STREAM_CHUNK.binaryBytes * 2.5);

interface StreamRead {
  readonly chunks: unknown[];
  /** The /stream answer that carried each chunk (same index as `chunks`). */
  readonly chunkAnswers: ProbeResponse[];
  readonly answers: ProbeResponse[];
  /** The last /stream answer read (the end of the stream). */
  readonly last: ProbeResponse;
  readonly form: 'array' | 'object';
  readonly finalStatus?: string;
  readonly endedWithEmpty: boolean;
  /** /stream calls whose answer the network path lost (their chunks are not handed out again). */
  readonly lost: readonly ProbeResponse[];
}

/**
 * Chunks are handed out once: a /stream answer the path lost took its chunks with it. A stream that
 * came out short after such a loss is no evidence about the target: inconclusive, naming the loss.
 */
function unlessLost(r: StreamRead, expected: string): void {
  const first = r.lost[0];
  if (first !== undefined) inconclusive(`${expected}: ${r.lost.length} /stream answer${r.lost.length > 1 ? 's were' : ' was'} lost on the network path (${first.exchange.error ?? 'no answer'}), and the chunks each carried are not handed out again`, [first, r.last]);
}

async function readStream(ctx: CheckContext, ep: string, id: string): Promise<StreamRead> {
  const chunks: unknown[] = [];
  const chunkAnswers: ProbeResponse[] = [];
  const answers: ProbeResponse[] = [];
  const take = (from: ProbeResponse, list: readonly unknown[]) => {
    chunks.push(...list);
    chunkAnswers.push(...list.map(() => from));
  };
  let state: string | undefined;
  let form: 'array' | 'object' = 'object';
  let finalStatus: string | undefined;
  let endedWithEmpty = false;
  const logFrom = ctx.http.log.length;
  for (let i = 0; i < MAX_STREAM_CALLS; i++) {
    const res = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'stream', id), timeoutMs: 60_000 });
    answers.push(res);
    expectStatus(res, HTTP_STATUS.ok, `GET /stream/${id}`);
    const a = expectShape(res, StreamAnswer, 'GET /stream answer (array of chunks, or {status, stream})');
    if (Array.isArray(a)) {
      // Bare-array form: the answer carries no status; read until the job is done, then once more.
      form = 'array';
      take(res, a);
      const st = await getStatus(ctx, ep, id);
      const s = field(st.json, 'status');
      if (typeof s === 'string') state = s;
      if (typeof s === 'string' && isTerminal(s as JobState)) {
        finalStatus = s;
        const last = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'stream', id), timeoutMs: 60_000 });
        answers.push(last);
        const tail = StreamAnswer.safeParse(last.json);
        if (tail.success && Array.isArray(tail.data)) take(last, tail.data);
        endedWithEmpty = true;
        break;
      }
    } else {
      take(res, a.stream);
      state = a.status;
      if (isTerminal(a.status)) {
        finalStatus = a.status;
        if (a.stream.length === 0) {
          endedWithEmpty = true;
          break;
        }
      }
    }
    if (i === MAX_STREAM_CALLS - 1) {
      // A job still waiting for a worker (other clients' jobs ahead of it) or still running has no end to read yet.
      if (state === undefined || !isTerminal(state as JobState)) {
        // Before blaming other traffic, ask the source of truth: a /status that says the job ended,
        // followed by a /stream that still says it runs, is the stream contradicting the job.
        const truth = await getStatus(ctx, ep, id);
        const ended = field(truth.json, 'status');
        if (truth.status === HTTP_STATUS.ok && typeof ended === 'string' && isTerminal(ended as JobState)) {
          const after = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'stream', id), timeoutMs: 60_000 });
          const afterState = form === 'object' ? field(after.json, 'status') : undefined;
          if (after.status === HTTP_STATUS.ok && typeof afterState === 'string' && !isTerminal(afterState as JobState)) {
            fail(`GET /stream of a job that /status answers ${ended} gives its end (a terminal status, then an empty stream)`, `/status: ${describe(truth)}; the /stream call after it: ${describe(after)}`, [res, truth, after]);
          }
          const tail = StreamAnswer.safeParse(after.json);
          if (after.status === HTTP_STATUS.ok && tail.success && !Array.isArray(tail.data) && isTerminal(tail.data.status)) {
            // It ended between the last call and this one: read as any ending (the empty end may come one call later).
            answers.push(truth, after);
            take(after, tail.data.stream);
            finalStatus = tail.data.status;
            endedWithEmpty = tail.data.stream.length === 0;
            if (!endedWithEmpty) {
              const end = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'stream', id), timeoutMs: 60_000 });
              answers.push(end);
              const e = StreamAnswer.safeParse(end.json);
              if (end.status === HTTP_STATUS.ok && e.success && !Array.isArray(e.data)) {
                take(end, e.data.stream);
                endedWithEmpty = isTerminal(e.data.status) && e.data.stream.length === 0;
              }
            }
            break;
          }
        }
        const said = truth.status === HTTP_STATUS.ok && typeof ended === 'string' ? `/status says ${ended}` : `/status answered ${describe(truth)}`;
        inconclusive(`job ${id} was still ${state ?? 'not finished'} after ${MAX_STREAM_CALLS} /stream calls (${said}): the endpoint may be busy with other jobs`, [res, truth]);
      }
      fail(`the stream of a ${state} job ends (terminal status, empty stream) within ${MAX_STREAM_CALLS} calls`, describe(res), res);
    }
  }
  const lost = ctx.http.log.slice(logFrom).filter((x) => x.status === 0 && x.released !== true && x.exchange.request.url.includes(qpath(ep, 'stream', id)));
  return { chunks, chunkAnswers, answers, last: answers.at(-1)!, form, endedWithEmpty, lost, ...(finalStatus !== undefined ? { finalStatus } : {}) };
}

function chunkBytes(c: unknown): number {
  return Buffer.byteLength(JSON.stringify(c) ?? 'null');
}

/** Characters of string output carried by the chunks (split strings add up to the original). */
function stringChars(chunks: readonly unknown[]): number {
  let n = 0;
  for (const c of chunks) {
    const o = field(c, 'output');
    if (typeof o === 'string') n += o.length;
    else if (o !== undefined) n += (JSON.stringify(o) ?? '').length;
  }
  return n;
}

/** Real ms a webhook retry may come late beyond its 10 s spacing (host load, proxy hops): the floor under the emulated tolerance. */
const LATE_WEBHOOK_FLOOR_REAL_MS = 1_000;

export const streamWebhookChecks: CheckDefinition[] = [
  {
    id: 'queue.stream.chunks',
    title: '/stream returns the handler\'s chunks in order, each at most 1 MB, a larger output split across chunks',
    clauses: ['4.1/stream-chunk-size', '4.1/stream-answer', '2.3/stream-chunk', '8/payload-limits'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker'],
    async run(ctx) {
      const ep = endpointFor(ctx, 'stream');
      const big = 'y'.repeat(BIG_ELEMENT_CHARS);
      const { id } = await submitRun(ctx, ep, { mock_return: ['first', big, 'last'] });
      const r = await readStream(ctx, ep, id);
      const sizes = r.chunks.map(chunkBytes);
      const max = Math.max(0, ...sizes);
      ctx.measure('form', r.form);
      ctx.measure('chunkCount', r.chunks.length);
      ctx.measure('largestChunkBytes', max);
      ctx.measure('withinDecimalMb', max <= STREAM_CHUNK.decimalBytes);
      const lastAnswer = r.last;
      if (max > STREAM_CHUNK.binaryBytes) {
        const idx = sizes.indexOf(max);
        fail(`every chunk at most ${STREAM_CHUNK.binaryBytes} bytes (1 MB, lenient binary reading)`, `chunk ${idx} is ${max} bytes`, r.chunkAnswers[idx]!);
      }
      const chars = stringChars(r.chunks);
      if (chars < big.length + 'first'.length + 'last'.length) {
        unlessLost(r, 'the chunks carry the whole output');
        fail(`the chunks carry the whole output (${big.length + 9} characters of string output)`, `${chars} characters in ${r.chunks.length} chunks`, lastAnswer);
      }
      const first = field(r.chunks[0], 'output');
      const last = field(r.chunks.at(-1), 'output');
      if (first !== 'first' || last !== 'last') unlessLost(r, 'chunks in the handler\'s order');
      if (first !== 'first' || last !== 'last') fail('chunks in the handler\'s order: "first" ... "last"', `first ${JSON.stringify(first)?.slice(0, 40)}, last ${JSON.stringify(last)?.slice(0, 40)}`, first !== 'first' ? r.chunkAnswers[0] ?? lastAnswer : r.chunkAnswers.at(-1) ?? lastAnswer);
      if (r.finalStatus !== 'COMPLETED') fail('the stream ends with the job COMPLETED', `final status ${r.finalStatus ?? 'none'}`, lastAnswer);
      return { observed: `${r.form} form, ${r.chunks.length} chunks, largest ${max} bytes` };
    },
  },
  {
    id: 'queue.stream.object-form-and-end',
    title: '/stream answers {status, stream}, hands each chunk out once, and ends with the final status and an empty stream',
    clauses: ['compat/stream-object'],
    interface: 'queue', kind: 'compat', tags: ['needs-mock-worker'],
    async run(ctx) {
      const ep = endpointFor(ctx, 'stream-compat');
      const { id } = await submitRun(ctx, ep, { mock_return: ['a', 'b', 'c'] });
      const r = await readStream(ctx, ep, id);
      if (r.form !== 'object') fail('the object form {status, stream: [...]}', 'a bare array', r.answers[0]!);
      const outs = r.chunks.map((c) => field(c, 'output'));
      if (JSON.stringify(outs) !== JSON.stringify(['a', 'b', 'c'])) unlessLost(r, 'each chunk exactly once, in order');
      if (JSON.stringify(outs) !== JSON.stringify(['a', 'b', 'c'])) fail('each chunk exactly once, in order: ["a","b","c"]', JSON.stringify(outs), [...r.answers.slice(0, -1), r.last]);
      if (!r.endedWithEmpty) fail('a final answer with a terminal status and stream: []', 'none', r.last);
      return undefined;
    },
  },
  {
    id: 'queue.webhook.delivery',
    title: 'A job with a webhook calls it once on completion when the receiver answers 200; the body is the /status record',
    clauses: ['6/webhook-called', '6/webhook-200', '2.1/webhook-optional', 'compat/webhook-body'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'needs-callback', 'timing'],
    emulatedWaitMs: WEBHOOK.retryDelayMs * 2,
    async run(ctx) {
      const host = ctx.target.callbackHost ?? skip('no callback host');
      const rx = await startReceiver(host, [HTTP_STATUS.ok]);
      try {
        const ep = endpointFor(ctx, 'webhook-ok');
        // The submission that named the webhook is the request a missing or repeated call reproduces.
        const { id, res: submitted } = await submitRun(ctx, ep, { mock_return: 'hooked' }, { webhook: rx.url });
        await awaitState(ctx, ep, id, ['COMPLETED'], SHORT_JOB_MS, 'the job completes');
        const first = await rx.waitForCalls(1, Math.max(2_000, ctx.time.toRealMs(WEBHOOK.retryDelayMs)), ctx.signal);
        if (first.length === 0) fail(`a webhook call to ${rx.url} when the job completes`, 'no call', submitted);
        // Wait one retry spacing more: a receiver that answered 200 gets no further call.
        await ctx.time.sleep(WEBHOOK.retryDelayMs * 1.5, ctx.signal);
        if (rx.calls.length !== 1) fail('exactly one call after a 200 answer', `${rx.calls.length} calls`, submitted);
        const call = rx.calls[0] as WebhookCall;
        let body: unknown;
        try { body = JSON.parse(call.body); } catch { body = undefined; }
        if (field(body, 'id') !== id || field(body, 'status') !== 'COMPLETED') {
          ctx.measure('bodyLooksLikeStatusRecord', false);
        } else {
          ctx.measure('bodyLooksLikeStatusRecord', true);
        }
        return { observed: `${call.method} with ${call.body.length} bytes` };
      } finally {
        await rx.close();
      }
    },
  },
  {
    id: 'queue.webhook.retries',
    title: 'A failing webhook is retried 2 more times, 10 s apart: receivers answering 500,500,200 and always 500 each get exactly 3 calls',
    clauses: ['6/webhook-retries', '6/webhook-called'],
    interface: 'queue', kind: 'spec', tags: ['needs-mock-worker', 'needs-callback', 'timing'],
    emulatedWaitMs: WEBHOOK.retryDelayMs * (WEBHOOK.extraAttempts + 2) + SHORT_JOB_MS / 2,
    async run(ctx) {
      const host = ctx.target.callbackHost ?? skip('no callback host');
      const attempts = WEBHOOK.extraAttempts + 1;
      const twice = await startReceiver(host, [HTTP_STATUS.internalError, HTTP_STATUS.internalError, HTTP_STATUS.ok]);
      const always = await startReceiver(host, [], HTTP_STATUS.internalError);
      try {
        const ep = endpointFor(ctx, 'webhook-retry');
        const jobs = await Promise.all([twice, always].map((rx) => submitRun(ctx, ep, { mock_return: 'hooked' }, { webhook: rx.url })));
        for (const j of jobs) await awaitState(ctx, ep, j.id, ['COMPLETED'], SHORT_JOB_MS, 'the job completes');
        const budgetReal = Math.max(3_000, ctx.time.toRealMs(WEBHOOK.retryDelayMs * (attempts + 1)));
        await Promise.all([twice.waitForCalls(attempts, budgetReal, ctx.signal), always.waitForCalls(attempts, budgetReal, ctx.signal)]);
        // Then one more spacing: no fourth call may come.
        await ctx.time.sleep(WEBHOOK.retryDelayMs * 1.5, ctx.signal);
        const gaps: number[][] = [];
        for (const [name, rx, job] of [['500,500,200', twice, jobs[0]!], ['always 500', always, jobs[1]!]] as const) {
          // The submission that named this receiver is the request a wrong call count or spacing reproduces.
          if (rx.calls.length !== attempts) fail(`receiver answering ${name}: exactly ${attempts} calls (1 + ${WEBHOOK.extraAttempts} retries)`, `${rx.calls.length} calls`, job.res);
          const g = rx.calls.slice(1).map((c, i) => ctx.time.toEmulatedMs(c.atMs - (rx.calls[i] as WebhookCall).atMs));
          gaps.push(g.map(Math.round));
          // Tolerance: the lower bound allows 30% early (timer and host jitter at the time scale); the
          // upper bound 10 s + 50% + 2 s emulated, and never less than LATE_WEBHOOK_FLOOR_REAL_MS of real
          // time past 10 s, since late delivery on a loaded host (or behind a proxy at a high time scale)
          // is not a spec breach of "waiting 10 seconds".
          const upper = WEBHOOK.retryDelayMs + Math.max(WEBHOOK.retryDelayMs * 0.5 + 2 * SECOND_MS, ctx.time.toEmulatedMs(LATE_WEBHOOK_FLOOR_REAL_MS));
          for (const gap of g) {
            if (gap < WEBHOOK.retryDelayMs * 0.7 || gap > upper) {
              fail(`retries ${WEBHOOK.retryDelayMs} ms apart (emulated; tolerance -30%/+${Math.round(upper - WEBHOOK.retryDelayMs)} ms)`, `gaps ${g.map((x) => Math.round(x)).join(', ')} ms for receiver ${name}`, job.res);
            }
          }
        }
        ctx.measure('retryGapsEmulatedMs', gaps);
        return { observed: `gaps ${JSON.stringify(gaps)} ms (emulated)` };
      } finally {
        await Promise.all([twice.close(), always.close()]);
      }
    },
  },
];


