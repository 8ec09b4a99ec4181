// Stop signals owed to external workers (WIRE-COMPAT "Worker side protocol", job-stop). A job
// cancelled, timed out or expired while an external worker runs it gets a pending stop that is
// answered on that worker's job-stop long-poll and re-delivered until the worker shows the job
// gone (its heartbeat no longer lists it, or it posts the job's result): the official Python
// worker drops a stop that arrives just after it took the job, so a stop sent once can be lost.
import type { Clock } from '../clock.js';

export interface PendingStop {
  readonly jobId: string;
  readonly workerId: string;
  /** Emulated time the worker took the job: a heartbeat sent before the take cannot confirm the stop. */
  readonly takenAtMs: number;
  /** Emulated time of the last delivery on job-stop; undefined until the first. */
  sentAtMs: number | undefined;
}

export interface DueStops {
  /** Job ids to answer now (never delivered, or last delivered a re-delivery interval ago). */
  readonly jobIds: string[];
  /** Emulated time the next pending stop of this worker falls due; Infinity when it has none. */
  readonly nextDueAtMs: number;
}

export class WorkerStops {
  private readonly byJob = new Map<string, PendingStop>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.byJob.size;
  }

  get(jobId: string): PendingStop | undefined {
    return this.byJob.get(jobId);
  }

  /** Owe `workerId` a stop for `jobId`; wakes that worker's held job-stop calls. */
  add(jobId: string, workerId: string, takenAtMs: number): void {
    this.byJob.set(jobId, { jobId, workerId, takenAtMs, sentAtMs: undefined });
    this.wake(workerId);
  }

  /** Forget the stop of `jobId` (confirmed, or the job was taken again); answers what was pending. */
  remove(jobId: string): PendingStop | undefined {
    const s = this.byJob.get(jobId);
    if (s) this.byJob.delete(jobId);
    return s;
  }

  /** Every stop owed to `workerId`. */
  ofWorker(workerId: string): PendingStop[] {
    const out: PendingStop[] = [];
    for (const s of this.byJob.values()) if (s.workerId === workerId) out.push(s);
    return out;
  }

  /** Stops of `workerId` due now; those returned are marked delivered at `nowMs`. */
  takeDue(workerId: string, nowMs: number, redeliverAfterMs: number): DueStops {
    const jobIds: string[] = [];
    let nextDueAtMs = Infinity;
    for (const s of this.byJob.values()) {
      if (s.workerId !== workerId) continue;
      const dueAt = s.sentAtMs === undefined ? -Infinity : s.sentAtMs + redeliverAfterMs;
      if (dueAt <= nowMs) {
        s.sentAtMs = nowMs;
        jobIds.push(s.jobId);
        nextDueAtMs = Math.min(nextDueAtMs, nowMs + redeliverAfterMs);
      } else {
        nextDueAtMs = Math.min(nextDueAtMs, dueAt);
      }
    }
    return { jobIds, nextDueAtMs };
  }

  /**
   * Resolve when a stop is added for `workerId`, `emulatedMs` pass, `signal` aborts or the book
   * closes, whichever is first. Never rejects.
   */
  wait(workerId: string, emulatedMs: number, signal: AbortSignal): Promise<void> {
    if (this.closed || signal.aborted || emulatedMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        timer.cancel();
        const set = this.waiters.get(workerId);
        set?.delete(finish);
        if (set?.size === 0) this.waiters.delete(workerId);
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const timer = this.clock.setTimer(emulatedMs, finish);
      signal.addEventListener('abort', finish, { once: true });
      let set = this.waiters.get(workerId);
      if (!set) this.waiters.set(workerId, (set = new Set()));
      set.add(finish);
    });
  }

  /** job-stop calls held open now, all workers together. */
  get held(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private wake(workerId: string): void {
    const set = this.waiters.get(workerId);
    if (!set) return;
    for (const fn of [...set]) fn();
  }

  /** Drop every stop owed to a worker that left the pool. */
  dropWorker(workerId: string): void {
    for (const [jobId, s] of this.byJob) if (s.workerId === workerId) this.byJob.delete(jobId);
  }

  /** Forget every stop (reset); held job-stop calls keep waiting for new ones. */
  clear(): void {
    this.byJob.clear();
  }

  /** Release every held job-stop call for good (emulator close). */
  close(): void {
    this.closed = true;
    this.byJob.clear();
    for (const set of [...this.waiters.values()]) for (const fn of [...set]) fn();
    this.waiters.clear();
  }
}
