// §2.2 result retention: a /run result is readable for 30 minutes after completion, a
// /runsync result for 1 minute (no `wait`). Submit a job, see it finish, then poll /status
// until it answers 404; the window is bracketed by the last 200 and the first 404. Durations
// are converted to the target's clock (an emulator with time scale 60 passes 30 min in 30 s;
// a real target takes real time). `--param op=run|runsync`.
import { HTTP_STATUS, RETENTION_MS, SECOND_MS } from '../../src/spec/index.js';
import type { Analysis, IterationContext } from '../../src/load/context.js';
import type { ScenarioFactoryContext } from '../../src/load/loader.js';
import type { ScenarioInput } from '../../src/load/scenario.js';

type Op = 'run' | 'runsync';
/** Status polls per retention window: the bracket is 1% of the window wide. */
const POLLS_PER_WINDOW = 100;
/** Accept a window within this share of the documented one (client-side timing). */
const TOLERANCE = 0.05;

interface RetentionState {
  completedAtMs: number;
  lastOkMs: number;
  first404Ms: number;
  polls: number;
  error?: string;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function retentionScenario(op: Op, ctx: ScenarioFactoryContext): ScenarioInput {
  const windowEmuMs = op === 'run' ? RETENTION_MS.run : RETENTION_MS.runsyncDefault;
  const scale = ctx.target.timeScale;
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
        fn: async (it: IterationContext) => {
          const st = it.state as RetentionState;
          const a = await it.request(op, { method: 'POST', path: `/${op}`, body: { input: {} } });
          const body = a.json() as { id?: unknown; status?: unknown } | undefined;
          const id = typeof body?.id === 'string' ? body.id : undefined;
          if (a.status !== HTTP_STATUS.ok || id === undefined) {
            st.error = `POST /${op} answered ${a.status ?? 'no answer'}`;
            return;
          }
          const deadline = now() + windowRealMs * 3 + 20 * SECOND_MS;
          let completed = body?.status === 'COMPLETED';
          if (completed) st.completedAtMs = now();
          while (!it.signal.aborted && now() < deadline) {
            const s = await it.request('status', { method: 'GET', path: `/status/${encodeURIComponent(id)}` });
            st.polls++;
            const t = now();
            if (s.status === HTTP_STATUS.notFound) {
              st.first404Ms = t;
              if (!completed) st.error = 'the job disappeared before it was seen COMPLETED';
              return;
            }
            const status = (s.json() as { status?: unknown } | undefined)?.status;
            if (!completed && status === 'COMPLETED') {
              completed = true;
              st.completedAtMs = t;
            }
            if (completed && s.status === HTTP_STATUS.ok) st.lastOkMs = t;
            await sleep(pollMs);
          }
          st.error = 'the result was still readable at the end of the observation';
        },
      },
    ],
    hooks: {
      setup: () => Promise.resolve<RetentionState>({ completedAtMs: 0, lastOkMs: 0, first404Ms: 0, polls: 0 }),
      analyze: (r, rc): Analysis => {
        const st = rc.state as RetentionState;
        const toEmuS = (realMs: number) => (realMs * scale) / SECOND_MS;
        // Client-side timing: a poll interval plus the worst event-loop stall (the generator's,
        // and an in-process emulator's timers) widen the bracket.
        const slackS = toEmuS(pollMs + 2 * r.validity.eventLoopDelayMs.max);
        const lo = toEmuS(st.lastOkMs - st.completedAtMs);
        const hi = toEmuS(st.first404Ms - st.completedAtMs);
        const expectS = windowEmuMs / SECOND_MS;
        const ok = st.error === undefined && lo >= expectS * (1 - TOLERANCE) - slackS && hi <= expectS * (1 + TOLERANCE) + slackS;
        const observed = st.error ?? `readable ${lo.toFixed(1)} s, gone by ${hi.toFixed(1)} s after completion (target clock; ${st.polls} polls)`;
        return {
          status: ok ? 'pass' : 'fail',
          summary: `/${op} retention: ${observed}`,
          findings: [{ label: `/${op} result retention`, clause: RETENTION_MS.section, expected: `${expectS} s (±${TOLERANCE * 100}%)`, observed, passed: ok }],
          charts: [],
        };
      },
    },
  };
}

export default (ctx: ScenarioFactoryContext): ScenarioInput[] => {
  const p = ctx.params['op'];
  const ops = p === undefined ? (['run', 'runsync'] as Op[]) : p.split(',').map((x) => x.trim());
  const bad = ops.filter((o) => o !== 'run' && o !== 'runsync');
  if (bad.length > 0) throw new Error(`--param op: ${bad.join(', ')}; retention windows exist for run and runsync`);
  return (ops as Op[]).map((op) => retentionScenario(op, ctx));
};
