// §2.2 result retention: a /run result is readable for 30 minutes after completion, a
// /runsync result for 1 minute (no `wait`). Submit a job, see it finish, then poll /status
// until it answers 404; the window is bracketed by the last 200 and the first 404. Durations
// are converted to the target's clock (an emulator with time scale 60 passes 30 min in 30 s;
// a real target takes real time). `--param op=run|runsync`.
// Preconditions, not rules: the job was accepted and seen COMPLETED (the moment the window is
// measured from), and the observation lasted past the window's end. A job refused, gone
// before it completed (ttl, a purge by another client) or never completed in time leaves the
// window unmeasured: inconclusive. A result gone too early, or still readable well past the
// window, fails.
import { HTTP_STATUS, RETENTION_MS, SECOND_MS, defineScenario, type Analysis, type LoadTarget, type ScenarioInput } from 'qbench/suite';
import { valueAt } from './lib/answer.js';
import { precondition, setupNote, statusOf } from './lib/verdict.js';
import { RUN_OPERATIONS_PARAM } from './lib/limits.js';

type Op = 'run' | 'runsync';
/** Status polls per retention window: the bracket is 1% of the window wide. */
const POLLS_PER_WINDOW = 100;
/** Accept a window within this share of the documented one (client-side timing). */
const TOLERANCE = 0.05;

interface RetentionState {
  completedAtMs: number;
  lastOkMs: number;
  first404Ms: number;
  /** When the observation ended with the result still readable. */
  endedReadableMs: number;
  polls: number;
  /** Why the window could not be measured (the job was never seen COMPLETED). */
  notSetUp?: string;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function retentionScenario(op: Op, target: LoadTarget): ScenarioInput<RetentionState> {
  const windowEmuMs = op === 'run' ? RETENTION_MS.run : RETENTION_MS.runsyncDefault;
  const scale = target.timeScale;
  const windowRealMs = windowEmuMs / scale;
  const pollMs = Math.max(2, windowRealMs / POLLS_PER_WINDOW);
  return {
    name: `retention-${op}`,
    description: `§2.2 /${op} results readable for ${windowEmuMs / SECOND_MS} s after completion (${windowRealMs.toFixed(0)} ms real at time scale ${scale}), 404 after`,
    executor: 'iterations',
    globalView: 'it follows one job until its result expires',
    iterations: 1,
    vus: 1,
    maxDurationMs: Math.ceil(windowRealMs * 3 + 30 * SECOND_MS),
    // One request at a time; the verdict widens its bracket by the worst stall seen. Stalls
    // beyond a quarter of the window would make any bracket meaningless: INVALID then.
    validity: { maxEventLoopDelayP99Ms: Math.max(100, windowRealMs / 4) },
    steps: [
      {
        kind: 'custom',
        name: op,
        metrics: [op, 'status'],
        fn: async (it) => {
          const st = it.state;
          const submittedMs = now();
          const a = await it.request(op, { method: 'POST', path: `/${op}`, body: { input: {} } });
          const body = a.json();
          const jobId = valueAt(body, 'id');
          const id = typeof jobId === 'string' ? jobId : undefined;
          if (a.status !== HTTP_STATUS.ok || id === undefined) {
            st.notSetUp = `POST /${op} answered ${a.status ?? 'no answer'}: no job to follow`;
            return;
          }
          const deadline = now() + windowRealMs * 3 + 20 * SECOND_MS;
          let completed = valueAt(body, 'status') === 'COMPLETED';
          if (completed) st.completedAtMs = now();
          while (!it.signal.aborted && now() < deadline) {
            const s = await it.request('status', { method: 'GET', path: `/status/${encodeURIComponent(id)}` });
            st.polls++;
            const t = now();
            if (s.status === HTTP_STATUS.notFound) {
              st.first404Ms = t;
              if (!completed) st.notSetUp = 'the job was gone (404) before it was seen COMPLETED (expired or purged while it waited)';
              return;
            }
            const status = valueAt(s.json(), 'status');
            if (!completed && status === 'COMPLETED') {
              completed = true;
              st.completedAtMs = t;
            }
            if (completed && s.status === HTTP_STATUS.ok) st.lastOkMs = t;
            await sleep(pollMs);
          }
          if (!completed) st.notSetUp = `the job was not seen COMPLETED within ${((now() - submittedMs) / SECOND_MS).toFixed(0)} s (real)`;
          else st.endedReadableMs = now();
        },
      },
    ],
    hooks: {
      setup: () => Promise.resolve<RetentionState>({ completedAtMs: 0, lastOkMs: 0, first404Ms: 0, endedReadableMs: 0, polls: 0 }),
      analyze: (r, rc): Analysis => {
        const st = rc.state;
        const toEmuS = (realMs: number) => (realMs * scale) / SECOND_MS;
        // Client-side timing: a poll interval plus the worst event-loop stall (the generator's,
        // and an in-process emulator's timers) widen the bracket.
        const slackS = toEmuS(pollMs + 2 * r.validity.eventLoopDelayMs.max);
        const expectS = windowEmuMs / SECOND_MS;
        const lo = toEmuS(st.lastOkMs - st.completedAtMs);
        const completed = st.notSetUp === undefined;
        const stillReadable = completed && st.first404Ms === 0;
        // Still readable when the observation ended: a violation only once that is past the window's end.
        const readableFor = toEmuS((stillReadable ? st.endedReadableMs : st.lastOkMs) - st.completedAtMs);
        const observedLongEnough = !stillReadable || readableFor > expectS * (1 + TOLERANCE) + slackS;
        const hi = stillReadable ? Number.POSITIVE_INFINITY : toEmuS(st.first404Ms - st.completedAtMs);
        const ok = completed && lo >= expectS * (1 - TOLERANCE) - slackS && hi <= expectS * (1 + TOLERANCE) + slackS;
        const observed = !completed
          ? 'not measured'
          : stillReadable
            ? `still readable ${readableFor.toFixed(1)} s after completion, when the observation ended (target clock; ${st.polls} polls)`
            : `readable ${lo.toFixed(1)} s, gone by ${hi.toFixed(1)} s after completion (target clock; ${st.polls} polls)`;
        const findings = [
          precondition(`the /${op} job was seen COMPLETED (the window starts there)`, 'COMPLETED within the observation', st.notSetUp ?? 'yes', completed),
          precondition('the observation lasted past the window', `until a 404, or past ${(expectS * (1 + TOLERANCE)).toFixed(0)} s after completion`, stillReadable ? `ended ${readableFor.toFixed(1)} s after completion` : 'until the 404', observedLongEnough),
          { label: `/${op} result retention`, clause: RETENTION_MS.section, expected: `${expectS} s (±${TOLERANCE * 100}%)`, observed, passed: ok },
        ];
        // Gone before the window ended is a violation even if the observation was cut short.
        const status = statusOf(findings, completed && lo < expectS * (1 - TOLERANCE) - slackS && !stillReadable);
        return {
          status,
          summary: `${setupNote(status, findings)}/${op} retention: ${observed}`,
          findings,
          charts: [],
        };
      },
    },
  };
}

export default defineScenario({
  params: { op: RUN_OPERATIONS_PARAM },
  create: ({ target, params }) => params.op.map((op) => retentionScenario(op, target)),
});
