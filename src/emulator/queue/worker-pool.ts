// One endpoint's workers and their autoscaler. Simulated workers (handlers run in-process)
// and external workers (real processes over the worker protocol) are two kinds of one
// Worker: both hold jobs and count in health; only simulated ones are pushed jobs, external
// ones pull. The deployment model (src/deployment/) decides how many workers start
// (its scaler; lowPriority jobs never count, §2.1), how long each waits for capacity and
// cold-starts, and meters their time. workersMin workers are "active" and stay up; the others
// ("flex") stop after the idle timeout.
import type { Clock, TimerHandle } from '../clock.js';
import type { Job } from './job.js';
import { startsOnArrival, startsOnChange, startsOnCheck, type ScalerSettings, type ScalerView } from '../../deployment/index.js';
import type { DeploymentModel } from './deployment-model.js';

export type WorkerKind = 'simulated' | 'external';
/** throttled: waiting for GPU capacity; initializing: cold-starting; draining: finishing its jobs before it stops. */
export type WorkerState = 'throttled' | 'initializing' | 'ready' | 'draining';

export interface Worker {
  readonly id: string;
  readonly kind: WorkerKind;
  state: WorkerState;
  /** Jobs this worker runs at once. */
  readonly capacity: number;
  readonly jobs: WorkerJobs;
  /** KV-cache tokens per job (LLM mode). */
  readonly kvTokens: Map<string, number>;
  /** Template version the worker runs (rolling releases, §4.2). */
  version: number;
  /** One of the workersMin workers: billed at the active price, never stopped by the idle timeout. */
  active: boolean;
  /** Armed idle check; it is not cancelled when a job comes (cheaper), it re-checks instead. */
  idleTimer: TimerHandle | undefined;
  /** When the worker last became idle; undefined while it holds jobs. */
  idleSinceMs: number | undefined;
  /** External workers: emulated time of the last protocol call (liveness). */
  lastSeenMs?: number;
  /** External workers: the last ping said `status=unhealthy` (a failed start-up check); no jobs until a healthy ping. */
  unhealthy?: boolean;
  /** The throttle wait, then the cold start. */
  coldTimer: TimerHandle | undefined;
  /** When it became ready to take jobs (after its cold start); undefined while starting. */
  readyAtMs: number | undefined;
}

/**
 * The jobs one worker holds: a short list (at most its capacity), not a Map. A worker's Map
 * emptied after every job of a load test, and V8 answers each emptying with a new table.
 */
export class WorkerJobs {
  private readonly list: Job[] = [];

  get size(): number {
    return this.list.length;
  }

  has(jobId: string): boolean {
    return this.indexOf(jobId) >= 0;
  }

  /** Hold `job` (once: holding it again replaces it, as a Map would). */
  set(job: Job): void {
    const i = this.indexOf(job.id);
    if (i < 0) this.list.push(job);
    else this.list[i] = job;
  }

  /** False when the worker does not hold the job. */
  delete(jobId: string): boolean {
    const i = this.indexOf(jobId);
    if (i < 0) return false;
    const last = this.list.pop() as Job;
    if (i < this.list.length) this.list[i] = last;
    return true;
  }

  values(): IterableIterator<Job> {
    return this.list.values();
  }

  clear(): void {
    this.list.length = 0;
  }

  private indexOf(jobId: string): number {
    for (let i = 0; i < this.list.length; i++) if ((this.list[i] as Job).id === jobId) return i;
    return -1;
  }
}

export interface PoolSettings {
  min: number;
  max: number;
  jobsPerWorker: number;
  /** The constant cold start of an endpoint whose deployment gives no cold-start distribution. */
  coldStartMs: number;
  idleTimeoutMs: number;
  scaleUpQueueDepth: number;
  /** The scaler; absent: the emulator's own (QUEUE_DEPTH at scaleUpQueueDepth). */
  scaler?: ScalerSettings | undefined;
  /** A job finding no free slot on a worker up or starting starts one at once, before the scaler (the deployment's startOnArrival). */
  startOnArrival?: boolean | undefined;
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

/** What the pool reads of its endpoint's queue. */
export interface PoolQueueView {
  /** Jobs on a worker (running or being handed to one). */
  inProgress(): number;
  /** Queued jobs, not lowPriority, that joined the queue at or before `cutoffMs`; counting stops at `cap`. */
  queuedSince(cutoffMs: number, cap: number): number;
}

export class WorkerPool {
  readonly workers = new Map<string, Worker>();
  private seq = 0;
  version = 0;
  private readonly listeners = new Set<() => void>();
  /** Live workers tagged active (kept equal to min by keepMin). */
  private activeCount = 0;
  /** QUEUE_DELAY's periodic check, armed while non-lowPriority jobs wait. */
  private checkTimer: TimerHandle | undefined;
  private queuedNormal = 0;

  constructor(
    private readonly clock: Clock,
    private readonly endpointId: string,
    public settings: PoolSettings,
    /** Called when a worker may take jobs (became ready, or a slot freed). */
    private readonly onCapacity: () => void,
    readonly model: DeploymentModel,
    private readonly queueView: PoolQueueView,
  ) {}

  private get scaler(): ScalerSettings {
    return this.settings.scaler ?? { type: 'QUEUE_DEPTH', depth: this.settings.scaleUpQueueDepth };
  }

  /** Workers processing at least one job: health `workers.running` and the §8 dynamic rule's count. */
  busyCount = 0;

  private newId(): string {
    this.seq += 1;
    return `${this.endpointId}-w${this.seq.toString(36)}-${Math.floor(Math.random() * 0x10000).toString(16)}`;
  }

  /**
   * Start one simulated worker: it may wait for capacity (throttled) and then cold-starts, as
   * the timing model samples; `warm` skips both. It is active while fewer than min are.
   */
  start(warm = false): Worker {
    const active = this.activeCount < this.settings.min;
    const w: Worker = {
      id: this.newId(),
      kind: 'simulated',
      state: 'initializing',
      capacity: this.settings.jobsPerWorker,
      jobs: new WorkerJobs(),
      kvTokens: new Map(),
      version: this.version,
      active,
      idleTimer: undefined,
      idleSinceMs: undefined,
      coldTimer: undefined,
      readyAtMs: undefined,
    };
    if (active) this.activeCount += 1;
    this.workers.set(w.id, w);
    const now = this.clock.now();
    const meter = this.model.meter;
    const throttleMs = warm ? 0 : this.model.timing.throttleMs();
    const coldMs = warm ? 0 : this.model.timing.coldStartMs();
    if (throttleMs > 0) {
      w.state = 'throttled';
      meter.start(w.id, 'throttled', active ? 'active' : 'flex', now);
      w.coldTimer = this.clock.setTimer(throttleMs, () => {
        w.coldTimer = undefined;
        w.state = 'initializing';
        this.model.meter.setState(w.id, 'initializing', this.clock.now());
        this.coldStart(w, coldMs);
        this.changed();
      });
    } else if (coldMs > 0) {
      meter.start(w.id, 'initializing', active ? 'active' : 'flex', now);
      this.coldStart(w, coldMs);
    } else {
      meter.start(w.id, 'idle', active ? 'active' : 'flex', now);
      this.becomeReady(w);
    }
    this.changed();
    return w;
  }

  private coldStart(w: Worker, coldMs: number): void {
    if (coldMs <= 0) {
      this.becomeReady(w);
      this.onCapacity();
      return;
    }
    w.coldTimer = this.clock.setTimer(coldMs, () => {
      w.coldTimer = undefined;
      this.becomeReady(w);
      this.onCapacity();
    });
  }

  /** Add an external worker: ready at once, never pushed jobs. */
  attachExternal(id: string, capacity: number): Worker {
    const existing = this.workers.get(id);
    if (existing) return existing;
    const w: Worker = { id, kind: 'external', state: 'ready', capacity, jobs: new WorkerJobs(), kvTokens: new Map(), version: this.version, active: false, idleTimer: undefined, idleSinceMs: undefined, coldTimer: undefined, readyAtMs: this.clock.now() };
    this.workers.set(id, w);
    this.changed();
    return w;
  }

  private becomeReady(w: Worker): void {
    if (w.state === 'initializing') w.state = 'ready';
    w.readyAtMs = this.clock.now();
    if (w.kind === 'simulated') this.model.meter.setState(w.id, w.jobs.size > 0 ? 'running' : 'idle', this.clock.now());
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
    if (w.jobs.size === 0) {
      this.busyCount += 1;
      if (w.kind === 'simulated') this.model.meter.setState(w.id, 'running', this.clock.now());
    }
    w.jobs.set(job);
    w.idleSinceMs = undefined;
  }

  /** The job left the worker (ended, cancelled, expired). */
  release(w: Worker, jobId: string): void {
    if (!w.jobs.delete(jobId)) return;
    // Only LLM jobs record tokens; an empty Map is left alone.
    if (w.kvTokens.size > 0) w.kvTokens.delete(jobId);
    if (w.jobs.size === 0) {
      this.busyCount -= 1;
      if (w.kind === 'simulated') this.model.meter.setState(w.id, 'idle', this.clock.now());
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
      else if (!w.active) this.remove(w);
    });
  }

  /** Remove a worker (idle stop, crash, refresh). The caller settles its jobs first. */
  remove(w: Worker): void {
    if (!this.workers.delete(w.id)) return;
    w.idleTimer?.cancel();
    w.coldTimer?.cancel();
    if (w.active) this.activeCount -= 1;
    if (w.kind === 'simulated') this.model.meter.stop(w.id, this.clock.now());
    if (w.jobs.size > 0) this.busyCount -= 1;
    w.jobs.clear();
    this.changed();
  }

  simulatedCount(): number {
    let n = 0;
    for (const w of this.workers.values()) if (w.kind === 'simulated' && w.state !== 'draining') n += 1;
    return n;
  }

  /** Keep min workers active: tag or untag live workers first, start new ones for the rest. Answers how many started ready. */
  private keepMin(): number {
    if (!this.settings.simulated) return 0;
    const min = this.settings.min;
    if (this.activeCount !== min) {
      const now = this.clock.now();
      // Idle workers change role first: a busy one keeps its role while it can.
      const byIdleFirst = [...this.workers.values()].filter((w) => w.kind === 'simulated' && w.state !== 'draining').sort((a, b) => a.jobs.size - b.jobs.size);
      for (const w of byIdleFirst) {
        if (this.activeCount === min) break;
        if (w.active === this.activeCount > min) {
          w.active = !w.active;
          this.activeCount += w.active ? 1 : -1;
          this.model.meter.setRole(w.id, w.active ? 'active' : 'flex', now);
          // A worker that became flex while idle now stops after its idle timeout.
          if (!w.active && w.idleSinceMs !== undefined && !w.idleTimer) this.scheduleIdleCheck(w, Math.max(0, w.idleSinceMs + this.settings.idleTimeoutMs - now));
        }
      }
    }
    let readyNow = 0;
    while (this.activeCount < min) if (this.start().state === 'ready') readyNow += 1;
    return readyNow;
  }

  /** What the scaler reads now. */
  private view(): ScalerView {
    let workers = 0;
    let freeSlots = 0;
    for (const w of this.workers.values()) {
      if (w.kind !== 'simulated' || w.state === 'draining') continue;
      workers += 1;
      freeSlots += w.capacity - w.jobs.size;
    }
    return { workers, freeSlots, workersMax: this.settings.max, jobsPerWorker: this.settings.jobsPerWorker, queuedNormal: this.queuedNormal, inProgress: this.queueView.inProgress() };
  }

  /**
   * After a change of the queue (`queuedNormal` non-lowPriority jobs wait): keep min workers,
   * and start those the scaler asks for, within max. Answers how many started ready at once
   * (no cold start), so the caller can hand them jobs.
   */
  autoscale(queuedNormal: number): number {
    this.queuedNormal = queuedNormal;
    if (!this.settings.simulated) return 0;
    let readyNow = this.keepMin();
    const scaler = this.scaler;
    if (this.settings.startOnArrival === true && queuedNormal > 0) {
      for (let n = startsOnArrival(this.view()); n > 0; n -= 1) if (this.start().state === 'ready') readyNow += 1;
    }
    if (scaler.type === 'QUEUE_DELAY') {
      // With starts on arrival, the check has work only for jobs no slot awaits (workersMax reached).
      if (queuedNormal > 0 && (this.settings.startOnArrival !== true || this.view().freeSlots < queuedNormal)) this.armCheck(scaler.checkIntervalMs);
      return readyNow;
    }
    // Only a change that can call for a worker costs a look at the pool.
    if (queuedNormal <= 0 && scaler.type === 'QUEUE_DEPTH') return readyNow;
    for (let n = startsOnChange(scaler, this.view()); n > 0; n -= 1) if (this.start().state === 'ready') readyNow += 1;
    return readyNow;
  }

  /** QUEUE_DELAY: the next periodic check, on the check grid of the emulated clock. */
  private armCheck(intervalMs: number): void {
    if (this.checkTimer) return;
    const now = this.clock.now();
    const atMs = now + intervalMs - (now % intervalMs);
    this.checkTimer = this.clock.setTimer(atMs - now, () => {
      this.checkTimer = undefined;
      const s = this.scaler;
      if (s.type !== 'QUEUE_DELAY' || !this.settings.simulated || this.queuedNormal <= 0) return;
      const v = this.view();
      let startingFree = 0;
      for (const w of this.workers.values()) if (w.kind === 'simulated' && (w.state === 'initializing' || w.state === 'throttled')) startingFree += w.capacity - w.jobs.size;
      const cap = startingFree + Math.max(0, v.workersMax - v.workers) * v.jobsPerWorker;
      // Waited more than the delay at the check's own instant: a real-time clock runs the check
      // a little late, and a job that joined meanwhile has not waited that long at the check.
      const overdue = this.queueView.queuedSince(atMs - s.delayMs - 1e-9, cap + 1);
      let readyNow = 0;
      for (let n = startsOnCheck(overdue, startingFree, v); n > 0; n -= 1) if (this.start().state === 'ready') readyNow += 1;
      this.armCheck(s.checkIntervalMs);
      if (readyNow > 0) this.onCapacity();
    });
  }

  /** Change min/max (control route); stops idle workers above the new bounds. */
  setBounds(min: number, max: number): void {
    this.settings = { ...this.settings, min, max };
    for (const w of [...this.workers.values()]) {
      if (this.simulatedCount() <= max) break;
      if (w.kind === 'simulated' && w.jobs.size === 0) this.remove(w);
    }
    this.keepMin();
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
    let throttled = 0;
    for (const w of this.workers.values()) {
      if (w.jobs.size > 0) running += 1;
      else if (w.unhealthy === true) unhealthy += 1;
      else if (w.state === 'initializing') initializing += 1;
      else if (w.state === 'throttled') throttled += 1;
      else idle += 1;
    }
    return { idle, running, initializing, ready: idle, throttled, unhealthy, total: this.workers.size };
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
      while ((fresh.state === 'initializing' || fresh.state === 'throttled') && this.workers.has(fresh.id)) await this.nextChange();
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
    this.checkTimer?.cancel();
    this.checkTimer = undefined;
    this.queuedNormal = 0;
  }
}
