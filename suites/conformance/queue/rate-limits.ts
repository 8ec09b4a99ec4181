// §8 rate limits: 429 onset at the documented count for each operation (the effective limit
// of the dynamic rule where the target advertises requests_per_worker), recovery once the
// window has passed (the concurrency column is concurrency.ts). Each runs on an endpoint of its
// own on the emulator; on a real target one at a time on the target's endpoint.
import { CLEAN_WINDOW_FLOOR_REAL_MS, fail, inconclusive, runPool, skip, type CheckContext, type CheckDefinition, type ProbeRequest, type ProbeResponse } from '../../../src/conformance/index.js';
import { HTTP_STATUS, RUNSYNC_WAIT_MS, effectiveRateLimit, type RateLimitedOperation } from '../../../src/spec/index.js';
import { serialized } from '../lib/bursts.js';
import { describe, expectSetupStatus, field } from '../lib/http.js';
import { endpointFor, health, isDedicated, purge, qpath, submitRunsync } from '../lib/queue.js';

/** Requests sent past the limit: 20% of it, at least 3 (so a limit 10% late is caught). */
function extraFor(limit: number): number {
  return Math.max(3, Math.ceil(limit * 0.2));
}
/** Tolerance above the limit on a shared endpoint: 2% (a 10%-late limiter still fails). Exact on a dedicated one. */
function toleranceFor(limit: number, dedicated: boolean): number {
  return dedicated ? 0 : Math.floor(limit * 0.02);
}
/** Parallel lanes of a burst: well under the operation's concurrency cap, at most 32. */
function lanesFor(cap: number | null): number {
  return Math.max(1, Math.min(32, Math.floor((cap ?? 64) / 2)));
}

type Maker = (ctx: CheckContext, ep: string) => Promise<(i: number) => ProbeRequest>;

async function completedSyncJob(ctx: CheckContext, ep: string): Promise<string> {
  const res = await submitRunsync(ctx, ep, { mock_return: 'rate' });
  expectSetupStatus(res, HTTP_STATUS.ok, 'POST /runsync (setup)');
  const id = field(res.json, 'id');
  if (typeof id !== 'string') fail('a job id from /runsync', describe(res), res);
  return id;
}

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

interface Burst {
  readonly answers: ProbeResponse[];
  readonly admitted: number;
  readonly refused: number;
  readonly errors: number;
  readonly elapsedRealMs: number;
  readonly firstSentMs: number;
}


async function burstNow(ctx: CheckContext, n: number, lanes: number, make: (i: number) => ProbeRequest): Promise<Burst> {
  const idx = Array.from({ length: n }, (_, i) => i);
  const answers = await runPool(idx, lanes, (i) => ctx.http.send({ ...make(i), signal: ctx.signal }));
  const refused = answers.filter((a) => a.status === HTTP_STATUS.tooManyRequests).length;
  const errors = answers.filter((a) => a.status === 0).length;
  const firstSentMs = Math.min(...answers.map((a) => a.sentAtMs));
  return { answers, refused, errors, admitted: n - refused - errors, elapsedRealMs: Math.max(...answers.map((a) => a.doneAtMs)) - firstSentMs, firstSentMs };
}

function rateCheck(op: RateLimitedOperation): CheckDefinition {
  return {
    id: `queue.rate.${op}`,
    title: `${op}: 429 from request ${'N+1'} of a 10 s window (N per §8, or the advertised effective limit), admitted again after the window`,
    clauses: ['8/rate-table', '7/429', '8/dynamic-rule'],
    interface: 'queue', kind: 'spec', tags: ['rate-limit', 'destructive'],
    async run(ctx) {
      const lim = ctx.target.limits;
      if (!lim.rateLimitsEnabled) skip('the target advertises rate limits switched off');
      const ep = endpointFor(ctx, `rate-${op}`);
      const dedicated = isDedicated(ctx, ep);
      const rule = lim.rates[op];
      const base = rule.requestsPerWindow;
      const partial = await MAKERS[op](ctx, ep);
      const make = (i: number): ProbeRequest => { const r = partial(i); return r.path === '' ? { ...r, path: pathFor(op, ep) } : r; };
      const n = base + extraFor(base) - 1;
      // The operation of this endpoint for this check alone, from a window no other check of the run has used.
      const lease = await ctx.rateWindow(ep, op);
      ctx.measure('waitedForCleanWindowMs', Math.round(lease.waitedMs));
      try {
        // Fewer admitted than documented may be requests sent before this check (an earlier run's,
        // even on an endpoint of the check's own): judge once more in a window known to be clean.
        const first = await judge(false);
        if (first !== null) return first;
        await ctx.time.sleepReal(lim.rateWindowRealMs * 1.1 + CLEAN_WINDOW_FLOOR_REAL_MS, ctx.signal);
        return (await judge(true)) as { observed: string };
      } finally {
        lease.release();
      }

      async function judge(last: boolean): Promise<{ observed: string } | null> {
        // Probe, worker count and burst inside one serialized section: the probe's admission must
        // fall in the same window as the burst (waiting for another check's burst would age it out).
        const { probe, before, after, b } = await serialized(async () => {
          let probe = await ctx.http.send({ ...make(0), signal: ctx.signal });
          // A window another client (or an earlier run) used: wait for it to pass once before judging the endpoint busy.
          if (probe.status === HTTP_STATUS.tooManyRequests) {
            await ctx.time.sleepReal(lim.rateWindowRealMs * 1.1 + CLEAN_WINDOW_FLOOR_REAL_MS, ctx.signal);
            probe = await ctx.http.send({ ...make(0), signal: ctx.signal });
          }
          if (op === 'requests' || op === 'openai') {
            if (probe.status === HTTP_STATUS.notFound || probe.status === 405) skip(`the target does not serve ${op === 'requests' ? 'GET /requests' : 'POST /openai/*'} (answered ${probe.status}); its shape is not specified`);
          }
          if (probe.status === HTTP_STATUS.tooManyRequests) inconclusive(`the window is already in use on endpoint ${ep} (429 before the burst): another client sent ${op} there; give --spare-endpoint or rerun when the endpoint is idle`, probe);
          const before = (await health(ctx, ep)).record.workers.running;
          const b = await burstNow(ctx, n, lanesFor(rule.concurrency), make);
          const after = (await health(ctx, ep)).record.workers.running;
          return { probe, before, after, b };
        });
        const admitted = b.admitted + (probe.status === HTTP_STATUS.tooManyRequests ? 0 : 1);
        const running = Math.max(before, after);
        const rpw = lim.requestsPerWorker;
        const effective = rpw === null ? base : effectiveRateLimit(base, running, rpw);
        ctx.measure('admitted', admitted);
        ctx.measure('refused429', b.refused);
        ctx.measure('documented', base);
        ctx.measure('effective', effective);
        ctx.measure('runningWorkers', running);
        ctx.measure('burstRealMs', Math.round(b.elapsedRealMs));
        if (b.errors > 0) fail('an answer to every request of the burst', `${b.errors} network errors`, b.answers.find((a) => a.status === 0));
        if (b.elapsedRealMs > lim.rateWindowRealMs * 0.9) skip(`the burst took ${Math.round(b.elapsedRealMs)} ms, too close to the ${lim.rateWindowRealMs} ms window to judge the count`);
        const firstRefusal = b.answers.find((a) => a.status === HTTP_STATUS.tooManyRequests);
        // On a shared endpoint, requests of other clients in the same window take admissions this check counts.
        if (admitted < base && !last) return null;
        if (admitted < base && !dedicated) inconclusive(`${admitted} of ${n + 1} admitted before 429 on shared endpoint ${ep}, under the documented ${base}: traffic this check did not send may have used the window; give --spare-endpoint for an exact count`, firstRefusal);
        if (admitted < base) fail(`at least ${base} admitted in one window (429 only past the documented count)`, `${admitted} admitted, ${b.refused} refused`, firstRefusal);
        const upper = (rpw === null && running > 0 ? Number.POSITIVE_INFINITY : effective) + toleranceFor(effective, dedicated);
        if (admitted > upper) {
          fail(`at most ${effective} admitted in one window (${base} per §8${effective !== base ? `, effective ${effective} with ${running} running workers` : ''}), then 429`, `${admitted} admitted of ${n + 1}`, b.answers.filter((a) => a.status !== HTTP_STATUS.tooManyRequests).at(-1));
        }
        if (firstRefusal === undefined) fail('429 for requests past the limit', `no 429 in ${n + 1} requests`);
        const body = field(firstRefusal.json, 'error');
        ctx.measure('errorBodyHasErrorString', typeof body === 'string');
        // Recovery: once the window that held the burst has passed, a request is admitted again.
        const waitReal = b.firstSentMs + lim.rateWindowRealMs * 1.1 - performance.now();
        await ctx.time.sleepReal(Math.max(0, waitReal), ctx.signal);
        const again = await ctx.http.send({ ...make(n + 1), signal: ctx.signal });
        // On a shared endpoint other checks and clients send this operation too (purges after their bursts).
        if (again.status === HTTP_STATUS.tooManyRequests && !dedicated) inconclusive(`429 again ${lim.rateWindowRealMs * 1.1} ms after the burst began on shared endpoint ${ep}: requests this check did not send may fill the new window; give --spare-endpoint for an exact check`, again);
        if (again.status === HTTP_STATUS.tooManyRequests) fail(`admitted again ${lim.rateWindowRealMs * 1.1} ms after the burst began (the window has passed)`, describe(again), again);
        // The burst's own jobs would hold up every later check on a shared endpoint.
        if (op === 'run' || op === 'openai' || op === 'runsync') await purge(ctx, ep);
        return { observed: `${admitted} admitted, ${b.refused} × 429 in ${Math.round(b.elapsedRealMs)} ms; admitted again after the window` };
      }
    },
  };
}

export const rateLimitChecks: CheckDefinition[] = [
  ...(['run', 'runsync', 'status', 'stream', 'cancel', 'purge-queue', 'requests', 'openai'] as const).map(rateCheck),
];
