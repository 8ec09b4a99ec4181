// The options of `qbench load`, declared once: the load command reads them all, and
// `qbench kube render` passes the load-shaping ones (--rate, --duration, --threads, --param,
// --set) on to each shard pod's `qbench load`.
import { z } from 'zod';
import { HARD_LIMITS } from '../load/scenario.js';
import type { ScenarioEntry } from '../load/run-load.js';
import { DurationMs } from '../spec/index.js';
import { configRelativePath, option, wholeNumber } from './options.js';
import { outOption, targetKeyOption, targetOptions } from './target-options.js';

const keyValues = z.array(z.string().regex(/^[^=]+=/, { error: 'must be key=value' })).default([]);
const count = (max: number) => wholeNumber(1, max).optional();
/** A flag given at most once, as text. */
const text = z.string({ error: 'must be given once, as text' }).optional();

export const loadOptions = {
  scenarios: option({ flag: 'scenarios', positional: true, kind: 'strings', schema: z.array(z.string().min(1)).optional(), help: 'Scenario files (.ts/.js modules; default export a scenario, a list, a factory, or defineScenario)' }),
  /** The config file's scenario entries (files with their own params and thresholds), when the command line names none. */
  configScenarios: option({
    schema: z.array(z.custom<ScenarioEntry>()).optional(),
    config: 'load.scenarios',
    fromConfig: (v, dir) => (v as ScenarioEntry[]).map((e) => ({ ...e, file: configRelativePath(e.file, dir) as string })),
  }),
  ...targetOptions(),
  ...targetKeyOption(),
  out: outOption,
  durationMs: option({ flag: 'duration', schema: DurationMs.pipe(z.number().max(HARD_LIMITS.maxDurationMs, { error: `must be at most ${HARD_LIMITS.maxDurationMs / 3_600_000}h` })).optional(), help: 'Override every scenario duration, e.g. 30s, 2m (ramps keep their shape)' }),
  ratePerSec: option({ flag: 'rate', kind: 'number', schema: z.number({ error: 'must be a number' }).positive({ error: 'must be > 0' }).max(HARD_LIMITS.maxRatePerSec, { error: `must be at most ${HARD_LIMITS.maxRatePerSec}/s` }).optional(), help: 'Override the arrival rate (req/s; ramps are scaled to this peak)' }),
  vus: option({ flag: 'vus', kind: 'number', schema: z.number({ error: 'must be a number' }).int({ error: 'must be an integer' }).positive({ error: 'must be >= 1' }).max(HARD_LIMITS.maxVus, { error: `must be at most ${HARD_LIMITS.maxVus}` }).optional(), help: 'Override VUs (closed-loop) or connections (max-throughput)' }),
  threads: option({ flag: 'threads', kind: 'number', schema: count(HARD_LIMITS.maxThreads), help: 'Worker threads generating load (the rate is split exactly)' }),
  maxRequests: option({ flag: 'max-requests', kind: 'number', schema: count(HARD_LIMITS.maxRequests), help: 'Hard cap on HTTP requests per scenario' }),
  set: option({ flag: 'set', kind: 'strings', schema: keyValues, help: 'Override any scenario field: --set path=JSON (e.g. --set maxInFlight=500 --set stages.0.durationMs=5000)' }),
  param: option({ flag: 'param', kind: 'strings', schema: keyValues, help: "A scenario parameter: --param key=value (e.g. --param op=cancel); each scenario's own are in its file" }),
  only: option({ flag: 'only', kind: 'strings', schema: z.array(z.string()).default([]), help: 'Run only the scenarios with these names' }),
  timeScale: option({ flag: 'time-scale', kind: 'number', schema: z.number({ error: 'must be a number' }).positive({ error: 'must be > 0' }).max(100_000, { error: 'must be at most 100000' }).optional(), help: 'Emulator target: emulated ms per real ms' }),
  scaleRateWindows: option({ flag: 'scale-rate-windows', kind: 'boolean', schema: z.boolean().optional(), help: 'Emulator target: rate windows on the scaled clock too' }),
  emulatorConfig: option({ flag: 'emulator-config', schema: z.string().min(1).optional(), help: 'Emulator target: JSON config file (limits, workers...)' }),
  strict: option({ flag: 'strict', kind: 'boolean', schema: z.boolean(), default: false, help: 'An inconclusive scenario (could not set up what it judges) fails the run: for gating on a private endpoint' }),
  shard: option({ flag: 'shard', schema: text, help: 'Run shard i of n (every n-th start of the one global schedule), e.g. --shard 0/4; qbench merge joins the shards' }),
  shards: option({ flag: 'shards', schema: text, help: 'Shard count, the index taken from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)' }),
  startAt: option({ flag: 'start-at', schema: text, help: 'ISO-8601 instant at which every shard starts its schedule (or QBENCH_START_AT)' }),
  metrics: option({ flag: 'metrics', kind: 'strings', schema: z.array(z.string()).default([]), help: 'Stream live metrics every second: prometheus=<remote-write URL> or otlp=<OTLP/HTTP metrics URL> (repeatable); a slow endpoint loses samples, never the schedule' }),
};

