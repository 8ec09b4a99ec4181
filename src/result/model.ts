// The versioned result model shared by conformance, load and fuzz. One zod schema;
// reports/schema/qbench-result.schema.json is generated from it and kept in sync by a test.
// Every renderer (JSON, HTML, JUnit, markdown, console) reads only this model.
import { z } from 'zod';

/** Bump the major on a breaking change; readers refuse a major they do not know. */
export const SCHEMA_VERSION = '1.0.0';

const isoTime = z.string().describe('ISO-8601 timestamp');
const nonNeg = z.number().nonnegative();
const count = z.number().int().nonnegative();

// ---------------------------------------------------------------- run metadata

export const TargetInfo = z.strictObject({
  /** simulation: a twin run on a virtual clock (qbench plan); queueUrl then names the twin's file. */
  kind: z.enum(['emulator', 'remote', 'simulation']),
  /** Queue endpoint base, e.g. http://127.0.0.1:8080 (never with a key in it). */
  queueUrl: z.string(),
  endpointId: z.string(),
  restUrl: z.string().optional(),
  graphqlUrl: z.string().optional(),
  /** Emulated ms per real ms; 1 on a real target. */
  timeScale: z.number().positive(),
  /**
   * Real-time length of the §8 rate window on this target, when it is not the spec's 10 s
   * (the emulator with scaleRateWindows runs the windows on its scaled clock). Charts draw the
   * documented limits per real second from it.
   */
  rateWindowRealMs: z.number().positive().optional(),
  /** Emulator fault switches in force (self-test runs). */
  faults: z.array(z.string()).optional(),
});
export type TargetInfo = z.infer<typeof TargetInfo>;

export const MachineInfo = z.strictObject({
  hostname: z.string(),
  platform: z.string(),
  arch: z.string(),
  cpus: count,
  cpuModel: z.string(),
  memoryBytes: nonNeg,
  nodeVersion: z.string(),
});
export type MachineInfo = z.infer<typeof MachineInfo>;

export const RunMeta = z.strictObject({
  qbenchVersion: z.string(),
  /** The command line, secrets redacted. */
  command: z.array(z.string()),
  startedAt: isoTime,
  endedAt: isoTime,
  durationMs: nonNeg,
  target: TargetInfo,
  machine: MachineInfo,
  /** Free labels (git sha, build id, shard name). */
  labels: z.record(z.string(), z.string()).optional(),
});
export type RunMeta = z.infer<typeof RunMeta>;

// ---------------------------------------------------------------- evidence

/** One HTTP exchange, secrets redacted, bodies truncated to a few KiB. */
export const HttpExchange = z.strictObject({
  request: z.strictObject({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().optional(),
    bodyBytes: count,
  }),
  response: z
    .strictObject({
      status: z.number().int(),
      headers: z.record(z.string(), z.string()),
      body: z.string().optional(),
      bodyBytes: count,
      durationMs: nonNeg,
    })
    .optional(),
  /** Network-level failure instead of a response. */
  error: z.string().optional(),
});
export type HttpExchange = z.infer<typeof HttpExchange>;

// ---------------------------------------------------------------- conformance

export const Clause = z.strictObject({
  /** e.g. '§3.1' or 'WIRE-COMPAT'. */
  section: z.string(),
  /** Short quote of the rule. */
  quote: z.string(),
});
export type Clause = z.infer<typeof Clause>;

export const Verdict = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('pass'), observed: z.string().optional() }),
  z.strictObject({
    status: z.literal('fail'),
    expected: z.string(),
    observed: z.string(),
    exchanges: z.array(HttpExchange),
    /** One command line that reproduces the failing request. */
    curl: z.string(),
  }),
  z.strictObject({ status: z.literal('skip'), reason: z.string() }),
  z.strictObject({ status: z.literal('error'), message: z.string(), stack: z.string().optional() }),
  /**
   * The check could not establish what it needed to judge the clause (a state not reached in
   * time, a rate window already in use, traffic it did not send in a count), twice: neither a
   * pass nor a violation. Fails a run only under --strict.
   */
  z.strictObject({
    status: z.literal('inconclusive'),
    reason: z.string(),
    exchanges: z.array(HttpExchange),
  }),
]);
export type Verdict = z.infer<typeof Verdict>;
export type VerdictStatus = Verdict['status'];

export const CheckResult = z.strictObject({
  id: z.string(),
  title: z.string(),
  clause: Clause,
  interface: z.enum(['queue', 'rest', 'graphql']),
  tags: z.array(z.string()),
  /** 'spec': required by SERVICE-SPEC.md; 'compat': a WIRE-COMPAT finding, never a spec failure. */
  kind: z.enum(['spec', 'compat']),
  verdict: Verdict,
  durationMs: nonNeg,
  /** What the check measured (e.g. largest accepted body, which "MB" reading). */
  measured: z.record(z.string(), z.unknown()).optional(),
  /** Set when an --expect file named this check. */
  expectation: z
    .strictObject({
      expected: z.enum(['pass', 'fail', 'skip', 'error']),
      reason: z.string(),
      /** true: the verdict was the expected one; an unexpected pass is matched=false. */
      matched: z.boolean(),
    })
    .optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const CoverageRow = z.strictObject({
  section: z.string(),
  clause: z.string(),
  checkIds: z.array(z.string()),
  /** Why a clause has no check (e.g. not observable by a client). */
  uncoveredReason: z.string().optional(),
});
export type CoverageRow = z.infer<typeof CoverageRow>;

export const ConformanceSection = z.strictObject({
  profile: z.string(),
  checks: z.array(CheckResult),
  coverage: z.array(CoverageRow),
  summary: z.strictObject({
    pass: count,
    fail: count,
    skip: count,
    error: count,
    /** Checks that could not set up what they judge (absent in results written before the verdict existed). */
    inconclusive: count.optional(),
    /** Failures named by the --expect file. */
    expectedFailures: count,
    /** Checks the --expect file said would fail that passed. */
    unexpectedPasses: count,
  }),
});
export type ConformanceSection = z.infer<typeof ConformanceSection>;

// ---------------------------------------------------------------- load

export const OUTCOME_CLASSES = ['2xx', '429', '4xx', '5xx', 'network_error'] as const;
export const OutcomeClass = z.enum(OUTCOME_CLASSES);
export type OutcomeClass = z.infer<typeof OutcomeClass>;
export const OutcomeCounts = z.strictObject({
  '2xx': count,
  '429': count,
  '4xx': count,
  '5xx': count,
  network_error: count,
});
export type OutcomeCounts = z.infer<typeof OutcomeCounts>;

/** Percentiles in milliseconds. */
export const Percentiles = z.strictObject({
  count: count,
  min: nonNeg,
  mean: nonNeg,
  stddev: nonNeg,
  p50: nonNeg,
  p90: nonNeg,
  p95: nonNeg,
  p99: nonNeg,
  p999: nonNeg,
  max: nonNeg,
});
export type Percentiles = z.infer<typeof Percentiles>;

/** An HdrHistogram, encoded (hdr-histogram-js encodeIntoCompressedBase64), so results merge losslessly. */
export const EncodedHistogram = z.strictObject({
  /** Unit of the recorded integer values. */
  unit: z.literal('us'),
  encoded: z.string(),
  lowestDiscernibleValue: z.number().int().positive(),
  highestTrackableValue: z.number().int().positive(),
  numberOfSignificantValueDigits: z.number().int().min(1).max(5),
});
export type EncodedHistogram = z.infer<typeof EncodedHistogram>;

export const LatencySummary = z.strictObject({
  percentiles: Percentiles,
  histogram: EncodedHistogram,
});
export type LatencySummary = z.infer<typeof LatencySummary>;

export const StepResult = z.strictObject({
  /** Step name, e.g. 'run', 'status', 'runsync', 'stream'. */
  step: z.string(),
  counts: OutcomeCounts,
  /** From each request's intended start (coordinated omission corrected). */
  latency: LatencySummary,
  /** From the actual send: service time. */
  serviceTime: LatencySummary,
  /** Corrected latency per outcome class (only classes that occurred). */
  byOutcome: z.partialRecord(OutcomeClass, LatencySummary).optional(),
  /** With 429 backoff on: attempts per request, and end-to-end time including backoff. */
  attempts: z
    .strictObject({
      histogram: Percentiles,
      maxAttempts: count,
      gaveUp: count,
      endToEnd: LatencySummary,
    })
    .optional(),
  /** HTTP status codes seen, e.g. {"200": 990, "429": 10}. */
  statusCodes: z.record(z.string(), count),
});
export type StepResult = z.infer<typeof StepResult>;

/** One 1-second interval of one step. */
export const IntervalPoint = z.strictObject({
  /** Seconds since the scenario started (interval start). */
  tSec: nonNeg,
  counts: OutcomeCounts,
  p50Ms: nonNeg,
  p90Ms: nonNeg,
  p99Ms: nonNeg,
  maxMs: nonNeg,
  serviceP99Ms: nonNeg,
  /** Requests started in the interval per second (offered) and completed 2xx per second (goodput). */
  offeredPerSec: nonNeg,
  goodputPerSec: nonNeg,
});
export type IntervalPoint = z.infer<typeof IntervalPoint>;

export const StepSeries = z.strictObject({ step: z.string(), points: z.array(IntervalPoint) });
export type StepSeries = z.infer<typeof StepSeries>;

/**
 * What the generator did before the schedule started (summed over threads; times are the
 * slowest thread's): connections opened to the target, and iterations of its own code run
 * against a local sink (no request reaches the target), so the first seconds run warm code.
 */
export const Warmup = z.strictObject({
  connectionsOpened: count,
  connectMs: nonNeg,
  localIterations: count,
  localMs: nonNeg,
});
export type Warmup = z.infer<typeof Warmup>;

/** The generator's own health: a run it could not drive is INVALID, not the target's latency. */
export const Validity = z.strictObject({
  valid: z.boolean(),
  reasons: z.array(z.string()),
  targetRatePerSec: nonNeg.optional(),
  achievedRatePerSec: nonNeg,
  droppedIterations: count,
  /** Intended vs actual send time. */
  sendLateness: LatencySummary,
  eventLoopDelayMs: Percentiles,
  generatorCpuPercent: nonNeg,
  threads: count,
  warmup: Warmup.optional(),
});
export type Validity = z.infer<typeof Validity>;

export const ThresholdResult = z.strictObject({
  metric: z.string(),
  expression: z.string(),
  observed: z.number().nullable(),
  passed: z.boolean(),
  abortOnFail: z.boolean(),
});
export type ThresholdResult = z.infer<typeof ThresholdResult>;

/** A labelled comparison against a documented value (e.g. "accepted per 10 s window" vs 1000). */
export const Finding = z.strictObject({
  label: z.string(),
  clause: z.string().optional(),
  expected: z.string(),
  observed: z.string(),
  passed: z.boolean(),
  /**
   * true: a precondition the scenario had to set up to judge its rules (a rate window not
   * used by others, requests really held open, workers running), not a rule of the spec.
   * Unmet (passed false), it makes the scenario inconclusive, never failed.
   */
  precondition: z.boolean().optional(),
});
export type Finding = z.infer<typeof Finding>;

/** A scenario-specific chart (rate per window vs documented limit, TTFT, tokens/s, KV cache...). */
export const Chart = z.strictObject({
  id: z.string(),
  title: z.string(),
  xLabel: z.string(),
  yLabel: z.string(),
  /** 'time': x is seconds since start; 'category': x is an index into `categories`. */
  xKind: z.enum(['time', 'linear', 'category']),
  logY: z.boolean().optional(),
  categories: z.array(z.string()).optional(),
  series: z.array(z.strictObject({ name: z.string(), points: z.array(z.tuple([z.number(), z.number()])) })),
  referenceLines: z.array(z.strictObject({ label: z.string(), y: z.number() })).optional(),
});
export type Chart = z.infer<typeof Chart>;

export const ScenarioVerdict = z.strictObject({
  /**
   * info: the scenario only measures; it states no pass/fail rule. inconclusive: it could not
   * set up what it judges (the summary says why, the unmet `precondition` findings what):
   * neither a pass nor a violation; fails a run only under --strict.
   */
  status: z.enum(['pass', 'fail', 'invalid', 'info', 'inconclusive']),
  summary: z.string(),
  findings: z.array(Finding),
});
export type ScenarioVerdict = z.infer<typeof ScenarioVerdict>;

/** What identifies one scenario run across the processes that shared it (shards of one schedule). */
export const ScenarioIdentity = z.strictObject({
  /** The scenario file's name (no directory). */
  file: z.string(),
  /** SHA-256 of the scenario file's bytes. */
  fileSha256: z.string(),
  /** The `--param` pairs handed to the file's factory. */
  params: z.record(z.string(), z.string()),
  /** The arrival schedule's seed. */
  seed: z.number().int(),
  /** SHA-256 of the validated scenario as run (`config`): the same overrides everywhere. */
  configSha256: z.string(),
});
export type ScenarioIdentity = z.infer<typeof ScenarioIdentity>;

/** This result is one shard (every `count`-th start of one global schedule) of a run. */
export const ShardInfo = z.strictObject({
  index: count,
  count: z.number().int().positive(),
  host: z.string(),
  identity: ScenarioIdentity,
  /** The shared start instant it was given (`--start-at`), when one was. */
  startAt: isoTime.optional(),
  /** When its schedule's time zero was (the shared start, or its own when none was given). */
  scheduleStartedAt: isoTime,
  /** Starts of its share that were already past when it joined (counted as dropped). */
  missedAtJoin: count,
});
export type ShardInfo = z.infer<typeof ShardInfo>;

/** Iterations of the schedule: taken (scheduled), started, and dropped (cap reached or missed). */
export const IterationCounts = z.strictObject({
  scheduled: count,
  started: count,
  dropped: count,
});
export type IterationCounts = z.infer<typeof IterationCounts>;

/**
 * A scenario whose process ended before it finished, rebuilt from the run's journal: its data
 * up to the last recorded second, no verdict of its own (thresholds are not judged).
 */
export const ScenarioIncomplete = z.strictObject({
  /** Schedule time covered by the recorded seconds, ms from the schedule's start. */
  recordedMs: nonNeg,
  note: z.string(),
});
export type ScenarioIncomplete = z.infer<typeof ScenarioIncomplete>;

export const LoadScenarioResult = z.strictObject({
  name: z.string(),
  description: z.string(),
  executor: z.string(),
  /** The validated scenario as run (JSON). */
  config: z.record(z.string(), z.unknown()),
  startedAt: isoTime,
  durationMs: nonNeg,
  steps: z.array(StepResult),
  series: z.array(StepSeries),
  validity: Validity,
  thresholds: z.array(ThresholdResult),
  charts: z.array(Chart),
  verdict: ScenarioVerdict,
  /** Shards merged into this result (qbench merge). */
  shards: count.optional(),
  iterations: IterationCounts.optional(),
  /** Set on the result of one shard (`qbench load --shard i/n`). */
  shard: ShardInfo.optional(),
  /** Set when the scenario did not finish (rebuilt from a journal, or merged with such a shard). */
  incomplete: ScenarioIncomplete.optional(),
});
export type LoadScenarioResult = z.infer<typeof LoadScenarioResult>;

/**
 * What the run cost on an emulator's deployment model (its billing meter, read from
 * /_qbench/counters before and after): emulated worker-seconds and dollars at its price table.
 * Absent on a target that is not an emulator.
 */
export const RunCost = z.strictObject({
  endpointId: z.string(),
  gpuTypeId: z.string(),
  gpuCount: count,
  /** Billed worker-seconds during the run (each worker rounded up to the second), active and flex. */
  billedS: nonNeg,
  activeS: nonNeg,
  flexS: nonNeg,
  /** Unbilled start-up time during the run. */
  initializingS: nonNeg,
  throttledS: nonNeg,
  coldStarts: count,
  /** Jobs that ended COMPLETED or FAILED (timed out included) during the run. */
  jobs: count,
  /** Tokens streamed by modelled streaming jobs. */
  tokens: count,
  /** null: the deployment's GPU has no price. */
  costUsd: nonNeg.nullable(),
  /** null with no price or no job (tokens). */
  costPer1000JobsUsd: nonNeg.nullable(),
  costPerMillionTokensUsd: nonNeg.nullable(),
  priceSource: z.string().nullable(),
});
export type RunCost = z.infer<typeof RunCost>;

export const LoadSection = z.strictObject({ scenarios: z.array(LoadScenarioResult), cost: RunCost.optional() });
export type LoadSection = z.infer<typeof LoadSection>;

// ---------------------------------------------------------------- llm

export const LLM_PATHS = ['openai', 'stream', 'runsync'] as const;
/** openai: the OpenAI-compatible route (SSE with stream on); stream: /run then /stream polled; runsync: /runsync. */
export const LlmPath = z.enum(LLM_PATHS);
export type LlmPath = z.infer<typeof LlmPath>;

/** The load a run offered: an open-loop arrival rate, or a fixed number of requests in flight (closed loop). */
export const LlmLoad = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rate'), ratePerSec: z.number().positive(), arrivals: z.enum(['uniform', 'poisson']) }),
  z.strictObject({ kind: z.literal('concurrency'), concurrency: z.number().int().positive() }),
]);
export type LlmLoad = z.infer<typeof LlmLoad>;

/** One SLO judged over one run (src/load/llm/goodput.ts): a percentile of the run, or met by every request. */
export const LlmSloResult = z.strictObject({
  text: z.string(),
  kind: z.enum(['per-request', 'percentile']),
  metric: z.enum(['ttft', 'itl', 'tpot', 'e2e']),
  /** The run's percentile (percentile SLOs); null when no request gave the metric. */
  valueMs: nonNeg.nullable(),
  /** Requests that met it by themselves (for itl: every gap of theirs). */
  metRequests: count,
  holds: z.boolean(),
});
export type LlmSloResult = z.infer<typeof LlmSloResult>;

/** One request as measured (the first requests of a run; `requestsOmitted` counts the rest). */
export const LlmRequestRecord = z.strictObject({
  /** Intended start, ms after the run's start. */
  startMs: nonNeg,
  /** HTTP status of the request that made the answer (0: no answer). */
  status: count,
  ok: z.boolean(),
  ttftMs: nonNeg.nullable(),
  e2eMs: nonNeg,
  tpotMs: nonNeg.nullable(),
  itlMeanMs: nonNeg.nullable(),
  itlMaxMs: nonNeg.nullable(),
  outputTokens: count,
  inputTokens: count.nullable(),
  tokenSource: z.enum(['usage', 'chunks']),
  chunks: count,
  /** Native paths: time to the /run answer, the record's delayTime (real ms), and the rest of TTFT (the worker to its first chunk, polling included). */
  submitMs: nonNeg.nullable(),
  delayMs: nonNeg.nullable(),
  workerFirstChunkMs: nonNeg.nullable(),
  cold: z.boolean().nullable(),
  error: z.string().optional(),
});
export type LlmRequestRecord = z.infer<typeof LlmRequestRecord>;

/** One path at one load level. */
export const LlmRun = z.strictObject({
  path: LlmPath,
  api: z.enum(['chat', 'completions']),
  /** The answer was streamed (SSE on openai; always on stream; never on runsync). */
  streamed: z.boolean(),
  load: LlmLoad,
  /** 'sweep-serial', 'sweep-saturation', 'sweep-rate' in a sweep; 'fixed' otherwise. */
  role: z.enum(['fixed', 'sweep-serial', 'sweep-saturation', 'sweep-rate']),
  startedAt: isoTime,
  /** The schedule's length. */
  durationMs: nonNeg,
  /** From the first intended start to the last answer: the denominator of every rate. */
  wallMs: nonNeg,
  requests: z.strictObject({
    scheduled: count,
    /** Not sent: the in-flight cap was reached at their intended start. */
    dropped: count,
    completed: count,
    failed: count,
    statusCodes: z.record(z.string(), count),
    /** The first distinct failure messages. */
    errors: z.array(z.string()),
  }),
  /**
   * How the output tokens were counted: requests whose server sent `usage`, and those counted from
   * chunks; `chunksDisagree`: requests whose usage differs from the tokens counted from their chunks
   * (the server put several tokens in a chunk without listing them: their ITL samples are per chunk).
   */
  tokenSource: z.strictObject({ usage: count, chunks: count, chunksDisagree: count }),
  ttft: LatencySummary,
  /** One sample per token after the first (a chunk of k tokens after a gap g gives k samples of g/k). */
  itl: LatencySummary,
  tpot: LatencySummary,
  e2e: LatencySummary,
  /** Per request, output tokens per second of its e2e (values are tokens/s, not ms). */
  outputTokensPerSecPerRequest: Percentiles,
  throughput: z.strictObject({
    requestsPerSec: nonNeg,
    outputTokensPerSec: nonNeg,
    inputTokensPerSec: nonNeg.nullable(),
    goodputPerSec: nonNeg,
    /** Mean requests in flight (sum of e2e over the wall time, Little's law). */
    meanConcurrency: nonNeg,
  }),
  goodRequests: count,
  slos: z.array(LlmSloResult),
  /** Native paths: TTFT split into its parts. */
  ttftSplit: z.strictObject({ submit: LatencySummary, delay: LatencySummary, workerFirstChunk: LatencySummary }).optional(),
  /** Requests told cold or warm, and TTFT of each; `by` says how. */
  coldWarm: z
    .strictObject({
      by: z.string(),
      cold: z.strictObject({ count: count, ttft: Percentiles }),
      warm: z.strictObject({ count: count, ttft: Percentiles }),
    })
    .optional(),
  /** §2.3 stream-chunk metrics over time, the last value of each second: columns named by `fields`. */
  engineMetrics: z.strictObject({ fields: z.array(z.string()), points: z.array(z.array(z.number())) }).optional(),
  /** The generator kept its schedule: send lateness (intended vs actual send). */
  validity: z.strictObject({ valid: z.boolean(), reasons: z.array(z.string()), sendLateness: Percentiles }),
  /** The first completed request's text (truncated), for comparing the paths. */
  sampleText: z.string().optional(),
  requestRecords: z.array(LlmRequestRecord),
  requestsOmitted: count,
  /** Sweep: the level did not keep up with its offered rate. */
  saturated: z.boolean().optional(),
});
export type LlmRun = z.infer<typeof LlmRun>;

export const LlmSection = z.strictObject({
  model: z.string().nullable(),
  mode: z.enum(['constant', 'poisson', 'concurrency', 'sweep']),
  workload: z.strictObject({
    prompt: z.string(),
    output: z.string(),
    dataset: z.string().optional(),
    seed: z.number().int(),
    /** How prompt lengths were made without a tokenizer, and the error to expect. */
    approximation: z.string(),
  }),
  slos: z.array(z.string()),
  runs: z.array(LlmRun),
  /** On an emulator: what the whole run cost on its deployment model's billing meter. */
  cost: RunCost.optional(),
  /** That cost over the output tokens the runs counted, per million; null without a price or a token. */
  costPerMillionOutputTokensUsd: nonNeg.nullable().optional(),
  /** Sweep: per path, the highest offered rate whose run met every SLO (null: none did, or no SLO was given). */
  sweepAnswers: z.array(z.strictObject({ path: LlmPath, maxRatePerSec: nonNeg.nullable(), saturationRatePerSec: nonNeg.nullable() })).optional(),
});
export type LlmSection = z.infer<typeof LlmSection>;

// ---------------------------------------------------------------- fuzz

export const FuzzProperty = z.strictObject({
  name: z.string(),
  clause: Clause,
  kind: z.enum(['validation', 'state-machine']),
  status: z.enum(['pass', 'fail', 'error']),
  runs: count,
  durationMs: nonNeg,
  /** fast-check replay data and the shrunk counterexample, when it failed. */
  finding: z
    .strictObject({
      seed: z.number().int(),
      path: z.string(),
      counterexample: z.string(),
      expected: z.string(),
      observed: z.string(),
      curl: z.string().optional(),
      exchanges: z.array(HttpExchange),
    })
    .optional(),
  error: z.string().optional(),
});
export type FuzzProperty = z.infer<typeof FuzzProperty>;

export const FuzzSection = z.strictObject({
  seed: z.number().int(),
  numRuns: count,
  durationMs: nonNeg,
  properties: z.array(FuzzProperty),
});
export type FuzzSection = z.infer<typeof FuzzSection>;

// ---------------------------------------------------------------- plan

/** One setting of the scaling settings a plan sweeps (src/sim/types.ts ScalingSettings). */
export const PlanSetting = z.strictObject({
  workersMin: count,
  workersMax: z.number().int().positive(),
  idleTimeoutS: z.number().int().positive(),
  scalerType: z.enum(['QUEUE_DELAY', 'REQUEST_COUNT']),
  /** Seconds of queue delay (QUEUE_DELAY) or jobs per worker (REQUEST_COUNT). */
  scalerValue: z.number().int().positive(),
});
export type PlanSetting = z.infer<typeof PlanSetting>;

/** An SLO as parsed from --slo: a latency quantile below a duration, or the cold-start share below a percentage. */
export const PlanSlo = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('latency'), text: z.string(), metric: z.enum(['e2e', 'delay']), percentile: z.number().positive().max(100), thresholdMs: nonNeg, inclusive: z.boolean() }),
  z.strictObject({ kind: z.literal('cold-share'), text: z.string(), maxShare: z.number().min(0).max(1), inclusive: z.boolean() }),
]);
export type PlanSlo = z.infer<typeof PlanSlo>;

const msOrNull = nonNeg.nullable();
export const PlanLatency = z.strictObject({ p50Ms: msOrNull, p90Ms: msOrNull, p95Ms: msOrNull, p99Ms: msOrNull });
export type PlanLatency = z.infer<typeof PlanLatency>;

export const PlanCost = z.strictObject({ total: nonNeg, active: nonNeg, flex: nonNeg, idle: nonNeg });
export type PlanCost = z.infer<typeof PlanCost>;

/** One setting of the grid, its seeds simulated and aggregated. */
export const PlanPoint = z.strictObject({
  setting: PlanSetting,
  /** USD per simulated hour, split by what was billed (active workers, flex workers, of which idle: workers up with no job, idle timeouts and active workers waiting); the mean over seeds. */
  costPerHourUsd: PlanCost,
  /** Latency quantiles of completed jobs: the worst seed's, quantile by quantile. */
  e2e: PlanLatency,
  delay: PlanLatency,
  /** Cold starts begun per simulated hour, the mean over seeds. */
  coldStartsPerHour: nonNeg,
  /** Share of jobs that waited for a starting worker, the worst seed's. */
  coldStartJobShare: z.number().min(0).max(1),
  /** Jobs that did not complete (failed, timed out, expired), share of arrived, the worst seed's. */
  notCompletedShare: z.number().min(0).max(1),
  peakWorkers: count,
  /** Per SLO (in the order of `slos`): the figure judged (worst seed), null when no job completed. */
  sloFigures: z.array(nonNeg.nullable()),
  /** Per SLO: met on every seed. */
  meets: z.array(z.boolean()),
  /** Within --budget (true when none was given). */
  withinBudget: z.boolean(),
});
export type PlanPoint = z.infer<typeof PlanPoint>;

/** Why a setting missed one SLO: by how much, and what the figures put it down to. */
export const PlanMiss = z.strictObject({
  /** Index into `slos`. */
  slo: count,
  observed: nonNeg.nullable(),
  threshold: nonNeg,
  /** observed - threshold, in the SLO's unit (ms or share); null when nothing completed. */
  overBy: z.number().nullable(),
  /**
   * queue-wait: jobs waited for busy workers; cold-starts: for starting ones; execution: the
   * delay is small, the handler's time and the service's overhead make up the figure (no
   * scaling setting helps); not-completed: jobs did not complete.
   */
  cause: z.enum(['queue-wait', 'cold-starts', 'execution', 'not-completed']),
  explanation: z.string(),
});
export type PlanMiss = z.infer<typeof PlanMiss>;

export const PlanNearMiss = z.strictObject({
  /** Index into `points`. */
  point: count,
  /** How it differs from the chosen setting, in words. */
  differs: z.string(),
  misses: z.array(PlanMiss),
});
export type PlanNearMiss = z.infer<typeof PlanNearMiss>;

/** The twin's precision carried into the plan: the named settings re-simulated with every fitted part at each end of its 95% interval. */
export const PlanPrecision = z.strictObject({
  /** The calibration report the intervals come from. */
  source: z.string(),
  /** Each fitted part's interval as factors of its fitted median (a mixture's fast share beside it). */
  parts: z.array(z.strictObject({ part: z.string(), classId: z.string().optional(), lowFactor: nonNeg, highFactor: nonNeg, share: z.strictObject({ p: nonNeg, low: nonNeg, high: nonNeg }).optional() })),
  /** The chosen setting's SLO figures at the fast and slow ends of the intervals (null: too many jobs did not complete). */
  chosen: z.strictObject({ fast: z.array(nonNeg.nullable()), slow: z.array(nonNeg.nullable()), meetsAtSlow: z.boolean() }).optional(),
  /** Indexes into `points` of the settings cheaper than the chosen one that meet every SLO at the fast end. */
  cheaperMeetingAtFast: z.array(count),
  /** Where the choice would change inside the intervals, in words; empty when it holds at both ends. */
  warnings: z.array(z.string()),
});
export type PlanPrecision = z.infer<typeof PlanPrecision>;

export const PlanSection = z.strictObject({
  twin: z.strictObject({
    /** The twin's emulator config file. */
    file: z.string(),
    endpointId: z.string(),
    gpuTypeId: z.string(),
    gpuCount: z.number().int().positive(),
    flexPerS: nonNeg,
    activePerS: nonNeg,
    priceSource: z.string(),
    /** The twin's own settings, in one line. */
    settings: z.string(),
    /** A long start of one worker (cold start p99, with a throttle wait's p99): a longer wait is queueing. */
    coldStartHighMs: nonNeg,
  }),
  traffic: z.strictObject({ description: z.string(), durationMs: nonNeg }),
  slos: z.array(PlanSlo).min(1),
  budgetPerHourUsd: nonNeg.optional(),
  /** How a setting's seeds are judged: every SLO on the worst seed. */
  aggregation: z.literal('worst-seed'),
  seeds: z.array(z.number().int()).min(1),
  grid: z.strictObject({
    workersMin: z.array(count),
    workersMax: z.array(count),
    idleTimeoutS: z.array(count),
    scalerType: z.array(z.enum(['QUEUE_DELAY', 'REQUEST_COUNT'])),
    scalerValue: z.strictObject({ QUEUE_DELAY: z.array(count), REQUEST_COUNT: z.array(count) }),
    settings: count,
    skippedInvalid: count,
    skippedEquivalent: count,
  }),
  points: z.array(PlanPoint),
  /** Index into `points` of the cheapest setting meeting every SLO within the budget; null when none. */
  chosen: count.nullable(),
  /** Per SLO: indexes into `points` of the cost frontier (no cheaper point has a better figure), cheapest first. */
  frontiers: z.array(z.array(count)),
  /** The settings just cheaper than the chosen one, each with why it misses. */
  nearMisses: z.array(PlanNearMiss),
  /** When nothing meets the SLOs: what would be needed, in words. */
  needed: z.array(z.string()),
  /** With the calibration report: how the answer moves across the twin's precision. */
  precision: PlanPrecision.optional(),
  sweep: z.strictObject({
    simulations: count,
    threads: z.number().int().positive(),
    wallMs: nonNeg,
    /** Events the simulations processed, all together. */
    events: count,
  }),
});
export type PlanSection = z.infer<typeof PlanSection>;

// ---------------------------------------------------------------- LLM plan

/** An SLO of an LLM plan: a percentile of a token metric below a duration (`p99(ttft)<2s`, `p95(itl)<=60ms`). */
export const LlmPlanSlo = z.strictObject({
  text: z.string(),
  metric: z.enum(['ttft', 'itl', 'tpot', 'e2e']),
  /** As written: p50, p75, p90, p95, p99 or p99.9. */
  percentile: z.string(),
  thresholdMs: nonNeg,
  inclusive: z.boolean(),
});
export type LlmPlanSlo = z.infer<typeof LlmPlanSlo>;

/** One setting of an LLM plan: warm workers and the requests each holds at once, simulated. */
export const LlmPlanPoint = z.strictObject({
  workers: z.number().int().positive(),
  /** Requests one worker holds at once (worker-vllm's MAX_CONCURRENCY). */
  jobsPerWorker: z.number().int().positive(),
  ttft: z.strictObject({ p50Ms: msOrNull, p99Ms: msOrNull }),
  itl: z.strictObject({ p50Ms: msOrNull, p99Ms: msOrNull }),
  /** Output tokens per second served to the measured requests. */
  outputTokensPerSec: nonNeg,
  /** Share of the measured requests that completed. */
  completedShare: z.number().min(0).max(1),
  /** Per SLO (in the order of `slos`): the figure judged, ms; null when no request gave one. */
  sloFigures: z.array(msOrNull),
  /** Per SLO: met. */
  meets: z.array(z.boolean()),
  /** The offered output tokens per second exceed what the workers decode at most: not simulated (the queue would grow without bound). */
  overloaded: z.boolean(),
  /** The workers kept up all hour, at the active price. */
  costPerHourUsd: nonNeg,
  /** Cost per hour over the output tokens served per hour x 1,000,000; null when nothing was served. */
  costPerMillionOutputTokensUsd: nonNeg.nullable(),
  /** Within --budget (true when none was given). */
  withinBudget: z.boolean(),
});
export type LlmPlanPoint = z.infer<typeof LlmPlanPoint>;

export const LlmPlanSection = z.strictObject({
  twin: z.strictObject({
    /** The twin's emulator config file. */
    file: z.string(),
    endpointId: z.string(),
    gpuTypeId: z.string(),
    gpuCount: z.number().int().positive(),
    /** One worker's price per hour at the active rate. */
    pricePerWorkerHourUsd: nonNeg,
    /** The engine's rates, in one line. */
    engine: z.string(),
  }),
  traffic: z.strictObject({
    /** Poisson arrivals, requests per second. */
    ratePerSec: z.number().positive(),
    durationS: z.number().positive(),
    /** Requests arriving before this are not measured. */
    warmupS: nonNeg,
    promptTokens: z.number().int().positive(),
    outputTokens: z.number().int().positive(),
    /** What the simulated clients read: OpenAI chat server-sent events or the native stream. */
    path: z.enum(['chat', 'native']),
  }),
  slos: z.array(LlmPlanSlo).min(1),
  budgetPerHourUsd: nonNeg.optional(),
  seed: z.number().int(),
  /** Worker counts and per-worker concurrencies tried; each concurrency bisects the worker counts. */
  grid: z.strictObject({ workers: z.array(z.number().int().positive()), jobsPerWorker: z.array(z.number().int().positive()) }),
  points: z.array(LlmPlanPoint),
  /** Index into `points` of the fewest workers meeting every SLO within the budget (of those, the highest concurrency); null when none. */
  chosen: count.nullable(),
  /** The answer in one line. */
  answer: z.string(),
  /** Settings cheaper than the chosen one (fewer workers), each with why it misses. */
  nearMisses: z.array(z.strictObject({ point: count, misses: z.array(z.string()) })),
  /** When nothing meets the SLOs: what would be needed, in words. */
  needed: z.array(z.string()),
  sweep: z.strictObject({ simulations: count, wallMs: nonNeg }),
});
export type LlmPlanSection = z.infer<typeof LlmPlanSection>;

// ---------------------------------------------------------------- the whole result

export const OverallVerdict = z.strictObject({
  status: z.enum(['pass', 'fail', 'invalid', 'error']),
  exitCode: z.number().int(),
  reasons: z.array(z.string()),
  /** Set when the run was judged with --strict (inconclusive checks fail it). */
  strict: z.boolean().optional(),
});
export type OverallVerdict = z.infer<typeof OverallVerdict>;

/**
 * The run's process ended before it wrote its result: this result was rebuilt from its journal
 * (`qbench report <dir>`). Verdicts stand only for the units (checks, properties, scenarios)
 * that finished; the one in progress is partial, the rest did not run.
 */
export const RunIncomplete = z.strictObject({
  /** "the process ended at <time>; the last <n> s were not recorded". */
  note: z.string(),
  /** The time of the journal's last complete line: the last sign of life. */
  processEndedAt: isoTime,
  /** At most this much of the run before the process ended is missing (ms). */
  unrecordedMs: nonNeg,
  /** Units that started and did not finish (their data up to the last recorded second is kept). */
  partial: z.array(z.string()),
  notRun: z.array(z.string()),
  /** On a merged result: the inputs that were rebuilt from a journal. */
  partialSources: z.array(z.string()).optional(),
});
export type RunIncomplete = z.infer<typeof RunIncomplete>;

export const QbenchResult = z.strictObject({
  schemaVersion: z.string().regex(/^\d+\.\d+\.\d+$/),
  kind: z.literal('qbench-result'),
  meta: RunMeta,
  incomplete: RunIncomplete.optional(),
  conformance: ConformanceSection.optional(),
  load: LoadSection.optional(),
  fuzz: FuzzSection.optional(),
  plan: PlanSection.optional(),
  llm: LlmSection.optional(),
  /** `qbench plan --llm`: workers and per-worker concurrency of an LLM endpoint for token SLOs. */
  llmPlan: LlmPlanSection.optional(),
  overall: OverallVerdict,
});
export type QbenchResult = z.infer<typeof QbenchResult>;
