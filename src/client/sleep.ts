// The one abortable real-time wait: a single timer, cleared (and its abort listener removed)
// as soon as either the time passes or the signal aborts, so no wait outlives its run.
// Callers pick what an abort means: the client's backoff and the fuzzer stop with the
// signal's reason; the load engine and the worker loop simply stop waiting.

/** Wait `ms` real ms: true when the time passed, false (at once) when `signal` aborts or already has. */
export function waitRealMs(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wait `ms` real ms; rejects with the signal's reason when it aborts. */
export async function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!(await waitRealMs(ms, signal))) throw signal?.reason as Error;
}

/** Wait `ms` real ms, or less: resolves at once when `signal` aborts, or when `ms` is not positive. */
export async function sleepUntilAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (ms > 0) await waitRealMs(ms, signal);
}
