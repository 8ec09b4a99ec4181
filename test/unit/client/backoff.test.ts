// The 429 policy's bounds as properties: every jittered wait lies in [0, min(cap, base*2^n)],
// a request never makes more than maxAttempts attempts, Retry-After (seconds or HTTP-date)
// is honoured up to its cap, and every attempt is recorded.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF,
  backoffCeilingMs,
  jitteredDelayMs,
  nextWaitMs,
  parseRetryAfterMs,
  resolveBackoff,
  withBackoff,
  type AttemptRecord,
  type BackoffOptions,
} from '../../../src/client/backoff.js';
import { isQbenchError } from '../../../src/errors.js';

const optionsArb: fc.Arbitrary<BackoffOptions> = fc
  .record({
    baseMs: fc.integer({ min: 1, max: 2_000 }),
    extraCapMs: fc.integer({ min: 0, max: 120_000 }),
    maxAttempts: fc.integer({ min: 1, max: 12 }),
    honourRetryAfter: fc.boolean(),
    retryAfterCapMs: fc.integer({ min: 0, max: 300_000 }),
  })
  .map(({ extraCapMs, ...o }) => resolveBackoff({ ...o, capMs: o.baseMs + extraCapMs }));

/** A random in [0, 1), as Math.random gives. */
const unitArb = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('full-jitter bounds', () => {
  it('every wait lies in [0, min(cap, base * 2^n)] and is a whole ms', () => {
    fc.assert(
      fc.property(optionsArb, fc.integer({ min: 0, max: 2_000 }), unitArb, (opts, n, r) => {
        const w = jitteredDelayMs(n, opts, () => r);
        const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** n);
        expect(backoffCeilingMs(n, opts)).toBe(ceiling);
        expect(Number.isInteger(w)).toBe(true);
        expect(w).toBeGreaterThanOrEqual(0);
        expect(w).toBeLessThanOrEqual(ceiling);
      }),
    );
  });

  it('the ceiling doubles until the cap and then stays', () => {
    const opts = resolveBackoff({ baseMs: 100, capMs: 1_000 });
    expect([0, 1, 2, 3, 4, 50, 5_000].map((n) => backoffCeilingMs(n, opts))).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
    // Full jitter spans the whole range: the extremes of random reach both ends.
    expect(jitteredDelayMs(3, opts, () => 0)).toBe(0);
    expect(jitteredDelayMs(3, opts, () => 0.999_999)).toBe(799);
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('delta-seconds and HTTP-date both parse to ms; past dates give 0; junk is ignored', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (s) => {
        expect(parseRetryAfterMs(String(s), now)).toBe(s * 1000);
        expect(parseRetryAfterMs(new Date(now + s * 1000).toUTCString(), now)).toBe(s * 1000);
        expect(parseRetryAfterMs(new Date(now - (s + 1) * 1000).toUTCString(), now)).toBe(0);
      }),
    );
    for (const junk of [undefined, '', ' ', '-1', '1.5', '0x10', 'soon', '12abc']) expect(parseRetryAfterMs(junk, now)).toBeUndefined();
    expect(parseRetryAfterMs(['3', '9'], now)).toBe(3000);
  });

  it('is honoured exactly, up to retryAfterCapMs, and only when the options say so', () => {
    fc.assert(
      fc.property(optionsArb, fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: 0, max: 20 }), unitArb, (opts, ra, n, r) => {
        const w = nextWaitMs(n, ra, opts, () => r);
        if (opts.honourRetryAfter) expect(w).toBe(Math.min(ra, opts.retryAfterCapMs));
        else expect(w).toBe(jitteredDelayMs(n, opts, () => r));
      }),
    );
  });
});

describe('withBackoff', () => {
  /** Answers: status per attempt (after the list ends, 200), with an optional Retry-After in seconds. */
  const scriptArb = fc.array(fc.record({ status: fc.constantFrom(429, 429, 429, 200, 404, 500), retryAfterS: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }) }), { maxLength: 15 });

  it('never exceeds maxAttempts, stops at the first non-429, records each attempt with its wait', async () => {
    await fc.assert(
      fc.asyncProperty(optionsArb, scriptArb, unitArb, async (opts, script, r) => {
        const waits: number[] = [];
        const seen: AttemptRecord[] = [];
        let clock = 1_000_000;
        const result = await withBackoff(
          (n) => {
            const step = script[n - 1] ?? { status: 200, retryAfterS: undefined };
            return Promise.resolve({ status: step.status, retryAfter: step.retryAfterS === undefined ? undefined : String(step.retryAfterS), value: n });
          },
          opts,
          { random: () => r, sleep: (ms) => (waits.push(ms), (clock += ms), Promise.resolve()), now: () => clock, onAttempt: (a) => seen.push(a) },
        );
        const firstNon429 = script.findIndex((s) => s.status !== 429);
        const expected = Math.min(opts.maxAttempts, firstNon429 === -1 ? script.length + 1 : firstNon429 + 1);
        expect(result.attempts).toHaveLength(expected);
        expect(seen).toEqual(result.attempts);
        expect(result.attempts.length).toBeLessThanOrEqual(opts.maxAttempts);
        expect(result.exhausted).toBe(result.outcome.status === 429);
        expect(result.attempts.map((a) => a.attempt)).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
        expect(result.attempts[0]!.waitedMs).toBe(0);
        for (let i = 1; i < result.attempts.length; i++) {
          const prev = script[i - 1]!;
          const waited = result.attempts[i]!.waitedMs;
          if (opts.honourRetryAfter && prev.retryAfterS !== undefined) {
            expect(waited).toBe(Math.min(prev.retryAfterS * 1000, opts.retryAfterCapMs));
          } else {
            expect(waited).toBeGreaterThanOrEqual(0);
            expect(waited).toBeLessThanOrEqual(backoffCeilingMs(i - 1, opts));
          }
          // Attempts start after their wait.
          expect(result.attempts[i]!.startedAtMs).toBeGreaterThanOrEqual(result.attempts[i - 1]!.startedAtMs + waited);
        }
        expect(waits.filter((w) => w > 0)).toEqual(result.attempts.slice(1).map((a) => a.waitedMs).filter((w) => w > 0));
      }),
    );
  });

  it('records a throwing attempt with status null and its error code, then rethrows', async () => {
    const seen: AttemptRecord[] = [];
    const err = Object.assign(new Error('socket'), { code: 'QB_ERR_NETWORK' });
    let n = 0;
    const p = withBackoff(
      () => (++n === 1 ? Promise.resolve({ status: 429, value: 0 }) : Promise.reject(err)),
      resolveBackoff({ maxAttempts: 5 }),
      { sleep: () => Promise.resolve(), onAttempt: (a) => seen.push(a) },
    );
    await expect(p).rejects.toBe(err);
    expect(seen.map((a) => [a.status, a.errorCode])).toEqual([[429, undefined], [null, 'QB_ERR_NETWORK']]);
  });

  it('an abort during the wait ends the loop', async () => {
    const ac = new AbortController();
    const p = withBackoff(() => Promise.resolve({ status: 429, value: 0, retryAfter: '60' }), resolveBackoff({ maxAttempts: 3 }), { signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});

describe('resolveBackoff', () => {
  it('merges over the defaults and reports every bad option at once', () => {
    expect(resolveBackoff()).toEqual(DEFAULT_BACKOFF);
    expect(resolveBackoff({ maxAttempts: 1 }).maxAttempts).toBe(1);
    const err = (() => {
      try {
        resolveBackoff({ baseMs: 0, maxAttempts: 0, retryAfterCapMs: -1 });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isQbenchError(err, 'QB_ERR_CONFIG')).toBe(true);
    for (const f of ['baseMs', 'maxAttempts', 'retryAfterCapMs']) expect((err as Error).message).toContain(f);
    expect(() => resolveBackoff({ baseMs: 500, capMs: 100 })).toThrow(/capMs/);
  });
});
