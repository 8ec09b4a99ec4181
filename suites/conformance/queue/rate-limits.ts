// §8 rate limits: 429 onset at the documented count for each operation (the effective limit
// of the dynamic rule where it is known: no worker running, or requests_per_worker advertised),
// recovery once the window has passed (the concurrency column is concurrency.ts). Each runs on an
// endpoint of its own on the emulator; on a real target one at a time on the target's endpoint.
// While workers run on a target that does not advertise requests_per_worker, the limit is unknown:
// the check waits, bounded, for a window with no running worker, or ends inconclusive.
import {
  CLEAN_WINDOW_FLOOR_REAL_MS, fail, inconclusive, runPool, skip, HTTP_STATUS, RUNSYNC_WAIT_MS, effectiveRateLimit,
  type CheckContext, type CheckDefinition, type ProbeRequest, type ProbeResponse, type RateLimitedOperation,
} from 'qbench/suite';
import { describe, field } from '../lib/http.js';
import { endpointFor, finishedSetupJob, healthWhile, isDedicated, pollIntervalRealMs, purge, qpath, readHealth } from '../lib/queue.js';
import { BURST_WINDOW_SHARE, extraFor, judgeRateBurst, mostRunning, runningOf, type RateJudgement } from '../lib/rate-judge.js';

/**
 * Parallel lanes of a burst of `n`: enough to send it in 40% of the window at the probe's round trip
 * (a slow answer, such as a /runsync that waits, needs more), at least 32, and never more than half
 * the operation's concurrency cap (so no 429 comes from the cap instead of the rate).
 */
function lanesFor(n: number, roundTripMs: number, windowRealMs: number, cap: number | null): number {
  const most = Math.floor((cap ?? 64) / 2);
  const wanted = Math.ceil((n * Math.max(1, roundTripMs)) / (windowRealMs * 0.4));
  return Math.max(1, Math.min(most, Math.max(32, wanted)));
}
/** Rate windows a check waits at most for one with no running worker (its own jobs purged or ended). */
const QUIET_WAIT_WINDOWS = 2;
/** Operations whose bursts submit jobs: purged before waiting for the workers to fall idle. */
const SUBMITS_JOBS: readonly RateLimitedOperation[] = ['run', 'runsync', 'openai'];

type Maker = (ctx: CheckContext, ep: string) => Promise<(i: number) => ProbeRequest>;

/** A job still queued would make every /stream of the burst long-poll: the job must be finished. */
const completedSyncJob = (ctx: CheckContext, ep: string): Promise<string> => finishedSetupJob(ctx, ep, 'rate');

const MAKERS: Record<Exclude<RateLimitedOperation, 'openai'> | 'openai', Maker> = {
  run: () => Promise.resolve(() => ({ iface: 'queue', method: 'POST', path: '', json: { input: { mock_return: 'r' } } })),
  runsync: () => Promise.resolve(() => ({ iface: 'queue', method: 'POST', path: '', rawQuery: `wait=${RUNSYNC_WAIT_MS.min}`, json: { input: { mock_return: 'r' } } })),
  status: async (ctx, ep) => { const id = await completedSyncJob(ctx, ep); return () => ({ iface: 'queue', method: 'GET', path: qpath(ep, 'status', id) }); },
  stream: async (ctx, ep) => { const id = await completedSyncJob(ctx, ep); return () => ({ iface: 'queue', method: 'GET', path: qpath(ep, 'stream', id) }); },
  cancel: async (ctx, ep) => { const id = await completedSyncJob(ctx, ep); return () => ({ iface: 'queue', method: 'POST', path: qpath(ep, 'cancel', id) }); },
  'purge-queue': () => Promise.resolve(() => ({ iface: 'queue', method: 'POST', path: '' })),
  requests: () => Promise.resolve(() => ({ iface: 'queue', method: 'GET', path: '' })),
  openai: () => Promise.resolve(() => ({ iface: 'queue', method: 'GET', path: '' })),
};

function pathFor(op: RateLimitedOperation, ep: string): string {
  switch (op) {
    case 'run': return qpath(ep, 'run');
    case 'runsync': return qpath(ep, 'runsync');
    case 'purge-queue': return qpath(ep, 'purge-queue');
    case 'requests': return qpath(ep, 'requests');
    case 'openai': return `/v2/${ep}/openai/v1/models`;
    default: return '';
  }
}

interface Window {
  /** Every answer of the window, the probe first. */
  readonly answers: ProbeResponse[];
  /** /health before, during and after the burst. */
  readonly health: ProbeResponse[];
  readonly planned: number;
  /** Real ms from the probe's send to the last answer. */
  readonly elapsedRealMs: number;
  /** performance.now() from which every admission of this window has left it (a fresh count can start). */
  readonly clearAtMs: number;
}

/**
 * Send `n` requests over `lanes`, and stop sending once the burst has run longer than a window can
 * judge (a target that answers slowly: every request a /runsync wait long). Answers in send order.
 */
async function burstNow(ctx: CheckContext, n: number, lanes: number, make: (i: number) => ProbeRequest, windowRealMs: number): Promise<ProbeResponse[]> {
  const started = performance.now();
  const idx = Array.from({ length: n }, (_, i) => i);
  const answers = await runPool(idx, lanes, (i) =>
    performance.now() - started > windowRealMs * BURST_WINDOW_SHARE ? Promise.resolve(undefined) : ctx.http.send({ ...make(i), signal: ctx.signal }));
  return answers.filter((a): a is ProbeResponse => a !== undefined);
}

/**
 * Wait for a window that can be judged while the target does not advertise requests_per_worker:
 * the last burst's window has passed and /health shows no running worker, the check's own jobs
 * purged first. At most QUIET_WAIT_WINDOWS windows; answers the last /health and whether it came.
 */
async function awaitQuietWindow(ctx: CheckContext, ep: string, op: RateLimitedOperation, clearAtMs: number): Promise<{ quiet: boolean; last: ProbeResponse; waitedMs: number }> {
  const started = performance.now();
  const windowMs = ctx.target.limits.rateWindowRealMs;
  if (SUBMITS_JOBS.includes(op)) await purge(ctx, ep);
  const deadline = Math.max(clearAtMs, started + windowMs * QUIET_WAIT_WINDOWS);
  for (;;) {
    const last = await readHealth(ctx, ep);
    const now = performance.now();
    if (runningOf(last) === 0 && now >= clearAtMs) return { quiet: true, last, waitedMs: now - started };
    if (now >= deadline) return { quiet: false, last, waitedMs: now - started };
    await ctx.time.sleepReal(Math.min(pollIntervalRealMs(ctx), Math.max(0, deadline - now)), ctx.signal);
  }
}

function rateCheck(op: RateLimitedOperation): CheckDefinition {
  return {
    id: `queue.rate.${op}`,
    title: `${op}: 429 from request ${'N+1'} of a 10 s window (N per §8, or the effective limit where it is known), admitted again after the window`,
    clauses: ['8/rate-table', '7/429', '8/dynamic-rule'],
    interface: 'queue', kind: 'spec', tags: ['rate-limit', 'destructive'],
    async run(ctx) {
      const lim = ctx.target.limits;
      if (!lim.rateLimitsEnabled) skip('the target advertises rate limits switched off');
      const ep = endpointFor(ctx, `rate-${op}`);
      const dedicated = isDedicated(ctx, ep);
      const rule = lim.rates[op];
      const base = rule.requestsPerWindow;
      const rpw = lim.requestsPerWorker;
      const partial = await MAKERS[op](ctx, ep);
      const make = (i: number): ProbeRequest => { const r = partial(i); return r.path === '' ? { ...r, path: pathFor(op, ep) } : r; };
      const cleanWaitMs = lim.rateWindowRealMs * 1.1 + CLEAN_WINDOW_FLOOR_REAL_MS;
      // The operation of this endpoint for this check alone, from a window no other check of the run has used.
      const lease = await ctx.rateWindow(ep, op);
      ctx.measure('waitedForCleanWindowMs', Math.round(lease.waitedMs));
      try {
        let w = await windowNow();
        let verdict = judged(w, false);
        if (verdict.kind === 'again') {
          // Fewer admitted than documented may be requests sent before this check (an earlier run's,
          // even on an endpoint of the check's own): judge once more in a window known to be clean.
          // With workers running and the limit unknown, that window must also have none running.
          if (verdict.quiet) {
            const q = await awaitQuietWindow(ctx, ep, op, w.clearAtMs);
            ctx.measure('waitedForQuietWindowMs', Math.round(q.waitedMs));
            if (!q.quiet) {
              const running = runningOf(q.last);
              // The wait was as long as a second attempt would make: it would see the same workers.
              inconclusive(`${verdict.why}; ${running === null ? 'the worker count was unreadable' : `${running} workers were still running`} after waiting ${Math.round(q.waitedMs / 1000)} s for a window with none (other clients' jobs hold them)`, q.last, { retryable: false });
            }
          } else {
            await ctx.time.sleepReal(w.clearAtMs - performance.now(), ctx.signal);
          }
          w = await windowNow();
          verdict = judged(w, true);
        }
        if (verdict.kind !== 'pass') throw new Error('a last window is always judged');
        const firstRefusal = w.answers.find((a) => a.status === HTTP_STATUS.tooManyRequests);
        ctx.measure('errorBodyHasErrorString', typeof field(firstRefusal?.json, 'error') === 'string');
        // Recovery: once every admission of the burst has left the window, a request is admitted again.
        await ctx.time.sleepReal(w.clearAtMs - performance.now(), ctx.signal);
        const again = await ctx.http.send({ ...make(w.planned), signal: ctx.signal });
        const waitedS = ((again.sentAtMs - (w.clearAtMs - cleanWaitMs)) / 1000).toFixed(1);
        // On a shared endpoint other checks and clients send this operation too (purges after their bursts).
        if (again.status === HTTP_STATUS.tooManyRequests && !dedicated) inconclusive(`429 again ${waitedS} s after the burst's last admission on shared endpoint ${ep}: requests this check did not send may fill the new window; give --spare-endpoint for an exact check`, again);
        if (again.status === HTTP_STATUS.tooManyRequests) fail(`admitted again ${waitedS} s after the burst's last admission (the ${lim.rateWindowRealMs} ms window has passed)`, describe(again), again);
        return { observed: `${verdict.observed}; admitted again after the window` };
      } finally {
        // The burst's own jobs (whatever the verdict) would hold up every later check on a shared endpoint.
        if (SUBMITS_JOBS.includes(op) && !ctx.signal.aborted) await purge(ctx, ep).catch(() => undefined);
        lease.release();
      }

      function judged(w: Window, last: boolean): RateJudgement {
        const peak = mostRunning(w.health);
        ctx.measure('documented', base);
        ctx.measure('sent', w.answers.length);
        ctx.measure('admitted', w.answers.filter((a) => a.status !== 0 && a.status !== HTTP_STATUS.tooManyRequests).length);
        ctx.measure('refused429', w.answers.filter((a) => a.status === HTTP_STATUS.tooManyRequests).length);
        ctx.measure('runningWorkers', peak?.running ?? null);
        ctx.measure('burstRealMs', Math.round(w.elapsedRealMs));
        const v = judgeRateBurst({ base, requestsPerWorker: rpw, dedicated, windowRealMs: lim.rateWindowRealMs, planned: w.planned, answers: w.answers, health: w.health, elapsedRealMs: w.elapsedRealMs, last });
        if (v.kind === 'pass') {
          // The effective limit only where it is known; otherwise what the onset showed.
          if (v.effective !== null) {
            ctx.measure('effective', v.effective.value);
            ctx.measure('effectiveFrom', v.effective.source === 'spec' ? 'no running worker: the base' : 'advertised requests_per_worker');
          }
          if (v.requestsPerWorkerObserved !== undefined) ctx.measure('requestsPerWorkerObserved', v.requestsPerWorkerObserved);
        }
        return v;
      }

      /** One window: probe, worker count and burst inside one serialized section (a wait for another check's burst would age the probe's admission out). */
      async function windowNow(): Promise<Window> {
        return ctx.burst(async () => {
          let probe = await ctx.http.send({ ...make(0), signal: ctx.signal });
          // A window another client (or an earlier run) used: wait for it to pass once before judging the endpoint busy.
          if (probe.status === HTTP_STATUS.tooManyRequests) {
            await ctx.time.sleepReal(cleanWaitMs, ctx.signal);
            probe = await ctx.http.send({ ...make(0), signal: ctx.signal });
          }
          if (op === 'requests' || op === 'openai') {
            if (probe.status === HTTP_STATUS.notFound || probe.status === 405) skip(`the target does not serve ${op === 'requests' ? 'GET /requests' : 'POST /openai/*'} (answered ${probe.status}); its shape is not specified`);
          }
          if (probe.status === HTTP_STATUS.tooManyRequests) inconclusive(`the window is already in use on endpoint ${ep} (429 before the burst): another client sent ${op} there; give --spare-endpoint or rerun when the endpoint is idle`, probe);
          const before = await readHealth(ctx, ep);
          // With requests_per_worker advertised, the burst must pass the effective limit of the workers running now.
          const runningBefore = runningOf(before);
          const limit = rpw !== null && runningBefore !== null ? effectiveRateLimit(base, runningBefore, rpw) : base;
          const n = limit + extraFor(limit) - 1;
          const lanes = lanesFor(n, probe.durationMs, lim.rateWindowRealMs, rule.concurrency);
          ctx.measure('lanes', lanes);
          const burst = burstNow(ctx, n, lanes, make, lim.rateWindowRealMs);
          // The running count can change within the burst: read it throughout.
          const during = await healthWhile(ctx, ep, burst);
          const answers = [probe, ...(await burst)];
          const after = await readHealth(ctx, ep);
          const lastDoneMs = Math.max(...answers.map((a) => a.doneAtMs));
          return { answers, health: [before, ...during, after], planned: n + 1, elapsedRealMs: lastDoneMs - probe.sentAtMs, clearAtMs: lastDoneMs + cleanWaitMs };
        });
      }
    },
  };
}

export const rateLimitChecks: CheckDefinition[] = [
  ...(['run', 'runsync', 'status', 'stream', 'cancel', 'purge-queue', 'requests', 'openai'] as const).map(rateCheck),
];
