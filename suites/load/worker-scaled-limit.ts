// §8 dynamic rule: the effective rate limit is max(base, running_workers * requests_per_worker).
// Offer a constant overload of one operation (default /status) through three phases of three
// windows each: no busy worker, k busy workers, none again. On an emulator the workers are
// set with POST /_qbench/workers and kept busy with long jobs; on a real target the long jobs
// make it autoscale. One window is measured a full window after each change took effect; requests_per_worker is
// estimated from the busy phase. Verdict: each phase admits max(base, running * rpw).
// Params: op=status  workers=<k>  rpw=<expected requests_per_worker> expect=advertised.
// Preconditions, not rules: in the busy phase enough workers ran for the limit to rise above
// the base (running x rpw > base), each worker change took effect within a window, and answers
// came fast enough to place admissions in a window (a narrow bracket). Unmet,
// the phases they concern are not judged (inconclusive); a phase judged on its own terms
// that admitted other than max(base, running x rpw) fails.
import {
  DEFAULT_REQUESTS_PER_WORKER, HTTP_STATUS, SECOND_MS, effectiveRateLimit, defineScenario, param, paramError,
  type Analysis, type LoadTarget, type RunContext, type ScenarioInput,
} from 'qbench/suite';
import { valueAt } from './lib/answer.js';
import { precondition, setupNote, statusOf } from './lib/verdict.js';
import {
  EXPECT_PARAM, admittedPerWindowBounds, advertisedRequestsPerWorker, expectedRule, finishedJob, operationRequest, rateWindowRealMs, type Exchange, type Expect,
} from './lib/limits.js';

interface ScaleState {
  jobId: string;
  log: Exchange[];
  longJobs: string[];
  running: [phase: number, running: number][];
  /** When each phase's worker change was confirmed by /health (hrNow ms). */
  since: Map<number, number>;
  originalWorkers?: { min: number; max: number };
}

const PHASES = ['no busy workers', 'busy workers', 'no busy workers again'] as const;
/**
 * Widest admission bracket that still tells the phases apart: with k chosen so that the busy
 * limit is >= 1.5x the base, a bracket within 20% of one phase's value excludes the other's.
 */
const phaseBracketTolerance = (expected: number) => Math.max(2, Math.ceil(expected * 0.2));
const now = () => performance.timeOrigin + performance.now();

async function health(rc: RunContext): Promise<number | undefined> {
  const h = await rc.request({ method: 'GET', path: '/health' });
  const running = valueAt(h.json(), 'workers', 'running');
  return typeof running === 'number' ? running : undefined;
}

/** Poll /health until `ok(running)` or `limitMs` passes. */
async function untilRunning(rc: RunContext, ok: (running: number) => boolean, limitMs: number): Promise<void> {
  const end = now() + limitMs;
  while (now() < end) {
    const r = await health(rc);
    if (r !== undefined && ok(r)) return;
    await new Promise((res) => setTimeout(res, 5));
  }
}

const MAX_WORKERS = 1000;

export default defineScenario({
  params: {
    /** cancel and purge-queue are needed to steer the workers, so they are not probed. */
    op: param.oneOf(['run', 'runsync', 'status', 'stream']).default('status'),
    /** Default: what the emulator advertises, else the documented value. */
    rpw: param.number({ above: 0, max: 1_000_000, unit: 'requests per window per running worker' }).optional(),
    /** Default: enough for the busy limit to reach 1.5x the base. */
    workers: param.number({ integer: true, min: 1, max: MAX_WORKERS, unit: 'busy workers' }).optional(),
    expect: EXPECT_PARAM,
  },
  create: ({ target, params }) => {
    const base = expectedRule(target, params.op, params.expect).requestsPerWindow;
    const rpw = params.rpw ?? advertisedRequestsPerWorker(target) ?? DEFAULT_REQUESTS_PER_WORKER;
    const workers = params.workers ?? Math.ceil((1.5 * base) / rpw);
    if (workers > MAX_WORKERS) throw paramError('workers', `${workers} busy workers would be needed to raise the limit to 1.5x the base at ${rpw} requests per worker; give --param workers (at most ${MAX_WORKERS}) or a larger rpw`);
    return workerScaledScenario(params.op, target, params.expect, rpw, workers);
  },
});

function workerScaledScenario(op: 'run' | 'runsync' | 'status' | 'stream', target: LoadTarget, expect: Expect, rpw: number, k: number): ScenarioInput<ScaleState> {
  const rule = expectedRule(target, op, expect);
  const base = rule.requestsPerWindow;
  const windowMs = rateWindowRealMs(target);
  const high = effectiveRateLimit(base, k, rpw);
  // A phase is three windows: up to one for the change to take effect, one for the sliding
  // window to forget the previous phase, one measured.
  const phaseMs = 3 * windowMs;
  const scale = target.timeScale;
  const controllable = target.info !== undefined;
  return {
    name: `worker-scaled-limit-${op}`,
    description: `§8 dynamic rule on /${op}: base ${base} (${rule.source}), ${k} busy workers x ${rpw} per window -> ${high}`,
    executor: 'constant-arrival-rate',
    globalView: 'its verdict counts the requests admitted per window in each worker phase, and its timeline changes the target workers once',
    ratePerSec: (2 * high) / (windowMs / 1000),
    durationMs: PHASES.length * phaseMs,
    maxRequests: Math.ceil(((2 * high) / (windowMs / 1000)) * ((PHASES.length * 3 * windowMs) / 1000) * 1.2) + 100,
    validity: { maxSendLatenessP99Ms: windowMs / 4, maxEventLoopDelayP99Ms: windowMs / 4, minAchievedRatio: 0.9 },
    steps: [
      {
        kind: 'custom',
        name: op,
        fn: async (it) => {
          const st = it.state;
          const sentMs = now();
          const a = await it.request(op, operationRequest(op, st.jobId));
          st.log.push({ sentMs, endMs: now(), status: a.status });
        },
      },
    ],
    hooks: {
      setup: async (rc): Promise<ScaleState> => {
        const st: ScaleState = { jobId: op === 'status' || op === 'stream' ? await finishedJob(rc) : 'none', log: [], longJobs: [], running: [], since: new Map() };
        if (controllable) {
          const min = valueAt(rc.target.info, 'workers', 'min');
          const max = valueAt(rc.target.info, 'workers', 'max');
          if (typeof min === 'number' && typeof max === 'number') st.originalWorkers = { min, max };
        }
        return st;
      },
      timeline: [
        {
          atMs: phaseMs,
          label: `phase 2: ${k} busy workers`,
          action: async (rc) => {
            const st = rc.state;
            if (controllable) {
              const max = Math.max(k, st.originalWorkers?.max ?? k);
              const r = await rc.request({ method: 'POST', path: '/_qbench/workers', scope: 'origin', body: { endpoint: rc.target.endpointId, min: k, max, running: k } });
              if (r.status !== HTTP_STATUS.ok) rc.log(`POST /_qbench/workers answered ${r.status ?? 'no answer'}: ${r.bodyText.slice(0, 200)}`);
            }
            // Long jobs keep k workers busy (running) through the phase.
            const holdSec = Math.ceil(((4 * phaseMs) * scale) / SECOND_MS);
            const ids = await Promise.all(
              Array.from({ length: k }, async () => {
                const a = await rc.request({ method: 'POST', path: '/run', body: { input: { mock_delay: holdSec } } });
                return valueAt(a.json(), 'id');
              }),
            );
            st.longJobs = ids.filter((x): x is string => typeof x === 'string');
            await untilRunning(rc, (n) => n >= k, windowMs);
            st.since.set(1, now());
          },
        },
        {
          atMs: 2 * phaseMs,
          label: 'phase 3: busy jobs cancelled',
          action: async (rc) => {
            const st = rc.state;
            await Promise.all(st.longJobs.map((id) => rc.request({ method: 'POST', path: `/cancel/${encodeURIComponent(id)}` })));
            if (controllable && st.originalWorkers) {
              await rc.request({ method: 'POST', path: '/_qbench/workers', scope: 'origin', body: { endpoint: rc.target.endpointId, min: st.originalWorkers.min, max: st.originalWorkers.max } });
            }
            await untilRunning(rc, (n) => n === 0, windowMs);
            st.since.set(2, now());
          },
        },
        ...PHASES.map((_, i) => ({
          atMs: i * phaseMs + 2.5 * windowMs,
          label: `sample /health (phase ${i + 1})`,
          action: async (rc: RunContext<ScaleState>) => {
            const r = await health(rc);
            if (r !== undefined) rc.state.running.push([i, r]);
          },
        })),
      ],
      teardown: async (rc) => {
        const st = rc.state;
        for (const id of st?.longJobs ?? []) await rc.request({ method: 'POST', path: `/cancel/${encodeURIComponent(id)}` });
      },
      analyze: (_r, rc): Analysis => {
        const st = rc.state;
        const t0 = rc.scheduleStartMs;
        const rows = PHASES.map((label, i) => {
          const running = st.running.find(([p]) => p === i)?.[1] ?? 0;
          const expected = effectiveRateLimit(base, running, rpw);
          // Measure one window that starts a full window after the change took effect.
          const since = i === 0 ? t0 : (st.since.get(i) ?? t0 + i * phaseMs + windowMs);
          const from = Math.max(t0 + i * phaseMs + windowMs, since + windowMs);
          const to = t0 + (i + 1) * phaseMs;
          const late = from + windowMs > to + 1;
          // The most admitted in any window inside [from, to): discrete arrivals refill a freed
          // slot only at the next request, so one aligned window can fall a little short.
          const b = admittedPerWindowBounds(st.log.filter((x) => x.sentMs >= from && x.sentMs < to && x.status !== null && x.status !== 429), windowMs);
          return { label, running, expected, late, ...b, passed: !late && b.atLeast <= expected && b.atMost >= expected && b.atMost - b.atLeast <= phaseBracketTolerance(expected) };
        });
        const busy = rows[1]!;
        // The busy phase tests the dynamic rule only if its workers lift the limit above the base.
        const exercised = busy.running * rpw > base;
        // A bracket wider than the tolerance (slow answers) cannot place admissions in a window.
        const narrow = rows.map((r) => r.atMost - r.atLeast <= phaseBracketTolerance(r.expected));
        const judgeable = rows.map((r, i) => !r.late && narrow[i] === true && (i !== 1 || exercised));
        const estimate = busy.running > 0 && busy.atLeast > base ? `${(busy.atLeast / busy.running).toFixed(1)}..${(busy.atMost / busy.running).toFixed(1)}` : 'not measurable (the busy phase did not rise above the base)';
        const findings = [
          ...rows.map((r) => ({
            label: `most admitted in a window of "${r.label}" (${r.running} running workers)`,
            clause: '§8',
            expected: `max(${base}, ${r.running} x ${rpw}) = ${r.expected}`,
            observed: (r.atLeast === r.atMost ? String(r.atLeast) : `between ${r.atLeast} and ${r.atMost}`) + (r.late ? ' (the worker change took longer than a window: not measurable)' : ''),
            passed: r.passed,
          })),
          precondition(
            'workers really busy in the busy phase',
            `${k} running (the limit rises above the base ${base} once more than ${Math.floor(base / rpw)} run)`,
            `${busy.running} running${exercised ? '' : `: ${busy.running} x ${rpw} does not lift the limit above the base, the dynamic rule was not exercised`}`,
            exercised,
          ),
          precondition(
            'each worker change took effect within a window',
            `/health confirms the change within ${windowMs} ms`,
            rows.some((r) => r.late) ? `not in time for "${rows.filter((r) => r.late).map((r) => r.label).join('", "')}"` : 'in time',
            !rows.some((r) => r.late),
          ),
          precondition(
            'answers fast enough to place each admission in a window',
            'a bracket within 20% of each phase\'s limit',
            rows.map((r, i) => `"${r.label}": ${r.atLeast}..${r.atMost}${narrow[i] === true ? '' : ' (too wide)'}`).join(', '),
            narrow.every((x) => x),
          ),
        ];
        const status = statusOf(findings, rows.some((r, i) => judgeable[i] === true && !r.passed));
        return {
          status,
          summary: `${setupNote(status, findings)}/${op}: admitted ${rows.map((r) => `${r.atLeast}-${r.atMost} @${r.running} workers`).join(', ')}; requests_per_worker estimate ${estimate}`,
          findings,
          charts: [
            {
              id: `worker-scaled-${op}`,
              title: `/${op}: admitted per window vs max(base, running x requests_per_worker)`,
              xLabel: 'phase',
              yLabel: 'requests per window',
              xKind: 'category',
              categories: rows.map((r) => `${r.label} (${r.running})`),
              series: [
                { name: 'admitted (at least)', points: rows.map((r, i) => [i, r.atLeast]) },
                { name: 'expected', points: rows.map((r, i) => [i, r.expected]) },
              ],
              referenceLines: [{ label: `base (${rule.source})`, y: base }],
            },
          ],
        };
      },
    },
  };
}
