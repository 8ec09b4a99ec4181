// qbench public API: named exports only.
export { EXIT, EXIT_DESCRIPTIONS } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export { QbenchError, ERROR_CODES, redactSecrets, registerSecret, isQbenchError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { VERSION } from './version.js';
export {
  QueueClient, TemplateClient, PodClient, HttpCore, DEFAULT_BACKOFF, withBackoff, ClientError, HttpStatusError, SchemaMismatchError,
  RateLimitedError, RequestTimeoutError, RequestAbortedError, NetworkError, InvalidRequestError, GraphqlError,
} from './client/index.js';
export type {
  AttemptRecord, BackoffOptions, RequestOptions, QueueClientOptions, StreamEnd, TemplateClientOptions, PodClientOptions,
} from './client/index.js';
