// How calibration reaches a deployment: only its public queue interface (§4.1 /runsync, /run,
// /status, /stream, /cancel, /health; never the emulator's /_qbench routes), so that it works
// on the real service. `CalibrationTarget` is the only door jobs leave by: each one is counted
// against the JobBudget before it is sent. Times are real ms on one clock (performance.now()).
import { RUNSYNC_WAIT_MS, isTerminal, type HealthRecord, type JobRecord } from '../spec/index.js';
import type { JobRequestInput, QueueClient } from '../client/index.js';
import { waitRealMs } from '../client/sleep.js';
import type { JobBudget } from './budget.js';

/** One job body as a user's --input file holds it (§2.1). */
export type JobBody = JobRequestInput;

/** The raw operations (a QueueClient in production, a fake in unit tests). */
export interface DeploymentPort {
  runSync(body: JobBody, waitMs: number): Promise<JobRecord>;
  run(body: JobBody): Promise<{ id: string }>;
  status(id: string): Promise<JobRecord>;
  /** The job's chunks as /stream polls bring them; ends when the job has ended. */
  stream(id: string, pollIntervalMs: number, signal: AbortSignal): AsyncIterable<unknown>;
  cancel(id: string): Promise<void>;
  health(): Promise<HealthRecord>;
}

export interface RealClock {
  now(): number;
  /** true when the time passed, false when `signal` aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

export const REAL_CLOCK: RealClock = { now: () => performance.now(), sleep: waitRealMs };

/** A job's answer with the real ms it was sent and answered at. */
export interface TimedJob {
  readonly record: JobRecord;
  readonly sentAtMs: number;
  readonly answeredAtMs: number;
}

export interface TimedHealth {
  readonly health: HealthRecord;
  readonly sentAtMs: number;
  readonly answeredAtMs: number;
}

export interface StreamedJob extends TimedJob {
  /** Real ms at which each chunk's poll answered, one entry per chunk. */
  readonly chunkArrivalsMs: readonly number[];
  readonly chunks: readonly unknown[];
  /** Real ms the job was first seen started on /status (between that poll and the one before); undefined: not seen before its first chunk. */
  readonly startedAtMs: number | undefined;
}

/** Workers up in any state a health record names (idle, running, initializing, throttled, unhealthy). */
export function workersUp(h: HealthRecord): number {
  const w = h.workers;
  return w.idle + w.running + (w.initializing ?? 0) + (w.throttled ?? 0) + (w.unhealthy ?? 0);
}

export function queuePort(client: QueueClient): DeploymentPort {
  // 429s are retried by the client's backoff (a refused submission created no job).
  return {
    runSync: (body, waitMs) => client.runSync(body, { waitMs }),
    run: (body) => client.run(body),
    status: (id) => client.status(id),
    stream: (id, pollIntervalMs, signal) => client.stream(id, { pollIntervalMs, signal }),
    cancel: async (id) => {
      await client.cancel(id);
    },
    health: () => client.health(),
  };
}

export class CalibrationTarget {
  /** Ids of submitted jobs not yet seen terminal: cancelled when the run stops early. */
  private readonly open = new Set<string>();
  /** Real ms of every /health round trip. */
  readonly healthRttsMs: number[] = [];

  constructor(
    private readonly port: DeploymentPort,
    readonly budget: JobBudget,
    readonly clock: RealClock,
    /** Real ms between /status or /stream polls of an unfinished job. */
    readonly pollIntervalMs: number,
  ) {}

  async health(): Promise<TimedHealth> {
    const sentAtMs = this.clock.now();
    const health = await this.port.health();
    const answeredAtMs = this.clock.now();
    this.healthRttsMs.push(answeredAtMs - sentAtMs);
    return { health, sentAtMs, answeredAtMs };
  }

  /**
   * One job through /runsync, its `wait` no longer than the real ms left (so the answer comes
   * back before the deadline with the job's id); an unfinished job is then polled on /status
   * until it ends or `signal` aborts (and is cancelled then).
   */
  async runSyncJob(body: JobBody, remainingMs: number, signal: AbortSignal): Promise<TimedJob> {
    this.budget.take();
    const sentAtMs = this.clock.now();
    const waitMs = Math.min(RUNSYNC_WAIT_MS.max, Math.max(RUNSYNC_WAIT_MS.min, Math.floor(remainingMs)));
    const first = await this.port.runSync(body, waitMs);
    if (isTerminal(first.status)) return { record: first, sentAtMs, answeredAtMs: this.clock.now() };
    return this.pollToEnd(first.id, sentAtMs, signal);
  }

  /** One job through /run: its id and the real ms it was sent at. The caller polls it (`status`). */
  async submit(body: JobBody): Promise<{ id: string; sentAtMs: number }> {
    this.budget.take();
    const sentAtMs = this.clock.now();
    const { id } = await this.port.run(body);
    this.open.add(id);
    return { id, sentAtMs };
  }

  /** One /status of a submitted job, timed; a terminal answer closes it. */
  async status(id: string): Promise<{ record: JobRecord; sentAtMs: number; answeredAtMs: number }> {
    const sentAtMs = this.clock.now();
    const record = await this.port.status(id);
    if (isTerminal(record.status)) this.open.delete(id);
    return { record, sentAtMs, answeredAtMs: this.clock.now() };
  }

  /**
   * One job through /run, its chunks read from /stream as they come, then its record from
   * /status. Until the first chunk, /status is polled beside the stream: the job's start and its
   * first chunk are then both read by this client, so a slow answer moves both alike.
   */
  async streamJob(body: JobBody, signal: AbortSignal): Promise<StreamedJob> {
    const { id, sentAtMs } = await this.submit(body);
    const chunkArrivalsMs: number[] = [];
    const chunks: unknown[] = [];
    let startedAtMs: number | undefined;
    let firstSeen = false;
    const watchStart = async () => {
      let previousMs = sentAtMs;
      while (!firstSeen && !signal.aborted) {
        const st = await this.status(id);
        const at = (st.sentAtMs + st.answeredAtMs) / 2;
        if (st.record.status !== 'IN_QUEUE') {
          startedAtMs = (previousMs + at) / 2;
          return;
        }
        previousMs = at;
        await this.clock.sleep(this.pollIntervalMs, signal);
      }
    };
    const watching = watchStart();
    // Each chunk is yielded as soon as the poll that brought it answers.
    for await (const c of this.port.stream(id, this.pollIntervalMs, signal)) {
      firstSeen = true;
      chunks.push(c);
      chunkArrivalsMs.push(this.clock.now());
    }
    firstSeen = true;
    await watching;
    const done = await this.pollToEnd(id, sentAtMs, signal);
    return { ...done, chunkArrivalsMs, chunks, startedAtMs };
  }

  private async pollToEnd(id: string, sentAtMs: number, signal: AbortSignal): Promise<TimedJob> {
    this.open.add(id);
    for (;;) {
      const record = await this.port.status(id);
      if (isTerminal(record.status)) {
        this.open.delete(id);
        return { record, sentAtMs, answeredAtMs: this.clock.now() };
      }
      if (!(await this.clock.sleep(this.pollIntervalMs, signal))) throw signal.reason as Error;
    }
  }

  /** Cancel every submitted job not seen finished (a stop before the end): no job is left to bill. */
  async cancelOpen(): Promise<number> {
    const ids = [...this.open];
    this.open.clear();
    await Promise.all(ids.map((id) => this.port.cancel(id).catch(() => undefined)));
    return ids.length;
  }
}
