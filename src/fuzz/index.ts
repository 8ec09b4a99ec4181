// Property-based fuzzing of the validation rules and model-based testing of the §3.1 job
// state machine: arbitraries derived from src/spec, the oracle, the runner.
export { runFuzz, allProperties, PROPERTY_NAMES, replayPathOf } from './runner.js';
export type { FuzzRunOptions, FuzzRunResult, FuzzEvent, OracleTally } from './runner.js';
export { resolveFuzzTarget, FUZZ_ENDPOINT, MODEL_ENDPOINT } from './resolve-target.js';
export type { ResolveFuzzTargetOptions, ResolvedFuzzTarget } from './resolve-target.js';
export type { FuzzTarget } from './target.js';
export { fuzzResult, describeProperty, replayCommand } from './fuzz-result.js';
export type { FuzzResultInput } from './fuzz-result.js';
export {
  classifyJobRequest,
  classifyStatusTtl,
  classifyPayload,
  classifyTemplateCreate,
  classifyTemplateUpdate,
  classifyPodInput,
  agrees,
  describeExpectation,
} from './oracle.js';
export type { Expectation } from './oracle.js';
export { jobRequestCase, statusTtlCase, payloadCase, payloadSizes, handlerInput, jobRequestObject } from './queue-cases.js';
export type { JobRequestCase, StatusTtlCase, PayloadCase, JobOperation } from './queue-cases.js';
export { templateCase, templateCreateBody, templateUpdateBody, templateNames } from './template-cases.js';
export type { TemplateCase } from './template-cases.js';
export { podInputCase, POD_DEPLOY_FIELDS } from './pod-cases.js';
export type { PodInputCase } from './pod-cases.js';
export { intAroundBounds, boundaryPoints, queryIntAroundBounds } from './edge-values.js';
export { RateBudget, TokenBucket, DEFAULT_RATE_BUDGET } from './rate-budget.js';
export type { RateBudgetOptions, BudgetOperation } from './rate-budget.js';
export { curlLine, API_KEY_ENV } from './curl.js';
export { Disagreement } from './property.js';
export type { FuzzPropertyDef, PropertyContext } from './property.js';
export { JOB_PLANS } from './model/job-plans.js';
export type { JobPlan, PlanName } from './model/job-plans.js';
export { stateMachineProperty } from './model/model-property.js';
