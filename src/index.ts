// qbench public API: named exports only.
export { EXIT, EXIT_DESCRIPTIONS } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export { QbenchError, ERROR_CODES, redactSecrets, registerSecret, isQbenchError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { VERSION } from './version.js';
export { defineConfig, QbenchConfig, loadConfig } from './config/index.js';
export type { QbenchConfigInput, ConfigTarget, LoadedConfig } from './config/index.js';
export {
  startEmulator, parseEmulatorConfig, EmulatorConfigSchema, ScaledClock, ManualClock, FAULTS, FAULT_NAMES, isFaultName,
  infoDocument, countersDocument,
} from './emulator/index.js';
export type {
  EmulatorHandle, StartOptions as EmulatorStartOptions, EmulatorConfig, EmulatorConfigInput, Clock, FaultName, FaultSet,
  Handler as EmulatorHandler, HandlerContext as EmulatorHandlerContext, HandlerOutcome as EmulatorHandlerOutcome,
} from './emulator/index.js';
export { runWorker, urlsFromEnv, emulatorUrls, workerEnv, formatShellEnv } from './worker/index.js';
export type { WorkerHandler, WorkerJob, WorkerJobContext, WorkerOptions, WorkerStats, WorkerUrls, WorkerEnvOptions } from './worker/index.js';
export {
  QueueClient, TemplateClient, PodClient, HttpCore, DEFAULT_BACKOFF, withBackoff, ClientError, HttpStatusError, SchemaMismatchError,
  RateLimitedError, RequestTimeoutError, RequestAbortedError, NetworkError, InvalidRequestError, GraphqlError,
} from './client/index.js';
export type {
  AttemptRecord, BackoffOptions, RequestOptions, QueueClientOptions, StreamEnd, TemplateClientOptions, PodClientOptions,
} from './client/index.js';
export {
  SCHEMA_VERSION, QbenchResult, QbenchComparison, readResult, parseResult, computeOverall, collectMachineInfo, buildMeta,
  renderJson, renderHtml, renderJunit, renderMarkdown, renderConsole, renderComparisonHtml, renderComparisonJunit,
  renderComparisonMarkdown, renderComparisonConsole, writeAllReports, writeComparisonReports, compareResults,
  parseMaxRegression, mergeResults, createHistogram, recordMs, encodeHistogram, decodeHistogram, mergeHistograms,
  mergeEncoded, percentilesOf, summarize, evaluateThresholds,
} from './report/index.js';
export type { WrittenReports, CompareOptions, MergeInput, Histogram, ThresholdSpec } from './report/index.js';
export {
  runFuzz, resolveFuzzTarget, fuzzResult, describeProperty, replayCommand, PROPERTY_NAMES as FUZZ_PROPERTY_NAMES,
  classifyJobRequest, classifyPayload, classifyStatusTtl, classifyTemplateCreate, classifyTemplateUpdate, classifyPodInput,
} from './fuzz/index.js';
export type { FuzzRunOptions, FuzzRunResult, FuzzTarget, ResolvedFuzzTarget, Expectation } from './fuzz/index.js';
export {
  runChecks, connectTarget, startEmulatorTarget, buildResult as buildConformanceResult, buildCoverage, renderCoverageMarkdown,
  loadExpectations, parseExpectations, runSelfTest, renderDetectionTable, Probe, CheckFailure, CheckSkip, fail as failCheck,
  skip as skipCheck, CHECK_TAGS,
} from './conformance/index.js';
export type {
  CheckDefinition, CheckContext, CheckPass, CheckTag, Suite, ClauseDef, Target as ConformanceTarget, RunOptions as ConformanceRunOptions,
  SelfTestReport, SelfTestRow, LoadedExpectations,
} from './conformance/index.js';
export {
  parseScenario, runScenario, runLoad, loadScenarioFile, resolveTarget as resolveLoadTarget, knownMetrics as loadMetricNames,
  HARD_LIMITS as LOAD_HARD_LIMITS,
} from './load/index.js';
export type {
  Scenario as LoadScenario, ScenarioInput as LoadScenarioInput, LoadTarget, IterationContext, RunContext as LoadRunContext,
  Analysis as LoadAnalysis, ScenarioHooks, ScenarioFactoryContext, RunLoadOptions, ProgressSnapshot,
} from './load/index.js';
