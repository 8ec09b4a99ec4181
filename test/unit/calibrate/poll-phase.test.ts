// The start-timing polls after a send (firstPollAfterSend): drawn so that they are a stationary
// renewal process from the earliest instant a poll can describe (the sends answered, then half a
// round trip), a change at any instant after that is read at the middle of the span it is seen in
// with no bias, whatever that instant (a worker begun on the send, one begun at a scaler's check,
// each ready a cold start later). Here the send goes at 0, its answer comes at one round trip, and
// the first poll is sent then, after its sleep.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstPollAfterSend, POLL_JITTER, type PhaseContext } from '../../../src/calibrate/phase-context.js';
import { seededRng } from '../../../src/deployment/index.js';

const SEED = Number(process.env['FC_SEED'] ?? Date.now() % 2 ** 31);
console.log(`poll-phase fast-check seed ${SEED} (FC_SEED=${SEED} reruns it)`);

/** Readings per case: the standard error of the mean error is about a poll's 0.3 / sqrt(TRIALS). */
const TRIALS = 4_000;
/** A mean beyond this many standard errors is a bias (by chance: under 1 in a million per case). */
const Z = 5;

interface Scheme {
  /** The first poll's instant (the middle of its round trip) after a send at 0, and where the span it closes starts. */
  first(): { atMs: number; fromMs: number };
}

/** Mean and standard error of (middle of the span covering `eventMs`) - eventMs over TRIALS sends. */
function readingBias(scheme: Scheme, gapMs: () => number, rttMs: number, eventMs: number): { mean: number; se: number } {
  let sum = 0;
  let sum2 = 0;
  for (let i = 0; i < TRIALS; i += 1) {
    const f = scheme.first();
    let from = f.fromMs;
    let to = f.atMs;
    while (to < eventMs) {
      from = to;
      to += rttMs + gapMs();
    }
    const e = (from + to) / 2 - eventMs;
    sum += e;
    sum2 += e * e;
  }
  const mean = sum / TRIALS;
  return { mean, se: Math.sqrt(Math.max(0, sum2 / TRIALS - mean * mean) / TRIALS) };
}

function setup(pollMs: number, seed: number) {
  const rng = seededRng(seed);
  const pollGapMs = () => pollMs * (1 - POLL_JITTER + 2 * POLL_JITTER * rng.next());
  const ctx = { healthPollMs: pollMs, pollGapMs, pollPhase: () => rng.next() } as unknown as PhaseContext;
  return { ctx, rng, pollGapMs };
}

describe('firstPollAfterSend', () => {
  it('a change any time after the earliest instant a poll can describe is read at the middle of its span with no bias (stationary polls)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 50 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 6, noNaN: true }), fc.integer({ min: 1, max: 2 ** 30 }), (pollMs, rttShare, eventPolls, seed) => {
        const rttMs = rttShare * pollMs;
        const { ctx, pollGapMs } = setup(pollMs, seed);
        const scheme: Scheme = {
          first() {
            const p = firstPollAfterSend(ctx, rttMs);
            const atMs = rttMs + p.sleepMs + rttMs / 2;
            return { atMs, fromMs: atMs - p.spanMs };
          },
        };
        const eventMs = 1.5 * rttMs + eventPolls * pollMs;
        const b = readingBias(scheme, pollGapMs, rttMs, eventMs);
        expect(Math.abs(b.mean), `poll ${pollMs} ms, round trip ${rttMs.toFixed(2)} ms, change ${eventMs.toFixed(2)} ms after the send: mean error ${b.mean.toFixed(3)} ms ± ${b.se.toFixed(3)}`).toBeLessThanOrEqual(Z * b.se + 1e-9);
      }),
      { seed: SEED, numRuns: 25 },
    );
  });
});
