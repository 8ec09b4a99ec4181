// The emulator's one clock (ARCHITECTURE practice 7). Every lifecycle duration (ttl,
// execution timeout, retention, webhook spacing, handler delays, idle timeout) is read and
// scheduled here, in *emulated* milliseconds. A scaled clock runs `scale` times faster
// than real time, so 30 minutes of retention pass in 30 s at scale 60.
// All timers live in one heap (two binary heaps, near and far) with a single armed host timer,
// so holding 180,000 retained jobs costs one heap entry each, not one setTimeout each.

export interface TimerHandle {
  cancel(): void;
  readonly dueAtMs: number;
}

export interface Clock {
  /** Emulated time, ms since the epoch. */
  now(): number;
  /** Emulated ms per real ms. */
  readonly scale: number;
  /** Run `fn` after `delayMs` of emulated time. */
  setTimer(delayMs: number, fn: () => void): TimerHandle;
  /**
   * Run `fn(arg)` after `delayMs` of emulated time: with one shared `fn`, a timer per job
   * costs its heap entry only, no closure (the emulator holds one per retained job).
   */
  setTimerFor<T>(delayMs: number, fn: (arg: T) => void, arg: T): TimerHandle;
  /**
   * Run `fn` once the current event's own continuations have run, before the next timer: a
   * microtask on the real-time clocks, the end of the current event on the virtual one (which
   * runs synchronously and never yields to the microtask queue).
   */
  defer<T>(fn: (arg: T) => void, arg: T): void;
  /** Resolve after `delayMs` of emulated time; rejects with the signal's reason when aborted. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
  /** Convert an emulated duration into real ms (for host-level timeouts such as long-polls). */
  toRealMs(emulatedMs: number): number;
  /** Number of pending timers (for tests and the info route). */
  pendingTimers(): number;
  /** Cancel every timer; the clock stays usable. */
  dispose(): void;
  /**
   * Called with the exception of a timer callback that throws; the other due timers still
   * run. Unset, the exception is written to stderr. A timer never ends the process.
   */
  onError?: ((e: unknown) => void) | undefined;
}

/** One pending timer: its place in its heap and, handed out as its TimerHandle, its own cancel. */
class Entry implements TimerHandle {
  cancelled = false;
  constructor(
    readonly dueAtMs: number,
    readonly seq: number,
    readonly fn: (arg: unknown) => void,
    readonly arg: unknown,
    /** The clock that cancels it (none for a bare TimerHeap). */
    private readonly owner: HeapClock | undefined,
    /** Which of the TimerHeap's two heaps holds it. */
    readonly far: boolean,
    public index: number,
  ) {}

  cancel(): void {
    this.owner?.cancelEntry(this);
  }
}

const less = (a: Entry, b: Entry): boolean => a.dueAtMs < b.dueAtMs || (a.dueAtMs === b.dueAtMs && a.seq < b.seq);

/** A binary min-heap of entries ordered by (dueAtMs, seq), with O(log n) removal. */
class BinaryHeap {
  readonly items: Entry[] = [];

  push(e: Entry): void {
    e.index = this.items.length;
    this.items.push(e);
    this.up(e.index);
  }

  remove(e: Entry): boolean {
    const i = e.index;
    if (i < 0 || this.items[i] !== e) return false;
    const last = this.items.pop() as Entry;
    e.index = -1;
    if (i === this.items.length) return true; // the removed entry was the last one
    this.items[i] = last;
    last.index = i;
    this.down(i);
    this.up(last.index);
    return true;
  }

  clear(): void {
    for (const e of this.items) e.index = -1;
    this.items.length = 0;
  }

  private up(i: number): void {
    const items = this.items;
    const e = items[i] as Entry;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p] as Entry;
      if (!less(e, parent)) break;
      items[i] = parent;
      parent.index = i;
      i = p;
    }
    items[i] = e;
    e.index = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const e = items[i] as Entry;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      if (r < n && less(items[r] as Entry, items[l] as Entry)) m = r;
      const child = items[m] as Entry;
      if (!less(child, e)) break;
      items[i] = child;
      child.index = i;
      i = m;
    }
    items[i] = e;
    e.index = i;
  }
}

/**
 * The timers of a clock, ordered by (dueAtMs, seq), with O(log n) removal. Two binary heaps:
 * timers due more than `farMs` after the last one taken (retention, ttl: one per job, hundreds of
 * thousands under load) wait in their own heap, so the many short ones (holds, runs, checks)
 * move through a heap of their own size. The earlier of the two tops is next.
 */
export class TimerHeap {
  private readonly near = new BinaryHeap();
  private readonly farHeap = new BinaryHeap();
  private seq = 0;
  /** Due time of the last timer taken: what "far" is measured from. */
  private floorMs = -Infinity;

  constructor(private readonly farMs = 60_000) {}

  get size(): number {
    return this.near.items.length + this.farHeap.items.length;
  }

  peek(): Entry | undefined {
    const a = this.near.items[0];
    const b = this.farHeap.items[0];
    if (a === undefined) return b;
    if (b === undefined) return a;
    return less(b, a) ? b : a;
  }

  push(dueAtMs: number, fn: (arg: unknown) => void, arg?: unknown, owner?: HeapClock): Entry {
    const far = dueAtMs - this.floorMs > this.farMs;
    const e = new Entry(dueAtMs, this.seq++, fn, arg, owner, far, -1);
    (far ? this.farHeap : this.near).push(e);
    return e;
  }

  pop(): Entry | undefined {
    const top = this.peek();
    if (top === undefined) return undefined;
    (top.far ? this.farHeap : this.near).remove(top);
    if (top.dueAtMs > this.floorMs) this.floorMs = top.dueAtMs;
    return top;
  }

  remove(e: Entry): void {
    (e.far ? this.farHeap : this.near).remove(e);
  }

  clear(): void {
    this.near.clear();
    this.farHeap.clear();
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason });
}

abstract class HeapClock implements Clock {
  protected readonly heap = new TimerHeap();
  onError: ((e: unknown) => void) | undefined;
  abstract readonly scale: number;
  abstract now(): number;
  protected abstract rearm(): void;

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    return this.setTimerFor(delayMs, fn, undefined);
  }

  setTimerFor<T>(delayMs: number, fn: (arg: T) => void, arg: T): TimerHandle {
    const dueAtMs = this.now() + Math.max(0, delayMs);
    const entry = this.heap.push(dueAtMs, fn as (arg: unknown) => void, arg, this);
    if (this.heap.peek() === entry) this.rearm();
    return entry;
  }

  /** @internal Cancel one entry (its TimerHandle.cancel). */
  cancelEntry(entry: Entry): void {
    if (entry.cancelled) return;
    entry.cancelled = true;
    const wasTop = this.heap.peek() === entry;
    this.heap.remove(entry);
    if (wasTop) this.rearm();
  }

  defer<T>(fn: (arg: T) => void, arg: T): void {
    queueMicrotask(() => fn(arg));
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = () => {
        handle.cancel();
        reject(abortReason(signal as AbortSignal));
      };
      const handle = this.setTimer(delayMs, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  toRealMs(emulatedMs: number): number {
    return emulatedMs / this.scale;
  }

  pendingTimers(): number {
    return this.heap.size;
  }

  /**
   * The due time of the timer whose callback is running (undefined between callbacks): a clock
   * whose timers can fire late (the scaled clock) answers it from now(), see ScaledClock.
   */
  protected firingDueMs: number | undefined = undefined;

  /**
   * Fire every timer due at or before `nowMs`, in due order. Timers added while firing run too if
   * due, up to `maxCallbacks` in all; the rest wait for the caller's next arming, so a chain of
   * timers due at once (such as zero gaps) cannot hold the process from I/O.
   */
  protected fireDue(nowMs: number, maxCallbacks = Infinity): void {
    for (let fired = 0; fired < maxCallbacks; fired += 1) {
      const top = this.heap.peek();
      if (top === undefined || top.dueAtMs > nowMs) return;
      this.heap.pop();
      top.cancelled = true;
      this.firingDueMs = top.dueAtMs;
      try {
        top.fn(top.arg);
      } catch (e) {
        this.timerFailed(e);
      } finally {
        this.firingDueMs = undefined;
      }
    }
  }

  protected timerFailed(e: unknown): void {
    try {
      if (this.onError) this.onError(e);
      else process.stderr.write(`emulator clock: a timer failed: ${e instanceof Error ? e.name : 'error'}\n`);
    } catch {
      // The report itself failed: the timer loop goes on regardless.
    }
  }

  dispose(): void {
    this.heap.clear();
    this.rearm();
  }
}

/** Timer callbacks one host turn of the scaled clock runs at most before it yields to I/O. */
const MAX_CALLBACKS_PER_TURN = 10_000;

/**
 * Real-time clock running `scale` times faster than the host clock. Emulated time starts
 * at the host's wall time and advances `scale` emulated ms per real ms.
 *
 * Event time: a host timer fires late (its whole-ms rounding and the event loop's turn: 1-5 real
 * ms, which at scale 60 are 60-300 emulated ms). A timer callback, and what it defers, reads
 * now() as its timer's due time rather than the moment the host ran it, so a chain of modelled
 * steps (overhead, dispatch, execution, a cold start, an idle timeout) keeps the durations the
 * model drew instead of adding the host's lateness at every link, and the timing fields report
 * them. The clock never answers an earlier time than one it has answered before (a request
 * handled while a timer was late has already stamped its own time), so what one callback or
 * request stamps stays ordered after what came before it.
 */
export class ScaledClock extends HeapClock {
  readonly scale: number;
  private readonly originReal: number;
  private readonly originEmulated: number;
  private hostTimer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  /** The latest time now() has answered. */
  private answeredMs = -Infinity;

  constructor(scale = 1, startMs: number = Date.now()) {
    super();
    if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`time scale must be a positive finite number, got ${scale}`);
    this.scale = scale;
    this.originReal = performance.now();
    this.originEmulated = startMs;
  }

  /** Emulated time as the host clock says it is now (no event time). */
  private hostNow(): number {
    return this.originEmulated + (performance.now() - this.originReal) * this.scale;
  }

  now(): number {
    const t = this.firingDueMs ?? this.hostNow();
    if (t > this.answeredMs) this.answeredMs = t;
    return this.answeredMs;
  }

  /**
   * What a timer callback defers runs as a microtask once the batch of due timers has fired,
   * reading now() as its caller's due time or the latest time answered since, whichever is later
   * (the emulator's deferred steps compute absolute due times, so either reading gives the same).
   */
  override defer<T>(fn: (arg: T) => void, arg: T): void {
    const due = this.firingDueMs;
    if (due === undefined) {
      queueMicrotask(() => fn(arg));
      return;
    }
    queueMicrotask(() => {
      const outer = this.firingDueMs;
      this.firingDueMs = due;
      try {
        fn(arg);
      } finally {
        this.firingDueMs = outer;
      }
    });
  }

  protected rearm(): void {
    const top = this.heap.peek();
    if (top === undefined) {
      if (this.hostTimer) clearTimeout(this.hostTimer);
      this.hostTimer = undefined;
      this.armedFor = Infinity;
      return;
    }
    if (this.hostTimer && this.armedFor <= top.dueAtMs) return;
    if (this.hostTimer) clearTimeout(this.hostTimer);
    this.armedFor = top.dueAtMs;
    const realDelay = Math.max(0, (top.dueAtMs - this.hostNow()) / this.scale);
    this.hostTimer = setTimeout(() => this.onHostTimer(), Math.ceil(realDelay));
    // The emulator's own timers must not keep a process alive once its server is closed.
    this.hostTimer.unref();
  }

  private onHostTimer(): void {
    this.hostTimer = undefined;
    this.armedFor = Infinity;
    // A callback's timers are due from its due time, so an overdue chain catches up within one
    // turn; a turn is bounded so that requests are still served (the rest fires a ms later).
    this.fireDue(this.hostNow(), MAX_CALLBACKS_PER_TURN);
    this.rearm();
  }
}

/** A clock that moves only when told to: for unit tests of lifecycle rules. */
export class ManualClock extends HeapClock {
  readonly scale = 1;
  private current: number;

  constructor(startMs = 0) {
    super();
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  /** Move time forward by `ms`, firing every timer that falls due, in order, at its own due time. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || top.dueAtMs > target) break;
      this.current = Math.max(this.current, top.dueAtMs);
      this.fireDue(this.current);
    }
    this.current = target;
  }

  protected rearm(): void {
    // Nothing to arm: time moves only through advance().
  }
}

/**
 * The discrete-event clock of the simulator (src/sim/): time jumps to the next due timer (next-event
 * time advance), with no host timer and no microtask in between, so a simulated hour runs in a
 * fraction of a real second. What `defer` queues runs at the end of the event that queued it, as a
 * microtask would on the real-time clocks. Single-threaded and synchronous: `run` returns when the
 * heap is empty, time passes `untilMs`, or `stop()` answers true.
 */
export class VirtualClock extends HeapClock {
  readonly scale = 1;
  private current: number;
  /** Deferred functions and their arguments, interleaved. */
  private readonly deferred: unknown[] = [];
  /** Timer callbacks run so far (the simulator's unit of work). */
  events = 0;

  constructor(startMs = 0) {
    super();
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  override defer<T>(fn: (arg: T) => void, arg: T): void {
    this.deferred.push(fn, arg);
  }

  /** Run the next due timer (time moves to its due time) and what it deferred; false when none is pending. */
  step(): boolean {
    const top = this.heap.pop();
    if (top === undefined) return false;
    if (top.dueAtMs > this.current) this.current = top.dueAtMs;
    top.cancelled = true;
    this.events += 1;
    try {
      top.fn(top.arg);
    } catch (e) {
      this.timerFailed(e);
    }
    this.flushDeferred();
    return true;
  }

  /** Run what `defer` queued (a deferred function may queue more: they run too, in order). */
  flushDeferred(): void {
    for (let i = 0; i < this.deferred.length; i += 2) {
      try {
        (this.deferred[i] as (arg: unknown) => void)(this.deferred[i + 1]);
      } catch (e) {
        this.timerFailed(e);
      }
    }
    this.deferred.length = 0;
  }

  /** Due time of the next timer; Infinity when none is pending. */
  nextDueMs(): number {
    return this.heap.peek()?.dueAtMs ?? Infinity;
  }

  /**
   * Run timers in due order while the next is due at or before `untilMs` and `stop` (checked
   * after each event) answers false; time ends at the last event run.
   */
  run(untilMs = Infinity, stop?: () => boolean): void {
    this.flushDeferred();
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || top.dueAtMs > untilMs) return;
      this.step();
      if (stop?.() === true) return;
    }
  }

  protected rearm(): void {
    // Nothing to arm: time moves only through step() and run().
  }
}

/**
 * Real (host) monotonic ms, for what must stay in real time whatever the scale: the §8
 * rate windows by default, and HTTP-level bounds. The one place outside the classes above
 * that reads the host clock.
 */
export function hostNowMs(): number {
  return performance.now();
}
