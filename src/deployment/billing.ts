// The billing meter of one endpoint: every simulated worker's time by state, from the start
// signal to its stop. Billed, as the public pricing page says: a worker's time from ready to
// stopped (running and idle, idle timeout included), rounded up to the second per worker at its
// stop; throttled and initializing time is not billed. Active (workersMin) and flex seconds are
// priced apart. O(1) per transition: the planner drives it on a virtual clock.
import type { GpuPrice } from './schema.js';
import type { EndpointBillingCounters } from '../spec/index.js';

export type MeteredState = 'throttled' | 'initializing' | 'idle' | 'running';
export type WorkerRole = 'active' | 'flex';

interface Meter {
  state: MeteredState;
  role: WorkerRole;
  sinceMs: number;
  /** Billed ms (idle + running) as an active and as a flex worker. */
  activeMs: number;
  flexMs: number;
}

interface Totals {
  throttledMs: number;
  initializingMs: number;
  idleMs: number;
  /** The part of idleMs spent as an active worker (the rest as flex). */
  idleActiveMs: number;
  runningMs: number;
  /** Billed seconds, rounded up per stopped worker, split active/flex in proportion to its billed ms. */
  activeS: number;
  flexS: number;
}

/** What /_qbench/counters shows under `billing` (its one schema: src/spec/schemas/emulator-info.ts). */
export type BillingSnapshot = EndpointBillingCounters;

/** Add `m`'s time since its last change to `t` (and to its own billed ms); `m.sinceMs` moves to `nowMs`. */
function bookInto(t: Totals, m: Meter, nowMs: number): void {
  const ms = nowMs - m.sinceMs;
  m.sinceMs = nowMs;
  if (ms <= 0) return;
  switch (m.state) {
    case 'throttled':
      t.throttledMs += ms;
      return;
    case 'initializing':
      t.initializingMs += ms;
      return;
    case 'idle':
      t.idleMs += ms;
      if (m.role === 'active') t.idleActiveMs += ms;
      break;
    case 'running':
      t.runningMs += ms;
      break;
  }
  if (m.role === 'active') m.activeMs += ms;
  else m.flexMs += ms;
}

const zeroTotals = (): Totals => ({ throttledMs: 0, initializingMs: 0, idleMs: 0, idleActiveMs: 0, runningMs: 0, activeS: 0, flexS: 0 });

/** Whole seconds billed for `billedMs`, split active/flex in proportion (a tiny epsilon keeps 3000.0000001 ms at 3 s). */
function rounded(activeMs: number, flexMs: number): { activeS: number; flexS: number } {
  const totalMs = activeMs + flexMs;
  if (totalMs <= 0) return { activeS: 0, flexS: 0 };
  const s = Math.ceil(totalMs / 1_000 - 1e-9);
  return { activeS: (s * activeMs) / totalMs, flexS: (s * flexMs) / totalMs };
}

export class BillingMeter {
  private readonly live = new Map<string, Meter>();
  private totals = zeroTotals();
  private starts = { workers: 0, cold: 0, throttled: 0, peak: 0 };
  /** Tokens streamed by modelled jobs (cost per million tokens). */
  private tokens = 0;

  constructor(
    private readonly gpuTypeId: string,
    private readonly gpuCount: number,
    private readonly price: GpuPrice | undefined,
    /** Where the price comes from (the default table and its date, or the deployment's override). */
    private readonly priceSource: string,
  ) {}

  /** A worker got its start signal, in its first state. */
  start(id: string, state: MeteredState, role: WorkerRole, nowMs: number): void {
    this.live.set(id, { state, role, sinceMs: nowMs, activeMs: 0, flexMs: 0 });
    this.starts.workers += 1;
    if (state === 'throttled') this.starts.throttled += 1;
    if (this.live.size > this.starts.peak) this.starts.peak = this.live.size;
    this.noteCold(state);
  }

  private noteCold(state: MeteredState): void {
    if (state === 'initializing') this.starts.cold += 1;
  }

  /** Book the time since the worker's last change to its state and role. */
  private book(m: Meter, nowMs: number): void {
    bookInto(this.totals, m, nowMs);
  }

  setState(id: string, state: MeteredState, nowMs: number): void {
    const m = this.live.get(id);
    if (!m || m.state === state) return;
    this.book(m, nowMs);
    this.noteCold(state);
    m.state = state;
  }

  setRole(id: string, role: WorkerRole, nowMs: number): void {
    const m = this.live.get(id);
    if (!m || m.role === role) return;
    this.book(m, nowMs);
    m.role = role;
  }

  /** The worker has stopped: its billed time is rounded up to whole seconds now. */
  stop(id: string, nowMs: number): void {
    const m = this.live.get(id);
    if (!m) return;
    this.book(m, nowMs);
    this.live.delete(id);
    const r = rounded(m.activeMs, m.flexMs);
    this.totals.activeS += r.activeS;
    this.totals.flexS += r.flexS;
  }

  addTokens(n: number): void {
    this.tokens += n;
  }

  /** Forget everything (emulator reset). */
  reset(): void {
    this.tokens = 0;
    this.live.clear();
    this.totals = zeroTotals();
    this.starts = { workers: 0, cold: 0, throttled: 0, peak: 0 };
  }

  /** Totals to `nowMs`, live workers billed as if they stopped now. */
  private totalsAt(nowMs: number): Totals {
    const t = { ...this.totals };
    for (const live of this.live.values()) {
      const m = { ...live };
      bookInto(t, m, nowMs);
      const r = rounded(m.activeMs, m.flexMs);
      t.activeS += r.activeS;
      t.flexS += r.flexS;
    }
    return t;
  }

  /** Idle seconds (unrounded) to `nowMs` as active and as flex workers: the planner prices idle time by role. */
  idleByRole(nowMs: number): { activeS: number; flexS: number } {
    const t = this.totalsAt(nowMs);
    return { activeS: t.idleActiveMs / 1_000, flexS: (t.idleMs - t.idleActiveMs) / 1_000 };
  }

  /** Totals to `nowMs`, live workers billed as if they stopped now. O(live workers). */
  snapshot(nowMs: number): BillingSnapshot {
    const t = this.totalsAt(nowMs);
    const p = this.price;
    const costUsd = p === undefined ? null : (t.activeS * p.activePerS + t.flexS * p.flexPerS) * this.gpuCount;
    return {
      gpuTypeId: this.gpuTypeId,
      gpuCount: this.gpuCount,
      price: p === undefined ? null : { flexPerS: p.flexPerS, activePerS: p.activePerS, source: this.priceSource },
      workerStarts: this.starts.workers,
      coldStarts: this.starts.cold,
      throttledStarts: this.starts.throttled,
      peakWorkers: this.starts.peak,
      throttledS: t.throttledMs / 1_000,
      initializingS: t.initializingMs / 1_000,
      idleS: t.idleMs / 1_000,
      runningS: t.runningMs / 1_000,
      billedS: t.activeS + t.flexS,
      activeS: t.activeS,
      flexS: t.flexS,
      tokens: this.tokens,
      costUsd,
    };
  }
}
