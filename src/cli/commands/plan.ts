// `qbench plan --twin <emulator.json> --rate <jobs/s> --duration <d> | --traffic <file> --slo ...`:
// simulate the twin on a virtual clock over a grid of scaling settings, several seeds each, on
// worker threads, and answer with the cheapest setting that meets every SLO, the cost frontier
// and the near misses. With --llm (--prompt-tokens, --output-tokens, token SLOs such as
// p99(ttft)<2s): the twin's engine, the fewest warm workers and their per-worker concurrency, with
// the cost per million output tokens. Writes every report format; exit 0 a setting meets the
// SLOs, 1 none does (with what would be needed), 2 bad flags, twin or traffic file.
import { z } from 'zod';
import { AXIS_FORMS, AXIS_RULES, axisSchema, ScalerTypeList } from '../../plan/grid.js';
import { LLM_SLO_FORMS, PlanSloList, SLO_FORMS } from '../../plan/slo.js';
import { MAX_DURATION_S, MAX_RATE_PER_SEC } from '../../sim/traffic.js';
import { DurationMs, EndpointId } from '../../spec/index.js';
import { defineCommand, lazyRun } from '../command.js';
import { option, wholeNumber } from '../options.js';
import { outOption } from '../target-options.js';

export const PLAN_DEFAULTS = { seeds: 3, seed: 1 } as const;
/** Most seeds per setting and threads: a sweep is their product with the grid. */
const MAX_SEEDS = 20;
const MAX_THREADS = 64;

const axis = (rule: Parameters<typeof axisSchema>[0]) => axisSchema(rule).optional();

/** --llm: the bounds of a request's tokens and of a worker's concurrency (worker-vllm's MAX_CONCURRENCY). */
export const LLM_PLAN_LIMITS = { tokens: 1_000_000, jobsPerWorker: 1_000 } as const;

export const PLAN_OPTIONS = {
  twin: option({ flag: 'twin', schema: z.string({ error: 'is required: the emulator config to simulate (the emulator.json `qbench calibrate` writes, or any emulator config)' }).min(1), help: 'The twin: the emulator.json `qbench calibrate` writes, or any emulator config file' }),
  calibration: option({ flag: 'calibration', schema: z.string().min(1).optional(), defaultHelp: 'calibration.json beside the twin, when there is one', help: "The calibration report whose 95% intervals of the twin's fitted parts the answer is re-simulated at ('none': do not)" }),
  endpoint: option({ flag: 'twin-endpoint', schema: EndpointId.optional(), help: "The twin's endpoint to simulate, when it serves several (default: its first)" }),
  traffic: option({ flag: 'traffic', schema: z.string().min(1).optional(), help: 'A traffic profile (JSON: constant, Poisson, daily curve, steps, replay; bursts; input classes), instead of --rate/--duration' }),
  ratePerSec: option({ flag: 'rate', kind: 'number', schema: z.number({ error: 'must be jobs per second' }).positive({ error: `must be above 0 and at most ${MAX_RATE_PER_SEC}` }).max(MAX_RATE_PER_SEC, { error: `must be above 0 and at most ${MAX_RATE_PER_SEC}` }).optional(), help: "Poisson arrivals of the twin's default input, jobs/s (with --duration); with --llm, requests/s" }),
  durationMs: option({ flag: 'duration', schema: DurationMs.pipe(z.number().positive({ error: 'must be above 0' }).max(MAX_DURATION_S * 1_000, { error: 'must be at most 168h' })).optional(), help: 'Simulated traffic length with --rate, e.g. 1h, 30m (with --llm default 10m, its first tenth not measured)' }),
  slos: option({ flag: 'slo', kind: 'strings', schema: PlanSloList, default: [], help: `An objective every chosen setting meets (repeatable): ${SLO_FORMS}; ${LLM_SLO_FORMS}` }),
  budgetPerHourUsd: option({ flag: 'budget', kind: 'number', schema: z.number({ error: 'must be dollars per hour' }).positive({ error: 'must be above 0 ($/h)' }).optional(), help: 'Most dollars per hour: a setting that costs more is out' }),
  workersMin: option({ flag: 'workers-min', schema: axis(AXIS_RULES.workersMin), help: `Active workers tried: ${AXIS_FORMS} (default 0..2 and the twin's own; with --llm the warm workers, default 1..8)` }),
  workersMax: option({ flag: 'workers-max', schema: axis(AXIS_RULES.workersMax), help: "Max workers tried (default 1 up to the account's cap of 5, or the twin's own max if higher)" }),
  idleTimeoutS: option({ flag: 'idle-timeout', schema: axis(AXIS_RULES.idleTimeoutS), help: "Idle timeouts tried, seconds (default 1,5,15,60,300 and the twin's own)" }),
  scalerType: option({ flag: 'scaler-type', schema: ScalerTypeList.optional(), help: 'Scaler types tried: QUEUE_DELAY, REQUEST_COUNT or both, comma-separated (default both)' }),
  scalerValue: option({ flag: 'scaler-value', schema: axis(AXIS_RULES.scalerValue), help: 'Scaler values tried for every type: s of queue delay or jobs per worker (default 1,2,4)' }),
  seeds: option({ flag: 'seeds', kind: 'number', schema: wholeNumber(1, MAX_SEEDS).optional(), defaultHelp: String(PLAN_DEFAULTS.seeds), help: 'Seeds per setting; every SLO is judged on the worst (not with --llm: one seed, --seed)' }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }), default: PLAN_DEFAULTS.seed, help: 'The first seed (seeds are seed, seed+1, ...)' }),
  threads: option({ flag: 'threads', kind: 'number', schema: wholeNumber(1, MAX_THREADS).optional(), defaultHelp: 'available parallelism', help: 'Worker threads of the sweep (1: on the main thread)' }),
  llm: option({ flag: 'llm', kind: 'boolean', schema: z.boolean(), default: false, help: "Plan an LLM endpoint on the twin's engine (deployments.<id>.engine): warm workers and per-worker concurrency for token SLOs, with --rate, --prompt-tokens, --output-tokens" }),
  promptTokens: option({ flag: 'prompt-tokens', kind: 'number', schema: wholeNumber(1, LLM_PLAN_LIMITS.tokens).optional(), help: 'With --llm: prompt tokens of every request' }),
  outputTokens: option({ flag: 'output-tokens', kind: 'number', schema: wholeNumber(1, LLM_PLAN_LIMITS.tokens).optional(), help: 'With --llm: output tokens of every request (max_tokens)' }),
  jobsPerWorker: option({ flag: 'jobs-per-worker', schema: axis({ min: 1, max: LLM_PLAN_LIMITS.jobsPerWorker }), help: `With --llm: per-worker concurrencies tried (MAX_CONCURRENCY), ${AXIS_FORMS} (default 1,2,4,8,16,32,64)` }),
  out: outOption,
};

export const planCommand = defineCommand({
  options: PLAN_OPTIONS,
  builder: (y) =>
    y
      .example("$0 plan --twin reports/calibrate-x/emulator.json --rate 5 --duration 1h --slo 'p99(e2e)<8s'", 'cheapest settings keeping p99 under 8 s at 5 jobs/s')
      .example("$0 plan --twin emulator.json --traffic traffic.json --slo 'p90(delay)<2s' --slo 'cold(share)<5%' --budget 2 --workers-max 1..10", 'two SLOs, a budget, a wider grid')
      .example("$0 plan --twin emulator.json --llm --rate 2 --prompt-tokens 512 --output-tokens 256 --slo 'p99(ttft)<2s' --slo 'p95(itl)<60ms'", "an LLM endpoint: warm workers, concurrency and cost per million output tokens"),
  run: lazyRun(async () => (await import('./plan-run.js')).runPlanCommand),
});
