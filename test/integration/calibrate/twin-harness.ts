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
import { seededRng, type DeploymentSettingsInput } from '../../../src/emulator/deployment/index.js';
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

/**
 * The test's calibration plan: 24 warm, 10 cold, 16 burst and 1 stream job (the handler does
 * not stream: one job says so); bench/twin-fidelity.ts --plan test runs it too.
 */
export const TEST_PLAN: readonly string[] = ['--warm-jobs', '24', '--cold-starts', '10', '--burst-jobs', '16', '--stream-jobs', '1', '--max-jobs', '51'];

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

export function figures(truth: RunFigures, twin: RunFigures): Figure[] {
  const f = (name: string, a: number, b: number): Figure => ({ name, truth: a, twin: b, relError: Math.abs(b - a) / Math.max(Math.abs(a), 1e-9) });
  const out: Figure[] = [];
  for (const [label, pick] of [['e2e', (j: JobOutcome) => j.e2eMs], ['delay', (j: JobOutcome) => j.delayMs]] as const) {
    for (const q of [0.5, 0.9, 0.99]) out.push(f(`${label} p${Math.round(q * 100)}`, quantile(truth.jobs.map(pick), q), quantile(twin.jobs.map(pick), q)));
  }
  out.push(f('cold starts', truth.billing.coldStarts, twin.billing.coldStarts));
  out.push(f('peak workers', truth.billing.peakWorkers, twin.billing.peakWorkers));
  out.push(f('worker-seconds', truth.billing.billedS, twin.billing.billedS));
  return out;
}

export function formatFigures(fs: readonly Figure[]): string {
  const num = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toString() : v.toFixed(1));
  return fs.map((x) => `${x.name.padEnd(15)} truth ${num(x.truth).padStart(8)}  twin ${num(x.twin).padStart(8)}  error ${(x.relError * 100).toFixed(1).padStart(5)}%`).join('\n');
}

export const configPath = (dir: string, name: string) => path.join(dir, name);
