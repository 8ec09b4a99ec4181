// The `qbench/suite` entry: the authoring API of conformance checks and load scenarios, used by
// the checks and scenarios shipped with the package as by a user's own scenario files. A check's
// definition, context and verdicts; a scenario's definition, `--param` schemas and the contexts its
// steps and hooks receive; the spec's limits and answer schemas they judge against.
// test/unit/public-api.test.ts lists these names.

// Conformance checks: definitions, the suite and clause map, verdicts, the probe's exchanges.
export { fail, skip, inconclusive } from '../conformance/check.js';
export type { CheckContext, CheckDefinition, CheckPass, CheckTag, CheckInterface, CheckKind, Evidence } from '../conformance/check.js';
export type { Suite, ClauseDef } from '../conformance/suite.js';
export type { ProbeRequest, ProbeResponse } from '../conformance/probe.js';
export { runPool } from '../conformance/pool.js';
export { CLEAN_WINDOW_FLOOR_REAL_MS } from '../conformance/ledger.js';
export { paddedBodyRecipe } from '../client/curl.js';

// Load scenarios: the definition with its `--param` schemas, and what steps and hooks receive.
export { defineScenario, param, paramError } from '../load/scenario-definition.js';
export type { ParamsOf, ParamSchema, ParamShape, ScenarioContext, ScenarioDefinition, Scenarios, NumberParam } from '../load/scenario-definition.js';
export type { ScenarioInput, CustomStepFn, ThresholdSpec } from '../load/scenario.js';
export type { Analysis, HttpAnswer, IterationContext, LoadTarget, RequestSpec, RunContext, ScenarioHooks } from '../load/context.js';
export type { Finding } from '../result/model.js';
export { sleepUntilAborted } from '../client/sleep.js';
export { notTheTargetsAnswer } from '../target/gateway.js';

// The spec as code: limits, durations and the answer schemas checks and scenarios judge against.
export {
  API_VERSIONS, ASYNC_ID_PATTERN, DEFAULT_REQUESTS_PER_WORKER, EXECUTION_TIMEOUT_MS, HTTP_STATUS, JOB_STATES, MINUTE_MS,
  NO_INSTANCES_MESSAGE, RATE_LIMITS, RATE_WINDOW_MS, RETENTION_MS, RUNSYNC_PAYLOAD, RUNSYNC_WAIT_MS, RUN_PAYLOAD, SECOND_MS,
  STREAM_CHUNK, SYNC_ID_PATTERN, TEMPLATE_DEFAULTS, TTL_MS, WEBHOOK, effectiveRateLimit, isTerminal,
  CancelAnswer, GpuTypeRecord, HealthRecord, JobRecord, PodRecord, PurgeAnswer, RetryAnswer, RunAnswer, StreamAnswer, TemplateRecord,
} from '../spec/index.js';
export type { ByteSize, JobState, RateLimitedOperation } from '../spec/index.js';
