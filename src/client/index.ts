// Typed clients of the three interfaces (§4.1 queue, §4.2 templates, §4.3 pods) on one
// undici HTTP core, with the shared 429 policy and typed, redacted errors.
export {
  DEFAULT_BACKOFF, resolveBackoff, backoffCeilingMs, jitteredDelayMs, parseRetryAfterMs, nextWaitMs, withBackoff, realSleep,
} from './backoff.js';
export type { AttemptRecord, BackoffOptions, AttemptOutcome, BackoffRuntime, BackoffResult } from './backoff.js';
export {
  ClientError, HttpStatusError, SchemaMismatchError, RateLimitedError, RequestTimeoutError, RequestAbortedError,
  NetworkError, InvalidRequestError, GraphqlError, summarizeCause,
} from './errors.js';
export type { RequestTarget, CauseSummary, MismatchReason, GraphqlErrorEntry } from './errors.js';
export { HttpCore, DEFAULT_TIMEOUT_MS, encodePathSegment } from './http-core.js';
export type { AuthScheme, RequestOptions, HttpCoreOptions, CallSpec, HttpAnswer } from './http-core.js';
export { QueueClient, DEFAULT_POLL_INTERVAL_MS } from './queue-client.js';
export type {
  QueueAuthForm, QueueClientOptions, JobRequestInput, RunSyncOptions, StatusOptions, PollOptions, WaitForJobOptions,
  RunSyncToCompletionOptions, StreamEnd,
} from './queue-client.js';
export { TemplateClient } from './template-client.js';
export type { TemplateClientOptions, TemplateCreateInput, TemplateUpdateInput, TemplateUpdateOptions } from './template-client.js';
export { PodClient } from './pod-client.js';
export type { PodClientOptions, GraphqlResult, PodDeployVariables, PodRentVariables, PodResumeVariables, PodBidResumeVariables } from './pod-client.js';
export {
  DOCUMENTS, GRAPHQL_INPUT_TYPES, DEPLOY_SELECTION, RESUME_SELECTION, STOP_SELECTION, POD_SELECTION, GPU_TYPE_SELECTION,
  LOWEST_PRICE_SELECTION,
} from './graphql-documents.js';
