// The discrete-event mode's contract: one simulation is the emulator's endpoint (state machine,
// scaler, cold starts, billing meter) driven on a virtual clock by a traffic profile, with the
// figures a planner compares. `qbench plan` sweeps scaling settings over it.
import type { ScalerType } from '../deployment/index.js';

/** The scaling settings a plan sweeps; they replace the twin's own for the simulated endpoint. */
export interface ScalingSettings {
  readonly workersMin: number;
  readonly workersMax: number;
  readonly idleTimeoutS: number;
  readonly scalerType: ScalerType;
  /** Seconds of queue delay (QUEUE_DELAY) or jobs per worker (REQUEST_COUNT). */
  readonly scalerValue: number;
}

/** Latency quantiles of the jobs that completed, in (simulated) ms; null when none completed. */
export interface LatencyQuantiles {
  readonly p50Ms: number | null;
  readonly p90Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
  readonly maxMs: number | null;
}

/** What one simulation of one setting with one seed measured. */
export interface SimulationFigures {
  readonly seed: number;
  /** The simulated span: traffic duration plus the drain of the jobs still running at its end. */
  readonly simulatedMs: number;
  readonly jobs: {
    readonly arrived: number;
    readonly completed: number;
    /** Failed, timed out or expired (ttl) before a worker took them. */
    readonly notCompleted: number;
  };
  /** Client view: from the job's submission to its terminal state (what the emulator's /status reports). */
  readonly e2e: LatencyQuantiles;
  /** The service's delayTime. */
  readonly delay: LatencyQuantiles;
  /** Worker cold starts begun. */
  readonly coldStarts: number;
  /** Share of arrived jobs that waited for a worker that was starting (0..1). */
  readonly coldStartJobShare: number;
  readonly peakWorkers: number;
  /** Billed worker-seconds (rounded up per worker as the service bills), and where they went. */
  readonly workerSeconds: {
    readonly total: number;
    readonly active: number;
    readonly flex: number;
    /** Billed seconds workers spent idle (the idle timeout before a stop included). */
    readonly idle: number;
  };
  /** USD at the twin's price table. */
  readonly cost: { readonly total: number; readonly active: number; readonly flex: number; readonly idle: number };
  /** Events the simulation processed (arrivals, timer firings): its unit of work for benches. */
  readonly events: number;
  /** Each completed job's e2e and delayTime in ms, each sorted ascending (only with `keepLatencies`). */
  readonly latencies?: { readonly e2eMs: Float64Array; readonly delayMs: Float64Array };
}
