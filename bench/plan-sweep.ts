// Macro benchmark: `qbench plan`'s default sweep (every setting of the default grid for a twin,
// 3 seeds each) on worker threads, against the named peer: the same sweep on one thread, in the
// same run, from the built dist/ when there is one (as the installed CLI runs; under tsx every
// thread compiles the sources first). Prints the wall and CPU time of each, the cores it got, the
// speed-up, simulated events per second, and checks that both answer the same figures.
// Bar: the threaded sweep in under 60 s.   Run: npx tsx bench/plan-sweep.ts [--rate 3] [--duration 10m] [--threads N]
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type * as RunPlanModule from '../src/plan/run-plan.js';
import type * as SweepModule from '../src/plan/sweep.js';
import type * as SimModule from '../src/sim/index.js';
import { parseDurationMs } from '../src/spec/index.js';

type RunPlan = typeof RunPlanModule;
type Sweep = typeof SweepModule;
type Sim = typeof SimModule;
const DIST = new URL('../dist/src/', import.meta.url);
const fromDist = existsSync(new URL('plan/sweep.js', DIST));
const load = async <T>(rel: string): Promise<T> => (await import(fromDist ? new URL(`${rel}.js`, DIST).href : `../src/${rel}.js`)) as T;
const { planEndpoint, planGrid } = await load<RunPlan>('plan/run-plan');
const { runSweep, sweepHere } = await load<Sweep>('plan/sweep');
const { parseTwin, trafficFromFlags } = await load<Sim>('sim/index');
type SweepInput = Parameters<Sweep['sweepHere']>[0];
type SweepResult = ReturnType<Sweep['sweepHere']>;

const { values } = parseArgs({ options: { rate: { type: 'string', default: '3' }, duration: { type: 'string', default: '10m' }, threads: { type: 'string' } }, strict: false });
const ratePerSec = Number(values.rate);
const durationMs = parseDurationMs(String(values.duration));
const threads = values.threads === undefined ? availableParallelism() : Number(values.threads);
if (!(ratePerSec > 0) || durationMs === undefined || !(threads >= 1)) throw new Error('--rate must be > 0, --duration a duration (10m), --threads >= 1');
const BAR_MS = 60_000;

/** A twin as calibrate writes one: jobs of about 1 s, most starts fast (kept state), some full. */
const twin = parseTwin({
  endpoints: ['bench'],
  deployments: {
    bench: {
      workersMin: 0,
      workersMax: 3,
      idleTimeoutS: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      gpuTypeId: '4090 PRO',
      timing: {
        coldStart: { kind: 'mixture', p: 0.8, first: { kind: 'lognormal', medianMs: 600, sigma: 0.3 }, second: { kind: 'lognormal', medianMs: 25_000, sigma: 0.3 } },
        dispatch: { kind: 'constant', ms: 20 },
        execution: { kind: 'lognormal', medianMs: 1_000, sigma: 0.4 },
        overhead: { kind: 'constant', ms: 80 },
      },
    },
  },
});
const endpointId = planEndpoint(twin, undefined);
const grid = planGrid(twin, endpointId);
const input: SweepInput = { twin, endpointId, traffic: trafficFromFlags({ ratePerSec, durationMs }), settings: grid.settings, seeds: [1, 2, 3] };
const simulations = grid.settings.length * input.seeds.length;
console.log(`default grid: ${grid.settings.length} settings × ${input.seeds.length} seeds = ${simulations} simulations of Poisson ${ratePerSec} jobs/s for ${String(values.duration)}; ${threads} threads vs 1; code from ${fromDist ? 'dist/' : 'src/ (tsx: run npm run build for the installed figures)'}; node ${process.version}`);

/** A sweep with the CPU it took, every thread of this process counted. */
async function measured(run: () => SweepResult | Promise<SweepResult>): Promise<SweepResult & { cpuS: number }> {
  const before = process.cpuUsage();
  const r = await run();
  const cpu = process.cpuUsage(before);
  return { ...r, cpuS: (cpu.user + cpu.system) / 1e6 };
}
const threaded = await measured(() => runSweep(input, { threads }));
const single = await measured(() => sweepHere(input));
const same = JSON.stringify(threaded.runs) === JSON.stringify(single.runs);
const row = (name: string, r: SweepResult & { cpuS: number }) => ({
  sweep: name,
  'wall s': (r.wallMs / 1_000).toFixed(1),
  'cpu s': r.cpuS.toFixed(1),
  'cores got': (r.cpuS / (r.wallMs / 1_000)).toFixed(2),
  'ms per simulation': (r.wallMs / simulations).toFixed(1),
  'events/s': Math.round(r.events / (r.wallMs / 1_000)).toLocaleString('en-US'),
});
console.table([row(`${threaded.threads} threads`, threaded), row('1 thread (peer)', single)]);
console.table([
  { figure: 'speed-up over one thread', value: `${(single.wallMs / threaded.wallMs).toFixed(2)}x` },
  { figure: 'same figures from both', value: same },
  { figure: `threaded sweep under ${BAR_MS / 1_000} s`, value: threaded.wallMs < BAR_MS },
]);
process.exitCode = same && threaded.wallMs < BAR_MS ? 0 : 1;
