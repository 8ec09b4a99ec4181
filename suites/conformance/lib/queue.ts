// Queue-endpoint operations (§4.1) for checks: submit, status, cancel, retry, purge, health,
// polling in emulated time, and holding a job in the queue by occupying every worker.
import {
  fail, inconclusive, HTTP_STATUS, RUNSYNC_WAIT_MS, SECOND_MS, MINUTE_MS, HealthRecord, type CheckContext, type ProbeResponse,
  type JobState,
} from 'qbench/suite';
import { describe, expectSetupStatus, expectShape, expectStatus, field, send } from './http.js';

export type Op = 'run' | 'runsync' | 'status' | 'stream' | 'cancel' | 'retry' | 'purge-queue' | 'health' | 'status-sync' | 'requests';

/** The endpoint a check uses: its own on the emulator, the target's one otherwise. */
export function endpointFor(ctx: CheckContext, purpose = 'main'): string {
  return ctx.dedicatedEndpoint(purpose) ?? ctx.target.endpointId;
}

/** True when the check has an endpoint nobody else touches (exact counts are possible). */
export function isDedicated(ctx: CheckContext, ep: string): boolean {
  return ep !== ctx.target.endpointId;
}

export function qpath(ep: string, op: Op, id?: string): string {
  return `/v2/${ep}/${op}${id !== undefined ? `/${encodeURIComponent(id)}` : ''}`;
}

export interface SubmitOptions {
  readonly policy?: Record<string, unknown>;
  readonly webhook?: string;
  readonly extra?: Record<string, unknown>;
  /** /runsync wait query (ms). */
  readonly waitMs?: number;
  readonly timeoutMs?: number;
}

export function jobBody(input: Record<string, unknown>, o: SubmitOptions = {}): Record<string, unknown> {
  return {
    input,
    ...(o.policy ? { policy: o.policy } : {}),
    ...(o.webhook !== undefined ? { webhook: o.webhook } : {}),
    ...(o.extra ?? {}),
  };
}

/** POST /run; fails the check unless 200 with an id. */
export async function submitRun(ctx: CheckContext, ep: string, input: Record<string, unknown>, o: SubmitOptions = {}): Promise<{ id: string; res: ProbeResponse }> {
  const res = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'run'), json: jobBody(input, o) });
  expectSetupStatus(res, HTTP_STATUS.ok, 'POST /run of a valid job');
  const id = field(res.json, 'id');
  if (typeof id !== 'string' || id.length === 0) fail('POST /run answer with a string id', describe(res), res);
  return { id, res };
}

/** POST /runsync; answers the raw response (checks judge it). */
export async function submitRunsync(ctx: CheckContext, ep: string, input: Record<string, unknown>, o: SubmitOptions = {}): Promise<ProbeResponse> {
  return send(ctx, {
    iface: 'queue',
    method: 'POST',
    path: qpath(ep, 'runsync'),
    ...(o.waitMs !== undefined ? { rawQuery: `wait=${o.waitMs}` } : {}),
    json: jobBody(input, o),
    timeoutMs: o.timeoutMs ?? 60_000,
  });
}

/**
 * An answer that waits for a job (/runsync, /status-sync) where the check needs the job finished:
 * one still IN_QUEUE or IN_PROGRESS when the wait ended, or no answer before the probe gave up,
 * waited behind other jobs (a precondition not reached, not a violation): inconclusive.
 */
export function expectWaitedJobFinished(ctx: CheckContext, res: ProbeResponse, what: string, waitMs: number = RUNSYNC_WAIT_MS.defaultValue): void {
  const s = field(res.json, 'status');
  // A correct target waits `wait` ms (emulated, or real where the target does not scale it) before it
  // answers an unfinished job: one that answers in under half the shorter reading did not wait.
  const shortestWaitRealMs = Math.min(waitMs, ctx.time.toRealMs(waitMs));
  if (res.status === HTTP_STATUS.ok && (s === 'IN_QUEUE' || s === 'IN_PROGRESS') && res.durationMs < shortestWaitRealMs / 2) {
    fail(`${what}: an unfinished job answered only once the ${waitMs} ms wait has passed (§4.1 "wait controls how long the request waits for completion")`, `${describe(res)} after ${Math.round(res.durationMs)} ms`, res);
  }
  if (res.status === HTTP_STATUS.ok && (s === 'IN_QUEUE' || s === 'IN_PROGRESS')) inconclusive(`${what}: the job was still ${s} when the wait ended (the endpoint may be busy with other jobs)`, res);
  if (res.status === 0 && (res.exchange.error ?? '').startsWith('TimeoutError')) inconclusive(`${what}: no answer within ${Math.round(res.durationMs / SECOND_MS)} s (the job may be waiting behind other jobs)`, res);
}

/**
 * The id of a finished /runsync job that a check builds on (its /status, /stream, /cancel). The
 * job gone when /runsync answered (404: purged or expired while it waited behind a slow
 * endpoint's queue, e.g. by an earlier check's purge-queue) is a precondition not reached, not
 * the rule under check broken: inconclusive, like a job still waiting.
 */
export async function finishedSetupJob(ctx: CheckContext, ep: string, mockReturn: string): Promise<string> {
  const what = 'POST /runsync (setup)';
  const res = await submitRunsync(ctx, ep, { mock_return: mockReturn });
  expectWaitedJobFinished(ctx, res, what);
  if (res.status === HTTP_STATUS.notFound) inconclusive(`${what}: the job was gone when /runsync answered (purged or expired while it waited for a worker)`, res);
  expectSetupStatus(res, HTTP_STATUS.ok, what);
  const id = field(res.json, 'id');
  if (typeof id !== 'string') fail('a job id from /runsync', describe(res), res);
  return id;
}

export function getStatus(ctx: CheckContext, ep: string, id: string, rawQuery?: string): Promise<ProbeResponse> {
  return send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'status', id), ...(rawQuery !== undefined ? { rawQuery } : {}) });
}

export function postOp(ctx: CheckContext, ep: string, op: 'cancel' | 'retry', id: string): Promise<ProbeResponse> {
  return send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, op, id) });
}

/** POST /purge-queue, kept out of a window the purge-queue rate check counts in (the runner's ledger). */
export function purge(ctx: CheckContext, ep: string): Promise<ProbeResponse> {
  return ctx.rateWindowUse(ep, 'purge-queue', () => send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'purge-queue') }));
}

/** /health of `ep` as the target answers it (no judgement: a reading, such as the running workers of §8's dynamic rule). */
export function readHealth(ctx: CheckContext, ep: string): Promise<ProbeResponse> {
  return send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'health') });
}

/** Real ms between /health readings taken while a burst runs. */
const HEALTH_WHILE_REAL_MS = 200;

/** /health readings every HEALTH_WHILE_REAL_MS until `done` settles (the worker count, the round trip through a burst). */
export async function healthWhile(ctx: CheckContext, ep: string, done: Promise<unknown>): Promise<ProbeResponse[]> {
  let over = false;
  void done.finally(() => { over = true; }).catch(() => undefined);
  const out: ProbeResponse[] = [];
  while (!over) {
    await Promise.race([ctx.time.sleepReal(HEALTH_WHILE_REAL_MS, ctx.signal), done.catch(() => undefined)]);
    if (!over) out.push(await readHealth(ctx, ep));
  }
  return out;
}

export async function health(ctx: CheckContext, ep: string): Promise<{ res: ProbeResponse; record: HealthRecord }> {
  const res = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'health') });
  expectStatus(res, HTTP_STATUS.ok, 'GET /health');
  return { res, record: expectShape(res, HealthRecord, 'GET /health answer') };
}

/**
 * Emulated ms a /health must show jobs queued beside idle workers, with nothing in progress, before
 * the count is judged wrong; never less than IDLE_QUEUE_FLOOR_REAL_MS real and IDLE_QUEUE_READINGS
 * readings. An idle worker takes a waiting job within a poll or two; a count that stays that long
 * is not explained by any client's traffic, whose jobs would be seen running.
 */
export const IDLE_QUEUE_SUSTAIN_MS = 10 * SECOND_MS;
const IDLE_QUEUE_FLOOR_REAL_MS = 3_000;
const IDLE_QUEUE_READINGS = 5;

/** Jobs counted queued while a worker sits idle and nothing runs. */
export function queuedBesideIdle(h: HealthRecord): boolean {
  return h.jobs.inQueue > 0 && h.jobs.inProgress === 0 && h.workers.running === 0 && h.workers.idle > 0;
}

/**
 * Starting from `first`, read /health while it shows jobs queued beside idle workers with nothing in
 * progress. Answers every reading once that has lasted IDLE_QUEUE_SUSTAIN_MS (and the floors), or
 * null as soon as one reading differs (a job ran, or the queue emptied).
 */
export async function sustainedIdleQueue(ctx: CheckContext, ep: string, first: { res: ProbeResponse; record: HealthRecord }): Promise<[ProbeResponse, ...ProbeResponse[]] | null> {
  if (!queuedBesideIdle(first.record)) return null;
  const readings: [ProbeResponse, ...ProbeResponse[]] = [first.res];
  const until = first.res.doneAtMs + Math.max(IDLE_QUEUE_FLOOR_REAL_MS, ctx.time.toRealMs(IDLE_QUEUE_SUSTAIN_MS));
  const every = Math.max(pollIntervalRealMs(ctx), (until - first.res.doneAtMs) / IDLE_QUEUE_READINGS);
  while (readings.length < IDLE_QUEUE_READINGS || (readings.at(-1) as ProbeResponse).sentAtMs < until) {
    await ctx.time.sleepReal(every, ctx.signal);
    const h = await health(ctx, ep);
    readings.push(h.res);
    if (!queuedBesideIdle(h.record)) return null;
  }
  return readings;
}

/** A job's state from a /status answer: its status string, or 'deleted' on 404. */
export function stateOf(res: ProbeResponse): JobState | 'deleted' | 'other' {
  if (res.status === HTTP_STATUS.notFound) return 'deleted';
  const s = field(res.json, 'status');
  return res.status === HTTP_STATUS.ok && typeof s === 'string' ? (s as JobState) : 'other';
}

/** Real ms between polls: about one emulated second, kept between 20 ms and 500 ms of real time. */
export function pollIntervalRealMs(ctx: CheckContext): number {
  return Math.min(500, Math.max(20, ctx.time.toRealMs(SECOND_MS)));
}

export interface PollResult {
  readonly res: ProbeResponse;
  /** Real time (performance.now()) the deciding answer arrived. */
  readonly atMs: number;
}

/** Real ms a poll for a state runs at least, whatever the time scale: a busy host or a proxy hop answers slower. */
export const POLL_FLOOR_REAL_MS = 2_000;
/**
 * Real ms a wait for a precondition (a job to start, finish, or be picked up) runs at least: at
 * time scale 60 the emulated minute is one real second, which queueing behind other clients'
 * jobs and a network hop can use up.
 */
export const PRECONDITION_FLOOR_REAL_MS = 8_000;

/**
 * Poll /status until `done(state)` holds or `timeoutEmulatedMs` passes (then undefined).
 * The timeout is emulated time, never less than `floorRealMs` of real time.
 */
export async function pollStatus(
  ctx: CheckContext, ep: string, id: string,
  done: (state: JobState | 'deleted' | 'other', res: ProbeResponse) => boolean,
  timeoutEmulatedMs: number,
  floorRealMs = POLL_FLOOR_REAL_MS,
): Promise<PollResult | undefined> {
  const deadline = performance.now() + Math.max(floorRealMs, ctx.time.toRealMs(timeoutEmulatedMs));
  const every = pollIntervalRealMs(ctx);
  for (;;) {
    const res = await getStatus(ctx, ep, id);
    if (done(stateOf(res), res)) return { res, atMs: res.doneAtMs };
    if (performance.now() > deadline) return undefined;
    await ctx.time.sleepReal(every, ctx.signal);
  }
}

const TERMINAL: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/**
 * Poll until the job reaches one of `states` (a precondition of the check). The wait is
 * `timeoutEmulatedMs` of the target's time and never less than PRECONDITION_FLOOR_REAL_MS of real
 * time. A job that ends in another terminal state broke the rule the caller relies on: fail.
 * A job still queued or running when the wait ends, or gone (404) before it got there (expired
 * while it waited behind other jobs), did not set the precondition up: inconclusive.
 */
export async function awaitState(ctx: CheckContext, ep: string, id: string, states: readonly (JobState | 'deleted')[], timeoutEmulatedMs: number, what: string): Promise<PollResult> {
  const wanted = states as readonly string[];
  const logFrom = ctx.http.log.length;
  const r = await pollStatus(ctx, ep, id, (s) => wanted.includes(s) || TERMINAL.includes(s) || s === 'deleted', timeoutEmulatedMs, PRECONDITION_FLOOR_REAL_MS);
  const waited = `${timeoutEmulatedMs / SECOND_MS} s (emulated; at least ${PRECONDITION_FLOOR_REAL_MS / SECOND_MS} s real)`;
  if (r === undefined) {
    const last = ctx.http.log.at(-1);
    inconclusive(`${what}: job ${id} did not reach ${states.join(' or ')} within ${waited}; last answer ${last ? describe(last) : 'none'} (the endpoint may be busy with other jobs)`, last);
  }
  const st = stateOf(r.res);
  if (wanted.includes(st)) return r;
  if (st === 'deleted') inconclusive(`${what}: job ${id} was gone (404) before it reached ${states.join(' or ')} (expired or purged while it waited for a worker)`, r.res);
  // A job awaited running that is found finished ran between two polls (a stalled host, a slow network): not seen, not broken.
  if (wanted.includes('IN_PROGRESS') && (st === 'COMPLETED' || st === 'FAILED' || st === 'TIMED_OUT')) {
    const queuedWhileRunning = contradictsExecution(ctx, ctx.http.log.slice(logFrom).filter((x) => x.exchange.request.url.includes(qpath(ep, 'status', id))), r.res);
    if (queuedWhileRunning !== undefined) {
      fail(`${what}: /status of job ${id} says IN_PROGRESS while it runs (§3.1)`, `${describe(queuedWhileRunning)} while, by the final record's executionTime, the job was running; final: ${describe(r.res)}`, [r.res, queuedWhileRunning]);
    }
    inconclusive(`${what}: job ${id} had already run to ${st} when a poll saw it (no poll caught it IN_PROGRESS)`, r.res);
  }
  fail(`${what}: job ${id} reaches ${states.join(' or ')} within ${waited}`, describe(r.res), r.res);
}

/** Share of a job's executionTime left as margin for clock error before a poll is judged (besides one poll interval). */
const EXECUTION_MARGIN_SHARE = 0.1;

/**
 * Cross-check of polls that never saw a job IN_PROGRESS against the job's own final record: the
 * job ended before the final answer arrived and ran its `executionTime` up to then, so it had
 * surely started by (final answer less executionTime). A poll sent after that moment, plus a margin
 * of a tenth of the run and one poll interval, that answered IN_QUEUE contradicts the record: the
 * latest such poll is returned as the evidence.
 */
function contradictsExecution(ctx: CheckContext, polls: readonly ProbeResponse[], final: ProbeResponse): ProbeResponse | undefined {
  const exec = field(final.json, 'executionTime');
  if (typeof exec !== 'number' || exec <= 0) return undefined;
  const execReal = ctx.time.toRealMs(exec);
  const startedBy = final.doneAtMs - execReal + execReal * EXECUTION_MARGIN_SHARE + pollIntervalRealMs(ctx);
  return polls.filter((p) => p !== final && stateOf(p) === 'IN_QUEUE' && p.sentAtMs >= startedBy).at(-1);
}

/**
 * A mock job's `mock_delay` in seconds: `emulatedS`, and never less than `realFloorMs` of real
 * time, so that a check which must observe the job running (or answer before it ends) still can
 * at a high time scale, where a few emulated seconds are shorter than one poll over a network.
 */
export function mockDelayS(ctx: CheckContext, emulatedS: number, realFloorMs: number): number {
  return Math.max(emulatedS, Math.ceil(ctx.time.toEmulatedMs(realFloorMs) / SECOND_MS));
}

/**
 * A blocker's handler delay: 15 emulated minutes, longer than any check that holds the queue
 * (they are cancelled afterwards), and short enough that a real target which ignored the
 * cancel would not bill for hours.
 */
export const BLOCKER_DELAY_S = (15 * MINUTE_MS) / SECOND_MS;
/** Emulated time a check waits for workers to pick up blockers (covers the emulator's cold start). */
export const PICKUP_WAIT_MS = 30 * SECOND_MS;
/** Emulated time without a new blocker starting after which every worker counts as busy (covers a cold start). */
const SETTLE_MS = 5 * SECOND_MS;
/**
 * ...and never less than this in real time: on a time-scaled target, SETTLE_MS is tens of ms,
 * shorter than a network round trip plus the poll interval of an external worker process, which
 * would count a worker about to take its blocker as busy.
 */
const SETTLE_FLOOR_REAL_MS = 1_000;

export interface QueueHold {
  readonly blockers: readonly string[];
  /**
   * Every worker was seen busy once the blockers settled: all the advertised slots ran blockers,
   * or a blocker stayed queued. False: the hold may have left a worker free.
   */
  readonly full: boolean;
  /** Cancel every blocker (best effort). */
  release(): Promise<void>;
}

/** Blockers a check adds at most on a target that does not advertise its worker count. */
const MAX_BLOCKERS = 24;

/** Worker slots the emulator advertises; null on a target that does not say. */
function advertisedSlots(ctx: CheckContext): number | null {
  const w = field(ctx.target.info, 'workers');
  const max = field(w, 'max');
  const per = field(w, 'jobsPerWorker');
  return typeof max === 'number' ? max * (typeof per === 'number' ? per : 1) : null;
}

/**
 * Occupy every worker of `ep` with long blocker jobs, so that a lowPriority job submitted next
 * stays IN_QUEUE (§7 "a job waits in the queue when ... the maximum worker count is reached").
 */
export async function holdQueue(ctx: CheckContext, ep: string): Promise<QueueHold> {
  const known = advertisedSlots(ctx);
  const blockers: string[] = [];
  const release = async () => {
    await Promise.all(blockers.map((b) => ctx.http.send({ iface: 'queue', method: 'POST', path: qpath(ep, 'cancel', b) }).catch(() => undefined)));
  };
  const add = async () => blockers.push((await submitRun(ctx, ep, { mock_delay: BLOCKER_DELAY_S, qbench: 'blocker' })).id);
  let full: boolean;
  try {
    // Known worker count (emulator): exactly that many blockers, so queue counts stay exact.
    // Unknown (real target): start from /health's count and add blockers until one stays queued.
    let first = known;
    if (first === null) {
      const w = (await health(ctx, ep)).record.workers;
      first = Math.max(1, w.idle + w.running);
    }
    for (let i = 0; i < first; i++) await add();
    for (;;) {
      const { running, queued } = await settle(ctx, ep, blockers);
      full = known !== null ? running === blockers.length : queued > 0;
      if (known !== null || queued > 0 || blockers.length >= MAX_BLOCKERS) break;
      await add();
    }
  } catch (e) {
    await release();
    throw e;
  }
  return { blockers, full, release };
}

/**
 * Wait until every blocker runs, or the number running has not grown for SETTLE_MS (at least
 * SETTLE_FLOOR_REAL_MS: every worker busy, the rest stay queued), or PICKUP_WAIT_MS has passed.
 */
async function settle(ctx: CheckContext, ep: string, blockers: readonly string[]): Promise<{ running: number; queued: number }> {
  const deadline = performance.now() + Math.max(PRECONDITION_FLOOR_REAL_MS, ctx.time.toRealMs(PICKUP_WAIT_MS));
  let running = -1;
  let since = performance.now();
  let queued = 0;
  while (performance.now() < deadline) {
    const states = await Promise.all(blockers.map(async (b) => stateOf(await getStatus(ctx, ep, b))));
    const now = states.filter((s) => s === 'IN_PROGRESS').length;
    queued = states.filter((s) => s === 'IN_QUEUE').length;
    if (now === blockers.length) return { running: now, queued: 0 };
    if (now !== running) {
      running = now;
      since = performance.now();
    } else if (now > 0 && performance.now() - since > Math.max(SETTLE_FLOOR_REAL_MS, ctx.time.toRealMs(SETTLE_MS))) {
      break;
    }
    await ctx.time.sleepReal(pollIntervalRealMs(ctx), ctx.signal);
  }
  return { running: Math.max(0, running), queued };
}

/** Submit a lowPriority job behind the blockers and confirm it is IN_QUEUE, or skip. */
export async function submitQueued(ctx: CheckContext, ep: string, input: Record<string, unknown>, o: SubmitOptions = {}): Promise<{ id: string; hold: QueueHold }> {
  const hold = await holdQueue(ctx, ep);
  try {
    const { id } = await submitRun(ctx, ep, input, { ...o, policy: { lowPriority: true, ...(o.policy ?? {}) } });
    await ctx.time.sleep(2 * SECOND_MS, ctx.signal);
    const res = await getStatus(ctx, ep, id);
    if (stateOf(res) !== 'IN_QUEUE') {
      await hold.release();
      inconclusive(`could not hold a job in the queue (it was ${describe(res)} with ${hold.blockers.length} blocker jobs running)`, res);
    }
    return { id, hold };
  } catch (e) {
    await hold.release();
    throw e;
  }
}
