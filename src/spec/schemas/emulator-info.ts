// GET /_qbench/info: what the emulator advertises about itself (time scale, endpoints, the
// limits in force, faults, sub-services' facts) so that suites compute their expectations
// from it. One schema: the emulator builds its answer with it, and the one reader
// (src/target/emulator-info.ts) parses with it. A real service has no such route.
import { z } from 'zod';

const nonNegInt = z.number().int().nonnegative();
const posInt = z.number().int().positive();
const Bounds = z.strictObject({ default: nonNegInt, min: nonNegInt, max: nonNegInt });

export const AdvertisedRate = z.strictObject({
  method: z.string(),
  path: z.string(),
  requestsPerWindow: posInt,
  /** null: no concurrency cap. */
  concurrency: posInt.nullable(),
});

export const AdvertisedFault = z.strictObject({
  name: z.string(),
  clause: z.string(),
  part: z.string(),
  description: z.string(),
});

/**
 * The simulated pool's settings; with external workers only (their capacity unknown) just
 * `{ simulated: false }`, and with a mixed pool no max or jobsPerWorker.
 */
export const AdvertisedWorkers = z.strictObject({
  simulated: z.boolean().optional(),
  min: nonNegInt.optional(),
  max: posInt.optional(),
  jobsPerWorker: posInt.optional(),
  coldStartMs: nonNegInt.optional(),
  idleTimeoutMs: nonNegInt.optional(),
  scaleUpQueueDepth: posInt.optional(),
});

export const EmulatorInfoDocument = z.strictObject({
  name: z.literal('qbench-emulator'),
  version: z.string(),
  /** Emulated ms per real ms. */
  timeScale: z.number().positive(),
  /** true: the 10 s rate windows run on the scaled clock too. */
  scaleRateWindows: z.boolean(),
  endpoints: z.array(z.string()),
  externalWorkers: z.boolean(),
  workerTakeLongPollRealMs: nonNegInt,
  workerStopLongPollRealMs: nonNegInt,
  workerPingIntervalRealMs: nonNegInt,
  workers: AdvertisedWorkers,
  limits: z.strictObject({
    enabled: z.boolean(),
    rateWindowMs: posInt,
    rates: z.record(z.string(), AdvertisedRate),
    requestsPerWorker: nonNegInt,
    dynamicRule: z.string(),
    payload: z.strictObject({
      mbReading: z.string(),
      /** null: the cap is off (fault payload-cap-off). */
      runBytes: posInt.nullable(),
      runsyncBytes: posInt.nullable(),
      tooLargeStatus: z.number().int(),
    }),
    streamChunkBytes: posInt,
    streamChunkMb: z.number().positive(),
    retentionMs: z.strictObject({ run: nonNegInt, runsyncDefault: nonNegInt, runsyncMax: nonNegInt, runsyncRule: z.string() }),
    ttlMs: Bounds.extend({ statusQuery: z.strictObject({ min: nonNegInt, max: nonNegInt, countedFrom: z.string() }) }),
    executionTimeoutMs: Bounds,
    runsyncWaitMs: Bounds.extend({ scaled: z.boolean() }),
    webhook: z.strictObject({ extraAttempts: nonNegInt, retryDelayMs: nonNegInt }),
    streamLongPollRealMs: nonNegInt,
    hold: z.strictObject({
      rule: z.string(),
      operations: z.array(z.string()),
      maxRealMs: nonNegInt,
      endpoints: z.record(z.string(), z.record(z.string(), nonNegInt)),
    }),
  }),
  faults: z.array(AdvertisedFault),
  /** Facts each sub-service (REST templates, GraphQL pods) reports about itself. */
  subServices: z.record(z.string(), z.record(z.string(), z.unknown())),
  /** Deepest JSON nesting a request body may have. */
  jsonMaxDepth: posInt,
  /** Errors the emulator caught in itself, by where they happened. */
  internalErrors: z.strictObject({ total: nonNegInt, request: nonNegInt, timer: nonNegInt, webhook: nonNegInt }),
});
export type EmulatorInfoDocument = z.infer<typeof EmulatorInfoDocument>;

/**
 * GET /_qbench/counters, endpoints.<id>.billing: one endpoint's worker time and its cost by
 * the deployment model's billing meter (src/deployment/billing.ts). Seconds are of
 * emulated time; billedS = activeS + flexS, whole seconds per worker.
 */
export const EndpointBillingCounters = z.strictObject({
  gpuTypeId: z.string(),
  gpuCount: posInt,
  /** Per GPU, $/s, and where the price comes from; null when the GPU type has no price. */
  price: z.strictObject({ flexPerS: z.number().nonnegative(), activePerS: z.number().nonnegative(), source: z.string() }).nullable(),
  workerStarts: nonNegInt,
  coldStarts: nonNegInt,
  throttledStarts: nonNegInt,
  peakWorkers: nonNegInt,
  throttledS: z.number().nonnegative(),
  initializingS: z.number().nonnegative(),
  idleS: z.number().nonnegative(),
  runningS: z.number().nonnegative(),
  billedS: z.number().nonnegative(),
  activeS: z.number().nonnegative(),
  flexS: z.number().nonnegative(),
  /** Tokens streamed by modelled streaming jobs. */
  tokens: nonNegInt,
  costUsd: z.number().nonnegative().nullable(),
});
export type EndpointBillingCounters = z.infer<typeof EndpointBillingCounters>;
