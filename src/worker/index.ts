// The reference queue worker (issue 9): `runWorker` and its types.
export { runWorker, urlsFromEnv, emulatorUrls } from './worker.js';
export type { WorkerHandler, WorkerJob, WorkerJobContext, WorkerOptions, WorkerStats, WorkerUrls } from './worker.js';
