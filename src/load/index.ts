// The load engine: scenarios, executors, recording, thresholds, validity, threads.
export { Scenario, parseScenario, stepMetricName, plannedDurationMs, scenarioToJson, HARD_LIMITS, EXECUTORS } from './scenario.js';
export type { ScenarioInput, Step, StepInput, Executor, ThresholdSpec, On429, ValidityLimits, CustomStepFn, InputFactory, RampStage } from './scenario.js';
export type {
  LoadTarget, HttpAnswer, RequestSpec, IterationContext, RunContext, Analysis, ScenarioHooks, TimelineAction, ResultWithoutVerdict,
} from './context.js';
export { runScenario } from './engine.js';
export type { ProgressSnapshot, RunScenarioOptions } from './engine.js';
export { runLoad, loadAll } from './run-load.js';
export type { RunLoadOptions } from './run-load.js';
export { loadScenarioFile, applyOverrides, scenarioInputsOf } from './loader.js';
export type { ScenarioFactoryContext, ScenarioModuleExport, ScenarioOverrides, ScenarioSource, LoadedScenario } from './loader.js';
export { defineScenario, param, paramError, isScenarioDefinition } from './scenario-definition.js';
export type { ScenarioDefinition, ScenarioContext, Scenarios, ParamShape, ParamSchema, ParamsOf, NumberParam } from './scenario-definition.js';
export { resolveTarget } from './target.js';
export type { ResolveTargetOptions, ResolvedTarget } from './target.js';
export { knownMetrics, parseThresholds } from './thresholds.js';
export { schedule, inverseCumulative, expectedCount } from './arrivals.js';
export type { RateSegment, ScheduleOptions, ScheduledIteration } from './arrivals.js';
export { createProgressPrinter, formatProgress } from './progress.js';
export type { ProgressPrinter } from './progress.js';
export { SseParser, SseTokenReader, TokenTimer, tokenMetrics, parseSlo, goodput, type SseEvent, type RequestTokenMetrics, type Slo, type GoodputResult } from './llm/index.js';
