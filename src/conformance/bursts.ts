// Turns for the §8 bursts of every rate and concurrency check in this process: on one host, two
// bursts at once would share the CPU and stretch past the window (or past a hold), so each burst
// waits for the previous one, across runs too (the self-test runs fault emulators side by side).

let chain: Promise<void> = Promise.resolve();

/** Resolves once every burst that asked before has finished; call the answer when this one is done. */
export function burstTurn(): Promise<() => void> {
  let done = (): void => undefined;
  const previous = chain;
  chain = new Promise<void>((resolve) => { done = resolve; });
  return previous.then(() => done);
}
