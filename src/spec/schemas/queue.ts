// zod schemas of every request and answer of the queue-based endpoint (§2.1-§2.4, §4.1),
// with the extra fields that WIRE-COMPAT.md says real answers carry.
// Request schemas are what a conforming service must accept; answer schemas are what a
// conforming service may send (extra fields pass through: the spec lists fields, not a closed set).
import { z } from 'zod';
import { EXECUTION_TIMEOUT_MS, RUNSYNC_WAIT_MS, TTL_MS } from '../limits.js';
import { JOB_STATES } from '../job-states.js';

const boundedInt = (b: { min: number; max: number }, what: string) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .int({ error: `${what} must be a whole number of milliseconds` })
    .min(b.min, { error: `${what} must be at least ${b.min} ms` })
    .max(b.max, { error: `${what} must be at most ${b.max} ms` });

/** A JSON object (not an array, not null). */
export const JsonObject = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  { error: 'must be a JSON object' },
);

export const HttpUrl = z
  .string({ error: 'must be a URL string' })
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, { error: 'must be an absolute http(s) URL' });

/** §2.1 policy. */
export const Policy = z.looseObject({
  executionTimeout: boundedInt(EXECUTION_TIMEOUT_MS, 'policy.executionTimeout').optional(),
  lowPriority: z.boolean({ error: 'policy.lowPriority must be a boolean' }).optional(),
  ttl: boundedInt(TTL_MS, 'policy.ttl').optional(),
});
export type Policy = z.infer<typeof Policy>;

/** A policy with the §2.1 defaults filled in. */
export interface ResolvedPolicy {
  readonly executionTimeout: number;
  readonly lowPriority: boolean;
  readonly ttl: number;
}

/** §2.1 defaults: executionTimeout 10 minutes, lowPriority false, ttl 24 hours. */
export function applyPolicyDefaults(policy: Policy | undefined): ResolvedPolicy {
  return {
    executionTimeout: policy?.executionTimeout ?? EXECUTION_TIMEOUT_MS.defaultValue,
    lowPriority: policy?.lowPriority ?? false,
    ttl: policy?.ttl ?? TTL_MS.defaultValue,
  };
}

/** §2.1 s3Config: all fields strings. */
export const S3Config = z.looseObject({
  accessId: z.string().optional(),
  accessSecret: z.string().optional(),
  bucketName: z.string().optional(),
  endpointUrl: z.string().optional(),
});
export type S3Config = z.infer<typeof S3Config>;

/** §2.1 job request body for /run and /runsync. */
export const JobRequest = z.looseObject({
  input: JsonObject,
  webhook: HttpUrl.optional(),
  policy: Policy.optional(),
  s3Config: S3Config.optional(),
});
export type JobRequest = z.infer<typeof JobRequest>;

/** Parse a query-string integer strictly: digits only, no "1e3", no "12abc". */
export const QueryInt = (b: { min: number; max: number }, what: string) =>
  z
    .string()
    .regex(/^-?\d+$/, { error: `${what} must be an integer number of milliseconds` })
    .transform((s) => Number(s))
    .pipe(boundedInt(b, what));

/** §4.1 /runsync `wait` query parameter. */
export const WaitQuery = QueryInt(RUNSYNC_WAIT_MS, 'wait');
/** §4.1 `wait` as a number, before it is written into a query string (clients). */
export const WaitMs = boundedInt(RUNSYNC_WAIT_MS, 'wait');

/**
 * §4.1 /status `ttl` query parameter. The spec's own example (6000 = 6 s) lies below the
 * §2.1 policy.ttl minimum of 10 s, so the query accepts any positive integer up to the
 * 7-day maximum; the conformance suite accepts either reading.
 */
export const STATUS_TTL_QUERY_MS = { min: 1, max: TTL_MS.max } as const;
export const StatusTtlQuery = QueryInt(STATUS_TTL_QUERY_MS, 'ttl');
/** §4.1 `ttl` as a number, before it is written into a query string (clients). */
export const StatusTtlMs = boundedInt(STATUS_TTL_QUERY_MS, 'ttl');

export const JobStatus = z.enum(JOB_STATES);

/** §2.2 job record, plus `workerId` and `error` (WIRE-COMPAT). */
export const JobRecord = z.looseObject({
  id: z.string(),
  status: JobStatus,
  delayTime: z.number().int().optional(),
  executionTime: z.number().int().optional(),
  output: z.unknown().optional(),
  workerId: z.string().optional(),
  error: z.string().optional(),
});
export type JobRecord = z.infer<typeof JobRecord>;

/** §2.2 sync job ids: `sync-` followed by a UUID. */
export const SYNC_ID_PATTERN = /^sync-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** §2.2 async ids: a UUID, possibly with a suffix. */
export const ASYNC_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}.*$/i;

/** §4.1 /run answer. */
export const RunAnswer = z.looseObject({ id: z.string(), status: z.literal('IN_QUEUE') });
export type RunAnswer = z.infer<typeof RunAnswer>;
/** §4.1 /runsync answer: a job record; WIRE-COMPAT: IN_QUEUE/IN_PROGRESS when not finished in time. */
export const RunSyncAnswer = JobRecord;
export type RunSyncAnswer = z.infer<typeof RunSyncAnswer>;
/** §4.1 /cancel answer. */
export const CancelAnswer = z.looseObject({ id: z.string(), status: z.literal('CANCELLED') });
export type CancelAnswer = z.infer<typeof CancelAnswer>;
/** §4.1 /retry answer. */
export const RetryAnswer = z.looseObject({ id: z.string(), status: z.literal('IN_QUEUE') });
export type RetryAnswer = z.infer<typeof RetryAnswer>;
/** §4.1 /purge-queue answer: status is the lowercase word completed. */
export const PurgeAnswer = z.looseObject({ removed: z.number().int().nonnegative(), status: z.literal('completed') });
export type PurgeAnswer = z.infer<typeof PurgeAnswer>;

/** §2.3 stream chunk metrics. */
export const StreamMetrics = z.looseObject({
  avg_gen_throughput: z.number().optional(),
  avg_prompt_throughput: z.number().optional(),
  cpu_kv_cache_usage: z.number().optional(),
  gpu_kv_cache_usage: z.number().optional(),
  input_tokens: z.number().int().optional(),
  output_tokens: z.number().int().optional(),
  pending: z.number().int().optional(),
  running: z.number().int().optional(),
  swapped: z.number().int().optional(),
  stream_index: z.number().int().optional(),
  scenario: z.string().optional(),
});
export type StreamMetrics = z.infer<typeof StreamMetrics>;

/** §2.3 text-job output of one chunk. */
export const TextChunkOutput = z.looseObject({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  text: z.array(z.string()),
});

/** §2.3 stream chunk. `output` is free-form: the text shape is one handler's. */
export const StreamChunk = z.looseObject({
  output: z.unknown(),
  metrics: StreamMetrics.optional(),
});
export type StreamChunk = z.infer<typeof StreamChunk>;

/** WIRE-COMPAT object form of /stream. */
export const StreamObjectAnswer = z.looseObject({
  status: JobStatus,
  stream: z.array(StreamChunk),
});
export type StreamObjectAnswer = z.infer<typeof StreamObjectAnswer>;
/** §4.1 says "array of stream chunks"; WIRE-COMPAT says an object. A conforming answer is either. */
export const StreamAnswer = z.union([StreamObjectAnswer, z.array(StreamChunk)]);
export type StreamAnswer = z.infer<typeof StreamAnswer>;

const count = z.number().int().nonnegative();

/** §2.4 health record, plus the older worker fields (WIRE-COMPAT). */
export const HealthRecord = z.looseObject({
  jobs: z.looseObject({ completed: count, failed: count, inProgress: count, inQueue: count, retried: count }),
  workers: z.looseObject({
    idle: count,
    running: count,
    initializing: count.optional(),
    ready: count.optional(),
    throttled: count.optional(),
    unhealthy: count.optional(),
  }),
});
export type HealthRecord = z.infer<typeof HealthRecord>;

/** WIRE-COMPAT error body: a JSON object with an `error` string. */
export const ErrorBody = z.looseObject({ error: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;
