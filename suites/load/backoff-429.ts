// §7/§8 "clients back off exponentially and retry": offer twice the documented rate of /run
// (or /runsync) for two windows with the shared backoff policy on (src/client/backoff.ts,
// Retry-After honoured). Verdict: every job is eventually accepted, goodput per window is
// close to the limit, and retries stay bounded (no retry storm).
// `--param op=run|runsync`, `--param expect=advertised` as in rate-limit.ts.
// Requests of the operation that others send to the endpoint take admissions from this
// scenario's jobs: detected and judged as in rate-limit.ts (a precondition not reached makes
// gave-up jobs, low goodput and many attempts inconclusive); goodput above the limit fails
// whatever else was seen.
import { defineScenario, param, type Analysis, type LoadTarget, type ScenarioInput } from 'qbench/suite';
import { EXPECT_PARAM, expectedRule, operationRequest, rateWindowRealMs, type Expect } from './lib/limits.js';
import { awaitQuietOperation, foreignRequests, operationCount, precondition, probeWindow, setupNote, statusOf, type OperationCount } from './lib/verdict.js';

interface BackoffState {
  /** Emulator: the operation's counters once it was quiet, and what was still there if it never was. */
  quiet?: { start: OperationCount; waitedMs: number; busy?: string };
  /** Other targets: the evidence that others held the window before the schedule. */
  inUse?: string;
}

/** Mean attempts per job above this is a retry storm (each job retried 3+ times on average). */
const MAX_MEAN_ATTEMPTS = 4;
/** Goodput per window must reach this share of the limit while the backlog drains. */
const MIN_GOODPUT_SHARE = 0.8;

export default defineScenario({
  params: { op: param.oneOf(['run', 'runsync']).default('run'), expect: EXPECT_PARAM },
  create: ({ target, params }) => backoffScenario(params.op, params.expect, target),
});

function backoffScenario(op: 'run' | 'runsync', expect: Expect, target: LoadTarget): ScenarioInput<BackoffState> {
  const rule = expectedRule(target, op, expect);
  const windowMs = rateWindowRealMs(target);
  const offered = (2 * rule.requestsPerWindow) / (windowMs / 1000);
  return {
    name: `backoff-429-${op}`,
    description: `/${op} at twice its limit (${rule.requestsPerWindow} per ${windowMs} ms, ${rule.source}) with exponential backoff on 429`,
    executor: 'constant-arrival-rate',
    globalView: 'its verdict compares goodput per rate window and the retries of one backoff policy with the limit, for all requests together',
    ratePerSec: offered,
    durationMs: 2 * windowMs,
    // 4 windows' worth of jobs drain at one window's limit each: give them time.
    gracefulStopMs: 12 * windowMs,
    maxInFlight: Math.ceil(4 * rule.requestsPerWindow) + 10,
    on429: { mode: 'backoff', backoff: { baseMs: Math.max(1, windowMs / 20), capMs: windowMs, maxAttempts: 12, honourRetryAfter: true, retryAfterCapMs: 2 * windowMs } },
    validity: { maxSendLatenessP99Ms: windowMs / 4, maxEventLoopDelayP99Ms: windowMs / 4 },
    steps: [{ kind: op, input: {} }],
    thresholds: { [`${op}.network_error.rate`]: ['rate==0'] },
    hooks: {
      setup: async (rc): Promise<BackoffState> => {
        const quiet = await awaitQuietOperation(rc, op, windowMs);
        if (quiet !== undefined) return { quiet };
        const p = await probeWindow(rc, () => rc.request(operationRequest(op, 'none')), windowMs);
        return p.inUse !== undefined ? { inUse: p.inUse } : {};
      },
      analyze: async (r, rc): Promise<Analysis> => {
        const state = rc.state;
        const st = r.steps.find((s) => s.step === op);
        const jobs = st?.attempts?.histogram.count ?? 0;
        const gaveUp = st?.attempts?.gaveUp ?? 0;
        const accepted = st?.counts['2xx'] ?? 0;
        const attempts = st ? Object.values(st.counts).reduce((a, b) => a + b, 0) : 0;
        const meanAttempts = jobs > 0 ? attempts / jobs : 0;
        const points = r.series.find((s) => s.step === op)?.points ?? [];
        // Most accepted in any window: sums of consecutive 1 s points (windows of whole seconds),
        // else the mean over the active seconds.
        const k = Math.round(windowMs / 1000);
        let perWindow = 0;
        if (k >= 1 && Math.abs(k * 1000 - windowMs) < 1) {
          const byT = new Map(points.map((p) => [p.tSec, p.goodputPerSec]));
          const maxT = points.reduce((a, p) => Math.max(a, p.tSec), 0);
          for (let t = 0; t <= maxT; t++) {
            let sum = 0;
            for (let i = 0; i < k; i++) sum += byT.get(t + i) ?? 0;
            perWindow = Math.max(perWindow, sum);
          }
        } else {
          const active = points.filter((p) => p.goodputPerSec > 0);
          perWindow = active.length > 0 ? accepted / (active.length / (windowMs / 1000)) : 0;
        }
        const limit = rule.requestsPerWindow;
        const end = state.quiet ? await operationCount(rc, op) : undefined;
        const foreign = state.quiet && end ? foreignRequests(state.quiet.start, end, attempts) : 0;
        const alone = state.quiet
          ? (state.quiet.busy ?? (foreign > 0 ? `${foreign} /${op} requests this scenario did not send were counted by the emulator during the run` : `none: the emulator counted only this scenario's ${attempts} attempts`))
          : (state.inUse ?? 'no sign of others (this target has no /_qbench/counters: only a window in use before the start can be seen)');
        const findings = [
          precondition(`the /${op} rate windows were this scenario's alone`, `no /${op} requests from others on endpoint ${rc.target.endpointId}`, alone, state.quiet ? state.quiet.busy === undefined && foreign === 0 : state.inUse === undefined),
          { label: 'every job eventually accepted', clause: '§7', expected: `${jobs} of ${jobs}`, observed: `${accepted} accepted, ${gaveUp} gave up`, passed: jobs > 0 && gaveUp === 0 && accepted === jobs },
          {
            label: 'goodput per window while draining',
            clause: '§8',
            expected: `close to ${limit} (${MIN_GOODPUT_SHARE * 100}%..105% of ${rule.source})`,
            observed: `${perWindow.toFixed(1)} per ${windowMs} ms`,
            passed: perWindow >= MIN_GOODPUT_SHARE * limit && perWindow <= 1.05 * limit,
          },
          { label: 'no retry storm', clause: '§7', expected: `mean attempts per job <= ${MAX_MEAN_ATTEMPTS}`, observed: `${meanAttempts.toFixed(2)} (max ${st?.attempts?.maxAttempts ?? 0})`, passed: meanAttempts <= MAX_MEAN_ATTEMPTS },
        ];
        // Others' requests only take admissions away: goodput above the limit is a violation regardless.
        const status = statusOf(findings, perWindow > 1.05 * limit);
        return {
          status,
          summary: `${setupNote(status, findings)}/${op}: ${accepted}/${jobs} jobs accepted with ${meanAttempts.toFixed(2)} attempts each; ${perWindow.toFixed(1)} accepted per window (limit ${limit})`,
          findings,
          charts: [
            {
              id: `backoff-${op}-goodput`,
              title: `/${op}: attempts and goodput per second under backoff`,
              xLabel: 's',
              yLabel: 'requests/s',
              xKind: 'time',
              series: [
                { name: 'attempts', points: points.map((p) => [p.tSec, p.offeredPerSec]) },
                { name: 'accepted', points: points.map((p) => [p.tSec, p.goodputPerSec]) },
                { name: '429', points: points.map((p) => [p.tSec, p.counts['429']]) },
              ],
              referenceLines: [{ label: 'limit per second', y: limit / (windowMs / 1000) }],
            },
          ],
        };
      },
    },
  };
}
