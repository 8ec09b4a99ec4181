// One endpoint's workers and their autoscaler. Simulated workers (handlers run in-process)
// and external workers (real processes over the worker protocol) are two kinds of
// one Worker: both hold jobs and count in health; only simulated ones are pushed jobs,
// external ones pull. Scale-up follows the queue depth of non-lowPriority jobs (§2.1),
// within min/max, after a cold start; idle workers above min stop after the idle timeout.
import type { Clock, TimerHandle } from './clock.js';
import type { Job } from './job.js';

export type WorkerKind = 'simulated' | 'external';
export type WorkerState = 'initializing' | 'ready' | 'draining';

export interface Worker {
  readonly id: string;
  readonly kind: WorkerKind;
  state: WorkerState;
  /** Jobs this worker runs at once. */
  readonly capacity: number;
  readonly jobs: Map<string, Job>;
  /** KV-cache tokens per job (LLM mode). */
  readonly kvTokens: Map<string, number>;
  /** Template version the worker runs (rolling releases, §4.2). */
  version: number;
  /** Armed idle check; it is not cancelled when a job comes (cheaper), it re-checks instead. */
  idleTimer: TimerHandle | undefined;
  /** When the worker last became idle; undefined while it holds jobs. */
  idleSinceMs: number | undefined;
  /** External workers: emulated time of the last protocol call (liveness). */
  lastSeenMs?: number;
  /** External workers: the last ping said `status=unhealthy` (a failed start-up check); no jobs until a healthy ping. */
  unhealthy?: boolean;
  coldTimer: TimerHandle | undefined;
}

export interface PoolSettings {
  min: number;
  max: number;
  jobsPerWorker: number;
  coldStartMs: number;
  idleTimeoutMs: number;
  scaleUpQueueDepth: number;
  /** false when jobs go to external workers only: no simulated worker starts. */
  simulated: boolean;
}

export interface PoolCounts {
  idle: number;
  running: number;
  initializing: number;
  ready: number;
  throttled: number;
  unhealthy: number;
  total: number;
}

export class WorkerPool {
  readonly workers = new Map<string, Worker>();
  private seq = 0;
  version = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    private readonly endpointId: string,
    public settings: PoolSettings,
    /** Called when a worker may take jobs (became ready, or a slot freed). */
    private readonly onCapacity: () => void,
  ) {}

  /** Workers processing at least one job: health `workers.running` and the §8 dynamic rule's count. */
  busyCount = 0;

  private newId(): string {
    this.seq += 1;
    return `${this.endpointId}-w${this.seq.toString(36)}-${Math.floor(Math.random() * 0x10000).toString(16)}`;
  }

  /** Start one simulated worker; `warm` skips the cold start. */
  start(warm = false): Worker {
    const w: Worker = {
      id: this.newId(),
      kind: 'simulated',
      state: 'initializing',
      capacity: this.settings.jobsPerWorker,
      jobs: new Map(),
      kvTokens: new Map(),
      version: this.version,
      idleTimer: undefined,
      idleSinceMs: undefined,
      coldTimer: undefined,
    };
    this.workers.set(w.id, w);
    if (warm || this.settings.coldStartMs === 0) {
      this.becomeReady(w);
    } else {
      w.coldTimer = this.clock.setTimer(this.settings.coldStartMs, () => {
        w.coldTimer = undefined;
        this.becomeReady(w);
        this.onCapacity();
      });
    }
    this.changed();
    return w;
  }

  /** Add an external worker: ready at once, never pushed jobs. */
  attachExternal(id: string, capacity: number): Worker {
    const existing = this.workers.get(id);
    if (existing) return existing;
    const w: Worker = { id, kind: 'external', state: 'ready', capacity, jobs: new Map(), kvTokens: new Map(), version: this.version, idleTimer: undefined, idleSinceMs: undefined, coldTimer: undefined };
    this.workers.set(id, w);
    this.changed();
    return w;
  }

  private becomeReady(w: Worker): void {
    if (w.state === 'initializing') w.state = 'ready';
    this.armIdle(w);
    this.changed();
  }

  /** A ready simulated worker with a free slot, preferring the one with the fewest jobs. */
  freeSimulated(): Worker | undefined {
    let best: Worker | undefined;
    for (const w of this.workers.values()) {
      if (w.kind !== 'simulated' || w.state !== 'ready' || w.jobs.size >= w.capacity) continue;
      if (!best || w.jobs.size < best.jobs.size) best = w;
      if (best.jobs.size === 0) break;
    }
    return best;
  }

  assign(w: Worker, job: Job): void {
    if (w.jobs.size === 0) this.busyCount += 1;
    w.jobs.set(job.id, job);
    w.idleSinceMs = undefined;
  }

  /** The job left the worker (ended, cancelled, expired). */
  release(w: Worker, jobId: string): void {
    if (!w.jobs.delete(jobId)) return;
    w.kvTokens.delete(jobId);
    if (w.jobs.size === 0) {
      this.busyCount -= 1;
      if (w.state === 'draining') {
        this.remove(w);
        return;
      }
      this.armIdle(w);
    }
    this.changed();
  }

  private armIdle(w: Worker): void {
    if (w.kind !== 'simulated' || w.jobs.size > 0 || w.state !== 'ready') return;
    w.idleSinceMs = this.clock.now();
    if (!w.idleTimer) this.scheduleIdleCheck(w, this.settings.idleTimeoutMs);
  }

  private scheduleIdleCheck(w: Worker, delayMs: number): void {
    w.idleTimer = this.clock.setTimer(delayMs, () => {
      w.idleTimer = undefined;
      if (!this.workers.has(w.id) || w.jobs.size > 0 || w.state !== 'ready' || w.idleSinceMs === undefined) return;
      const leftMs = w.idleSinceMs + this.settings.idleTimeoutMs - this.clock.now();
      if (leftMs > 0) this.scheduleIdleCheck(w, leftMs);
      else if (this.simulatedCount() > this.settings.min) this.remove(w);
    });
  }

  /** Remove a worker (idle stop, crash, refresh). The caller settles its jobs first. */
  remove(w: Worker): void {
    if (!this.workers.delete(w.id)) return;
    w.idleTimer?.cancel();
    w.coldTimer?.cancel();
    if (w.jobs.size > 0) this.busyCount -= 1;
    w.jobs.clear();
    this.changed();
  }

  simulatedCount(): number {
    let n = 0;
    for (const w of this.workers.values()) if (w.kind === 'simulated' && w.state !== 'draining') n += 1;
    return n;
  }

  /**
   * Start workers for `queuedNormal` waiting non-lowPriority jobs beyond the free and coming
   * slots, within max; keep at least min. Answers how many started ready at once (no cold start).
   */
  autoscale(queuedNormal: number): number {
    if (!this.settings.simulated) return 0;
    let count = this.simulatedCount();
    let readyNow = 0;
    const startOne = () => {
      if (this.start().state === 'ready') readyNow += 1;
      count += 1;
    };
    while (count < this.settings.min) startOne();
    if (queuedNormal <= 0 || count >= this.settings.max) return readyNow;
    let slots = 0;
    for (const w of this.workers.values()) {
      if (w.kind === 'simulated' && w.state !== 'draining') slots += w.capacity - w.jobs.size;
    }
    let need = queuedNormal - slots;
    if (need < this.settings.scaleUpQueueDepth) return readyNow;
    while (need > 0 && count < this.settings.max) {
      startOne();
      need -= this.settings.jobsPerWorker;
    }
    return readyNow;
  }

  /** Change min/max (control route); stops idle workers above the new bounds. */
  setBounds(min: number, max: number): void {
    this.settings = { ...this.settings, min, max };
    for (const w of [...this.workers.values()]) {
      if (this.simulatedCount() <= max) break;
      if (w.kind === 'simulated' && w.jobs.size === 0) this.remove(w);
    }
    for (const w of this.workers.values()) {
      if (w.idleSinceMs !== undefined && !w.idleTimer) this.scheduleIdleCheck(w, Math.max(0, w.idleSinceMs + this.settings.idleTimeoutMs - this.clock.now()));
    }
  }

  counts(): PoolCounts {
    let idle = 0;
    let initializing = 0;
    let running = 0;
    let unhealthy = 0;
    // Each worker counts once: one still holding jobs is running even after an unhealthy ping.
    for (const w of this.workers.values()) {
      if (w.jobs.size > 0) running += 1;
      else if (w.unhealthy === true) unhealthy += 1;
      else if (w.state === 'initializing') initializing += 1;
      else idle += 1;
    }
    return { idle, running, initializing, ready: idle, throttled: 0, unhealthy, total: this.workers.size };
  }

  /** Sum of KV tokens on a worker after setting `jobId`'s share. */
  setKv(w: Worker, jobId: string, tokens: number): number {
    w.kvTokens.set(jobId, tokens);
    let total = 0;
    for (const t of w.kvTokens.values()) total += t;
    return total;
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    for (const l of [...this.listeners]) l();
  }

  /** Resolve at the next pool change. */
  private nextChange(): Promise<void> {
    return new Promise((resolve) => {
      const l = () => {
        this.listeners.delete(l);
        resolve();
      };
      this.listeners.add(l);
    });
  }

  /**
   * Rolling release: replace simulated workers of older versions one at a time. Each old
   * worker drains (takes no new job, finishes its own) while a new-version worker starts.
   */
  async roll(version: number): Promise<void> {
    this.version = version;
    for (;;) {
      const old = [...this.workers.values()].find((w) => w.kind === 'simulated' && w.version < version && w.state !== 'draining');
      if (!old) break;
      const fresh = this.start();
      while (fresh.state === 'initializing' && this.workers.has(fresh.id)) await this.nextChange();
      if (!this.workers.has(old.id)) continue;
      old.state = 'draining';
      old.idleTimer?.cancel();
      old.idleTimer = undefined;
      if (old.jobs.size === 0) this.remove(old);
      while (this.workers.has(old.id)) await this.nextChange();
      this.onCapacity();
    }
    this.onCapacity();
  }

  /** Stop every worker (reset/close). The caller settles jobs first. */
  clear(): void {
    for (const w of [...this.workers.values()]) this.remove(w);
    this.busyCount = 0;
  }
}
