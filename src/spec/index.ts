// The spec as code: limits, schemas, state machines. Imports nothing else of qbench.
export {
  SECOND_MS, MINUTE_MS, HOUR_MS, DAY_MS,
  EXECUTION_TIMEOUT_MS, TTL_MS, RUNSYNC_WAIT_MS,
  BYTES_PER_MB, RUN_PAYLOAD, RUNSYNC_PAYLOAD, STREAM_CHUNK, EMULATOR_MB_READING,
  RETENTION_MS, WEBHOOK, RATE_WINDOW_MS, RATE_LIMITS, DEFAULT_REQUESTS_PER_WORKER,
  effectiveRateLimit, HTTP_STATUS, WORKER_PROTOCOL, API_VERSIONS,
} from './limits.js';
export type { Bounds, ByteSize, RateLimitedOperation, RateRule } from './limits.js';
export { ENDPOINT_ID_MAX_CHARS, ENDPOINT_ID_GRAMMAR, EndpointId, isEndpointId, DURATION_GRAMMAR, parseDurationMs, DurationText, DurationMs } from './grammar.js';
export {
  JOB_STATES, TERMINAL_STATES, isTerminal, TRANSITIONS, RETRYABLE_STATES, CANCELLABLE_STATES,
  nextState, reachableByService,
} from './job-states.js';
export type { JobState, Trigger, ClientTrigger, ServiceTrigger, Transition } from './job-states.js';
export {
  JsonObject, HttpUrl, Policy, applyPolicyDefaults, S3Config, JobRequest, QueryInt, WaitQuery, WaitMs, StatusTtlQuery, StatusTtlMs,
  STATUS_TTL_QUERY_MS, JobStatus,
  JobRecord, SYNC_ID_PATTERN, ASYNC_ID_PATTERN, RunAnswer, RunSyncAnswer, CancelAnswer, RetryAnswer,
  PurgeAnswer, StreamMetrics, TextChunkOutput, StreamChunk, StreamObjectAnswer, StreamAnswer,
  HealthRecord, ErrorBody,
} from './schemas/queue.js';
export {
  TEMPLATE_CATEGORIES, TEMPLATE_DEFAULTS, applyTemplateDefaults, isPortEntry, PortSpec, TemplateCreate, CREATE_ONLY_TEMPLATE_FIELDS,
  TemplateUpdate, TemplateRecord, RestErrorBody,
} from './schemas/template.js';
export {
  POD_STATUSES, POD_STATUSES_EXTRA, STOCK_STATUSES, CLOUD_TYPES, POD_TRANSITIONS, PodRecord,
  GpuTypeRecord, PodDeployInput, PodRentInterruptableInput, PodResumeInput, PodBidResumeInput,
  PodStopInput, PodTerminateInput, PodFilterInput, GpuTypeFilterInput, LowestPriceInput, GraphqlRequest, GraphqlAnswer,
  NO_INSTANCES_MESSAGE,
} from './schemas/pod.js';
export type { ResolvedPolicy } from './schemas/queue.js';
export type { TemplateCreateResolved } from './schemas/template.js';
export { EmulatorInfoDocument, AdvertisedRate, AdvertisedFault, AdvertisedWorkers, EndpointBillingCounters } from './schemas/emulator-info.js';
