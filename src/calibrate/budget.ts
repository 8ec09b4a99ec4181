// The calibration's budget: how many jobs it may submit and for how long it may run. Every job
// leaves through `JobBudget.take()` before it is sent, so the count can never pass --max-jobs;
// the deadline aborts every phase at --max-duration.
import { setMaxListeners } from 'node:events';
import { QbenchError } from '../errors.js';

/** Thrown (before anything is sent) when a phase asks for a job beyond the budget. */
export class BudgetExhaustedError extends QbenchError {
  constructor(maxJobs: number) {
    super('QB_ERR_USAGE', `the job budget of ${maxJobs} is spent: no further job is sent`);
    this.name = 'BudgetExhaustedError';
  }
}

export class JobBudget {
  private sentJobs = 0;

  constructor(readonly maxJobs: number) {}

  /** Count one job about to be sent; throws (and counts nothing) when the budget is spent. */
  take(): void {
    if (this.sentJobs >= this.maxJobs) throw new BudgetExhaustedError(this.maxJobs);
    this.sentJobs += 1;
  }

  get sent(): number {
    return this.sentJobs;
  }

  get left(): number {
    return this.maxJobs - this.sentJobs;
  }
}

/**
 * The run's wall-clock limit: `signal` aborts at `maxDurationMs` real ms after the start, or
 * when the caller's signal does (SIGINT). `close()` disarms the timer.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  readonly startedAtMs: number;

  constructor(
    readonly maxDurationMs: number,
    private readonly now: () => number,
    outer?: AbortSignal,
  ) {
    this.startedAtMs = now();
    // Every job of a burst waits on this signal at once (each wait removes its listener when it
    // ends): no bound on them, so no leak warning at Node's default of 10.
    setMaxListeners(0, this.controller.signal);
    this.timer = setTimeout(() => this.controller.abort(new Error(`--max-duration of ${Math.round(maxDurationMs / 1000)} s reached`)), maxDurationMs);
    if (outer) {
      if (outer.aborted) this.controller.abort(outer.reason);
      else outer.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Real ms left before the deadline (0 once it passed). */
  remainingMs(): number {
    return Math.max(0, this.startedAtMs + this.maxDurationMs - this.now());
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
