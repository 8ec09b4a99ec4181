// A check's time budget (src/conformance/budget.ts): it aborts once the check has run its
// allowance, and the time spent waiting a turn (another check's rate window or burst) is added back.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { checkBudget } from '../../../src/conformance/budget.js';
import { realSleep } from '../../../src/client/sleep.js';

describe('checkBudget', () => {
  it('aborts with a TimeoutError once the allowance is spent', async () => {
    const started = performance.now();
    const b = checkBudget(100);
    await once(b.signal, 'abort');
    // Timers never fire early; the upper bound only guards against a budget that never ends.
    expect(performance.now() - started).toBeGreaterThanOrEqual(99);
    expect((b.signal.reason as Error).name).toBe('TimeoutError');
  });

  it('does not count overlapping waits for a turn, and counts the time around them', async () => {
    const started = performance.now();
    const b = checkBudget(150);
    // Two waits that overlap: 300 ms of turn-waiting in all (not 500), all added back.
    await Promise.all([b.excluding(() => realSleep(300)), realSleep(100).then(() => b.excluding(() => realSleep(200)))]);
    expect(b.signal.aborted).toBe(false);
    await once(b.signal, 'abort');
    // 150 ms of allowance + 300 ms excluded; a loaded host may fire later, never earlier.
    expect(performance.now() - started).toBeGreaterThanOrEqual(449);
    b.dispose();
  });

  it('stops its timer when disposed', async () => {
    const b = checkBudget(50);
    b.dispose();
    await realSleep(120);
    expect(b.signal.aborted).toBe(false);
  });
});
