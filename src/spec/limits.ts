// Every number of SERVICE-SPEC.md, once, with the section it comes from.
// No other file repeats one of these literals: emulator, checks, fuzz arbitraries and
// load scenarios all read them from here (a test greps for strays).

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** A bounded integer setting: default, inclusive bounds and the clause that states them. */
export interface Bounds {
  readonly defaultValue: number;
  readonly min: number;
  readonly max: number;
  readonly section: string;
}

/**
 * "MB" in the spec has two readings. The conformance suite accepts both; the emulator
 * takes the strict one in each direction (see `EMULATOR_MB_READING`).
 */
export interface ByteSize {
  readonly megabytes: number;
  readonly decimalBytes: number;
  readonly binaryBytes: number;
  readonly section: string;
}

/** Bytes in one "MB" under each reading. */
export const BYTES_PER_MB = { decimal: 1_000_000, binary: 1024 * 1024 } as const;

const mb = (megabytes: number, section: string): ByteSize => ({
  megabytes,
  decimalBytes: megabytes * BYTES_PER_MB.decimal,
  binaryBytes: megabytes * BYTES_PER_MB.binary,
  section,
});

/** §2.1 policy.executionTimeout: default 10 minutes, min 5 s, max 7 days. */
export const EXECUTION_TIMEOUT_MS: Bounds = {
  defaultValue: 10 * MINUTE_MS,
  min: 5 * SECOND_MS,
  max: 7 * DAY_MS,
  section: '§2.1',
};

/** §2.1 policy.ttl: default 24 hours, min 10 s, max 7 days. */
export const TTL_MS: Bounds = {
  defaultValue: DAY_MS,
  min: 10 * SECOND_MS,
  max: 7 * DAY_MS,
  section: '§2.1',
};

/** §4.1 /runsync `wait` query: 1000 to 300000 ms, default 90000. */
export const RUNSYNC_WAIT_MS: Bounds = {
  defaultValue: 90 * SECOND_MS,
  min: 1 * SECOND_MS,
  max: 300 * SECOND_MS,
  section: '§4.1',
};

/** §4.1 / §8 payload caps. */
export const RUN_PAYLOAD: ByteSize = mb(10, '§4.1');
export const RUNSYNC_PAYLOAD: ByteSize = mb(20, '§4.1');
/** §4.1 / §8 one streamed chunk. */
export const STREAM_CHUNK: ByteSize = mb(1, '§4.1');

/** The emulator's choice of reading for "MB": decimal (10 MB = 10,000,000 bytes). */
export const EMULATOR_MB_READING = 'decimal' as const;

/** §2.2 result retention after completion. */
export const RETENTION_MS = {
  run: 30 * MINUTE_MS,
  runsyncDefault: 1 * MINUTE_MS,
  runsyncMax: 5 * MINUTE_MS,
  section: '§2.2',
} as const;

/** §6 webhook: the first call plus 2 retries, 10 s apart. */
export const WEBHOOK = {
  extraAttempts: 2,
  retryDelayMs: 10 * SECOND_MS,
  expectedStatus: 200,
  section: '§6',
} as const;

/** §8 rate-limit window: every rate in the table is "per 10 seconds". */
export const RATE_WINDOW_MS = 10 * SECOND_MS;

export type RateLimitedOperation =
  | 'runsync'
  | 'run'
  | 'status'
  | 'stream'
  | 'cancel'
  | 'purge-queue'
  | 'openai'
  | 'requests';

export interface RateRule {
  readonly operation: RateLimitedOperation;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Requests admitted per `RATE_WINDOW_MS`. */
  readonly requestsPerWindow: number;
  /** Requests in flight at once; null where the table says "none". */
  readonly concurrency: number | null;
  readonly section: string;
}

/** §8 rate limits, per endpoint and operation. */
export const RATE_LIMITS: Readonly<Record<RateLimitedOperation, RateRule>> = {
  runsync: { operation: 'runsync', method: 'POST', path: '/runsync', requestsPerWindow: 2000, concurrency: 400, section: '§8' },
  run: { operation: 'run', method: 'POST', path: '/run', requestsPerWindow: 1000, concurrency: 200, section: '§8' },
  status: { operation: 'status', method: 'GET', path: '/status', requestsPerWindow: 2000, concurrency: 400, section: '§8' },
  stream: { operation: 'stream', method: 'GET', path: '/stream', requestsPerWindow: 2000, concurrency: 400, section: '§8' },
  cancel: { operation: 'cancel', method: 'POST', path: '/cancel', requestsPerWindow: 100, concurrency: 20, section: '§8' },
  'purge-queue': { operation: 'purge-queue', method: 'POST', path: '/purge-queue', requestsPerWindow: 2, concurrency: null, section: '§8' },
  openai: { operation: 'openai', method: 'POST', path: '/openai/*', requestsPerWindow: 2000, concurrency: 400, section: '§8' },
  requests: { operation: 'requests', method: 'GET', path: '/requests', requestsPerWindow: 10, concurrency: 2, section: '§8' },
};

/**
 * §8 dynamic rule: effective limit = max(base, running_workers * requests_per_worker).
 * The spec does not give requests_per_worker; this is the emulator's documented default
 * (requests per rate window per running worker), overridable in its config.
 */
export const DEFAULT_REQUESTS_PER_WORKER = 100;

export function effectiveRateLimit(baseRequestsPerWindow: number, runningWorkers: number, requestsPerWorker: number): number {
  return Math.max(baseRequestsPerWindow, runningWorkers * requestsPerWorker);
}

/** §7 HTTP statuses that the spec names. */
export const HTTP_STATUS = {
  ok: 200,
  badRequest: 400,
  unauthorized: 401,
  notFound: 404,
  tooManyRequests: 429,
  internalError: 500,
} as const;

/** WIRE-COMPAT: a worker waits this long after a 429 from job-take; its own HTTP timeout is 90 s. */
export const WORKER_PROTOCOL = {
  takeBackoffAfter429Ms: 5 * SECOND_MS,
  workerHttpTimeoutMs: 90 * SECOND_MS,
  defaultPingIntervalMs: 10 * SECOND_MS,
} as const;

/** §9 path versions. */
export const API_VERSIONS = { queue: 'v2', rest: 'v1' } as const;
