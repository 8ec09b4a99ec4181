// A bounded pool: at most `concurrency` tasks at once, results in input order. The suite's
// own concurrency stays far below every rate limit of §8 except where a check means to reach one.

export async function runPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers: Promise<void>[] = [];
  const lanes = Math.max(1, Math.min(concurrency, items.length));
  for (let w = 0; w < lanes; w++) {
    workers.push((async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i] as T, i);
      }
    })());
  }
  await Promise.all(workers);
  return results;
}
