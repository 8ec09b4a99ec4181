// One simulation: the emulator's own endpoint (state machine, worker pool, scaler, cold-start and
// timing sampler, billing meter) on a VirtualClock, fed a seeded arrival schedule, run to the end
// of the traffic and the drain of its jobs, synchronously. No socket, no host timer, no promise:
// what serves HTTP in `qbench emulate` is what runs here, so a change to scaling shows in both.
import { configError, internalError } from '../errors.js';
import { VirtualClock } from '../emulator/clock.js';
import { parseEmulatorConfig, type EmulatorConfig } from '../emulator/config.js';
import { EmulatorCore } from '../emulator/core.js';
import type { EndpointObserver, QueueEndpoint, Worker } from '../emulator/queue/index.js';
import type { Job } from '../emulator/queue/job.js';
import { arrivalSchedule, type ArrivalSchedule, type TrafficProfile } from './traffic.js';
import type { LatencyQuantiles, ScalingSettings, SimulationFigures } from './types.js';

export interface SimulateOptions {
  /** The twin: a parsed emulator config (parseTwin / loadTwin), e.g. the file `qbench calibrate` writes. */
  readonly twin: EmulatorConfig;
  /** The endpoint simulated; the twin's first by default. */
  readonly endpointId?: string | undefined;
  /** Replace the twin's own scaling settings for the simulated endpoint. */
  readonly settings: ScalingSettings;
  readonly traffic: TrafficProfile;
  /** Seeds the arrivals and the twin's timing model (its deployment `seed` is replaced). */
  readonly seed: number;
  /** A schedule already drawn for this traffic and seed (a sweep draws it once per seed). */
  readonly schedule?: ArrivalSchedule | undefined;
}

/** The emulator config of one simulated point: the twin's endpoint with `settings` and `seed` in its deployment. */
export function simulatedConfig(twin: EmulatorConfig, endpointId: string, settings: ScalingSettings, seed: number): EmulatorConfig {
  if (!twin.endpoints.includes(endpointId)) throw configError(`endpoint "${endpointId}" is not in the twin; it serves ${twin.endpoints.join(', ')}`, { endpointId });
  const own = twin.deployments[endpointId] ?? {};
  return parseEmulatorConfig({
    ...twin,
    endpoints: [endpointId],
    endpointTemplates: {},
    externalWorkers: false,
    simulatedWorkers: true,
    deployments: {
      [endpointId]: {
        ...own,
        workersMin: settings.workersMin,
        workersMax: settings.workersMax,
        idleTimeoutS: settings.idleTimeoutS,
        scalerType: settings.scalerType,
        scalerValue: settings.scalerValue,
        seed: seed | 0,
      },
    },
  });
}

/** Nearest-rank quantile of ascending `sorted` (exact: a value some job had). */
function quantile(sorted: Float64Array, q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
}

function quantiles(values: Float64Array): LatencyQuantiles {
  values.sort();
  return { p50Ms: quantile(values, 0.5), p90Ms: quantile(values, 0.9), p99Ms: quantile(values, 0.99), maxMs: quantile(values, 1) };
}

/** Counts the jobs whose worker became ready after they joined the queue: they waited on a cold start. */
class ColdStartWatch implements EndpointObserver {
  jobs = 0;
  jobStarted(job: Job, worker: Worker): void {
    if (job.attempt === 0 && worker.readyAtMs !== undefined && worker.readyAtMs > job.queuedAtMs) this.jobs += 1;
  }
}

/** The traffic's driver: one pending arrival timer at a time (the heap holds no schedule). */
class Arrivals {
  next = 0;
  readonly jobs: Job[] = [];
  constructor(
    private readonly clock: VirtualClock,
    private readonly ep: QueueEndpoint,
    private readonly s: ArrivalSchedule,
  ) {}

  start(): void {
    if (this.s.timesMs.length > 0) this.clock.setTimerFor((this.s.timesMs[0] as number) - this.clock.now(), this.arrive, this);
  }

  get done(): boolean {
    return this.next >= this.s.timesMs.length;
  }

  private readonly arrive = (): void => {
    const { timesMs, classes, inputs } = this.s;
    const now = this.clock.now();
    // Arrivals at the same instant (a burst) are submitted in one event, in schedule order.
    while (this.next < timesMs.length && (timesMs[this.next] as number) <= now) {
      this.jobs.push(this.ep.submit('run', { input: inputs[classes[this.next] as number] as Record<string, unknown> }));
      this.next += 1;
    }
    if (this.next < timesMs.length) this.clock.setTimerFor((timesMs[this.next] as number) - now, this.arrive, this);
  };
}

/** Simulate `o.traffic` on the twin with `o.settings`: the figures a planner compares. Synchronous. */
export function simulate(o: SimulateOptions): SimulationFigures {
  const endpointId = o.endpointId ?? o.twin.endpoints[0];
  if (endpointId === undefined) throw configError('the twin serves no endpoint');
  const config = simulatedConfig(o.twin, endpointId, o.settings, o.seed);
  const schedule = o.schedule ?? arrivalSchedule(o.traffic, o.seed);
  const clock = new VirtualClock(0);
  const cold = new ColdStartWatch();
  const errors: string[] = [];
  const core = new EmulatorCore(config, clock, { subServices: [], observer: cold, log: (line) => errors.push(line) });
  const ep = core.endpoints.get(endpointId) as QueueEndpoint;
  const arrivals = new Arrivals(clock, ep, schedule);
  let trafficOver = false;
  clock.setTimer(schedule.durationMs, () => {
    trafficOver = true;
  });
  arrivals.start();
  const c = ep.counters;
  const drained = () => trafficOver && arrivals.done && c.completed + c.failed + c.cancelled + c.expired >= arrivals.jobs.length;
  clock.run(Infinity, drained);
  if (errors.length > 0) throw internalError(`the simulation hit ${errors.length} internal error(s); the first: ${errors[0]?.trim() ?? ''}`);
  if (!drained()) throw internalError(`the simulation stopped with ${arrivals.jobs.length - c.completed - c.failed - c.cancelled - c.expired} job(s) not ended and no timer pending`);
  return figuresOf(ep, arrivals.jobs, cold.jobs, clock);
}

function figuresOf(ep: QueueEndpoint, jobs: readonly Job[], coldJobs: number, clock: VirtualClock): SimulationFigures {
  let completed = 0;
  for (const j of jobs) if (j.status === 'COMPLETED') completed += 1;
  const e2e = new Float64Array(completed);
  const delay = new Float64Array(completed);
  let k = 0;
  for (const j of jobs) {
    if (j.status !== 'COMPLETED') continue;
    e2e[k] = (j.endedAtMs as number) - j.submittedAtMs;
    // As the job's record (/status) shows it.
    delay[k] = Math.max(0, Math.round((j.startedAtMs as number) - j.queuedAtMs));
    k += 1;
  }
  const nowMs = clock.now();
  const meter = ep.model.meter;
  const b = meter.snapshot(nowMs);
  const idleRaw = meter.idleByRole(nowMs);
  const price = ep.model.deployment.price;
  if (price === undefined || b.costUsd === null) throw configError(`the twin's GPU type ${b.gpuTypeId} has no price: give deployments.<endpoint>.prices`);
  const gpus = b.gpuCount;
  // Billed seconds beyond the worked ones are idle: the idle time itself and each worker's rounding up.
  const idleS = Math.max(0, b.billedS - b.runningS);
  const idleRawS = idleRaw.activeS + idleRaw.flexS;
  const roundingS = Math.max(0, idleS - idleRawS);
  const meanPricePerS = b.billedS > 0 ? b.costUsd / b.billedS : 0;
  return {
    seed: ep.model.deployment.seed,
    simulatedMs: nowMs,
    jobs: { arrived: jobs.length, completed, notCompleted: jobs.length - completed },
    e2e: quantiles(e2e),
    delay: quantiles(delay),
    coldStarts: b.coldStarts,
    coldStartJobShare: jobs.length === 0 ? 0 : coldJobs / jobs.length,
    peakWorkers: b.peakWorkers,
    workerSeconds: { total: b.billedS, active: b.activeS, flex: b.flexS, idle: idleS },
    cost: {
      total: b.costUsd,
      active: b.activeS * price.activePerS * gpus,
      flex: b.flexS * price.flexPerS * gpus,
      idle: (idleRaw.activeS * price.activePerS + idleRaw.flexS * price.flexPerS) * gpus + roundingS * meanPricePerS,
    },
    events: clock.events,
  };
}
