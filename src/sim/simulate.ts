// One simulation: the emulator's own endpoint (state machine, worker pool, scaler, cold-start and
// timing sampler, billing meter) on a VirtualClock, fed a seeded arrival schedule, run to the end
// of the traffic and the drain of its jobs, synchronously. No socket, no host timer, no promise:
// what serves HTTP in `qbench emulate` is what runs here, so a change to scaling shows in both.
import { configError, internalError } from '../errors.js';
import { VirtualClock } from '../emulator/clock.js';
import { parseEmulatorConfig, type EmulatorConfig } from '../emulator/config.js';
import { EmulatorCore } from '../emulator/core.js';
import type { EndpointObserver, QueueEndpoint, SubmitOptions, Worker } from '../emulator/queue/index.js';
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
  /**
   * Keep ended jobs for their §2.2 retention, as the HTTP emulator does. Off by default: nothing
   * reads an ended job here (its figures are taken as it ends), and retention changes no timing,
   * scaling or billing figure, only memory and timer events (a test compares the two).
   */
  readonly retainEndedJobs?: boolean | undefined;
  /** Return every completed job's e2e and delayTime (sorted), to pool the jobs of several seeds. */
  readonly keepLatencies?: boolean | undefined;
}

/** The emulator config of one simulated point: the twin's endpoint with `settings` and `seed` in its deployment. */
export function simulatedConfig(twin: EmulatorConfig, endpointId: string, settings: ScalingSettings, seed: number): EmulatorConfig {
  return withSeed(settingsConfig(twin, endpointId, settings), endpointId, seed);
}

/**
 * Validated configs by twin, then endpoint and settings, with seed 0: a sweep runs each setting
 * with several seeds, and a seed is the one field that differs (a whole number, valid in any
 * config), so the schema runs once per setting, not once per simulation.
 */
const validated = new WeakMap<EmulatorConfig, Map<string, EmulatorConfig>>();
/** Settings remembered per twin: a sweep's grid is a few thousand points at most. */
const MAX_CACHED_SETTINGS = 10_000;

function settingsConfig(twin: EmulatorConfig, endpointId: string, settings: ScalingSettings): EmulatorConfig {
  if (!twin.endpoints.includes(endpointId)) throw configError(`endpoint "${endpointId}" is not in the twin; it serves ${twin.endpoints.join(', ')}`, { endpointId });
  const key = `${endpointId}\n${settings.workersMin}\n${settings.workersMax}\n${settings.idleTimeoutS}\n${settings.scalerType}\n${settings.scalerValue}`;
  let byKey = validated.get(twin);
  const hit = byKey?.get(key);
  if (hit !== undefined) return hit;
  const own = twin.deployments[endpointId] ?? {};
  const config = parseEmulatorConfig({
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
        seed: 0,
      },
    },
  });
  if (byKey === undefined) {
    byKey = new Map<string, EmulatorConfig>();
    validated.set(twin, byKey);
  }
  if (byKey.size >= MAX_CACHED_SETTINGS) byKey.clear();
  byKey.set(key, config);
  return config;
}

function withSeed(config: EmulatorConfig, endpointId: string, seed: number): EmulatorConfig {
  const d = config.deployments[endpointId] as EmulatorConfig['deployments'][string];
  return Object.freeze({ ...config, deployments: Object.freeze({ [endpointId]: Object.freeze({ ...d, seed: seed | 0 }) }) });
}

/** Nearest-rank quantile of ascending `sorted` (exact: a value some job had). */
function quantile(sorted: Float64Array, q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
}

function quantiles(values: Float64Array): LatencyQuantiles {
  values.sort();
  return { p50Ms: quantile(values, 0.5), p90Ms: quantile(values, 0.9), p95Ms: quantile(values, 0.95), p99Ms: quantile(values, 0.99), maxMs: quantile(values, 1) };
}

/**
 * The figures of each job, taken as it starts and ends (the endpoint forgets it then): e2e and
 * delayTime of the completed ones in preallocated arrays, and the jobs that waited on a cold start.
 */
class JobFigures implements EndpointObserver {
  coldJobs = 0;
  completed = 0;
  readonly e2eMs: Float64Array;
  readonly delayMs: Float64Array;

  constructor(jobs: number) {
    this.e2eMs = new Float64Array(jobs);
    this.delayMs = new Float64Array(jobs);
  }

  /** A job whose worker became ready after it joined the queue waited on a cold start. */
  jobStarted(job: Job, worker: Worker): void {
    if (job.attempt === 0 && worker.readyAtMs !== undefined && worker.readyAtMs > job.queuedAtMs) this.coldJobs += 1;
  }

  jobEnded(job: Job): void {
    if (job.status !== 'COMPLETED') return;
    const k = this.completed++;
    this.e2eMs[k] = (job.endedAtMs as number) - job.submittedAtMs;
    // As the job's record (/status) shows it.
    this.delayMs[k] = Math.max(0, Math.round((job.startedAtMs as number) - job.queuedAtMs));
  }
}

/** The traffic's driver: one pending arrival timer at a time (the heap holds no schedule). */
class Arrivals {
  next = 0;
  /** One submission per input class, shared by its jobs (the endpoint keeps only `input`). */
  private readonly submissions: SubmitOptions[];
  constructor(
    private readonly clock: VirtualClock,
    private readonly ep: QueueEndpoint,
    private readonly s: ArrivalSchedule,
  ) {
    this.submissions = s.inputs.map((input) => ({ input }));
  }

  start(): void {
    if (this.s.timesMs.length > 0) this.clock.setTimerFor((this.s.timesMs[0] as number) - this.clock.now(), this.arrive, this);
  }

  get done(): boolean {
    return this.next >= this.s.timesMs.length;
  }

  private readonly arrive = (): void => {
    const { timesMs, classes } = this.s;
    const now = this.clock.now();
    // Arrivals at the same instant (a burst) are submitted in one event, in schedule order.
    while (this.next < timesMs.length && (timesMs[this.next] as number) <= now) {
      this.ep.submit('run', this.submissions[classes[this.next] as number] as SubmitOptions);
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
  const figures = new JobFigures(schedule.timesMs.length);
  const errors: string[] = [];
  const core = new EmulatorCore(config, clock, { subServices: [], observer: figures, retainEndedJobs: o.retainEndedJobs === true, log: (line) => errors.push(line) });
  const ep = core.endpoints.get(endpointId) as QueueEndpoint;
  const arrivals = new Arrivals(clock, ep, schedule);
  let trafficOver = false;
  clock.setTimer(schedule.durationMs, () => {
    trafficOver = true;
  });
  arrivals.start();
  const c = ep.counters;
  const ended = () => c.completed + c.failed + c.cancelled + c.expired;
  const drained = () => trafficOver && arrivals.done && ended() >= arrivals.next;
  clock.run(Infinity, drained);
  if (errors.length > 0) throw internalError(`the simulation hit ${errors.length} internal error(s); the first: ${errors[0]?.trim() ?? ''}`);
  if (!drained()) throw internalError(`the simulation stopped with ${arrivals.next - ended()} job(s) not ended and no timer pending`);
  return figuresOf(ep, arrivals.next, figures, clock, o.keepLatencies === true);
}

function figuresOf(ep: QueueEndpoint, arrived: number, f: JobFigures, clock: VirtualClock, keepLatencies: boolean): SimulationFigures {
  const completed = f.completed;
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
  const e2e = f.e2eMs.subarray(0, completed);
  const delay = f.delayMs.subarray(0, completed);
  const roundingS = Math.max(0, idleS - idleRawS);
  const meanPricePerS = b.billedS > 0 ? b.costUsd / b.billedS : 0;
  return {
    seed: ep.model.deployment.seed,
    simulatedMs: nowMs,
    jobs: { arrived, completed, notCompleted: arrived - completed },
    e2e: quantiles(e2e),
    delay: quantiles(delay),
    coldStarts: b.coldStarts,
    coldStartJobShare: arrived === 0 ? 0 : f.coldJobs / arrived,
    peakWorkers: b.peakWorkers,
    workerSeconds: { total: b.billedS, active: b.activeS, flex: b.flexS, idle: idleS },
    cost: {
      total: b.costUsd,
      active: b.activeS * price.activePerS * gpus,
      flex: b.flexS * price.flexPerS * gpus,
      idle: (idleRaw.activeS * price.activePerS + idleRaw.flexS * price.flexPerS) * gpus + roundingS * meanPricePerS,
    },
    events: clock.events,
    ...(keepLatencies ? { latencies: { e2eMs: e2e, delayMs: delay } } : {}),
  };
}
