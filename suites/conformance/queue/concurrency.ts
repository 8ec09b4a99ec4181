// §8 concurrency column: one check per capped operation (runsync, run, status, stream, cancel,
// openai, requests). cap+k requests are held open at once: exactly `cap` admitted, the rest 429
// (none before `cap` are in flight), and admitted again once the slots are free. An emulator that
// advertises the opt-in hold (/_qbench/info limits.hold) holds any operation; a real target only
// /runsync (a slow mock-worker job) and a long-polling /stream, other operations skip there.
import { z } from 'zod';
import {
  fail, inconclusive, skip, HTTP_STATUS, RATE_LIMITS, RATE_WINDOW_MS, RUNSYNC_WAIT_MS, SECOND_MS, type CheckContext,
  type CheckDefinition, type ProbeRequest, type ProbeResponse, type RateLimitedOperation,
} from 'qbench/suite';
import { describe, expectStatus, field, sendRetryingPath } from '../lib/http.js';
import { endpointFor, finishedSetupJob, healthWhile, isDedicated, postOp, purge, qpath, submitRun } from '../lib/queue.js';

/** Operations with a concurrency cap in the §8 table (purge-queue has none). */
const CAPPED = (Object.keys(RATE_LIMITS) as RateLimitedOperation[]).filter((op) => RATE_LIMITS[op].concurrency !== null);

/** Real ms the emulator holds each request on the first attempt; doubled on the one retry. */
const HOLD_REAL_MS = 2_000;
/** Real ms a slow mock-worker /runsync job runs on a real target (the requests stay open that long). */
const RUNSYNC_HANDLER_REAL_MS = 15_000;
/** A /stream answer slower than this (real ms) on a running job with no chunk counts as a long-poll. */
const LONG_POLL_MIN_REAL_MS = 500;
/** Requests kept out of the burst's rate budget: the probe before it and the recovery request after. */
const RESERVED_REQUESTS = 2;

/** Requests sent past the cap: 20% of it, at least 3, and never so many that the burst meets the rate limit. */
function extraFor(cap: number, requestsPerWindow: number): number {
  return Math.max(1, Math.min(Math.max(3, Math.ceil(cap * 0.2)), requestsPerWindow - cap - RESERVED_REQUESTS));
}

/** The §8 table row of `op`, quoted in the check's title. */
function tableRow(op: RateLimitedOperation): string {
  const r = RATE_LIMITS[op];
  return `| ${r.path} | ${r.method} | ${r.requestsPerWindow} requests per ${RATE_WINDOW_MS / SECOND_MS} seconds | ${r.concurrency ?? 'none'} |`;
}

const HoldAdvert = z.looseObject({ operations: z.array(z.string()), maxRealMs: z.number().int().positive() });

/** The emulator's opt-in hold for `op`, when the target advertises one. */
function holdSupport(ctx: CheckContext, op: RateLimitedOperation): { maxRealMs: number } | null {
  const r = HoldAdvert.safeParse(field(field(ctx.target.info, 'limits'), 'hold'));
  return r.success && r.data.operations.includes(op) ? { maxRealMs: r.data.maxRealMs } : null;
}

async function setHold(ctx: CheckContext, ep: string, op: RateLimitedOperation, realMs: number): Promise<void> {
  const res = await ctx.http.send({ iface: 'queue', method: 'POST', path: '/_qbench/limits', json: { hold: { endpoint: ep, realMs: { [op]: realMs } } }, signal: ctx.signal });
  expectStatus(res, HTTP_STATUS.ok, `POST /_qbench/limits (hold ${op} for ${realMs} ms; the emulator advertises it)`);
}

/** A request of `op` that answers at once when not held (status/stream/cancel of a finished /runsync job). */
async function requestMaker(ctx: CheckContext, op: RateLimitedOperation, ep: string): Promise<() => ProbeRequest> {
  const finished = () => finishedSetupJob(ctx, ep, 'concurrency');
  switch (op) {
    case 'run':
    case 'runsync':
      return () => ({ iface: 'queue', method: 'POST', path: qpath(ep, op), ...(op === 'runsync' ? { rawQuery: `wait=${RUNSYNC_WAIT_MS.min}` } : {}), json: { input: { mock_return: 'c' } } });
    case 'status':
    case 'stream':
    case 'cancel': {
      const id = await finished();
      return () => ({ iface: 'queue', method: op === 'cancel' ? 'POST' : 'GET', path: qpath(ep, op, id) });
    }
    case 'requests':
      return () => ({ iface: 'queue', method: 'GET', path: qpath(ep, 'requests') });
    case 'openai':
      return () => ({ iface: 'queue', method: 'POST', path: `/v2/${ep}/openai/v1/models`, json: {} });
    case 'purge-queue':
      return () => ({ iface: 'queue', method: 'POST', path: qpath(ep, 'purge-queue') });
  }
}

export interface HeldBurst {
  readonly answers: readonly ProbeResponse[];
  readonly admitted: readonly ProbeResponse[];
  readonly refused: readonly ProbeResponse[];
  readonly errors: readonly ProbeResponse[];
  readonly firstSentMs: number;
  /** Real ms from the first request sent to the last admitted answer. */
  readonly spanMs: number;
}

/** A burst's answers sorted into admitted, refused (429) and errors (no answer). */
export function heldBurst(answers: readonly ProbeResponse[]): HeldBurst {
  const refused = answers.filter((a) => a.status === HTTP_STATUS.tooManyRequests);
  const errors = answers.filter((a) => a.status === 0);
  const admitted = answers.filter((a) => a.status !== 0 && a.status !== HTTP_STATUS.tooManyRequests);
  const firstSentMs = Math.min(...answers.map((a) => a.sentAtMs));
  const lastAdmittedMs = Math.max(firstSentMs, ...admitted.map((a) => a.doneAtMs));
  return { answers, admitted, refused, errors, firstSentMs, spanMs: lastAdmittedMs - firstSentMs };
}

/** Send `n` requests at once (no lanes: every one is in flight together) and wait for every answer. */
async function sendAtOnce(ctx: CheckContext, n: number, make: () => ProbeRequest, timeoutMs: number, signal: AbortSignal = ctx.signal): Promise<HeldBurst> {
  return heldBurst(await Promise.all(Array.from({ length: n }, () => ctx.http.send({ ...make(), signal, timeoutMs }))));
}

export type Judgement = { kind: 'pass'; observed: string } | { kind: 'inconclusive'; why: string };

/**
 * Judge a burst of cap+k. `minHoldRealMs`: the least time the target held each admitted request.
 * Each admitted request arrived after the first was sent and at least minHold before its answer, so
 * when the span from the first send to the last admitted answer is under 2 x minHold, every admitted
 * request was in flight at one moment: more than `cap` admitted is then a violation, not a race.
 * Fewer than `cap` admitted while others got 429 means 429 came before `cap` were in flight
 * (exact on an endpoint of the check's own; `tolerance` allows for other clients on a shared one).
 */
export function judgeHeldBurst(b: HeldBurst, cap: number, minHoldRealMs: number, tolerance: number): Judgement {
  const n = b.answers.length;
  // Requests the network path lost (reset, stalled) are no answers of the target: the rule is judged
  // on the answers that came, and a lost request may have been admitted or refused.
  const lost = b.errors.length;
  const lostNote = lost > 0 ? `; the path lost ${lost} of ${n} (${b.errors[0]?.exchange.error ?? 'no answer'})` : '';
  const simultaneous = b.spanMs < 2 * minHoldRealMs;
  if (b.admitted.length > cap) {
    if (!simultaneous) return { kind: 'inconclusive', why: `the burst took ${Math.round(b.spanMs)} ms, not under twice the ${Math.round(minHoldRealMs)} ms hold: slots may have been freed in between` };
    // The violating exchange: the first admission past the cap, in the order they were sent.
    const pastCap = [...b.admitted].sort((x, y) => x.sentAtMs - y.sentAtMs)[cap]!;
    fail(`at most ${cap} requests in flight (§8), the other ${n - cap} answered 429`, `${b.admitted.length} of ${n} admitted, all in flight together (first send to last answer ${Math.round(b.spanMs)} ms < 2 x ${Math.round(minHoldRealMs)} ms hold), ${b.refused.length} x 429${lostNote}`, pastCap);
  }
  if (b.admitted.length + tolerance < cap) {
    if (b.admitted.length + lost + tolerance >= cap) return { kind: 'inconclusive', why: `${b.admitted.length} admitted and ${b.refused.length} x 429 of ${n}${lostNote}: the lost requests may have held the missing slots` };
    if (tolerance > 0) return { kind: 'inconclusive', why: `${b.refused.length} x 429 with only ${b.admitted.length} of this check's requests admitted on a shared endpoint: other clients' requests may have held the slots or used the rate window` };
    // Fewer admitted than the cap and no network error: the rest were refused, the first of them too early.
    fail(`429 only once ${cap} requests are in flight (§8): ${cap} of ${n} admitted`, `${b.refused.length} x 429 with only ${b.admitted.length} of this check's requests admitted`, b.refused[0]!);
  }
  return { kind: 'pass', observed: `${b.admitted.length} admitted and held, ${b.refused.length} x 429 of ${n} sent at once (cap ${cap})${lostNote}` };
}

/** Wait until `more` requests fit in the operation's rate window after the `sentMs` sends of this check. */
async function rateRoom(ctx: CheckContext, sentMs: number[], more: number, requestsPerWindow: number): Promise<void> {
  if (sentMs.length + more <= requestsPerWindow) return;
  const first = sentMs[0] ?? performance.now();
  await ctx.time.sleepReal(first + ctx.target.limits.rateWindowRealMs * 1.1 - performance.now(), ctx.signal);
  sentMs.length = 0;
}

/** Emulator path: the advertised hold keeps cap+k of any operation open at once. */
async function viaHold(ctx: CheckContext, op: RateLimitedOperation, cap: number, maxHoldRealMs: number): Promise<string> {
  const lim = ctx.target.limits;
  const ep = endpointFor(ctx, `concurrency-${op}`);
  const dedicated = isDedicated(ctx, ep);
  const rpw = lim.rates[op].requestsPerWindow;
  const extra = extraFor(cap, rpw);
  const total = cap + extra;
  const make = await requestMaker(ctx, op, ep);
  const sent: number[] = [];
  const probe = await ctx.http.send({ ...make(), signal: ctx.signal });
  sent.push(probe.sentAtMs);
  if (probe.status === HTTP_STATUS.tooManyRequests) inconclusive(`/${op} already answers 429 before the burst on endpoint ${ep} (another client used its window or its slots); give --spare-endpoint or rerun when the endpoint is idle`, probe);
  if (probe.status === HTTP_STATUS.notFound || probe.status === 405) {
    if (op === 'requests' || op === 'openai') skip(`the target does not serve ${op === 'requests' ? 'GET /requests' : 'POST /openai/*'} (answered ${probe.status}); its shape is not specified`);
  }
  ctx.measure('cap', cap);
  ctx.measure('sentAtOnce', total);
  let verdict: Judgement | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const holdMs = Math.min(maxHoldRealMs, HOLD_REAL_MS * 2 ** attempt);
    await rateRoom(ctx, sent, total + 1, rpw);
    const b = await ctx.burst(async () => {
      await setHold(ctx, ep, op, holdMs);
      try {
        return await sendAtOnce(ctx, total, make, holdMs + 30_000);
      } finally {
        await setHold(ctx, ep, op, 0);
      }
    });
    for (const a of b.answers) sent.push(a.sentAtMs);
    ctx.measure('admitted', b.admitted.length);
    ctx.measure('refused429', b.refused.length);
    ctx.measure('holdRealMs', holdMs);
    ctx.measure('burstSpanRealMs', Math.round(b.spanMs));
    verdict = judgeHeldBurst(b, cap, holdMs, dedicated ? 0 : Math.floor(cap * 0.02));
    if (verdict.kind === 'pass') break;
  }
  if (verdict?.kind !== 'pass') inconclusive(`could not hold ${total} requests open together: ${verdict?.why ?? 'no burst'}`);
  // Recovery: the hold is cleared and every held answer is in, so the slots are free again.
  await rateRoom(ctx, sent, 1, rpw);
  const again = await sendRetryingPath(ctx, make());
  if (again.status === HTTP_STATUS.tooManyRequests || again.status === 0) fail(`/${op} admitted again once the held requests were answered (slots free)`, describe(again), again);
  if (op === 'run' || op === 'runsync' || op === 'openai') await purge(ctx, ep);
  return `${verdict.observed}; admitted again after the hold`;
}

/** Real target, /runsync: jobs of a slow mock-worker handler keep the requests open (the wait is long). */
async function runsyncViaHandler(ctx: CheckContext, cap: number): Promise<string> {
  const ep = endpointFor(ctx, 'concurrency-runsync');
  const extra = extraFor(cap, ctx.target.limits.rates.runsync.requestsPerWindow);
  const total = cap + extra;
  const abort = new AbortController();
  const delayS = Math.ceil(ctx.time.toEmulatedMs(RUNSYNC_HANDLER_REAL_MS) / SECOND_MS);
  const answers: ProbeResponse[] = [];
  const released: ProbeResponse[] = [];
  let aborted = 0;
  const heldCount = await ctx.burst(async () => {
    const held = Array.from({ length: total }, () =>
      ctx.http
        .send({ iface: 'queue', method: 'POST', path: qpath(ep, 'runsync'), rawQuery: `wait=${RUNSYNC_WAIT_MS.max}`, json: { input: { mock_delay: delayS } }, signal: ctx.signal, release: abort.signal, timeoutMs: 600_000 })
        .then((r) => { (r.released === true ? released : answers).push(r); })
        .catch(() => { aborted += 1; }),
    );
    try {
      // The refusals come at once; wait for them, at most 10 s of real time.
      const deadline = performance.now() + 10_000;
      while (answers.filter((a) => a.status === HTTP_STATUS.tooManyRequests).length < extra && performance.now() < deadline) {
        await ctx.time.sleepReal(50, ctx.signal);
      }
      await ctx.time.sleepReal(200, ctx.signal);
      return total - answers.length;
    } finally {
      abort.abort();
      await Promise.all(held);
    }
  });
  const refused = answers.filter((a) => a.status === HTTP_STATUS.tooManyRequests);
  await purge(ctx, ep);
  ctx.measure('cap', cap);
  ctx.measure('inFlightAccepted', heldCount + answers.filter((a) => a.status === HTTP_STATUS.ok).length);
  ctx.measure('refused429', refused.length);
  ctx.measure('releasedHeld', released.length);
  if (aborted > 0) inconclusive(`${aborted} of the ${total} requests ended without a record (the run was stopping)`);
  const tooMany = refused.length > extra + Math.floor(cap * 0.02);
  // Other clients' /runsync requests in flight hold slots of the same cap on a shared endpoint.
  if (tooMany && !isDedicated(ctx, ep)) inconclusive(`${refused.length} x 429 of ${total} (cap ${cap}, ${extra} past it) on a shared endpoint: other clients' /runsync requests in flight may hold slots; give --spare-endpoint for an exact count`, refused[0]);
  // Every request was sent at once; the one past the cap (in the order sent) is the one that should have drawn 429.
  const pastCap = [...released, ...answers].sort((x, y) => x.sentAtMs - y.sentAtMs)[cap];
  if (refused.length === 0 && pastCap !== undefined) fail(`429 for the ${extra} requests past ${cap} in flight`, `no 429 among ${total} concurrent /runsync (${heldCount} held)`, pastCap);
  if (tooMany) fail(`at most ${extra} refusals (cap ${cap})`, `${refused.length} x 429`, refused[0]!);
  return `${refused.length} x 429 of ${total}, ${heldCount} held by a ${RUNSYNC_HANDLER_REAL_MS / SECOND_MS} s handler`;
}

/** Real target, /stream: a running job with no chunk yet, if the target long-polls /stream for it. */
async function streamViaLongPoll(ctx: CheckContext, cap: number): Promise<string> {
  const ep = endpointFor(ctx, 'concurrency-stream');
  const delayS = Math.ceil(ctx.time.toEmulatedMs(5 * 60 * SECOND_MS) / SECOND_MS);
  const { id } = await submitRun(ctx, ep, { mock_delay: delayS, qbench: 'concurrency-stream' });
  try {
    const make = (): ProbeRequest => ({ iface: 'queue', method: 'GET', path: qpath(ep, 'stream', id) });
    const probe = await ctx.http.send({ ...make(), signal: ctx.signal });
    expectStatus(probe, HTTP_STATUS.ok, 'GET /stream of a running job');
    if (probe.durationMs < LONG_POLL_MIN_REAL_MS) skip(`/stream answers a running job without a new chunk at once (${Math.round(probe.durationMs)} ms, no long-poll), so it cannot be held open`);
    const extra = extraFor(cap, ctx.target.limits.rates.stream.requestsPerWindow);
    const { b, health } = await ctx.burst(async () => {
      const sending = sendAtOnce(ctx, cap + extra, make, 60_000);
      const readings = await healthWhile(ctx, ep, sending);
      return { b: await sending, health: readings };
    });
    // The least server-side hold: the quickest admitted answer less the slowest answer that was not
    // held (a refusal, a /health read), the round trip and queueing through the same burst.
    const rtt = Math.max(0, ...b.refused.map((a) => a.durationMs), ...health.map((a) => a.durationMs));
    ctx.measure('roundTripUnderBurstRealMs', Math.round(rtt));
    const minHold = Math.min(...b.admitted.map((a) => a.durationMs)) - rtt;
    ctx.measure('cap', cap);
    ctx.measure('longPollRealMs', Math.round(probe.durationMs));
    ctx.measure('admitted', b.admitted.length);
    ctx.measure('refused429', b.refused.length);
    const v = judgeHeldBurst(b, cap, Math.max(0, minHold), Math.floor(cap * 0.02));
    if (v.kind !== 'pass') skip(`the long-poll (${Math.round(probe.durationMs)} ms) was too short to hold ${cap + extra} requests together: ${v.why}`);
    return `${v.observed}, held by the target's /stream long-poll`;
  } finally {
    await postOp(ctx, ep, 'cancel', id).catch(() => undefined);
  }
}

function concurrencyCheck(op: RateLimitedOperation): CheckDefinition {
  const rule = RATE_LIMITS[op];
  return {
    id: `queue.concurrency.${op}`,
    title: `§8 ${tableRow(op)}: of ${rule.concurrency ?? 0}+k ${rule.method} ${rule.path} requests held open at once, exactly ${rule.concurrency ?? 0} admitted, the rest 429; admitted again once they end`,
    clauses: ['8/concurrency', '7/429'],
    interface: 'queue', kind: 'spec',
    tags: ['rate-limit', 'destructive', ...(op === 'runsync' || op === 'stream' ? (['needs-mock-worker'] as const) : [])],
    async run(ctx) {
      const lim = ctx.target.limits;
      if (!lim.rateLimitsEnabled) skip('the target advertises rate limits switched off');
      const cap = lim.rates[op].concurrency;
      if (cap === null) skip(`the target advertises no ${rule.path} concurrency cap`);
      const hold = holdSupport(ctx, op);
      if (hold === null && op !== 'runsync' && op !== 'stream') {
        skip(`${rule.method} ${rule.path} answers at once on this target, so ${cap} of them cannot be held open together (only /runsync and a long-polling /stream can; an emulator advertising limits.hold holds any operation)`);
      }
      // A burst waits for a clean window of its operation: never one another check (the rate check of the same operation) is counting in.
      const lease = await ctx.rateWindow(endpointFor(ctx, `concurrency-${op}`), op);
      ctx.measure('waitedForCleanWindowMs', Math.round(lease.waitedMs));
      try {
        if (hold !== null) return { observed: await viaHold(ctx, op, cap, hold.maxRealMs) };
        return { observed: op === 'runsync' ? await runsyncViaHandler(ctx, cap) : await streamViaLongPoll(ctx, cap) };
      } finally {
        lease.release();
      }
    },
  };
}

export const concurrencyChecks: CheckDefinition[] = CAPPED.map(concurrencyCheck);
