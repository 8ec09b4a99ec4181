// The measurement phases, in the order they run, each bounded by the job budget and the deadline:
//  - warm: one job at a time (a worker stays warm): dispatch, execution and overhead samples;
//  - burst: many jobs at once with /health polled throughout: the scaler's reaction, the scale-up
//    timeline, the most workers reached, jobs per worker; when the active workers took it whole
//    before the scaler acted, a second, larger burst (secondBurstSize) whose workers' starts are
//    timed too;
//  - cold: wait until the idle timeout has brought the workers down to the count at rest (the
//    active workers), then a batch sized past the idle active workers' slots: each flex worker it
//    starts is a cold-start sample; each wait (and one after the last batch) gives an idle-timeout
//    sample for each worker seen stopping (the first wait, one from the last job before it);
//  - stream: jobs read through /stream, for handlers that stream (time to first chunk, gaps).
import type { InputClass } from './observations.js';
import { firstPollAfterSend, healthPoint, midOf, nextPollMs, poolBefore, recordJob, runPhase, stopReason, waitForRest, watchHealth, type PhaseContext } from './phase-context.js';
import { workersUp, type TimedHealth } from './target.js';
import { isTerminal, type HealthRecord, type JobRecord } from '../spec/index.js';
import type { BurstObservation, ColdReaction, HealthPoint, IdleReading, JobSpan, PhaseOutcome, ScaleUp, TargetSpan } from './observations.js';

export function warmPhase(ctx: PhaseContext, classes: readonly InputClass[], jobsPerClass: number): Promise<PhaseOutcome> {
  return runPhase(ctx, 'warm', async () => {
    let jobs = 0;
    for (const cls of classes) {
      for (let i = 0; i < jobsPerClass; i += 1) {
        if (ctx.deadline.signal.aborted) return { jobs, reason: stopReason(ctx, undefined) };
        const before = await ctx.target.health();
        const run = ctx.target.runSyncJob(cls.body, ctx.deadline.remainingMs(), ctx.deadline.signal);
        const during: TimedHealth[] = [];
        await watchHealth(ctx, run, (h) => during.push(h));
        const j = await run;
        jobs += 1;
        const seen = new Set(ctx.obs.jobs.flatMap((x) => (x.workerId === undefined ? [] : [x.workerId])));
        recordJob(ctx, 'warm', cls.id, j, poolBefore(before.health), j.record.workerId !== undefined && seen.has(j.record.workerId) ? undefined : startDuring(during));
      }
    }
    return { jobs };
  });
}

/**
 * A worker start seen on /health during a job's wait (a worker initializing or waiting for
 * capacity): undefined when none was; else the real instant it was first seen ready (between the
 * last poll that showed it starting and the next one), undefined when no later poll came.
 */
export function startDuring(points: readonly TimedHealth[]): { readonly readyAtMs: number | undefined } | undefined {
  const starting = (h: TimedHealth) => (h.health.workers.initializing ?? 0) + (h.health.workers.throttled ?? 0) > 0;
  let last = -1;
  points.forEach((h, i) => {
    if (starting(h)) last = i;
  });
  if (last < 0) return undefined;
  const next = points[last + 1];
  return { readyAtMs: next === undefined ? undefined : (midOf(points[last] as TimedHealth) + midOf(next)) / 2 };
}

export interface ColdOptions {
  /** Workers that stay up at rest (workersMin, given or assumed 0). */
  readonly floorWorkers: number;
  /** Real ms one idle gap may last before the phase gives up. */
  readonly maxIdleWaitMs: number;
  /** Jobs sent at once after each idle gap: every worker they start is a cold-start sample. */
  readonly batch: number;
  /**
   * The batch of the next gap from what the gaps so far showed (their scale-ups): a batch sized
   * to the idle active workers and to the scaler's candidates (see coldBatchSize). Absent: `batch`,
   * narrowed to the workers one gap started.
   */
  readonly batchFor?: ((scaleUps: readonly ScaleUp[]) => number) | undefined;
  /** The batch is sized to keep the active workers' slots taken past a waiting scaler's reaction: one cut below that size is not sent. */
  readonly outlastsActive?: boolean | undefined;
}

/** The real instant the latest job ended on its worker: its answer, less half a round trip. */
function lastJobEndMs(ctx: PhaseContext): number | undefined {
  const last = ctx.obs.jobs.at(-1);
  return last === undefined ? undefined : ctx.originMs + last.answeredAtMs - ctx.obs.rttRealMs / 2;
}

/** A change seen on /health: it happened between the poll before (`fromMs`) and the poll that showed it (`toMs`), real ms. */
export interface PollSpan {
  readonly fromMs: number;
  readonly toMs: number;
}

const spanMid = (s: PollSpan): number => (s.fromMs + s.toMs) / 2;

/**
 * Real ms from a change seen in span `a` to one seen in span `b`: middle to middle; both seen in
 * one span, half of it.
 */
export function spanGap(a: PollSpan, b: PollSpan): number {
  return b.toMs > a.toMs ? spanMid(b) - spanMid(a) : (a.toMs - a.fromMs) / 2;
}

/**
 * The scaler's reaction to a cold batch, target ms, within the poll spans it was read on: from
 * the batch's earliest job joining the queue to the first new worker (seen in `seen`). The
 * earliest, not the first sent: jobs sent at once reach the queue in any order (each passes the
 * service's overhead), and the first worker is started for the one that waited longest. The queue
 * hands jobs out first in, first out, so that job is the first seen started; of several first
 * seen in one span, the one with the longest delayTime. It joined the queue its delayTime before
 * its start.
 */
export function coldReaction(seen: PollSpan, jobs: readonly { readonly start: PollSpan | undefined; readonly delayMs: number | undefined }[], timeScale: number): ColdReaction | undefined {
  const known = jobs.flatMap((j) => (j.start === undefined || j.delayMs === undefined ? [] : [{ start: j.start, delayMs: j.delayMs }]));
  if (known.length === 0) return undefined;
  const firstTo = Math.min(...known.map((j) => j.start.toMs));
  const head = known.filter((j) => j.start.toMs === firstTo).reduce((a, j) => (j.delayMs > a.delayMs ? j : a));
  const entry = { fromMs: head.start.fromMs - head.delayMs / timeScale, toMs: head.start.toMs - head.delayMs / timeScale };
  const lo = Math.max(0, (seen.fromMs - entry.toMs) * timeScale);
  const hi = Math.max(lo, (seen.toMs - entry.fromMs) * timeScale);
  const ms = Math.min(hi, Math.max(lo, (spanMid(seen) - spanMid(entry)) * timeScale));
  return { ms, errorMs: Math.max(ms - lo, hi - ms) };
}

/** Workers up and ready (idle, running or unhealthy: no longer initializing or throttled). */
const readyOf = (h: HealthRecord): number => h.workers.idle + h.workers.running + (h.workers.unhealthy ?? 0);

/**
 * Worker starts read from /health polls after an idle gap: each new worker is a start (seen in the
 * span between two polls), each worker that became ready ends one. Starts that came in one span
 * (a scaler starting a batch's workers on one decision) began together, so the ready spans give
 * their durations whatever the order; starts spread over several spans are paired first in,
 * first out (a fast start that overtakes a full one lends it its start; the sum is kept). From a
 * span in which a worker stopped on, the counts up and ready could hide a start behind a stop: no
 * new start is read, and the starts already seen are read to their end from the count of workers
 * starting (initializing or throttled), which a stop of a ready worker leaves alone.
 *
 * A start may first wait for GPU capacity (throttled on /health, DEPLOYMENT-FACTS.md) and then
 * cold-start: the throttled count splits the two. A new worker counted throttled waits; one that
 * leaves the throttled count (the count falls) begins its cold start then; a new worker not
 * counted throttled begins it at once. The cold start runs from that beginning to ready, the wait
 * from the throttled sighting to its leaving (each paired first in, first out). A wait shorter
 * than a poll's span is not seen: that start reads as unthrottled.
 */
export class StartTracker {
  private readonly starts: PollSpan[] = [];
  /** Where each cold start began: a new worker not throttled, or one leaving the throttled count. */
  private readonly coldBegins: PollSpan[] = [];
  private readonly readies: PollSpan[] = [];
  private readonly throttleIns: PollSpan[] = [];
  private readonly throttleOuts: PollSpan[] = [];
  private stopped = false;
  /** Some /health answer carried an initializing count: starting workers are told from ready ones. */
  private sawStartingCount = false;
  private sawThrottledCount = false;

  /** Workers initializing or throttled at the last answer. */
  private starting: number;

  constructor(
    private up: number,
    private ready: number,
    private throttled = 0,
    initializing = 0,
  ) {
    this.starting = initializing + throttled;
  }

  /** One /health answer: `span` from the poll before to this one (real ms). */
  observe(h: HealthRecord, span: PollSpan): void {
    const up = workersUp(h);
    const ready = readyOf(h);
    const throttled = h.workers.throttled ?? 0;
    if (h.workers.initializing !== undefined || h.workers.throttled !== undefined) this.sawStartingCount = true;
    if (h.workers.throttled !== undefined) this.sawThrottledCount = true;
    const starting = (h.workers.initializing ?? 0) + throttled;
    if (this.stopped || up < this.up || ready < this.ready) {
      // After a stop the counts of workers up and ready no longer say which changed; the count of
      // workers starting still does, and no new start is read: each fall of that count is a start
      // watched before the stop becoming ready, each fall of the throttled count one that begins
      // its cold start (a full start outlasting a fast one's worker, stopped by its idle timeout,
      // is still timed).
      this.stopped = true;
      if (this.sawStartingCount) {
        const outs = Math.min(this.pendingThrottled(), Math.max(0, this.throttled - throttled));
        for (let i = 0; i < outs; i += 1) {
          this.throttleOuts.push(span);
          this.coldBegins.push(span);
        }
        const readies = Math.min(this.pending, Math.max(0, this.starting - starting));
        for (let i = 0; i < readies; i += 1) this.readies.push(span);
      }
    } else {
      const fresh = up - this.up;
      // New workers counted throttled; the rest of the change is workers that left it.
      const ins = Math.min(fresh, Math.max(0, throttled - this.throttled));
      const outs = ins - (throttled - this.throttled);
      for (let i = 0; i < fresh; i += 1) this.starts.push(span);
      for (let i = 0; i < ins; i += 1) this.throttleIns.push(span);
      for (let i = 0; i < outs; i += 1) this.throttleOuts.push(span);
      for (let i = 0; i < fresh - ins + outs; i += 1) this.coldBegins.push(span);
      for (let i = this.ready; i < ready; i += 1) this.readies.push(span);
    }
    this.up = up;
    this.ready = ready;
    this.throttled = throttled;
    this.starting = starting;
  }

  /** Starts first seen throttled that have not yet left the throttled count. */
  private pendingThrottled(): number {
    return Math.max(0, this.throttleIns.length - this.throttleOuts.length);
  }

  /** The span the first new worker was seen in. */
  get firstStart(): PollSpan | undefined {
    return this.starts[0];
  }

  /** A worker stopped while watched (from there on only starts seen before it are read to their end). */
  get stopSeen(): boolean {
    return this.stopped;
  }

  /**
   * Whether starts can be timed: /health said how many workers were starting. Without that count
   * a new worker shows up ready, and every start would read as half a poll.
   */
  get timesStarts(): boolean {
    return this.sawStartingCount;
  }

  /** Whether /health said how many workers were throttled: a start's wait for capacity is told from its cold start. */
  get timesThrottle(): boolean {
    return this.sawThrottledCount;
  }

  /** Workers seen starting and not yet seen ready (after a stop, 0 unless /health counts starting workers). */
  get pending(): number {
    return this.stopped && !this.sawStartingCount ? 0 : Math.max(0, this.starts.length - this.readies.length);
  }

  /** When the last worker was seen becoming ready, real ms (the middle of its span); undefined: none. */
  get lastReadyMs(): number | undefined {
    const r = this.readies.at(-1);
    return r === undefined ? undefined : spanMid(r);
  }

  /** Starts seen so far, and over how many distinct spans they came. */
  get startCount(): number {
    return this.starts.length;
  }

  get startSpans(): number {
    return new Set(this.starts.map((s) => s.toMs)).size;
  }

  /** Starts first seen throttled (waiting for capacity). */
  get throttledCount(): number {
    return this.throttleIns.length;
  }

  /**
   * Where the starts began and were seen ready when they began over more than one span and each
   * was seen ready (their pairing is open: a fast start may overtake a full one); undefined otherwise.
   */
  staggered(): { readonly begins: readonly PollSpan[]; readonly readies: readonly PollSpan[] } | undefined {
    const n = this.coldBegins.length;
    if (n < 2 || this.readies.length !== n || new Set(this.coldBegins.map((s) => s.toMs)).size < 2) return undefined;
    return { begins: [...this.coldBegins], readies: [...this.readies] };
  }

  /**
   * Each paired cold start's duration, real ms, from its beginning (after any wait for capacity)
   * to ready (spanGap: a worker that appeared ready took half the span it appeared in).
   */
  durationsMs(): number[] {
    const n = Math.min(this.coldBegins.length, this.readies.length);
    return Array.from({ length: n }, (_, i) => spanGap(this.coldBegins[i] as PollSpan, this.readies[i] as PollSpan));
  }

  /** Each paired wait for capacity, real ms: from the throttled sighting to its leaving. */
  throttleWaitsMs(): number[] {
    const n = Math.min(this.throttleIns.length, this.throttleOuts.length);
    return Array.from({ length: n }, (_, i) => spanGap(this.throttleIns[i] as PollSpan, this.throttleOuts[i] as PollSpan));
  }
}

/**
 * The idle timeout read worker by worker from /health polls after a cold batch. Once no job
 * waits in the queue (none of the batch's is left to hand out), no worker takes another: each
 * goes idle once, for good (the idle count rises: a worker ran its last job, or a start became
 * ready with nothing to run), and each fall of the count up is a worker whose idle timeout ran
 * out. An idle worker stops that timeout after it went idle, so workers stop in the order they
 * went idle; the active workers (workersMin) go idle too but never stop (DEPLOYMENT-FACTS.md).
 * The stops are read against the idle starts by idleTimeoutPairs. Workers idle at the first poll
 * with nothing queued went idle in its span (one idle before then had a queued job to take); a
 * stop in that span belongs to a worker whose idle start was not seen and is left out. A worker
 * that becomes ready after that (the count starting falls) was started for the batch: a flex
 * worker, which stops.
 */
export class IdleTracker implements IdleReading {
  private readonly idleStarts: IdleStart[] = [];
  private readonly stops: PollSpan[] = [];
  private drained = false;
  private up: number;
  private idle: number;
  private starting: number;

  constructor(
    h: HealthRecord,
    private lastMs: number,
  ) {
    this.up = workersUp(h);
    this.idle = h.workers.idle;
    this.starting = startingOf(h);
  }

  /** One /health answer describing real instant `atMs`; `queueEmpty`: no job of ours waits to be handed out. */
  observe(h: HealthRecord, atMs: number, queueEmpty: boolean): void {
    const span = { fromMs: this.lastMs, toMs: atMs };
    const up = workersUp(h);
    const idle = h.workers.idle;
    const starting = startingOf(h);
    const drained = queueEmpty && h.jobs.inQueue === 0;
    if (this.drained) {
      const stops = Math.max(0, this.up - up);
      const readies = Math.max(0, this.starting - starting);
      for (let i = 0; i < stops; i += 1) this.stops.push(span);
      for (let i = 0; i < idle - this.idle + stops; i += 1) this.idleStarts.push({ ...span, flex: i < readies });
    } else if (drained) {
      this.drained = true;
      for (let i = 0; i < idle; i += 1) this.idleStarts.push(span);
    }
    this.up = up;
    this.idle = idle;
    this.starting = starting;
    this.lastMs = atMs;
  }

  /** Each stop's idle time, real ms (idleTimeoutPairs). */
  samplesMs(): number[] {
    return idleTimeoutPairs(this.idleStarts, this.stops);
  }
}

/** Workers starting (initializing or throttled) on a /health answer. */
const startingOf = (h: HealthRecord): number => (h.workers.initializing ?? 0) + (h.workers.throttled ?? 0);

/** A worker seen going idle; `flex`: one started for the batch (it came up with nothing to run), which stops. */
export interface IdleStart extends PollSpan {
  readonly flex?: boolean;
}

/**
 * The idle time of each stop, real ms, from the spans workers were seen going idle in and the
 * spans workers were seen stopping in (each in time order). Every stop is a worker that went idle
 * one timeout before, in the same order as the others; the idle starts of workers that stayed up
 * (active ones) are among them. Each shift from a stop back to an idle start before it is tried:
 * the stops are matched in order to the idle starts nearest each stop less the shift, and the
 * shift that matches the most stops, then the most flex workers' idle starts (a flex worker
 * stops; the one left unmatched would be taken for an active worker), then with the least
 * distance, then the least, gives the pairs (middle of span to middle of span). A single stop
 * after several workers went idle fits each of them: the latest is taken, so that an active
 * worker that went idle last can only shorten the reading (upperHalfMedian reads past that).
 */
export function idleTimeoutPairs(idleStarts: readonly IdleStart[], stops: readonly PollSpan[]): number[] {
  const starts = idleStarts.map(spanMid);
  const ends = stops.map(spanMid);
  const shifts = ends.flatMap((e) => starts.filter((st) => st < e).map((st) => e - st));
  let best: { pairs: number[]; flex: number; cost: number; shift: number } | undefined;
  for (const shift of shifts) {
    const pairs: number[] = [];
    let flex = 0;
    let cost = 0;
    let next = 0;
    for (const e of ends) {
      let k = -1;
      for (let i = next; i < starts.length && (starts[i] as number) < e; i += 1) {
        if (k < 0 || Math.abs(e - shift - (starts[i] as number)) < Math.abs(e - shift - (starts[k] as number))) k = i;
      }
      if (k < 0) continue;
      pairs.push(e - (starts[k] as number));
      if (idleStarts[k]?.flex === true) flex += 1;
      cost += Math.abs(e - shift - (starts[k] as number));
      next = k + 1;
    }
    const better =
      best === undefined ||
      pairs.length > best.pairs.length ||
      (pairs.length === best.pairs.length && (flex > best.flex || (flex === best.flex && (cost < best.cost || (cost === best.cost && shift < best.shift)))));
    if (better) best = { pairs, flex, cost, shift };
  }
  return best?.pairs ?? [];
}

/** What one reading of worker starts adds to the observations (cold starts, waits for capacity, the counts). */
function recordStarts(ctx: PhaseContext, tracker: StartTracker): void {
  const at = ctx.obs.workerStartsMs.length;
  ctx.obs.workerStartsMs.push(...tracker.durationsMs().map((ms) => ms * ctx.timeScale));
  const staggered = tracker.staggered();
  if (staggered !== undefined) {
    const toTarget = (s: PollSpan): TargetSpan => ({ fromMs: (s.fromMs - ctx.originMs) * ctx.timeScale, toMs: (s.toMs - ctx.originMs) * ctx.timeScale });
    (ctx.obs.staggeredStarts ??= []).push({ begins: staggered.begins.map(toTarget), readies: staggered.readies.map(toTarget), at });
  }
  if (!tracker.timesThrottle) return;
  ctx.obs.throttle.starts += tracker.startCount;
  ctx.obs.throttle.throttled += tracker.throttledCount;
  ctx.obs.throttle.waitsMs.push(...tracker.throttleWaitsMs().map((ms) => ms * ctx.timeScale));
}

export function coldPhase(ctx: PhaseContext, cls: InputClass, count: number, o: ColdOptions): Promise<PhaseOutcome> {
  return runPhase(ctx, 'cold', async () => {
    let jobs = 0;
    let staggered = 0;
    let untimed = false;
    // Each gap's idle samples are read worker by worker (IdleTracker) from the batch before it,
    // from its send to the rest; the first gap's from the burst. Where that reads no stop, the
    // first gap's sample runs from the real instant the last job before it ended (the warm
    // phase's or the burst's) to the fall to the count at rest: the last worker to go idle is the
    // last to stop. Undefined: not known (no sample then). After a burst whose last /health still
    // showed a worker starting, that worker went idle when it came up, after the last job: no
    // sample then, unless the burst timed its starts and watched them to their end (a worker that
    // became ready after the last job went idle then: burstLateReadyMs).
    const tail = ctx.obs.burst?.timeline.at(-1);
    const lateReadyMs = ctx.obs.burstLateReadyMs;
    const jobEndMs = lastJobEndMs(ctx);
    let firstIdleFromMs = lateReadyMs !== undefined ? Math.max(lateReadyMs, jobEndMs ?? lateReadyMs) : tail !== undefined && tail.initializing + tail.throttled > 0 ? undefined : jobEndMs;
    // A batch that started fewer workers than it had jobs (workersMax, a REQUEST_COUNT value over
    // 1, several jobs per worker) says how many one decision starts: later batches send that many.
    let batch = o.batch;
    let narrowed: { from: number; to: number } | undefined;
    // The stops of the batch (at first, the burst) before this gap, read until the workers are at rest.
    let idle: IdleReading | undefined = ctx.obs.burstIdle;
    // Read once: a later cold phase (--precision's) starts from its own last job.
    ctx.obs.burstIdle = undefined;
    const restWait = async () => {
      const reading = idle;
      const rest = await waitForRest(ctx, o.floorWorkers, o.maxIdleWaitMs, reading === undefined ? undefined : (h) => reading.observe(h.health, midOf(h), true));
      const samples = reading?.samplesMs() ?? [];
      if (samples.length > 0) ctx.obs.idleTimeoutSamplesMs.push(...samples.map((ms) => ms * ctx.timeScale));
      else if (rest.reached && rest.droppedAtMs !== undefined && firstIdleFromMs !== undefined && rest.droppedAtMs > firstIdleFromMs) {
        ctx.obs.idleTimeoutSamplesMs.push((rest.droppedAtMs - firstIdleFromMs) * ctx.timeScale);
      }
      idle = undefined;
      firstIdleFromMs = undefined;
      return rest;
    };
    while (jobs < count) {
      const rest = await restWait();
      if (!rest.reached) {
        if (ctx.deadline.signal.aborted || rest.cutByDeadline) return { jobs, reason: `stopped: --max-duration of ${Math.round(ctx.deadline.maxDurationMs / 1000)} s reached while waiting for the workers to stop` };
        ctx.obs.restWorkers = rest.fewestUp;
        const reason = `workers stayed up (${rest.fewestUp} at the fewest) for ${(o.maxIdleWaitMs / 1000).toFixed(0)} s: either ${rest.fewestUp} active workers (--workers-min ${rest.fewestUp}) or an idle timeout longer than that wait (--idle-timeout)`;
        return jobs === 0 ? { jobs, reason, skipped: true } : { jobs, reason };
      }
      ctx.obs.restWorkers = Math.min(ctx.obs.restWorkers ?? Infinity, workersUp(rest.last.health));
      // The batch is sent at once (each job still passes the budget's counter): one scaling
      // decision starts a worker for each, so their starts begin together. Never more than the
      // budget has left (at least one: a spent budget then says so).
      const sized = o.batchFor?.(ctx.obs.scaleUps) ?? batch;
      const k = Math.max(1, Math.min(sized, count - jobs, ctx.target.budget.left));
      // A batch cut below its size with active workers up: they would take it whole before the
      // scaler acts, a batch spent for nothing.
      if (o.outlastsActive === true && o.floorWorkers > 0 && k < sized) {
        return { jobs, reason: `${count - jobs} job(s) of the plan or the budget left, short of the ${sized} a batch needs to outlast the ${o.floorWorkers} active worker(s): no batch sent` };
      }
      const settled = await Promise.allSettled(Array.from({ length: k }, () => ctx.target.submit(cls.body)));
      const subs = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const refused = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      jobs += subs.length;
      if (subs.length === 0) throw (refused as PromiseRejectedResult).reason;
      // /health and every unfinished job's /status side by side until they end: workers seen
      // starting and ready, and each job first seen IN_PROGRESS, are read on the same polls, so a
      // slow client or network moves every mark alike. Each change happened between the last poll
      // without it and the first with it.
      const tracker = new StartTracker(workersUp(rest.last.health), readyOf(rest.last.health), rest.last.health.workers.throttled ?? 0, rest.last.health.workers.initializing ?? 0);
      // The polls from the send on are a stationary renewal process (firstPollAfterSend): a worker
      // begun a fixed time after the send (the service's overhead) or at a scaler's check, and its
      // readiness, each lie anywhere within the span they are seen in, and its middle is right on average.
      const first = firstPollAfterSend(ctx, ctx.obs.rttRealMs);
      // The first span is the one drawn to cover the earliest instant a poll could describe, placed
      // where the poll was planned (a late timer or a slow answer does not move it).
      const firstFromMs = ctx.target.clock.now() + ctx.obs.rttRealMs / 2 + first.sleepMs - first.spanMs;
      if (!(await ctx.target.clock.sleep(first.sleepMs, ctx.deadline.signal)) && ctx.deadline.signal.aborted) throw ctx.deadline.signal.reason as Error;
      const sentMs = Math.min(...subs.map((x) => x.sentAtMs));
      let previousMs: number | undefined;
      // Spans that bound when something happened (a job's start or end, the scaler's reaction)
      // run from the send on the first poll: nothing of the batch happened before it.
      const boundFrom = (fromMs: number) => (fromMs === firstFromMs ? sentMs : fromMs);
      const reading = new IdleTracker(rest.last.health, sentMs);
      idle = reading;
      // The span each job was first seen started in (no longer IN_QUEUE), and ended in.
      const started = new Map<string, PollSpan>();
      const ended = new Map<string, PollSpan>();
      const last = new Map<string, { record: JobRecord; answeredAtMs: number }>();
      // After the jobs have ended, workers still starting are watched until they are up (a full
      // start the fast ones beat to every job is a sample too), for at most one idle wait.
      let jobsEndedAtMs: number | undefined;
      // Whether a poll had shown every job of the batch started and nothing queued (no scaler
      // starts a worker after that), and whether that came before the first stop was seen: a
      // stop after it hides no start, and the workers the batch started are all counted.
      let drained = false;
      let drainedBeforeStop: boolean | undefined;
      for (;;) {
        const open = subs.filter((x) => !isTerminal(last.get(x.id)?.record.status ?? 'IN_QUEUE'));
        const [h, ...sts] = await Promise.all([ctx.target.health(), ...open.map((x) => ctx.target.status(x.id))]);
        const at = [h, ...sts].reduce((a, x) => a + midOf(x), 0) / (sts.length + 1);
        previousMs ??= firstFromMs;
        tracker.observe(h.health, { fromMs: previousMs, toMs: at });
        if (tracker.stopSeen) drainedBeforeStop ??= drained;
        sts.forEach((st, i) => last.set((open[i] as { id: string }).id, st));
        for (const x of open) {
          const status = last.get(x.id)?.record.status;
          if (!started.has(x.id) && status !== undefined && status !== 'IN_QUEUE') started.set(x.id, { fromMs: boundFrom(previousMs), toMs: at });
          if (!ended.has(x.id) && status !== undefined && isTerminal(status)) ended.set(x.id, { fromMs: boundFrom(previousMs), toMs: at });
        }
        const allStarted = subs.every((x) => started.has(x.id));
        reading.observe(h.health, at, allStarted);
        drained ||= allStarted && h.health.jobs.inQueue === 0;
        previousMs = at;
        if (jobsEndedAtMs === undefined && sts.every((st) => isTerminal(st.record.status))) jobsEndedAtMs = at;
        if (jobsEndedAtMs !== undefined && (tracker.pending === 0 || at - jobsEndedAtMs > o.maxIdleWaitMs)) break;
        if (!(await ctx.target.clock.sleep(nextPollMs(ctx), ctx.deadline.signal))) {
          // At the deadline the batch's jobs, once ended, are still recorded.
          if (jobsEndedAtMs !== undefined) break;
          throw ctx.deadline.signal.reason as Error;
        }
      }
      if (tracker.timesStarts) recordStarts(ctx, tracker);
      else untimed = true;
      if (tracker.startSpans > 1) staggered += 1;
      if (o.batchFor === undefined && !tracker.stopSeen && tracker.startCount > 0 && tracker.startCount < subs.length && tracker.startCount < batch) {
        narrowed = { from: narrowed?.from ?? batch, to: tracker.startCount };
        batch = tracker.startCount;
      }
      // The scaler's reaction (inferScaler) and how many workers it started for the batch.
      // The reaction within the bounding spans; the starts' durations are read at the middles of
      // the stationary spans.
      const firstSeen = tracker.firstStart;
      const seen = firstSeen === undefined ? undefined : { fromMs: boundFrom(firstSeen.fromMs), toMs: firstSeen.toMs };
      const reaction = seen === undefined ? undefined : coldReaction(seen, subs.map((x) => ({ start: started.get(x.id), delayMs: last.get(x.id)?.record.delayTime })), ctx.timeScale);
      if (reaction !== undefined) ctx.obs.coldReactions.push(reaction);
      if (!tracker.stopSeen || drainedBeforeStop === true) {
        const spans = subs.flatMap((x): JobSpan[] => {
          const st = last.get(x.id);
          const r = st?.record;
          return st === undefined || r?.status !== 'COMPLETED' || r.executionTime === undefined || r.delayTime === undefined
            ? []
            : [{ endMs: (st.answeredAtMs - ctx.originMs - ctx.obs.rttRealMs / 2) * ctx.timeScale, executionMs: r.executionTime, delayMs: r.delayTime, ...endWithin(started.get(x.id), ended.get(x.id), r.executionTime, ctx) }];
        });
        ctx.obs.scaleUps.push({ source: 'cold batch', jobs: subs.length, workersBefore: workersUp(rest.last.health), workersAfter: workersUp(rest.last.health) + tracker.startCount, ...(spans.length === subs.length ? { spans } : {}) });
      }
      for (const x of subs) {
        const st = last.get(x.id) as { record: JobRecord; answeredAtMs: number };
        recordJob(ctx, 'cold', cls.id, { record: st.record, sentAtMs: x.sentAtMs, answeredAtMs: st.answeredAtMs }, poolBefore(rest.last.health));
      }
      if (refused !== undefined) return { jobs, reason: stopReason(ctx, refused.reason) };
    }
    // The last batch's scale-down: one more wait (no job) for its workers to stop, idle samples.
    if ((idle !== undefined || firstIdleFromMs !== undefined) && !ctx.deadline.signal.aborted) {
      const rest = await restWait();
      if (rest.reached) ctx.obs.restWorkers = Math.min(ctx.obs.restWorkers ?? Infinity, workersUp(rest.last.health));
    }
    if (staggered > 0) ctx.obs.notes.push(`in ${staggered} idle gap(s) the batch's workers started over several /health polls, not on one scaling decision: their starts were paired with their ends first in, first out, then as the fitted durations make likeliest`);
    if (narrowed !== undefined) ctx.obs.notes.push(`a cold batch of ${narrowed.from} jobs started only ${narrowed.to} worker(s) at once (workersMax, the scaler or jobs per worker): later idle gaps sent ${narrowed.to} at a time`);
    if (untimed) ctx.obs.notes.push('/health reports no initializing (or throttled) count: a starting worker is not told from a ready one, so worker starts were not timed (no cold-start samples)');
    return { jobs };
  });
}

/**
 * Where a job's end surely lies, target ms since the calibration started: the poll span it was
 * seen ended in, narrowed to the span it was seen started in plus its executionTime (real ms
 * each; a job seen ended on the poll it was seen started on started within that span too). When
 * the two do not meet (a late answer), the end's span alone; no end seen: nothing.
 */
export function endWithin(start: PollSpan | undefined, end: PollSpan | undefined, executionMs: number, ctx: Pick<PhaseContext, 'originMs' | 'timeScale'>): { endWithin?: { fromMs: number; toMs: number } } {
  if (end === undefined) return {};
  const execRealMs = executionMs / ctx.timeScale;
  const s = start ?? end;
  const fromMs = Math.max(end.fromMs, s.fromMs + execRealMs);
  const toMs = Math.min(end.toMs, s.toMs + execRealMs);
  const [a, b] = fromMs <= toMs ? [fromMs, toMs] : [end.fromMs, end.toMs];
  return { endWithin: { fromMs: (a - ctx.originMs) * ctx.timeScale, toMs: (b - ctx.originMs) * ctx.timeScale } };
}

const upOf = (p: HealthPoint): number => p.idle + p.running + p.initializing + p.throttled + p.unhealthy;

/** Read the scale-up out of a burst's /health timeline. */
export function summarizeBurst(jobs: number, workersBefore: number, timeline: readonly HealthPoint[]): BurstObservation {
  const firstIndex = timeline.findIndex((p) => upOf(p) > workersBefore);
  const first = timeline[firstIndex];
  // The workers came between the last /health without them and the first with them.
  const firstScaleUpMs = first === undefined ? undefined : (first.tMs + (firstIndex > 0 ? (timeline[firstIndex - 1] as HealthPoint).tMs : 0)) / 2;
  let peakWorkers = workersBefore;
  let peakAtMs = 0;
  let maxJobsPerRunningWorker = 0;
  let throttledSeen = 0;
  for (const p of timeline) {
    if (upOf(p) > peakWorkers) {
      peakWorkers = upOf(p);
      peakAtMs = p.tMs;
    }
    if (p.running > 0) maxJobsPerRunningWorker = Math.max(maxJobsPerRunningWorker, p.inProgress / p.running);
    throttledSeen = Math.max(throttledSeen, p.throttled);
  }
  return {
    jobs,
    workersBefore,
    timeline,
    firstScaleUpMs,
    workersAtFirstScaleUp: first === undefined ? undefined : upOf(first),
    peakWorkers,
    peakAtMs,
    maxJobsPerRunningWorker,
    throttledSeen,
  };
}

export interface BurstOptions {
  /**
   * Time the workers the burst starts (cold-start samples, as in the cold batches), watching
   * /health on after its jobs have ended until each is ready, for at most this many real ms.
   * Absent: the burst only reads its scale-up.
   */
  readonly timeStartsWithinMs?: number | undefined;
}

export function burstPhase(ctx: PhaseContext, classes: readonly InputClass[], count: number, o: BurstOptions = {}): Promise<PhaseOutcome> {
  return runPhase(ctx, 'burst', async () => {
    const before = await ctx.target.health();
    const startMs = ctx.target.clock.now();
    const timeline: HealthPoint[] = [];
    const tracker = new StartTracker(workersUp(before.health), readyOf(before.health), before.health.workers.throttled ?? 0, before.health.workers.initializing ?? 0);
    // The first poll goes with the sends (the scaler's first reaction is timed from it); from the
    // next on the polls are, as in the cold batches, a stationary renewal process from the earliest
    // instant a poll could describe, and the starts are read on those alone, the first span the
    // one drawn to cover that instant.
    const first = firstPollAfterSend(ctx, ctx.obs.rttRealMs);
    let previousMs: number | undefined;
    let polls = 0;
    // Its workers going idle and stopping, read on by the first idle gap: nothing of the burst
    // waits to be handed out once /health has shown its jobs and then none queued, or every job
    // has ended.
    const idle = new IdleTracker(before.health, midOf(before));
    ctx.obs.burstIdle = idle;
    let ended = 0;
    let shown = false;
    // Every job is taken from the budget as it is created: a job past the budget is never sent.
    const sends = Array.from({ length: count }, (_, i) => {
      const cls = classes[i % classes.length] as InputClass;
      return ctx.target
        .runSyncJob(cls.body, ctx.deadline.remainingMs(), ctx.deadline.signal)
        .then((j) => recordJob(ctx, 'burst', cls.id, j, 'busy'))
        .finally(() => (ended += 1));
    });
    const all = Promise.allSettled(sends);
    const onPoint = (h: TimedHealth) => {
      timeline.push(healthPoint(h, startMs, ctx.timeScale));
      polls += 1;
      if (polls > 1) {
        previousMs ??= startMs + ctx.obs.rttRealMs / 2 + first.sleepMs - first.spanMs;
        tracker.observe(h.health, { fromMs: previousMs, toMs: midOf(h) });
        previousMs = midOf(h);
      }
      shown ||= h.health.jobs.inQueue + h.health.jobs.inProgress > 0;
      idle.observe(h.health, midOf(h), shown || ended === count);
    };
    // Its workers' starts are timed on these polls too (a second burst's are cold-start samples).
    let gaps = 0;
    // The second poll is sent when planned from the sends (the first span placed there too).
    await watchHealth(ctx, all, onPoint, () => (gaps++ === 0 ? Math.max(0, startMs + first.sleepMs - ctx.target.clock.now()) : nextPollMs(ctx)));
    const settled = await all;
    ctx.obs.burst = summarizeBurst(count, workersUp(before.health), timeline);
    if (o.timeStartsWithinMs !== undefined) {
      // Workers still starting when the jobs ended: watched until ready (each a sample); one that
      // became ready then went idle then, after the last job.
      const endMs = ctx.target.clock.now() + o.timeStartsWithinMs;
      let lateReadyMs: number | undefined;
      while (tracker.pending > 0 && ctx.target.clock.now() < endMs && (await ctx.target.clock.sleep(nextPollMs(ctx), ctx.deadline.signal))) {
        const h = await ctx.target.health();
        const pendingBefore = tracker.pending;
        tracker.observe(h.health, { fromMs: previousMs ?? startMs, toMs: midOf(h) });
        idle.observe(h.health, midOf(h), true);
        previousMs = midOf(h);
        if (tracker.pending < pendingBefore) lateReadyMs = tracker.lastReadyMs;
      }
      // Still starting at the end of the watch: when it went idle is not known (no idle sample).
      ctx.obs.burstLateReadyMs = tracker.pending > 0 ? undefined : lateReadyMs;

      if (tracker.timesStarts) recordStarts(ctx, tracker);
    }
    const failed = settled.filter((s) => s.status === 'rejected');
    const jobs = settled.length - failed.filter((s) => s.status === 'rejected' && s.reason instanceof Error && s.reason.name === 'BudgetExhaustedError').length;
    const firstFailure = failed[0];
    return firstFailure === undefined ? { jobs } : { jobs, reason: `${failed.length} of ${count} burst jobs did not finish: ${stopReason(ctx, firstFailure.status === 'rejected' ? firstFailure.reason : undefined)}` };
  });
}

/** Tokens a chunk carries: its output's `tokens` number or the length of its `text` list. */
function tokensOf(chunk: unknown): number | undefined {
  if (typeof chunk !== 'object' || chunk === null) return undefined;
  const out = (chunk as { output?: unknown }).output;
  if (typeof out !== 'object' || out === null) return undefined;
  const { tokens, text } = out as { tokens?: unknown; text?: unknown };
  if (typeof tokens === 'number' && Number.isFinite(tokens)) return tokens;
  return Array.isArray(text) ? text.length : undefined;
}

export function streamPhase(ctx: PhaseContext, classes: readonly InputClass[], jobsPerClass: number): Promise<PhaseOutcome> {
  return runPhase(ctx, 'stream', async () => {
    let jobs = 0;
    for (const cls of classes) {
      for (let i = 0; i < jobsPerClass; i += 1) {
        if (ctx.deadline.signal.aborted) return { jobs, reason: stopReason(ctx, undefined) };
        const before = await ctx.target.health();
        const j = await ctx.target.streamJob(cls.body, ctx.deadline.signal);
        jobs += 1;
        const sample = recordJob(ctx, 'stream', cls.id, j, poolBefore(before.health));
        if (j.chunks.length <= 1) {
          // The handler does not stream this input (no chunk, or its one output at the end): one job said so, the rest are not sent.
          ctx.obs.nonStreamingClasses.push(cls.id);
          break;
        }
        const counts = j.chunks.map(tokensOf).filter((t): t is number => t !== undefined);
        ctx.obs.streams.push({
          classId: cls.id,
          job: sample,
          chunks: j.chunks.length,
          firstArrivalMs: ((j.chunkArrivalsMs[0] as number) - j.sentAtMs) * ctx.timeScale,
          firstToLastArrivalMs: ((j.chunkArrivalsMs.at(-1) as number) - (j.chunkArrivalsMs[0] as number)) * ctx.timeScale,
          startToFirstChunkMs: j.startedAtMs === undefined ? undefined : Math.max(0, (j.chunkArrivalsMs[0] as number) - j.startedAtMs) * ctx.timeScale,
          tokensPerChunk: counts.length > 0 ? counts.reduce((a, b) => a + b, 0) / counts.length : undefined,
        });
      }
    }
    return { jobs };
  });
}
