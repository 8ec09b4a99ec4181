// The reference queue worker: `runWorker` and its types, and the environment a
// worker process needs to attach to an emulator endpoint.
export { runWorker, urlsFromEnv, emulatorUrls } from './worker.js';
export type { WorkerHandler, WorkerJob, WorkerJobContext, WorkerOptions, WorkerStats, WorkerUrls } from './worker.js';
export { workerEnv, formatShellEnv, MIN_WORKER_PING_INTERVAL_MS } from './worker-env.js';
export type { WorkerEnvOptions } from './worker-env.js';
