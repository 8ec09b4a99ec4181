// The HTTP side of the proof that the simulation is the emulator, shared by the equivalence test
// and bench/plan-sim.ts: one arrival schedule played in real time against the HTTP emulator
// (startEmulator on 127.0.0.1, the same twin and settings as the simulation, the same seed), one
// /runsync per arrival at its instant, and the figures the simulation reports read back: e2e as
// the service records it (the twin's constant overhead + delayTime + executionTime of the job's
// record; the client's own view, with its round trip, alongside), worker-seconds from
// /_qbench/counters.
import { ScaledClock } from '../../../src/emulator/clock.js';
import type { EmulatorConfig } from '../../../src/emulator/config.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { QueueClient } from '../../../src/client/index.js';
import { isTerminal } from '../../../src/spec/index.js';
import { readEndpointCounters } from '../../../src/target/emulator-counters.js';
import { simulatedConfig, type ArrivalSchedule, type LatencyQuantiles, type ScalingSettings, type SimulationFigures } from '../../../src/sim/index.js';

const KEY = 'qbench-sim-equivalence';

export interface HttpFigures {
  readonly jobs: number;
  readonly completed: number;
  /** Submission to terminal as the job's record says (overhead + delayTime + executionTime). */
  readonly e2e: LatencyQuantiles;
  /** Submission to terminal as the client saw it (its round trip included). */
  readonly clientE2e: LatencyQuantiles;
  readonly delay: LatencyQuantiles;
  readonly workerSeconds: number;
  readonly coldStarts: number;
  /** Real ms the run took (schedule and drain). */
  readonly realMs: number;
}

/** Nearest rank, as the simulation computes it. */
export function quantilesOf(values: readonly number[]): LatencyQuantiles {
  const s = Float64Array.from(values).sort();
  const q = (p: number) => (s.length === 0 ? null : (s[Math.max(0, Math.ceil(p * s.length) - 1)] as number));
  return { p50Ms: q(0.5), p90Ms: q(0.9), p99Ms: q(0.99), maxMs: q(1) };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export interface HttpReplayOptions {
  readonly twin: EmulatorConfig;
  readonly endpointId: string;
  readonly settings: ScalingSettings;
  readonly seed: number;
  readonly schedule: ArrivalSchedule;
  readonly timeScale: number;
  /** The twin's overhead: constant, so that a record's e2e is known (it is neither delayTime nor executionTime). */
  readonly overheadMs: number;
}

/**
 * Serve the simulated point's emulator config over HTTP on a clock at `timeScale` that starts at
 * emulated 0 (the simulation's origin, so the scaler's check grid lines up), send each arrival
 * at its real instant, wait for every job, and read the billing meter at once.
 */
export async function httpReplay(o: HttpReplayOptions): Promise<HttpFigures> {
  const base = simulatedConfig(o.twin, o.endpointId, o.settings, o.seed);
  // Rate limits are the HTTP layer's, not the model's: off, so that no request waits on them.
  const config = { ...base, apiKey: KEY, host: '127.0.0.1', port: 0, timeScale: o.timeScale, limits: { ...base.limits, enabled: false } };
  const clock = new ScaledClock(o.timeScale, 0);
  const originReal = performance.now() - clock.now() / o.timeScale;
  const emu = await startEmulator(config, { clock });
  const client = new QueueClient({ baseUrl: emu.url, endpointId: o.endpointId, apiKey: KEY, backoff: { maxAttempts: 1 } });
  const started = performance.now();
  try {
    const { timesMs, classes, inputs } = o.schedule;
    // A fresh server and connection answer their first requests tens of ms late: /health (no
    // job, nothing the model sees) warms both before the first arrival, which must come later.
    for (let i = 0; i < 5; i += 1) await client.health();
    const leadMs = (timesMs[0] ?? Infinity) - clock.now();
    if (leadMs < 0) throw new Error(`the warm-up overran the first arrival by ${(-leadMs).toFixed(0)} emulated ms: start the schedule later`);
    const outcomes = await Promise.all(
      Array.from(timesMs, async (tMs, i) => {
        await sleep(originReal + tMs / o.timeScale - performance.now());
        const sent = performance.now();
        let r = await client.runSync({ input: inputs[classes[i] as number] as Record<string, unknown> }, { waitMs: 300_000 });
        if (!isTerminal(r.status)) r = await client.waitForJob(r.id, { via: 'status-sync', maxDurationMs: 600_000 });
        const recordE2eMs = o.overheadMs + (r.delayTime ?? NaN) + (r.executionTime ?? NaN);
        return { clientE2eMs: (performance.now() - sent) * o.timeScale, recordE2eMs, delayMs: r.delayTime ?? NaN, completed: r.status === 'COMPLETED' };
      }),
    );
    // The simulation runs to the end of the traffic at least (workers billed meanwhile): so does this side.
    await sleep(originReal + o.schedule.durationMs / o.timeScale - performance.now());
    const counters = await readEndpointCounters(emu.url, o.endpointId, KEY);
    if (counters === undefined) throw new Error(`no /_qbench/counters for ${o.endpointId}`);
    const done = outcomes.filter((x) => x.completed);
    return {
      jobs: outcomes.length,
      completed: done.length,
      e2e: quantilesOf(done.map((x) => x.recordE2eMs)),
      clientE2e: quantilesOf(done.map((x) => x.clientE2eMs)),
      delay: quantilesOf(done.map((x) => x.delayMs)),
      workerSeconds: counters.billing.billedS,
      coldStarts: counters.billing.coldStarts,
      realMs: performance.now() - started,
    };
  } finally {
    await client.close();
    await emu.close();
  }
}

/** Relative error of the HTTP figure against the simulated one, per compared figure. */
export function errorsOf(sim: SimulationFigures, http: HttpFigures): Record<'p50' | 'p90' | 'p99' | 'workerSeconds', number> {
  const rel = (a: number | null, b: number | null) => (a === null || b === null ? Infinity : Math.abs(b - a) / Math.max(1e-9, Math.abs(a)));
  return {
    p50: rel(sim.e2e.p50Ms, http.e2e.p50Ms),
    p90: rel(sim.e2e.p90Ms, http.e2e.p90Ms),
    p99: rel(sim.e2e.p99Ms, http.e2e.p99Ms),
    workerSeconds: rel(sim.workerSeconds.total, http.workerSeconds),
  };
}
