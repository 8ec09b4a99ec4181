// qbench's public API, the package root: what a user's own files and scripts use. The config
// helper (also alone on the light `qbench/config` entry), the types a load scenario or worker
// handler is written against, the programmatic entry points docs/reference/api.md documents (emulator,
// reference worker, typed clients), errors to branch on, and reading a saved result.
// Everything else is internal; test/unit/public-api.test.ts lists these names.
export { VERSION } from './version.js';
export { EXIT } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export { QbenchError, isQbenchError } from './errors.js';
export type { ErrorCode } from './errors.js';

// Config files (qbench.config.*).
export { defineConfig } from './config/define.js';
export type { QbenchConfigInput } from './config/define.js';

// Load scenarios: the default export of a scenario file and what its steps and hooks receive.
export type {
  ScenarioInput as LoadScenarioInput, ScenarioModuleExport, ScenarioFactoryContext, ScenarioHooks, IterationContext,
  RunContext as LoadRunContext, Analysis as LoadAnalysis, LoadTarget, CustomStepFn, ThresholdSpec,
} from './load/index.js';

// Conformance checks: a check's definition, its context and its verdict helpers.
export { CheckFailure, CheckSkip, fail as failCheck, skip as skipCheck } from './conformance/index.js';
export type { CheckDefinition, CheckContext, CheckPass, CheckTag } from './conformance/index.js';

// The reference worker and the environment it attaches with.
export { runWorker, urlsFromEnv, emulatorUrls, workerEnv, formatShellEnv } from './worker/index.js';
export type { WorkerHandler, WorkerJob, WorkerJobContext, WorkerOptions, WorkerStats, WorkerUrls, WorkerEnvOptions } from './worker/index.js';

// The emulator, in-process (tests, benches), with simulated workers' handlers of your own.
export { startEmulator } from './emulator/index.js';
export type {
  EmulatorHandle, StartOptions as EmulatorStartOptions, EmulatorConfigInput, Handler as EmulatorHandler,
  HandlerContext as EmulatorHandlerContext, HandlerOutcome as EmulatorHandlerOutcome,
} from './emulator/index.js';

// Typed clients of the three interfaces, their 429 policy and their errors.
export {
  QueueClient, TemplateClient, PodClient, DEFAULT_BACKOFF, ClientError, HttpStatusError, SchemaMismatchError, RateLimitedError,
  RequestTimeoutError, RequestAbortedError, NetworkError, InvalidRequestError, GraphqlError,
} from './client/index.js';
export type {
  AttemptRecord, BackoffOptions, RequestOptions, QueueClientOptions, StreamEnd, TemplateClientOptions, PodClientOptions,
} from './client/index.js';

// A saved result (result.json) and a comparison (comparison.json).
export { SCHEMA_VERSION, readResult, parseResult } from './result/index.js';
export type {
  QbenchResult, QbenchComparison, ConformanceSection, CheckResult, LoadSection, LoadScenarioResult, FuzzSection, OverallVerdict,
  VerdictStatus,
} from './result/index.js';
