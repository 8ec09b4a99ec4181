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

  it('a use waits for the holder, does not wait for other uses, and dirties the window for the next claim', async () => {
    const ledger = new RateLedger(WINDOW_MS);
    const holder = await ledger.claim('ep', 'purge-queue');
    let usedAt = 0;
    const use = ledger.use('ep', 'purge-queue', () => { usedAt = performance.now(); return Promise.resolve('sent'); });
    // Other uses of an operation nobody holds go at once.
    expect(await ledger.use('ep', 'run', () => Promise.resolve('free'))).toBe('free');
    await new Promise((r) => setTimeout(r, 20));
    expect(usedAt).toBe(0);
    const releasedAt = performance.now();
    holder.release(releasedAt);
    expect(await use).toBe('sent');
    expect(usedAt).toBeGreaterThanOrEqual(releasedAt);
    // Two uses in a row do not wait a window for each other.
    const t0 = performance.now();
    await ledger.use('ep', 'purge-queue', () => Promise.resolve());
    expect(performance.now() - t0).toBeLessThan(WINDOW_MS);
    const lastUse = performance.now();
    const next = await ledger.claim('ep', 'purge-queue');
    expect(performance.now() - lastUse).toBeGreaterThanOrEqual(WINDOW_MS * CLEAN_WINDOW_FACTOR + CLEAN_WINDOW_FLOOR_REAL_MS - 5);
    next.release();
  });

  it('a use waiting for a holder is given up when its signal aborts', async () => {
    const ledger = new RateLedger(WINDOW_MS);
    const holder = await ledger.claim('ep', 'purge-queue');
    let sent = false;
    await expect(ledger.use('ep', 'purge-queue', () => { sent = true; return Promise.resolve(); }, AbortSignal.timeout(10))).rejects.toThrow();
    expect(sent).toBe(false);
    holder.release();
  });
});
