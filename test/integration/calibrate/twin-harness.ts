// The proof that a calibrated twin is a twin, as pieces the test and bench/twin-fidelity.ts
// share: a ground-truth deployment the harness chooses, the built `qbench calibrate` run against
// it by URL behind an opaque proxy, one seeded load schedule (bursts that make the pool scale,
// idle gaps longer than the idle timeout) driven against two emulators at once, and the figures
// a user reads compared: e2e and delayTime p50/p90/p99, cold starts, peak workers, worker-seconds.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { QueueClient } from '../../../src/client/index.js';
import { endpointDeployment, type EmulatorConfig } from '../../../src/emulator/config.js';
import { seededRng, type DeploymentSettingsInput } from '../../../src/deployment/index.js';
import { twinSettings } from '../../../src/plan/grid.js';
import { arrivalSchedule, parseTrafficProfile, simulate, type ScalingSettings, type SimulationFigures, type TrafficProfile } from '../../../src/sim/index.js';
import { BIN, ROOT, startEmulate, stopEmulate, type EmulateProcess } from '../conformance/border-emulate.js';

const run = promisify(execFile);

export const TWIN_KEY = 'qbench-twin-key';
export const TWIN_KEY_ENV = 'QBENCH_TWIN_KEY';
export const ENDPOINT = 'twin';

/**
 * The ground truth: the service's shape with the sizes its users report (DEPLOYMENT-FACTS.md:
 * a full start of about 40 s, a start from kept state of a few seconds, about 600 ms of service
 * overhead) and non-default settings (idle timeout 40 s, a 3 s queue delay, 4 workers): a
 * bimodal cold start (60% fast, 40% full), log-normal execution, dispatch and overhead. Emulated ms.
 * The dispatch (2 s) is longer than the service's (about 100 ms): at time scale 60, 100 ms is
 * under 2 ms of real time, the size of the host's timer lateness, which a twin would add twice.
 */
export function groundTruth(seed: number): DeploymentSettingsInput {
  return {
    workersMin: 0,
    workersMax: 4,
    idleTimeoutS: 40,
    scalerType: 'QUEUE_DELAY',
    scalerValue: 3,
    jobsPerWorker: 1,
    gpuTypeId: 'L4',
    seed,
    timing: {
      coldStart: { kind: 'mixture', p: 0.6, first: { kind: 'lognormal', medianMs: 3_000, sigma: 0.2 }, second: { kind: 'lognormal', medianMs: 40_000, sigma: 0.15 } },
      dispatch: { kind: 'lognormal', medianMs: 2_000, sigma: 0.3 },
      execution: { kind: 'lognormal', medianMs: 12_000, sigma: 0.35 },
      overhead: { kind: 'lognormal', medianMs: 800, sigma: 0.3 },
    },
  };
}

export function emulatorConfigOf(deployment: DeploymentSettingsInput): Record<string, unknown> {
  return { endpoints: [ENDPOINT], deployments: { [ENDPOINT]: deployment } };
}

/** An endpoint beside the twin's, on the emulator's own defaults, that warms the processes up. */
const WARMUP_ENDPOINT = 'warmup';

export async function startEmulator(configFile: string, timeScale: number): Promise<EmulateProcess> {
  return startEmulate(TWIN_KEY, ['--emulator-config', configFile, '--time-scale', String(timeScale), '--endpoint', ENDPOINT, '--endpoint', WARMUP_ENDPOINT]);
}

/**
 * A fresh process answers its first requests slowly (module loading, compilation), and at a
 * scaled clock a few real ms are seconds: jobs on the warm-up endpoint first, so that the
 * measured schedule meets warm processes on both sides.
 */
export async function warmUp(url: string, jobs = 30): Promise<void> {
  const client = new QueueClient({ baseUrl: url, endpointId: WARMUP_ENDPOINT, apiKey: TWIN_KEY });
  try {
    for (let i = 0; i < jobs; i += 1) await Promise.all([client.runSync({ input: {} }), client.health()]);
  } finally {
    await client.close();
  }
}

export { stopEmulate, type EmulateProcess };

export interface CalibrateRun {
  readonly code: number;
  readonly out: string;
}

/** The built `qbench calibrate` against `url`, writing into `outDir`. */
export async function calibrate(url: string, outDir: string, args: readonly string[]): Promise<CalibrateRun> {
  const argv = [BIN, 'calibrate', '--target', url, '--endpoint', ENDPOINT, '--api-key-env', TWIN_KEY_ENV, '--out', outDir, '--yes', ...args];
  return run(process.execPath, argv, { cwd: ROOT, env: { ...process.env, [TWIN_KEY_ENV]: TWIN_KEY }, maxBuffer: 16 * 1024 * 1024 }).then(
    (x) => ({ code: 0, out: x.stdout + x.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
}

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** Jobs the test's calibration plan sends at most. */
export const TEST_PLAN_JOBS = 65;

/**
 * The test's calibration plan: 24 warm, 24 cold in batches of 4 (six idle gaps, a cold-start
 * sample per worker: about 23), 16 burst and 1 stream job (the handler does not stream: one job
 * says so); bench/twin-fidelity.ts --plan test runs it too.
 */
export const TEST_PLAN: readonly string[] = ['--warm-jobs', '24', '--cold-starts', '24', '--cold-batch', '4', '--burst-jobs', '16', '--stream-jobs', '1', '--max-jobs', String(TEST_PLAN_JOBS)];

export interface Segment {
  /** Emulated ms the segment lasts. */
  readonly durationMs: number;
  /** Poisson arrivals per emulated second (0: an idle gap). */
  readonly ratePerSec: number;
}

/**
 * Stretches at rates the pool meets by scaling (a job waiting over the 3 s queue delay calls a
 * worker; near the 4 workers' capacity a queue builds), and idle gaps longer than the idle
 * timeout and the drain (every worker stops, the next stretch starts cold). Emulated ms.
 * The busy stretches keep delayTime's median among queued jobs, where its distribution is dense:
 * at rates that leave the pool mostly idle, the median falls in the sparse stretch between a
 * warm job's dispatch and a queued job's wait, and one job more or less on either side moves it
 * by 5% (measured: the ground truth against itself on the same seed differed by up to 11%).
 */
export const SCHEDULE: readonly Segment[] = [
  { durationMs: 150_000, ratePerSec: 0.2 },
  { durationMs: 100_000, ratePerSec: 0 },
  { durationMs: 120_000, ratePerSec: 0.12 },
  { durationMs: 100_000, ratePerSec: 0 },
  { durationMs: 120_000, ratePerSec: 0.22 },
];

/** Arrival instants (emulated ms from the start) of the schedule, from a seeded generator. */
export function arrivals(segments: readonly Segment[], seed: number, repeat = 1): number[] {
  const rng = seededRng(seed);
  const out: number[] = [];
  let startMs = 0;
  for (let r = 0; r < repeat; r += 1) {
    for (const s of segments) {
      let t = startMs;
      if (s.ratePerSec > 0) {
        for (;;) {
          t += (-Math.log(1 - rng.next()) / s.ratePerSec) * 1_000;
          if (t >= startMs + s.durationMs) break;
          out.push(t);
        }
      }
      startMs += s.durationMs;
    }
  }
  return out;
}

export interface JobOutcome {
  /** Client-observed end to end, emulated ms. */
  readonly e2eMs: number;
  readonly delayMs: number;
  readonly status: string;
}

export interface Billing {
  readonly coldStarts: number;
  readonly peakWorkers: number;
  readonly billedS: number;
  readonly workerStarts: number;
}

export interface RunFigures {
  readonly jobs: readonly JobOutcome[];
  readonly billing: Billing;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function counters(url: string): Promise<Billing> {
  const res = await fetch(`${url}/_qbench/counters`, { headers: { authorization: TWIN_KEY } });
  const doc = (await res.json()) as { endpoints: Record<string, { billing: Billing }> };
  const b = doc.endpoints[ENDPOINT]?.billing;
  if (b === undefined) throw new Error(`no billing for ${ENDPOINT} in /_qbench/counters: ${JSON.stringify(doc).slice(0, 400)}`);
  return b;
}

/**
 * Send one /runsync per arrival at its real instant (arrival / timeScale), wait for every job,
 * then for the pool to come to rest (every worker stopped, idle timeout billed), and read the
 * billing meter.
 */
export async function drive(url: string, at: readonly number[], timeScale: number, startRealMs: number): Promise<RunFigures> {
  const client = new QueueClient({ baseUrl: url, endpointId: ENDPOINT, apiKey: TWIN_KEY, backoff: { maxAttempts: 1 } });
  try {
    const jobs = await Promise.all(
      at.map(async (tMs) => {
        await sleep(startRealMs + tMs / timeScale - performance.now());
        const sent = performance.now();
        const r = await client.runSyncToCompletion({ input: {} }, { waitMs: 300_000, pollIntervalMs: 20 });
        return { e2eMs: (performance.now() - sent) * timeScale, delayMs: r.delayTime ?? NaN, status: r.status };
      }),
    );
    // Rest: the idle timeout stops every worker (bounded: 5 minutes of emulated time).
    const restBy = performance.now() + 300_000 / timeScale;
    for (;;) {
      const h = await client.health();
      if (h.workers.idle + h.workers.running + (h.workers.initializing ?? 0) + (h.workers.throttled ?? 0) === 0) break;
      if (performance.now() > restBy) throw new Error(`workers still up 300 emulated s after the last job on ${url}`);
      await sleep(20);
    }
    return { jobs, billing: await counters(url) };
  } finally {
    await client.close();
  }
}

export function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  const pos = q * (s.length - 1);
  const i = Math.floor(pos);
  const a = s[i] as number;
  const b = s[Math.min(s.length - 1, i + 1)] as number;
  return a + (pos - i) * (b - a);
}

export interface Figure {
  readonly name: string;
  readonly truth: number;
  readonly twin: number;
  /** |twin - truth| / truth. */
  readonly relError: number;
}

/** The figures a user reads, by name, in the order they are printed. */
export type Summary = ReadonlyMap<string, number>;

const QUANTILES = [0.5, 0.9, 0.99] as const;

/** One HTTP run's figures (client-observed e2e, the records' delayTime, the billing meter). */
export function summarize(run: RunFigures): Summary {
  const out = new Map<string, number>();
  for (const [label, pick] of [['e2e', (j: JobOutcome) => j.e2eMs], ['delay', (j: JobOutcome) => j.delayMs]] as const) {
    for (const q of QUANTILES) out.set(`${label} p${Math.round(q * 100)}`, quantile(run.jobs.map(pick), q));
  }
  out.set('cold starts', run.billing.coldStarts);
  out.set('peak workers', run.billing.peakWorkers);
  out.set('worker-seconds', run.billing.billedS);
  return out;
}

/** Each figure of `twin` against the same figure of `truth`. */
export function compareSummaries(truth: Summary, twin: Summary): Figure[] {
  return [...truth].map(([name, a]) => {
    const b = twin.get(name);
    if (b === undefined) throw new Error(`no figure "${name}" on the twin's side`);
    return { name, truth: a, twin: b, relError: Math.abs(b - a) / Math.max(Math.abs(a), 1e-9) };
  });
}

export function figures(truth: RunFigures, twin: RunFigures): Figure[] {
  return compareSummaries(summarize(truth), summarize(twin));
}

export function formatFigures(fs: readonly Figure[]): string {
  const num = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toString() : v.toFixed(1));
  return fs.map((x) => `${x.name.padEnd(15)} truth ${num(x.truth).padStart(8)}  twin ${num(x.twin).padStart(8)}  error ${(x.relError * 100).toFixed(1).padStart(5)}%`).join('\n');
}

export const configPath = (dir: string, name: string) => path.join(dir, name);

/** Step of the simulated traffic's rates, emulated s: every segment of SCHEDULE lasts a whole number of them. */
const STEP_S = 10;

/** SCHEDULE's rate shape (busy stretches, idle gaps), repeated over `hours` of simulated traffic: Poisson in 10 s steps. */
export function scheduleProfile(hours: number): TrafficProfile {
  const cycle: number[] = [];
  for (const s of SCHEDULE) {
    if (s.durationMs % (STEP_S * 1_000) !== 0) throw new Error(`a SCHEDULE segment of ${s.durationMs} ms is not a whole number of ${STEP_S} s steps`);
    for (let i = 0; i < s.durationMs / (STEP_S * 1_000); i += 1) cycle.push(s.ratePerSec);
  }
  const steps = Math.max(1, Math.round((hours * 3_600) / STEP_S / cycle.length)) * cycle.length;
  const ratePerSec = Array.from({ length: steps }, (_, i) => cycle[i % cycle.length] as number);
  return parseTrafficProfile({ durationS: steps * STEP_S, arrivals: { kind: 'steps', stepS: STEP_S, ratePerSec } }, 'the twin schedule');
}

/** The config's own scaling settings for the twin's endpoint (what `simulate` must be given). */
export function ownSettings(config: EmulatorConfig): ScalingSettings {
  const own = twinSettings(endpointDeployment(config, ENDPOINT));
  if (own.scaler === undefined) throw new Error(`the config of ${ENDPOINT} has no QUEUE_DELAY or REQUEST_COUNT scaler`);
  return { workersMin: own.workersMin, workersMax: own.workersMax, idleTimeoutS: own.idleTimeoutS, scalerType: own.scaler.type, scalerValue: own.scaler.value };
}

/** The simulated comparison's traffic: arrival seeds (one simulated stretch of `hours` each) and the timing seed of each. */
export interface SimulatedPlan {
  readonly hours: number;
  readonly trafficSeeds: readonly number[];
  /** Added to each traffic seed for the timing model's seed (both configs share it: common random numbers). */
  readonly timingSeedOffset: number;
}

/**
 * 200 simulated hours (20 seeds of 10 h, about 87,000 jobs per config; 1-2 s of CPU per config on
 * a busy 2-core host). Fewer leave the comparison noisy: the pool starts cold at every busy
 * stretch, and a stretch's first start (3 s or 40 s) moves all its jobs, so jobs come in
 * correlated clusters. Measured, the ground truth against itself on other timing seeds (five
 * draws each): 4 h, delayTime p90 up to 34% apart; 20 h, up to 22%; 100 h, up to 7%; 200 h, up to 4%.
 */
export const SIMULATED_PLAN: SimulatedPlan = { hours: 10, trafficSeeds: Array.from({ length: 20 }, (_, i) => i + 1), timingSeedOffset: 0 };

/**
 * `config` simulated on each seed's schedule with its own scaling settings: e2e and delayTime
 * quantiles averaged over the seeds, cold starts and worker-seconds summed, the largest peak.
 * e2e is the job record's (submission to end: the service's overhead included, no client path).
 */
export function simulatedSummary(config: EmulatorConfig, plan: SimulatedPlan, timingSeedOffset = plan.timingSeedOffset): Summary {
  const traffic = scheduleProfile(plan.hours);
  const settings = ownSettings(config);
  const runs: SimulationFigures[] = plan.trafficSeeds.map((seed) =>
    simulate({ twin: config, endpointId: ENDPOINT, settings, traffic, seed: seed + timingSeedOffset, schedule: arrivalSchedule(traffic, seed) }),
  );
  const mean = (pick: (r: SimulationFigures) => number | null) => runs.reduce((acc, r) => acc + (pick(r) ?? NaN), 0) / runs.length;
  const out = new Map<string, number>();
  for (const [label, part] of [['e2e', 'e2e'], ['delay', 'delay']] as const) {
    out.set(`${label} p50`, mean((r) => r[part].p50Ms));
    out.set(`${label} p90`, mean((r) => r[part].p90Ms));
    out.set(`${label} p99`, mean((r) => r[part].p99Ms));
  }
  out.set('cold starts', runs.reduce((acc, r) => acc + r.coldStarts, 0));
  out.set('peak workers', Math.max(...runs.map((r) => r.peakWorkers)));
  out.set('worker-seconds', runs.reduce((acc, r) => acc + r.workerSeconds.total, 0));
  return out;
}

export interface SimulatedComparison {
  readonly jobs: number;
  /** Twin vs ground truth on the same schedules and timing seeds: the calibration's error. */
  readonly error: Figure[];
  /** The ground truth vs itself on the same schedules, other timing seeds: the comparison's own noise. */
  readonly floor: Figure[];
}

/** The two configs (each with its own settings) on identical long traffic, in the discrete-event mode. */
export function simulatedComparison(truth: EmulatorConfig, twin: EmulatorConfig, plan: SimulatedPlan = SIMULATED_PLAN): SimulatedComparison {
  const truthSummary = simulatedSummary(truth, plan);
  const traffic = scheduleProfile(plan.hours);
  const jobs = plan.trafficSeeds.reduce((acc, seed) => acc + arrivalSchedule(traffic, seed).timesMs.length, 0);
  return {
    jobs,
    error: compareSummaries(truthSummary, simulatedSummary(twin, plan)),
    floor: compareSummaries(truthSummary, simulatedSummary(truth, plan, plan.timingSeedOffset + 1_000)),
  };
}
