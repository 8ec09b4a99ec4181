// Typed client of the queue-based endpoint (§4.1): run, runsync, status, stream, cancel,
// retry, purge-queue, health, plus the WIRE-COMPAT calls real SDKs make (`/status-sync`,
// runsync answers that are not finished yet, `/stream` as `{status, stream}`).
// Auth per §5: `authorization: KEY` or `Bearer KEY`, selectable.
import { z } from 'zod';
import {
  API_VERSIONS,
  CancelAnswer,
  EXECUTION_TIMEOUT_MS,
  HealthRecord,
  JobRecord,
  JobRequest,
  PurgeAnswer,
  RetryAnswer,
  RUN_PAYLOAD,
  RUNSYNC_PAYLOAD,
  RUNSYNC_WAIT_MS,
  RunAnswer,
  RunSyncAnswer,
  StatusTtlMs,
  StreamAnswer,
  WaitMs,
  isTerminal,
  type JobState,
  type StreamChunk,
} from '../spec/index.js';
import { configError } from '../errors.js';
import { realSleep } from './backoff.js';
import { InvalidRequestError, RequestAbortedError, RequestTimeoutError } from './errors.js';
import { HttpCore, encodePathSegment, type CallSpec, type HttpCoreOptions, type RequestOptions } from './http-core.js';

export type QueueAuthForm = 'raw' | 'bearer';

export interface QueueClientOptions extends Omit<HttpCoreOptions, 'auth'> {
  /** `{base_url}`: the service address; paths become `{base_url}/v2/{endpointId}/...`. */
  readonly baseUrl: string;
  readonly endpointId: string;
  readonly apiKey: string;
  /** §5: `raw` sends `authorization: KEY` (the docs), `bearer` sends `Bearer KEY` (both SDKs). Default bearer. */
  readonly authForm?: QueueAuthForm;
}

export type JobRequestInput = z.input<typeof JobRequest>;

export interface RunSyncOptions extends RequestOptions {
  /** §4.1 `wait` query (1000 to 300000 ms); omitted: the service default. */
  readonly waitMs?: number;
}

export interface StatusOptions extends RequestOptions {
  /** §4.1 `ttl` query: sets the job's ttl (ms). */
  readonly ttlMs?: number;
}

export interface PollOptions extends RequestOptions {
  /** Pause between polls that brought nothing new (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** Give up (QB_ERR_TIMEOUT) after this long in all (default: the §2.1 default execution timeout). */
  readonly maxDurationMs?: number;
}

export interface WaitForJobOptions extends PollOptions {
  /** `status` polls `/status` (the Python client); `status-sync` long-polls `/status-sync` (the JS SDK). Default status. */
  readonly via?: 'status' | 'status-sync';
  /** `wait` of each `/status-sync` call (default the §4.1 runsync default wait). */
  readonly statusSyncWaitMs?: number;
}

export interface RunSyncToCompletionOptions extends WaitForJobOptions {
  readonly waitMs?: number;
}

/** How a `stream()` iteration ended. */
export interface StreamEnd {
  readonly status: JobState;
  /** `/stream` calls made. */
  readonly polls: number;
  readonly chunks: number;
  /** Which answer form the endpoint used: WIRE-COMPAT object or the §4.1 bare array. */
  readonly shape: 'object' | 'array';
}

export const DEFAULT_POLL_INTERVAL_MS = 250;

const JobId = z.string({ error: 'job id must be a string' }).min(1, { error: 'job id must not be empty' });

export class QueueClient {
  readonly core: HttpCore;
  readonly endpointId: string;
  private readonly prefix: string;

  constructor(options: QueueClientOptions) {
    const { endpointId, apiKey, authForm = 'bearer', ...rest } = options;
    if (typeof endpointId !== 'string' || endpointId.length === 0) throw configError('endpointId must be a non-empty string');
    this.core = new HttpCore({ ...rest, auth: { kind: 'header', apiKey, form: authForm } });
    this.endpointId = endpointId;
    this.prefix = `/${API_VERSIONS.queue}/${encodePathSegment(endpointId)}`;
  }

  private spec(method: CallSpec['method'], op: string, extra: Omit<CallSpec, 'method' | 'path'> = {}): CallSpec {
    return { method, path: `${this.prefix}${op}`, ...extra };
  }

  private jobPath(op: string, id: string, method: CallSpec['method']): string {
    this.core.checkRequest({ method, path: `${this.prefix}/${op}` }, JobId, id, 'job id');
    return `/${op}/${encodePathSegment(id)}`;
  }

  private checkBody(spec: CallSpec, body: unknown, capBytes: number): void {
    this.core.checkRequest(spec, JobRequest, body, 'job request body');
    if (!this.core.validateRequests) return;
    const bytes = Buffer.byteLength(JSON.stringify(body));
    if (bytes > capBytes) {
      throw new InvalidRequestError({ method: spec.method, url: this.core.urlOf(spec) }, 'job request body', `body is ${bytes} bytes, over the ${capBytes}-byte cap`, []);
    }
  }

  /** POST /run: queue a job; answers `{id, status: IN_QUEUE}`. */
  async run(body: JobRequestInput, opts?: RequestOptions): Promise<RunAnswer> {
    const spec = this.spec('POST', '/run', { json: body });
    this.checkBody(spec, body, RUN_PAYLOAD.decimalBytes);
    return this.core.call(spec, RunAnswer, 'RunAnswer', opts);
  }

  /**
   * POST /runsync?wait=: the job record. WIRE-COMPAT: when the job does not finish within
   * `wait` the answer is `{id, status}` with IN_QUEUE or IN_PROGRESS; use
   * `runSyncToCompletion` to poll on. The default timeout is the wait plus the client timeout.
   */
  async runSync(body: JobRequestInput, opts: RunSyncOptions = {}): Promise<JobRecord> {
    const spec = this.spec('POST', '/runsync', { json: body, query: { wait: opts.waitMs } });
    if (opts.waitMs !== undefined) this.core.checkRequest(spec, WaitMs, opts.waitMs, 'wait');
    this.checkBody(spec, body, RUNSYNC_PAYLOAD.decimalBytes);
    const timeoutMs = opts.timeoutMs ?? (opts.waitMs ?? RUNSYNC_WAIT_MS.defaultValue) + this.core.defaultTimeoutMs;
    return this.core.call(spec, RunSyncAnswer, 'RunSyncAnswer', { ...opts, timeoutMs });
  }

  /** runSync, then poll until the job is in a terminal state. */
  async runSyncToCompletion(body: JobRequestInput, opts: RunSyncToCompletionOptions = {}): Promise<JobRecord> {
    const started = performance.now();
    const first = await this.runSync(body, opts);
    if (isTerminal(first.status)) return first;
    const maxDurationMs = opts.maxDurationMs ?? EXECUTION_TIMEOUT_MS.defaultValue;
    return this.waitForJob(first.id, { ...opts, maxDurationMs: Math.max(0, maxDurationMs - (performance.now() - started)) });
  }

  /** GET /status/{id}[?ttl=]: the job record. */
  async status(id: string, opts: StatusOptions = {}): Promise<JobRecord> {
    const spec = this.spec('GET', this.jobPath('status', id, 'GET'), { query: { ttl: opts.ttlMs } });
    if (opts.ttlMs !== undefined) this.core.checkRequest(spec, StatusTtlMs, opts.ttlMs, 'ttl');
    return this.core.call(spec, JobRecord, 'JobRecord', opts);
  }

  /** GET /status-sync/{id}?wait= (WIRE-COMPAT, the JS SDK): waits up to `wait` ms for the job to end. */
  async statusSync(id: string, opts: RunSyncOptions = {}): Promise<JobRecord> {
    const spec = this.spec('GET', this.jobPath('status-sync', id, 'GET'), { query: { wait: opts.waitMs } });
    if (opts.waitMs !== undefined) this.core.checkRequest(spec, WaitMs, opts.waitMs, 'wait');
    const timeoutMs = opts.timeoutMs ?? (opts.waitMs ?? RUNSYNC_WAIT_MS.defaultValue) + this.core.defaultTimeoutMs;
    return this.core.call(spec, JobRecord, 'JobRecord', { ...opts, timeoutMs });
  }

  /** Poll until the job is terminal; QB_ERR_TIMEOUT past `maxDurationMs`. */
  async waitForJob(id: string, opts: WaitForJobOptions = {}): Promise<JobRecord> {
    const deadline = this.deadline(opts);
    const pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const { pollIntervalMs: _p, maxDurationMs: _m, via: _v, statusSyncWaitMs: _w, ...reqOpts } = opts;
    for (;;) {
      const remaining = deadline.remainingMs();
      const record =
        opts.via === 'status-sync'
          ? await this.statusSync(id, { ...reqOpts, waitMs: this.clampWait(Math.min(opts.statusSyncWaitMs ?? RUNSYNC_WAIT_MS.defaultValue, remaining)) })
          : await this.status(id, reqOpts);
      if (isTerminal(record.status)) return record;
      deadline.check(`job ${id} still ${record.status}`);
      if (opts.via !== 'status-sync') await this.pause(Math.min(pollIntervalMs, deadline.remainingMs()), opts.signal);
    }
  }

  /**
   * Iterate the chunks of a streaming job: polls `/stream/{id}` (object or bare-array answer),
   * yields each chunk, and ends when a poll brings no chunk and the job is terminal (the
   * Python client's rule; a bare array carries no status, so `/status` is asked then).
   * The return value says how it ended.
   */
  async *stream(id: string, opts: PollOptions = {}): AsyncGenerator<StreamChunk, StreamEnd, undefined> {
    const deadline = this.deadline(opts);
    const pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const { pollIntervalMs: _p, maxDurationMs: _m, ...reqOpts } = opts;
    const spec = this.spec('GET', this.jobPath('stream', id, 'GET'));
    let polls = 0;
    let chunks = 0;
    let shape: StreamEnd['shape'];
    for (;;) {
      const answer = await this.core.call(spec, StreamAnswer, 'StreamAnswer', reqOpts);
      polls += 1;
      const batch = Array.isArray(answer) ? answer : answer.stream;
      shape = Array.isArray(answer) ? 'array' : 'object';
      for (const chunk of batch) {
        chunks += 1;
        yield chunk;
      }
      if (batch.length === 0) {
        const status = Array.isArray(answer) ? (await this.status(id, reqOpts)).status : answer.status;
        if (isTerminal(status)) return { status, polls, chunks, shape };
        deadline.check(`stream of job ${id} still ${status}`);
        await this.pause(Math.min(pollIntervalMs, deadline.remainingMs()), opts.signal);
      } else {
        deadline.check(`stream of job ${id} not finished`);
      }
    }
  }

  /** POST /cancel/{id}: `{id, status: CANCELLED}`. */
  async cancel(id: string, opts?: RequestOptions): Promise<CancelAnswer> {
    return this.core.call(this.spec('POST', this.jobPath('cancel', id, 'POST'), { json: {} }), CancelAnswer, 'CancelAnswer', opts);
  }

  /** POST /retry/{id}: `{id, status: IN_QUEUE}` (only from FAILED or TIMED_OUT, §3.1). */
  async retry(id: string, opts?: RequestOptions): Promise<RetryAnswer> {
    return this.core.call(this.spec('POST', this.jobPath('retry', id, 'POST'), { json: {} }), RetryAnswer, 'RetryAnswer', opts);
  }

  /** POST /purge-queue: `{removed, status: "completed"}`. */
  async purgeQueue(opts?: RequestOptions): Promise<PurgeAnswer> {
    return this.core.call(this.spec('POST', '/purge-queue', { json: {} }), PurgeAnswer, 'PurgeAnswer', opts);
  }

  /** GET /health: the §2.4 health record. */
  async health(opts?: RequestOptions): Promise<HealthRecord> {
    return this.core.call(this.spec('GET', '/health'), HealthRecord, 'HealthRecord', opts);
  }

  close(): Promise<void> {
    return this.core.close();
  }

  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await realSleep(ms, signal);
    } catch (e) {
      throw new RequestAbortedError({ method: 'GET', url: this.core.urlOf({ path: this.prefix }) }, e);
    }
  }

  private clampWait(ms: number): number {
    return Math.min(RUNSYNC_WAIT_MS.max, Math.max(RUNSYNC_WAIT_MS.min, Math.floor(ms)));
  }

  private deadline(opts: PollOptions): { remainingMs(): number; check(what: string): void } {
    const maxDurationMs = opts.maxDurationMs ?? EXECUTION_TIMEOUT_MS.defaultValue;
    const end = performance.now() + maxDurationMs;
    const target = { method: 'GET', url: this.core.urlOf({ path: this.prefix }) };
    return {
      remainingMs: () => Math.max(0, end - performance.now()),
      check: (what) => {
        if (performance.now() >= end) throw new RequestTimeoutError(target, maxDurationMs, `${what} after ${Math.round(maxDurationMs)} ms`);
      },
    };
  }
}
