// A check's time budget: aborts its signal once the check has run its allowance, not counting the
// time it spent waiting its turn for a shared resource (another check's rate window, another
// check's burst on this host). A check stopped by the budget hung; one that queued did not.

export interface CheckBudget {
  /** Aborted (with a TimeoutError) once the budget is spent. */
  readonly signal: AbortSignal;
  /** Run `wait` without counting its time against the budget (waits may overlap). */
  excluding<T>(wait: () => Promise<T>): Promise<T>;
  /** Stop the timer (the check is over). */
  dispose(): void;
}

export function checkBudget(allowanceMs: number): CheckBudget {
  const ctl = new AbortController();
  let deadlineMs = performance.now() + allowanceMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiting = 0;
  let waitingSinceMs = 0;
  const arm = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting > 0 || ctl.signal.aborted) return;
    timer = setTimeout(() => ctl.abort(new DOMException(`the check ran past its ${Math.round(allowanceMs)} ms budget`, 'TimeoutError')), Math.max(0, deadlineMs - performance.now()));
    timer.unref();
  };
  arm();
  return {
    signal: ctl.signal,
    async excluding(wait) {
      if (waiting++ === 0) {
        waitingSinceMs = performance.now();
        arm();
      }
      try {
        return await wait();
      } finally {
        if (--waiting === 0) {
          deadlineMs += performance.now() - waitingSinceMs;
          arm();
        }
      }
    },
    dispose() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
