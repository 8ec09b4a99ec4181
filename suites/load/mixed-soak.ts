// A mixed steady-state soak with latency SLOs: Poisson arrivals well under every §8 limit,
// each iteration one of /runsync (50%), /run then poll /status (30%), /health (20%), with
// k6-style thresholds as the verdict, and the generator's own heap sampled to show that
// memory stays flat over a long run.
// Params (PARAMS below, with their defaults): rate (iterations/s), duration (ms),
// sloRunsyncP99Ms, sloRunP99Ms, maxErrorRate.
import {
  MINUTE_MS, RATE_LIMITS, RATE_WINDOW_MS, SECOND_MS, defineScenario, param, type Analysis, type ScenarioInput,
  type ParamsOf,
} from 'qbench/suite';
import { valueAt } from './lib/answer.js';

const MIX = [
  { weight: 0.5, kind: 'runsync' },
  { weight: 0.3, kind: 'run-poll' },
  { weight: 0.2, kind: 'health' },
] as const;
/** Heap growth over the run beyond this is reported as a leak (generator side). */
const MAX_HEAP_GROWTH_BYTES = 64 * 1024 * 1024;
const HEAP_SAMPLES = 20;

interface SoakState {
  heap: [tSec: number, bytes: number][];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Share of the iterations that send /run (the tightest §8 limit the mix touches). */
const RUN_SHARE = MIX.find((m) => m.kind === 'run-poll')?.weight ?? 1;
/** A soak stays under half of /run's §8 limit (per second of real time). */
const MAX_RATE_PER_SEC = Math.floor(RATE_LIMITS.run.requestsPerWindow / (RATE_WINDOW_MS / SECOND_MS) / 2 / RUN_SHARE);
const sloMs = param.number({ above: 0, max: 3_600_000, unit: 'ms' });

const PARAMS = {
  rate: param.number({ above: 0, max: MAX_RATE_PER_SEC, unit: 'iterations per second; a soak offers /run under half its §8 limit' }).default(20),
  duration: param.number({ integer: true, min: 1, max: 24 * 3_600_000, unit: 'ms' }).default(5 * MINUTE_MS),
  sloRunsyncP99Ms: sloMs.default(2000),
  sloRunP99Ms: sloMs.default(1000),
  maxErrorRate: param.number({ above: 0, max: 1, unit: 'a share' }).default(0.01),
};

export default defineScenario({
  params: PARAMS,
  create: ({ params }): ScenarioInput<SoakState> => soakScenario(params),
});

function soakScenario({ rate, duration: durationMs, sloRunsyncP99Ms, sloRunP99Ms, maxErrorRate }: ParamsOf<typeof PARAMS>): ScenarioInput<SoakState> {
  return {
    name: 'mixed-soak',
    description: `mixed steady state at ${rate} iterations/s (Poisson) for ${durationMs / 1000} s: runsync 50%, run+poll 30%, health 20%`,
    executor: 'constant-arrival-rate',
    ratePerSec: rate,
    durationMs,
    arrivals: 'poisson',
    steps: [
      {
        kind: 'custom',
        name: 'mix',
        metrics: ['runsync', 'run', 'status', 'health'],
        fn: async (it) => {
          let r = ((it.iteration * 2654435761) % 1000) / 1000;
          const pick = MIX.find((m) => (r -= m.weight) < 0)?.kind ?? 'health';
          if (pick === 'runsync') {
            await it.request('runsync', { method: 'POST', path: '/runsync', body: { input: {} } });
          } else if (pick === 'health') {
            await it.request('health', { method: 'GET', path: '/health' });
          } else {
            const a = await it.request('run', { method: 'POST', path: '/run', body: { input: {} } });
            const id = valueAt(a.json(), 'id');
            if (typeof id !== 'string') return;
            for (let i = 0; i < 600 && !it.signal.aborted; i++) {
              const s = await it.request('status', { method: 'GET', path: `/status/${encodeURIComponent(id)}` });
              const status = valueAt(s.json(), 'status');
              if (s.status !== 200 || ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(String(status))) return;
              await sleep(100);
            }
          }
        },
      },
    ],
    thresholds: {
      'runsync.latency': [`p(99)<${sloRunsyncP99Ms}`],
      'run.latency': [`p(99)<${sloRunP99Ms}`],
      'runsync.errors.rate': [{ threshold: `rate<${maxErrorRate}`, abortOnFail: true, delayAbortEvalMs: Math.min(durationMs / 2, 30 * SECOND_MS) }],
      'run.errors.rate': [`rate<${maxErrorRate}`],
      'run.status_429.rate': ['rate<0.01'],
      dropped_iterations: ['count==0'],
    },
    hooks: {
      setup: () => Promise.resolve<SoakState>({ heap: [] }),
      timeline: Array.from({ length: HEAP_SAMPLES + 1 }, (_, i) => ({
        atMs: (i * durationMs) / HEAP_SAMPLES,
        // Unlabelled: the progress output stays quiet.
        label: '',
        action: (rc) => {
          rc.state.heap.push([((i * durationMs) / HEAP_SAMPLES) / 1000, process.memoryUsage().heapUsed]);
          return Promise.resolve();
        },
      })),
      analyze: (_r, rc): Analysis => {
        const heap = rc.state.heap;
        // Compare the second half with the first sample after warm-up (10% in).
        const warm = heap[Math.min(2, heap.length - 1)]?.[1] ?? 0;
        const last = heap[heap.length - 1]?.[1] ?? 0;
        const growth = last - warm;
        const findings = [
          {
            label: 'generator heap growth after warm-up',
            expected: `< ${MAX_HEAP_GROWTH_BYTES / 1024 / 1024} MiB (memory constant over the run)`,
            observed: `${(growth / 1024 / 1024).toFixed(1)} MiB`,
            passed: growth < MAX_HEAP_GROWTH_BYTES,
          },
        ];
        return {
          status: findings.every((f) => f.passed) ? 'pass' : 'fail',
          summary: `heap ${(warm / 1024 / 1024).toFixed(0)} -> ${(last / 1024 / 1024).toFixed(0)} MiB over the soak`,
          findings,
          charts: [{ id: 'soak-heap', title: 'Generator heap over the soak', xLabel: 's', yLabel: 'bytes', xKind: 'time', series: [{ name: 'heapUsed', points: heap }] }],
        };
      },
    },
  };
}
