// The discrete-event mode against its named peer, the HTTP emulator, in one run: simulated
// job-events per real second of `simulate` (virtual clock) and of the HTTP emulator (scaled clock,
// /runsync over 127.0.0.1) on the same seeded traffic, side by side with their ratio and the
// errors of the simulated figures against the HTTP ones (p50/p90/p99 e2e, worker-seconds); then
// one simulated hour at 50 jobs/s (180,000 jobs) for one setting, against its 1 s target.
// Run: npx tsx bench/plan-sim.ts [--time-scale 10] [--hour-runs 3]
import { parseArgs } from 'node:util';
import { arrivalSchedule, parseTrafficProfile, parseTwin, simulate, trafficFromFlags, type ScalingSettings } from '../src/sim/index.js';
import { errorsOf, httpReplay } from '../test/integration/sim/http-replay.js';

const { values } = parseArgs({ options: { 'time-scale': { type: 'string', default: '10' }, 'hour-runs': { type: 'string', default: '3' } } });
const timeScale = Number(values['time-scale']);
const hourRuns = Number(values['hour-runs']);
const EP = 'twin';
const SEED = 7;

/** A calibrated twin's shape (emulated ms), with a constant overhead so the records' e2e is known. */
const twin = parseTwin({
  endpoints: [EP],
  deployments: {
    [EP]: {
      gpuTypeId: 'L4',
      timing: {
        coldStart: { kind: 'mixture', p: 0.5, first: { kind: 'lognormal', medianMs: 6_000, sigma: 0.2 }, second: { kind: 'lognormal', medianMs: 20_000, sigma: 0.15 } },
        execution: { kind: 'lognormal', medianMs: 15_000, sigma: 0.3 },
        overhead: { kind: 'constant', ms: 200 },
        dispatch: { kind: 'lognormal', medianMs: 300, sigma: 0.3 },
      },
    },
  },
});
const settings: ScalingSettings = { workersMin: 1, workersMax: 4, idleTimeoutS: 60, scalerType: 'QUEUE_DELAY', scalerValue: 2 };

// Side by side: the same traffic (arrivals in the middle of their second: see the equivalence test).
const poisson = arrivalSchedule(parseTrafficProfile({ durationS: 200, arrivals: { kind: 'poisson', ratePerSec: 0.15 } }), SEED);
const traffic = parseTrafficProfile({ durationS: 205, arrivals: { kind: 'replay', timesS: Array.from(poisson.timesMs, (t) => 5 + Math.floor(t / 1_000) + 0.5) }, bursts: [{ atS: 105.5, count: 6 }] });
const schedule = arrivalSchedule(traffic, SEED);

const t0 = performance.now();
let sim = simulate({ twin, settings, traffic, seed: SEED, schedule });
// Small runs are dominated by setup: repeat until 200 ms have passed for the rate.
let simRuns = 1;
while (performance.now() - t0 < 200) {
  sim = simulate({ twin, settings, traffic, seed: SEED, schedule });
  simRuns += 1;
}
const simRealMs = (performance.now() - t0) / simRuns;
const http = await httpReplay({ twin, endpointId: EP, settings, seed: SEED, schedule, timeScale, overheadMs: 200 });

const simRate = sim.events / (simRealMs / 1_000);
const httpRate = sim.events / (http.realMs / 1_000);
const e = errorsOf(sim, http);
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
console.log(`traffic: ${schedule.timesMs.length} jobs over ${(schedule.durationMs / 1_000).toFixed(0)} emulated s; setting ${JSON.stringify(settings)}; ${sim.events} job-events`);
console.log(`  discrete-event mode : ${simRealMs.toFixed(1)} real ms per run, ${Math.round(simRate).toLocaleString('en-US')} simulated job-events/s`);
console.log(`  HTTP emulator (x${timeScale}): ${http.realMs.toFixed(0)} real ms,          ${Math.round(httpRate).toLocaleString('en-US')} simulated job-events/s`);
console.log(`  ratio               : ${(simRate / httpRate).toFixed(0)}x`);
console.log(`  figure      simulated   HTTP        error`);
console.log(`  p50 e2e     ${String(sim.e2e.p50Ms?.toFixed(0)).padEnd(11)} ${String(http.e2e.p50Ms?.toFixed(0)).padEnd(11)} ${pct(e.p50)}`);
console.log(`  p90 e2e     ${String(sim.e2e.p90Ms?.toFixed(0)).padEnd(11)} ${String(http.e2e.p90Ms?.toFixed(0)).padEnd(11)} ${pct(e.p90)}`);
console.log(`  p99 e2e     ${String(sim.e2e.p99Ms?.toFixed(0)).padEnd(11)} ${String(http.e2e.p99Ms?.toFixed(0)).padEnd(11)} ${pct(e.p99)}`);
console.log(`  worker-s    ${String(sim.workerSeconds.total).padEnd(11)} ${String(http.workerSeconds).padEnd(11)} ${pct(e.workerSeconds)}`);

// One simulated hour at 50 jobs/s: its own twin timings (1.2 s jobs) so that ~60 workers keep up.
const hourTwin = parseTwin({
  endpoints: [EP],
  deployments: {
    [EP]: {
      gpuTypeId: 'L4',
      timing: {
        coldStart: { kind: 'mixture', p: 0.6, first: { kind: 'lognormal', medianMs: 3_000, sigma: 0.2 }, second: { kind: 'lognormal', medianMs: 40_000, sigma: 0.15 } },
        dispatch: { kind: 'lognormal', medianMs: 100, sigma: 0.3 },
        execution: { kind: 'lognormal', medianMs: 1_200, sigma: 0.35 },
        overhead: { kind: 'lognormal', medianMs: 300, sigma: 0.3 },
      },
    },
  },
});
const hour = trafficFromFlags({ ratePerSec: 50, durationMs: 3_600_000 });
const hourSettings: ScalingSettings = { workersMin: 10, workersMax: 100, idleTimeoutS: 30, scalerType: 'QUEUE_DELAY', scalerValue: 2 };
const times: number[] = [];
let jobs = 0;
let events = 0;
for (let i = 0; i < hourRuns; i += 1) {
  const s = performance.now();
  const f = simulate({ twin: hourTwin, settings: hourSettings, traffic: hour, seed: i + 1 });
  times.push(performance.now() - s);
  jobs = f.jobs.arrived;
  events = f.events;
}
const best = Math.min(...times);
console.log(`one simulated hour at 50 jobs/s (${jobs} jobs, ${events} events), ${hourRuns} seeds: best ${best.toFixed(0)} ms, all ${times.map((t) => t.toFixed(0)).join('/')} ms; target < 1000 ms: ${best < 1_000 ? 'met' : 'NOT met'}`);
