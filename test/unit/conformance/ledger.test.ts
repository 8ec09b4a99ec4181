// The runner's rate-window ledger: a second claim of one (endpoint, operation) waits for the
// first holder to release and for one clean window after its last send; other keys do not wait.
import { describe, expect, it } from 'vitest';
import { CLEAN_WINDOW_FACTOR, CLEAN_WINDOW_FLOOR_REAL_MS, RateLedger } from '../../../src/conformance/index.js';

const WINDOW_MS = 200;

describe('RateLedger', () => {
  it('keeps two claims of one operation on one endpoint a clean window apart, and others free', async () => {
    const ledger = new RateLedger(WINDOW_MS);
    const first = await ledger.claim('ep', 'run');
    expect(first.waitedMs).toBeLessThan(50);
    let secondAt = 0;
    const second = ledger.claim('ep', 'run').then((l) => { secondAt = performance.now(); return l; });
    // Another operation, and the same operation of another endpoint, are not held up.
    const other = await ledger.claim('ep', 'status');
    const elsewhere = await ledger.claim('ep-2', 'run');
    expect(other.waitedMs).toBeLessThan(50);
    expect(elsewhere.waitedMs).toBeLessThan(50);
    expect(secondAt).toBe(0);
    const lastSent = performance.now();
    first.release(lastSent);
    const lease = await second;
    // Timer granularity: 5 ms early at most.
    expect(secondAt - lastSent).toBeGreaterThanOrEqual(WINDOW_MS * CLEAN_WINDOW_FACTOR + CLEAN_WINDOW_FLOOR_REAL_MS - 5);
    lease.release();
    other.release();
    elsewhere.release();
  });

  it('gives the operation back when a waiting claim is aborted', async () => {
    const ledger = new RateLedger(WINDOW_MS);
    const first = await ledger.claim('ep', 'run');
    first.release();
    await expect(ledger.claim('ep', 'run', AbortSignal.timeout(10))).rejects.toThrow();
    const next = await ledger.claim('ep', 'run');
    expect(next.waitedMs).toBeGreaterThan(0);
    next.release();
  });
});
