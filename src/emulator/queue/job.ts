// One job of the queue endpoint (§2.1, §2.2) and the record it answers with. All times are
// emulated ms from the emulator's clock. The fields stay few and flat: the emulator holds
// 180,000 retained jobs (30 min of /run at its maximum rate) within its memory budget.
import type { JobState } from '../../spec/index.js';
import type { TimerHandle } from '../clock.js';

export type SubmitKind = 'run' | 'runsync';

/** One streamed chunk as stored (§2.3): the handler's output and optional metrics. */
export interface StoredChunk {
  output: unknown;
  metrics?: Record<string, unknown>;
  /** Set when one handler chunk was split to respect the 1 MB cap: part index and count. */
  split?: { index: number; count: number };
}

/** What a submission fixes for the job's life (§2.1 body and policy, §2.2 retention). */
export interface JobSpec {
  readonly id: string;
  readonly kind: SubmitKind;
  readonly input: Record<string, unknown>;
  readonly webhook: string | undefined;
  readonly s3Config: Record<string, unknown> | undefined;
  readonly lowPriority: boolean;
  readonly executionTimeoutMs: number;
  readonly submittedAtMs: number;
  readonly ttlMs: number;
  readonly retentionMs: number;
}

/** A class, not an object literal: one shape built by one constructor on the /run path. */
export class Job {
  readonly id: string;
  readonly kind: SubmitKind;
  readonly input: Record<string, unknown>;
  readonly webhook: string | undefined;
  readonly s3Config: Record<string, unknown> | undefined;
  readonly lowPriority: boolean;
  readonly executionTimeoutMs: number;
  readonly submittedAtMs: number;
  /** §2.1 ttl, counted from submission; /status?ttl= changes it. */
  ttlMs: number;
  /** §2.2 retention after the job ends. */
  readonly retentionMs: number;
  status: JobState = 'IN_QUEUE';
  /** When the job (re-)entered the queue: delayTime counts from here. */
  queuedAtMs: number;
  startedAtMs: number | undefined = undefined;
  endedAtMs: number | undefined = undefined;
  output: unknown = undefined;
  error: string | undefined = undefined;
  workerId: string | undefined = undefined;
  /** The one expiry timer: min(ttl due, retention due once ended). */
  expiryTimer: TimerHandle | undefined = undefined;
  /** Execution-timeout timer while running. */
  execTimer: TimerHandle | undefined = undefined;
  /** The modelled run's next step (its end, or its next chunk): cancelled when the job stops. */
  runTimer: TimerHandle | undefined = undefined;
  /** Aborts the running handler (cancel, timeout, ttl, crash of its worker). */
  abort: AbortController | undefined = undefined;
  /** Streamed chunks, created on the first one. */
  chunks: StoredChunk[] | undefined = undefined;
  /** Chunks already handed to a /stream call. */
  chunksDelivered = 0;
  /** true once the final output of a non-streaming job went out on /stream. */
  finalDelivered = false;
  /** Callbacks waiting for any change (status-sync, runsync, stream long-polls). */
  waiters: Set<() => void> | undefined = undefined;
  /** Bumps on each retry so stale handler callbacks of an earlier attempt are ignored. */
  attempt = 0;
  /** Queue links (job-queue.ts). */
  queued = false;
  qPrev: Job | undefined = undefined;
  qNext: Job | undefined = undefined;

  constructor(spec: JobSpec) {
    this.id = spec.id;
    this.kind = spec.kind;
    this.input = spec.input;
    this.webhook = spec.webhook;
    this.s3Config = spec.s3Config;
    this.lowPriority = spec.lowPriority;
    this.executionTimeoutMs = spec.executionTimeoutMs;
    this.submittedAtMs = spec.submittedAtMs;
    this.ttlMs = spec.ttlMs;
    this.retentionMs = spec.retentionMs;
    this.queuedAtMs = spec.submittedAtMs;
  }
}
