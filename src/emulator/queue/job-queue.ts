// The FIFO of queued jobs: an intrusive doubly linked list (links live on the jobs), so
// taking the head, appending and removing any job (cancel, purge, ttl) are all O(1)
// whatever the queue length. A Set would degrade when many jobs leave from its front.
import type { Job } from './job.js';

export class JobQueue {
  private head: Job | undefined;
  private tail: Job | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(job: Job): boolean {
    return job.queued;
  }

  push(job: Job): void {
    if (job.queued) return;
    job.queued = true;
    job.qPrev = this.tail;
    job.qNext = undefined;
    if (this.tail) this.tail.qNext = job;
    else this.head = job;
    this.tail = job;
    this.count += 1;
  }

  peek(): Job | undefined {
    return this.head;
  }

  remove(job: Job): boolean {
    if (!job.queued) return false;
    if (job.qPrev) job.qPrev.qNext = job.qNext;
    else this.head = job.qNext;
    if (job.qNext) job.qNext.qPrev = job.qPrev;
    else this.tail = job.qPrev;
    job.qPrev = undefined;
    job.qNext = undefined;
    job.queued = false;
    this.count -= 1;
    return true;
  }

  /**
   * Jobs not lowPriority that joined at or before `cutoffMs`, counted from the head (jobs join
   * in time order) and no further than `cap`: the queue-delay scaler's look at who waited too long.
   */
  countNormalSince(cutoffMs: number, cap: number): number {
    let n = 0;
    for (let j = this.head; j && j.queuedAtMs <= cutoffMs && n < cap; j = j.qNext) if (!j.lowPriority) n += 1;
    return n;
  }

  /** Every queued job, oldest first (a copy: safe to remove while iterating). */
  toArray(): Job[] {
    const out: Job[] = [];
    for (let j = this.head; j; j = j.qNext) out.push(j);
    return out;
  }

  clear(): void {
    for (let j = this.head; j; ) {
      const next = j.qNext;
      j.qPrev = undefined;
      j.qNext = undefined;
      j.queued = false;
      j = next;
    }
    this.head = undefined;
    this.tail = undefined;
    this.count = 0;
  }
}
