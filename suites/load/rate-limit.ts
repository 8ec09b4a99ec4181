// §8 rate limit per operation (/run, /runsync, /status, /stream, /cancel, /purge-queue):
// offered load ramps from 0 to twice the documented rate over two windows, holds for one,
// pauses one window, then offers half the rate for one more (recovery). Verdict: the most
// requests accepted in any window equals the documented limit, the first 429 comes once it
// is used up, and after a quiet window everything is accepted again.
// `--param op=cancel,run` picks operations; `--param expect=advertised` compares with what
// the emulator says it enforces instead of the §8 table.
//
// Setup failures vs violations. The count is the scenario's own only if no one else sends the
// operation to the endpoint in its windows (a shared endpoint). On an emulator that answers
// GET /_qbench/counters, the scenario first waits (one window at most) for the operation to be
// quiet, and at the end compares the requests the emulator counted with those it sent. On any
// other target it sends one request before the schedule: a 429 to it, and again after a quiet
// window, is positive evidence that others hold the window (a target whose limit is zero is
// out of scope). Foreign traffic is a precondition not reached: fewer admitted than
// documented, an early 429 or a refused recovery are then inconclusive. Without such evidence
// they fail, so a target whose limit is really lower than documented fails on a private
// endpoint. A bracket too wide to place admissions in a window (slow answers) leaves only the
// count per window unjudged. More admitted than documented, or no 429 at twice the rate,
// fails whatever else was seen: other traffic only lowers the count.
import { defineScenario, type Analysis, type LoadTarget, type ScenarioInput } from 'qbench/suite';
import {
  EXPECT_PARAM, PROBED_OPERATIONS_PARAM, admittedPerWindowBounds, countsPerWindow, expectedRule, finishedJob, operationRequest, rateWindowRealMs,
  type Exchange, type Expect, type ProbedOperation,
} from './lib/limits.js';
import { awaitQuietOperation, foreignRequests, operationCount, precondition, probeWindow, setupNote, statusOf, type OperationCount } from './lib/verdict.js';

interface ProbeState {
  jobId: string;
  /** Every probe as the client saw it; bounded by the scenario's maxRequests. */
  log: Exchange[];
  /** Emulator: the operation's counters once it was quiet, and what was still there if it never was. */
  quiet?: { start: OperationCount; waitedMs: number; busy?: string };
  /** Other targets: the evidence that others held the window before the schedule. */
  inUse?: string;
}

const admitted = (x: Exchange) => x.status !== null && x.status !== 429;
/** Widest bracket [at least, at most] that still counts as a measurement. */
export const bracketTolerance = (limit: number) => Math.max(2, Math.ceil(limit * 0.1));

export function rateLimitScenario(op: ProbedOperation, target: LoadTarget, expect: Expect): ScenarioInput<ProbeState> {
  const rule = expectedRule(target, op, expect);
  const windowMs = rateWindowRealMs(target);
  const limitPerSec = rule.requestsPerWindow / (windowMs / 1000);
  const peak = 2 * limitPerSec;
  return {
    name: `rate-limit-${op}`,
    description: `§8 rate limit of /${op}: ${rule.requestsPerWindow} per ${windowMs} ms window (${rule.source}); ramp to 2x, hold, pause, recover`,
    executor: 'ramping-arrival-rate',
    globalView: 'its verdict counts the requests admitted in each rate window, which every shard sees only a share of',
    startRatePerSec: 0,
    stages: [
      { durationMs: 2 * windowMs, targetRatePerSec: peak },
      { durationMs: windowMs, targetRatePerSec: peak },
      { durationMs: 1, targetRatePerSec: 0 },
      { durationMs: windowMs, targetRatePerSec: 0 },
      { durationMs: 1, targetRatePerSec: limitPerSec / 2 },
      { durationMs: windowMs, targetRatePerSec: limitPerSec / 2 },
    ],
    maxRequests: Math.ceil(6 * rule.requestsPerWindow) + 10,
    // This scenario counts admissions with bounds that hold whatever the send jitter; the
    // generator is only invalid when it distorts the offered profile itself.
    validity: { maxSendLatenessP99Ms: windowMs / 4, maxEventLoopDelayP99Ms: windowMs / 4, minAchievedRatio: 0.9 },
    steps: [
      {
        kind: 'custom',
        name: op,
        fn: async (it) => {
          const st = it.state;
          const sentMs = performance.timeOrigin + performance.now();
          const a = await it.request(op, operationRequest(op, st.jobId));
          st.log.push({ sentMs, endMs: performance.timeOrigin + performance.now(), status: a.status });
        },
      },
    ],
    thresholds: { [`${op}.network_error.rate`]: ['rate==0'] },
    hooks: {
      setup: async (rc): Promise<ProbeState> => {
        const needsJob = op === 'status' || op === 'stream' || op === 'cancel';
        const st: ProbeState = { jobId: needsJob ? await finishedJob(rc) : 'none', log: [] };
        const quiet = await awaitQuietOperation(rc, op, windowMs);
        if (quiet !== undefined) {
          st.quiet = quiet;
        } else {
          const p = await probeWindow(rc, () => rc.request(operationRequest(op, st.jobId)), windowMs);
          st.log.push(p.exchange);
          if (p.inUse !== undefined) st.inUse = p.inUse;
        }
        return st;
      },
      analyze: async (_result, rc): Promise<Analysis> => {
        const st = rc.state;
        const end = st.quiet ? await operationCount(rc, op) : undefined;
        const foreign = st.quiet && end ? foreignRequests(st.quiet.start, end, st.log.length) : 0;
        const t0 = rc.scheduleStartMs;
        const sorted = [...st.log].sort((a, b) => a.sentMs - b.sentMs);
        const ok = sorted.filter(admitted);
        const bounds = admittedPerWindowBounds(ok, windowMs);
        const first429 = sorted.findIndex((x) => x.status === 429);
        const acceptedBefore429 = first429 < 0 ? ok.length : sorted.slice(0, first429).filter(admitted).length;
        const recovery = sorted.filter((x) => x.sentMs - t0 >= 4 * windowMs);
        const recovered = recovery.filter(admitted).length;
        const perWindow = countsPerWindow(ok.map((x) => x.sentMs), t0, windowMs, 5);
        const limit = rule.requestsPerWindow;
        const wide = bounds.atMost - bounds.atLeast > bracketTolerance(limit);
        const observedWindow = bounds.atLeast === bounds.atMost ? String(bounds.atLeast) : `between ${bounds.atLeast} and ${bounds.atMost}`;
        const alone = st.quiet
          ? (st.quiet.busy ?? (foreign > 0 ? `${foreign} /${op} requests this scenario did not send were counted by the emulator during the run` : `none: the emulator counted only this scenario's ${st.log.length} requests`))
          : (st.inUse ?? 'no sign of others (this target has no /_qbench/counters: only a window in use before the start can be seen)');
        const findings = [
          precondition(`the /${op} rate windows were this scenario's alone`, `no /${op} requests from others on endpoint ${rc.target.endpointId}`, alone, st.quiet ? st.quiet.busy === undefined && foreign === 0 : st.inUse === undefined),
          precondition('answers fast enough to place each admission in a window', `a bracket at most ${bracketTolerance(limit)} wide`, `between ${bounds.atLeast} and ${bounds.atMost}`, !wide),
          {
            label: `most /${op} requests admitted in any ${windowMs} ms window`,
            clause: '§8',
            expected: `${limit} (${rule.source})`,
            observed: observedWindow,
            // The limit must be reachable (atMost >= limit) and never exceeded (atLeast <= limit).
            passed: bounds.atLeast <= limit && bounds.atMost >= limit,
          },
          {
            label: 'first 429',
            clause: '§8',
            expected: `once ${limit} were admitted in a window`,
            observed: first429 < 0 ? 'never (no 429 at twice the rate)' : `after ${acceptedBefore429} admitted, ${((sorted[first429]!.sentMs - t0) / 1000).toFixed(2)} s in`,
            passed: first429 >= 0 && acceptedBefore429 >= limit,
          },
          {
            label: 'recovery after a quiet window',
            clause: '§8',
            expected: 'every request admitted at half the rate',
            observed: `${recovered} of ${recovery.length} admitted`,
            passed: recovery.length > 0 && recovered === recovery.length,
          },
        ];
        // Other traffic only takes admissions away: more than the limit, or none refused at twice
        // the rate, is a violation regardless. With no one else seen, an early 429 or a refused
        // recovery is one too: slow answers widen the bracket, not those.
        const aloneMet = findings[0]?.passed === true;
        const status = statusOf(findings, bounds.atLeast > limit || first429 < 0 || (aloneMet && (findings[3]?.passed === false || findings[4]?.passed === false)));
        return {
          status,
          summary: `${setupNote(status, findings)}/${op}: ${observedWindow} admitted per ${windowMs} ms window (expected ${limit}); admitted per window ${perWindow.join(', ')}`,
          findings,
          charts: [
            {
              id: `rate-limit-${op}-windows`,
              title: `/${op}: accepted per ${windowMs} ms window vs the limit`,
              xLabel: 'window',
              yLabel: 'accepted',
              xKind: 'category',
              categories: ['ramp 1', 'ramp 2', 'hold 2x', 'pause', 'recovery'],
              series: [{ name: 'accepted', points: perWindow.map((n, i) => [i, n]) }],
              referenceLines: [{ label: `limit (${rule.source})`, y: limit }],
            },
          ],
        };
      },
    },
  };
}

export default defineScenario({
  params: { op: PROBED_OPERATIONS_PARAM, expect: EXPECT_PARAM },
  create: ({ target, params }) => params.op.map((op) => rateLimitScenario(op, target, params.expect)),
});
