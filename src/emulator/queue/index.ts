// The queue endpoint of the emulator (§2.1-§2.4, §3.1, §4.1, §6, §8, the WIRE-COMPAT queue and
// worker routes): endpoints and their jobs, workers and handlers, rate limits, webhooks. The HTTP
// routes onto them (client operations, the worker protocol) live in ../http/, beside the server.
export { QueueEndpoint } from './endpoint.js';
export type { EndpointObserver, SubmitOptions } from './endpoint.js';
export { EndpointRateLimiter, rulesWithOverrides, UNLIMITED, HOLD_MAX_REAL_MS } from './rate-limiter.js';
export type { RuleInForce } from './rate-limiter.js';
export { WebhookDispatcher } from './webhooks.js';
export { RequestValidator } from './requests.js';
export type { PoolSettings, Worker } from './worker-pool.js';
export { DeploymentModel } from './deployment-model.js';
export { mockWorkerHandler } from './handlers/mock-worker.js';
export type { Handler, HandlerContext, HandlerOutcome } from './handlers/types.js';
