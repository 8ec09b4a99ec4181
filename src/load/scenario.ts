// Load scenarios: one zod schema discriminated on `executor`, with the step flow of an
// iteration, k6-style thresholds, the 429 policy and the validity limits. Defaults live here,
// once; `parseScenario` reports every problem at once (z.prettifyError).
import { z } from 'zod';
import { RUNSYNC_WAIT_MS, HOUR_MS, SECOND_MS, MINUTE_MS } from '../spec/index.js';
import { scenarioError } from '../errors.js';
import type { BackoffOptions } from '../client/backoff.js';
import type { IterationContext, ScenarioHooks } from './context.js';

/** Hard bounds: no run goes on forever, whatever the file or the command line says. */
export const HARD_LIMITS = {
  maxDurationMs: 24 * HOUR_MS,
  maxRequests: 100_000_000,
  maxRatePerSec: 1_000_000,
  maxVus: 100_000,
  maxInFlight: 100_000,
  maxThreads: 64,
  maxIterations: 100_000_000,
} as const;

const isFunction = (v: unknown): v is (...args: never[]) => unknown => typeof v === 'function';

export type InputFactory<S = unknown> = (ctx: IterationContext<S>) => Record<string, unknown>;
const JsonInput = z.record(z.string(), z.unknown());
const InputSource = z.union([JsonInput, z.custom<InputFactory>(isFunction, { error: 'input must be a JSON object or a function returning one' })]);

const durationMs = (what: string) =>
  z.number({ error: `${what} must be a number of milliseconds` }).int({ error: `${what} must be an integer (ms)` })
    .positive({ error: `${what} must be > 0` }).max(HARD_LIMITS.maxDurationMs, { error: `${what} must be at most ${HARD_LIMITS.maxDurationMs} ms (24 h)` });
const ratePerSec = (what: string) =>
  z.number({ error: `${what} must be a number (requests per second)` }).nonnegative({ error: `${what} must be >= 0` })
    .max(HARD_LIMITS.maxRatePerSec, { error: `${what} must be at most ${HARD_LIMITS.maxRatePerSec}/s` });

const stepName = z.string().regex(/^[a-z][a-z0-9_-]*$/i, { error: 'step name: letters, digits, "_" and "-", starting with a letter' });
const jobPolicy = z.record(z.string(), z.unknown()).optional();

export const RunSyncStep = z.strictObject({
  kind: z.literal('runsync'),
  name: stepName.optional(),
  input: InputSource,
  policy: jobPolicy,
  waitMs: z.number().int().min(RUNSYNC_WAIT_MS.min).max(RUNSYNC_WAIT_MS.max).optional(),
});
export const RunStep = z.strictObject({
  kind: z.literal('run'),
  name: stepName.optional(),
  input: InputSource,
  policy: jobPolicy,
  /** After /run: nothing, poll /status until terminal, or read /stream to the end. */
  follow: z.enum(['none', 'poll', 'stream']).default('none'),
  pollIntervalMs: z.number().int().min(0).max(MINUTE_MS).default(250),
  followTimeoutMs: z.number().int().positive().max(HARD_LIMITS.maxDurationMs).default(2 * MINUTE_MS),
});
/** A single call; `jobId` defaults to the job of the iteration's last run/runsync step. */
export const StatusStep = z.strictObject({ kind: z.literal('status'), name: stepName.optional(), jobId: z.string().min(1).optional() });
export const StreamStep = z.strictObject({ kind: z.literal('stream'), name: stepName.optional(), jobId: z.string().min(1).optional() });
export const CancelStep = z.strictObject({ kind: z.literal('cancel'), name: stepName.optional(), jobId: z.string().min(1).optional() });
export const HealthStep = z.strictObject({ kind: z.literal('health'), name: stepName.optional() });
export const PurgeStep = z.strictObject({ kind: z.literal('purge-queue'), name: stepName.optional() });
export type CustomStepFn<S = unknown> = (ctx: IterationContext<S>) => Promise<void>;
export const CustomStep = z.strictObject({
  kind: z.literal('custom'),
  name: stepName,
  /** Code step: issue requests through ctx.request(metric, ...) so that they are recorded. */
  fn: z.custom<CustomStepFn>(isFunction, { error: 'custom step fn must be a function' }),
  /** Metric names the function records under (for threshold validation); defaults to [name]. */
  metrics: z.array(stepName).optional(),
});

export const Step = z.discriminatedUnion('kind', [RunSyncStep, RunStep, StatusStep, StreamStep, CancelStep, HealthStep, PurgeStep, CustomStep]);
export type Step = z.infer<typeof Step>;

export const ThresholdSpec = z.union([
  z.string(),
  z.strictObject({
    threshold: z.string(),
    abortOnFail: z.boolean().default(false),
    /** Do not abort before this much of the run has passed (too few samples early on). */
    delayAbortEvalMs: z.number().int().nonnegative().default(0),
  }),
]);
export type ThresholdSpec = z.infer<typeof ThresholdSpec>;

export const On429 = z.discriminatedUnion('mode', [
  /** Count the 429 and end the iteration there. */
  z.strictObject({ mode: z.literal('count-and-stop') }),
  /** Retry with the shared client policy (src/client/backoff.ts), recording attempts. */
  z.strictObject({
    mode: z.literal('backoff'),
    backoff: z.custom<Partial<BackoffOptions>>((v) => typeof v === 'object' && v !== null, { error: 'backoff must be an object of BackoffOptions' }).optional(),
  }),
]);
export type On429 = z.infer<typeof On429>;

export const ValidityLimits = z.strictObject({
  /** p99 of (actual send - intended send) above this makes the run INVALID. */
  maxSendLatenessP99Ms: z.number().positive().default(10),
  maxEventLoopDelayP99Ms: z.number().positive().default(100),
  /** Achieved/target start rate below this makes the run INVALID. */
  minAchievedRatio: z.number().min(0).max(1).default(0.95),
  /** Dropped/scheduled iterations above this makes the run INVALID (in-flight cap reached). */
  maxDroppedRatio: z.number().min(0).max(1).default(0),
  /**
   * A closed loop whose generator is CPU-bound caps the throughput it measures: INVALID, unless
   * the scenario's verdict does not rest on throughput or latency (false: e.g. a byte count).
   */
  cpuBoundInvalidates: z.boolean().default(true),
});
export type ValidityLimits = z.infer<typeof ValidityLimits>;

export const Warmup = z.strictObject({
  /** Open the connections the peak load needs before the schedule starts. */
  preconnect: z.boolean().default(true),
  /**
   * Iterations of the generator's own code against a local in-process sink (never the
   * target) before the schedule: 'auto' is one second of the peak rate (at most 30,000) when
   * a thread must start 1,000 or more iterations a second, else none.
   */
  localIterations: z.union([z.literal('auto'), z.number().int().nonnegative().max(1_000_000)]).default('auto'),
});
export type Warmup = z.infer<typeof Warmup>;

const common = {
  name: z.string().min(1).regex(/^[a-z0-9][a-z0-9._-]*$/i, { error: 'name: letters, digits, ".", "_", "-"' }),
  description: z.string().default(''),
  steps: z.array(Step).min(1, { error: 'steps: at least one step' }),
  thresholds: z.record(z.string(), z.array(ThresholdSpec).min(1)).default({}),
  on429: On429.default({ mode: 'count-and-stop' }),
  maxInFlight: z.number().int().positive().max(HARD_LIMITS.maxInFlight).default(1000),
  /** HTTP connections (default: maxInFlight). Fewer queue requests in the client, as wrk2 does. */
  connections: z.number().int().positive().max(HARD_LIMITS.maxInFlight).optional(),
  requestTimeoutMs: z.number().int().positive().max(HOUR_MS).default(MINUTE_MS),
  threads: z.number().int().positive().max(HARD_LIMITS.maxThreads).default(1),
  maxRequests: z.number().int().positive().max(HARD_LIMITS.maxRequests).default(10_000_000),
  /** After the schedule ends, wait this long for in-flight iterations before aborting them. */
  gracefulStopMs: z.number().int().nonnegative().max(HOUR_MS).default(30 * SECOND_MS),
  seed: z.number().int().default(1),
  validity: ValidityLimits.default(ValidityLimits.parse({})),
  /** Before the schedule starts (src/load/warmup.ts); nothing it does is recorded. */
  warmup: Warmup.default(Warmup.parse({})),
  /** Code hooks (setup before the run, analyze after); see ScenarioHooks. */
  hooks: z.custom<ScenarioHooks>((v) => typeof v === 'object' && v !== null).optional(),
  /**
   * Why this scenario's verdict needs every request in one process (a count per rate window,
   * the admitted set under a cap...): `qbench load --shard` refuses it with this reason.
   */
  globalView: z.string().min(1).optional(),
  tags: z.record(z.string(), z.string()).optional(),
};

const arrivals = z.enum(['uniform', 'poisson']).default('uniform');

export const ConstantArrivalRate = z.strictObject({
  ...common,
  executor: z.literal('constant-arrival-rate'),
  ratePerSec: ratePerSec('ratePerSec').positive({ error: 'ratePerSec must be > 0' }),
  durationMs: durationMs('durationMs'),
  arrivals,
});
export const RampStage = z.strictObject({ durationMs: durationMs('stages[].durationMs'), targetRatePerSec: ratePerSec('stages[].targetRatePerSec') });
export type RampStage = z.infer<typeof RampStage>;
export const RampingArrivalRate = z.strictObject({
  ...common,
  executor: z.literal('ramping-arrival-rate'),
  startRatePerSec: ratePerSec('startRatePerSec').default(0),
  stages: z.array(RampStage).min(1, { error: 'stages: at least one stage' }),
  arrivals,
});
export const ConstantConcurrency = z.strictObject({
  ...common,
  executor: z.literal('constant-concurrency'),
  vus: z.number().int().positive().max(HARD_LIMITS.maxVus),
  durationMs: durationMs('durationMs'),
});
export const Iterations = z.strictObject({
  ...common,
  executor: z.literal('iterations'),
  iterations: z.number().int().positive().max(HARD_LIMITS.maxIterations),
  vus: z.number().int().positive().max(HARD_LIMITS.maxVus).default(1),
  maxDurationMs: durationMs('maxDurationMs').default(10 * MINUTE_MS),
});
export const MaxThroughput = z.strictObject({
  ...common,
  executor: z.literal('max-throughput'),
  connections: z.number().int().positive().max(10_000).default(100),
  pipelining: z.number().int().positive().max(100).default(1),
  durationMs: durationMs('durationMs'),
  /** 'qbench': the generator's own HTTP/1.1 client (faster, see src/load/max-throughput.ts); 'autocannon': autocannon itself. */
  engine: z.enum(['qbench', 'autocannon']).default('qbench'),
});

export const Scenario = z.discriminatedUnion('executor', [ConstantArrivalRate, RampingArrivalRate, ConstantConcurrency, Iterations, MaxThroughput]);
export type Scenario = z.infer<typeof Scenario>;

type StepInputOf<T, S> = T extends { fn: unknown }
  ? Omit<T, 'fn'> & { fn: CustomStepFn<S> }
  : T extends { input: unknown }
    ? Omit<T, 'input'> & { input: Record<string, unknown> | InputFactory<S> }
    : T;
/** A step as a scenario file writes it; its functions see the scenario's state type `S`. */
export type StepInput<S = unknown> = StepInputOf<z.input<typeof Step>, S>;
type ScenarioInputOf<T, S> = T extends unknown ? Omit<T, 'steps' | 'hooks'> & { steps: StepInput<S>[]; hooks?: ScenarioHooks<S> | undefined } : never;
/**
 * A scenario as its file writes it (before defaults); `S` is what its setup hook returns, the
 * `state` its steps and later hooks see.
 */
export type ScenarioInput<S = unknown> = ScenarioInputOf<z.input<typeof Scenario>, S>;
export type Executor = Scenario['executor'];
export const EXECUTORS: readonly Executor[] = ['constant-arrival-rate', 'ramping-arrival-rate', 'constant-concurrency', 'iterations', 'max-throughput'];

/** Validate a scenario (after overrides); throws QB_ERR_SCENARIO listing every problem. */
export function parseScenario(input: unknown, source = 'scenario'): Scenario {
  const parsed = Scenario.safeParse(input);
  if (!parsed.success) throw scenarioError(`${source} is not a valid scenario:\n${z.prettifyError(parsed.error)}`, { source });
  const s = parsed.data;
  const problems: string[] = [];
  if (s.executor === 'max-throughput') {
    const first = s.steps[0];
    if (s.steps.length !== 1 || !first || first.kind === 'custom' || (first.kind === 'run' && first.follow !== 'none')) {
      problems.push('max-throughput: exactly one single-request step (runsync, run without follow, status, stream, cancel, health, purge-queue)');
    }
    if (s.on429.mode === 'backoff') problems.push('max-throughput: on429 backoff is not available (it sends closed-loop, one request after the other)');
  }
  const names = new Set<string>();
  for (const step of s.steps) {
    const n = stepMetricName(step);
    if (names.has(n)) problems.push(`steps: two steps record under "${n}"; give one a distinct name`);
    names.add(n);
  }
  if (problems.length > 0) throw scenarioError(`${source} is not a valid scenario:\n${problems.map((p) => `✖ ${p}`).join('\n')}`, { source });
  return s;
}

/** The metric name a step records under. */
export function stepMetricName(step: Step): string {
  return step.name ?? step.kind;
}

/** Total planned duration of the schedule (open-loop and timed executors). */
export function plannedDurationMs(s: Scenario): number {
  switch (s.executor) {
    case 'constant-arrival-rate':
    case 'constant-concurrency':
    case 'max-throughput':
      return s.durationMs;
    case 'ramping-arrival-rate':
      return s.stages.reduce((a, st) => a + st.durationMs, 0);
    case 'iterations':
      return s.maxDurationMs;
  }
}

/** JSON view of a scenario for the result (functions named, not serialised). */
export function scenarioToJson(s: Scenario): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(s, (_k, v: unknown) => (typeof v === 'function' ? `[function ${(v as { name?: string }).name || 'anonymous'}]` : v)),
  ) as Record<string, unknown>;
}
