// Serialization of the §8 bursts of every rate and concurrency check: on one host, two bursts
// at once would share the CPU and stretch past the window (or past a hold), so each burst
// waits for the previous one; the checks' other waits (window recovery) still overlap.

let burstChain: Promise<unknown> = Promise.resolve();

/** Run `fn` after every burst started before it has finished. */
export function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const run = burstChain.then(fn, fn);
  burstChain = run.catch(() => undefined);
  return run;
}
