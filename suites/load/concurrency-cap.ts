// §8 concurrency column per operation: open 1.5x the documented cap of requests at once,
// each held open by the server, and count how many were admitted before the rest got 429.
// Verdict: admitted == the cap in the table. A client can hold /runsync (a job that outlives
// its `wait`) and /stream (a long-poll on a job that produces nothing yet) on any target. The
// operations a server answers at once (/run, /status, /cancel, /openai/*, /requests) are held
// with the emulator's opt-in hold (POST /_qbench/limits {hold}), on an emulator that
// advertises it in /_qbench/info; on any other target they cannot be probed and are refused.
// `--param op=runsync,stream,run,status,cancel,openai,requests`, `--param expect=advertised`
// as in rate-limit.ts.
//
// Preconditions, not rules: the admitted requests stayed open (a request answered at once, or
// a job that finished before the burst, frees its slot: the count says nothing of the cap),
// and no one else held slots of the operation or used its rate window (on an emulator with
// GET /_qbench/counters the scenario waits for the operation to be quiet, then compares the
// emulator's count with its own). Unmet, fewer held than the cap is inconclusive; more held
// than the cap while the requests stayed open fails whatever else was seen (others only take
// slots away).
import {
  HTTP_STATUS, RUNSYNC_WAIT_MS, SECOND_MS, defineScenario, param, paramError, type Analysis, type IterationContext,
  type LoadTarget, type RunContext, type ScenarioInput,
} from 'qbench/suite';
import { EXPECT_PARAM, expectedRule, rateWindowRealMs, type Exchange, type Expect } from './lib/limits.js';
import { valueAt } from './lib/answer.js';
import { awaitQuietOperation, foreignRequests, operationCount, precondition, setupNote, statusOf, type OperationCount } from './lib/verdict.js';

/** Held by the request itself, on any target. */
const CLIENT_HELD_OPS = ['runsync', 'stream'] as const;
/** Answered at once: held only by the emulator's hold control. */
const EMULATOR_HELD_OPS = ['run', 'status', 'cancel', 'openai', 'requests'] as const;
const HELD_OPS = [...CLIENT_HELD_OPS, ...EMULATOR_HELD_OPS] as const;
type HeldOp = (typeof HELD_OPS)[number];
/** Real ms each request is held: long enough for the whole burst to be in flight together. */
const HOLD_REAL_MS = 2 * SECOND_MS;

const needsEmulatorHold = (op: HeldOp): boolean => EMULATOR_HELD_OPS.some((o) => o === op);

/** True when the target is an emulator that advertises the hold for `op`. */
function holdAdvertised(target: LoadTarget, op: HeldOp): boolean {
  const ops = valueAt(target.info, 'limits', 'hold', 'operations');
  return Array.isArray(ops) && ops.includes(op);
}

/** The request one iteration sends for `op`. */
function requestFor(op: HeldOp, jobId: string, waitMs: number, longJobSec: number): Parameters<IterationContext['request']>[1] {
  switch (op) {
    case 'runsync':
      return { method: 'POST', path: '/runsync', query: { wait: waitMs }, body: { input: { mock_delay: longJobSec } } };
    case 'stream':
      return { method: 'GET', path: `/stream/${encodeURIComponent(jobId)}` };
    case 'run':
      return { method: 'POST', path: '/run', body: { input: {} } };
    case 'status':
      return { method: 'GET', path: `/status/${encodeURIComponent(jobId)}` };
    case 'cancel':
      return { method: 'POST', path: `/cancel/${encodeURIComponent(jobId)}` };
    case 'openai':
      return { method: 'POST', path: '/openai/v1/completions', body: { model: 'qbench', prompt: 'hold' } };
    case 'requests':
      return { method: 'GET', path: '/requests' };
  }
}

async function setHold(rc: RunContext, op: HeldOp, realMs: number): Promise<void> {
  const r = await rc.request({ method: 'POST', path: '/_qbench/limits', scope: 'origin', body: { hold: { endpoint: rc.target.endpointId, realMs: { [op]: realMs } } } });
  if (r.status !== HTTP_STATUS.ok) throw new Error(`POST /_qbench/limits {hold} answered ${r.status ?? 'no answer'}: ${r.bodyText.slice(0, 200)}`);
}

interface CapState {
  jobId: string;
  log: Exchange[];
  /** Emulator: the operation's counters once it was quiet, and what was still there if it never was. */
  quiet?: { start: OperationCount; waitedMs: number; busy?: string };
}

export function concurrencyScenario(op: HeldOp, target: LoadTarget, expect: Expect): ScenarioInput<CapState> {
  const rule = expectedRule(target, op, expect);
  const cap = rule.concurrency ?? 0;
  const burst = Math.ceil(cap * 1.5) + 1;
  const scale = target.timeScale;
  const waitMs = Math.min(RUNSYNC_WAIT_MS.max, Math.max(RUNSYNC_WAIT_MS.min, Math.round(HOLD_REAL_MS * scale)));
  // The job outlives the wait by far, so /runsync answers only when `wait` runs out.
  const longJobSec = Math.ceil((waitMs * 10) / SECOND_MS);
  return {
    name: `concurrency-cap-${op}`,
    description: `§8 concurrency cap of /${op}: ${cap} in flight (${rule.source}); ${burst} requests held open at once`,
    executor: 'iterations',
    globalView: 'its verdict counts the requests admitted at once before the first release, across every connection',
    iterations: burst,
    vus: burst,
    maxInFlight: burst,
    maxDurationMs: 60 * SECOND_MS,
    validity: { maxEventLoopDelayP99Ms: 1000 },
    steps: [
      {
        kind: 'custom',
        name: op,
        fn: async (it) => {
          const st = it.state;
          const sentMs = performance.timeOrigin + performance.now();
          const a = await it.request(op, requestFor(op, st.jobId, waitMs, longJobSec));
          st.log.push({ sentMs, endMs: performance.timeOrigin + performance.now(), status: a.status });
        },
      },
    ],
    hooks: {
      setup: async (rc): Promise<CapState> => {
        let jobId = 'none';
        if (op === 'stream' || op === 'status' || op === 'cancel') {
          // A job that will not finish or stream for a long while: /stream long-polls on it,
          // /status and /cancel name it.
          const a = await rc.request({ method: 'POST', path: '/run', body: { input: { mock_delay: longJobSec } } });
          const id = valueAt(a.json(), 'id');
          if (typeof id !== 'string') throw new Error(`setup: POST /run answered ${a.status ?? 'no answer'}`);
          jobId = id;
        }
        if (needsEmulatorHold(op)) await setHold(rc, op, HOLD_REAL_MS);
        const st: CapState = { jobId, log: [] };
        const quiet = await awaitQuietOperation(rc, op, rateWindowRealMs(rc.target));
        if (quiet !== undefined) st.quiet = quiet;
        return st;
      },
      teardown: async (rc) => {
        if (needsEmulatorHold(op)) await setHold(rc, op, 0);
        await rc.request({ method: 'POST', path: '/purge-queue' });
      },
      analyze: async (_r, rc): Promise<Analysis> => {
        const st = rc.state;
        const end = st.quiet ? await operationCount(rc, op) : undefined;
        const foreign = st.quiet && end ? foreignRequests(st.quiet.start, end, st.log.length) : 0;
        const admitted = st.log.filter((x) => x.status !== null && x.status !== 429);
        const refused = st.log.filter((x) => x.status === 429).length;
        // Until the first admitted request ends, every admitted one is still open: count what
        // was sent before that moment (a slow burst's late sends see freed slots).
        const cut = admitted.length > 0 ? Math.min(...admitted.map((x) => x.endMs)) : Number.POSITIVE_INFINITY;
        const early = st.log.filter((x) => x.sentMs < cut);
        const heldTogether = early.filter((x) => x.status !== null && x.status !== 429).length;
        const refusedEarly = early.filter((x) => x.status === 429).length;
        // A /stream long-poll answers after the emulator's long-poll (1 s by default); /runsync
        // after `wait`; the others after the emulator's hold.
        const minHeldMs = op === 'stream' ? HOLD_REAL_MS / 5 : HOLD_REAL_MS / 2;
        const heldMs = admitted.length > 0 ? Math.min(...admitted.map((x) => x.endMs - x.sentMs)) : 0;
        const held = heldMs >= minHeldMs;
        const alone = st.quiet
          ? (st.quiet.busy ?? (foreign > 0 ? `${foreign} /${op} requests this scenario did not send were counted by the emulator during the burst` : `none: the emulator counted only this scenario's ${st.log.length} requests`))
          : 'no sign of others (this target has no /_qbench/counters to tell)';
        const findings = [
          precondition('requests were really held open', `each admitted request open >= ${minHeldMs} ms`, `shortest ${heldMs.toFixed(0)} ms${held ? '' : ' (answered before the burst was in flight together: the job finished or the hold ended)'}`, held),
          precondition(`no one else held /${op} slots or used its rate window`, `no /${op} requests from others on endpoint ${rc.target.endpointId}`, alone, st.quiet ? st.quiet.busy === undefined && foreign === 0 : true),
          {
            label: `/${op} requests admitted while ${burst} were sent at once`,
            clause: '§8',
            expected: `${cap} (${rule.source})`,
            observed: `${heldTogether} held together, ${refusedEarly} refused meanwhile (${admitted.length} admitted, ${refused} got 429 in all)`,
            passed: heldTogether === cap && refusedEarly > 0,
          },
        ];
        // Held open, more than the cap at once is a violation whoever else was there.
        const status = statusOf(findings, held && heldTogether > cap);
        return {
          status,
          summary: `${setupNote(status, findings)}/${op}: ${admitted.length} admitted of ${burst} at once, 429 from request ${admitted.length + 1} on (cap ${cap})`,
          findings,
          charts: [
            {
              id: `concurrency-${op}`,
              title: `/${op}: admitted vs refused at ${burst} concurrent requests`,
              xLabel: 'outcome',
              yLabel: 'requests',
              xKind: 'category',
              categories: ['admitted', '429'],
              series: [{ name: 'requests', points: [[0, admitted.length], [1, refused]] }],
              referenceLines: [{ label: `cap (${rule.source})`, y: cap }],
            },
          ],
        };
      },
    },
  };
}

export default defineScenario({
  /** `op` defaults to every operation this target can hold open. */
  params: { op: param.list(param.oneOf(HELD_OPS)).optional(), expect: EXPECT_PARAM },
  create: ({ target, params }) => {
    const ops = params.op ?? HELD_OPS.filter((o) => !needsEmulatorHold(o) || holdAdvertised(target, o));
    const unheld = ops.filter((o) => needsEmulatorHold(o) && !holdAdvertised(target, o));
    if (unheld.length > 0) {
      throw paramError('op', `${unheld.join(', ')} are answered at once and can be held open only by an emulator that advertises limits.hold in /_qbench/info; on this target use ${CLIENT_HELD_OPS.join(', ')}`);
    }
    return ops.map((op) => concurrencyScenario(op, target, params.expect));
  },
});
