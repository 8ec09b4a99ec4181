// Open-loop arrival schedules (wrk2/k6 style): the intended start offset of every
// iteration, computed from the rate profile alone, never from responses. Uniform arrivals
// invert the cumulative rate Λ(t) at 0, 1, 2...; Poisson arrivals invert it at the partial
// sums of Exp(1) draws from a seeded PRNG (time rescaling), so every thread computes the
// same global schedule and takes every Nth start (exact split of the global rate).
// The random module alone, not the deployment index: worker threads compute schedules and need no schema.
import { seededRng } from '../deployment/random.js';

export interface RateSegment {
  readonly durationMs: number;
  readonly fromRatePerSec: number;
  readonly toRatePerSec: number;
}

/** Expected iteration count of a profile: Λ(end). */
export function expectedCount(segments: readonly RateSegment[]): number {
  return segments.reduce((a, s) => a + ((s.fromRatePerSec + s.toRatePerSec) / 2) * (s.durationMs / 1000), 0);
}

/** Offset (ms) at which the cumulative count Λ reaches `n`, or undefined past the end. */
export function inverseCumulative(segments: readonly RateSegment[], n: number): number | undefined {
  let startMs = 0;
  let acc = 0;
  for (const s of segments) {
    const dSec = s.durationMs / 1000;
    const r0 = s.fromRatePerSec;
    const r1 = s.toRatePerSec;
    const area = ((r0 + r1) / 2) * dSec;
    if (n < acc + area) {
      const need = n - acc;
      const slope = (r1 - r0) / dSec; // per s^2
      let tau: number;
      if (Math.abs(slope) < 1e-12) tau = need / r0;
      else {
        // r0*tau + slope*tau^2/2 = need
        const disc = r0 * r0 + 2 * slope * need;
        tau = (-r0 + Math.sqrt(Math.max(0, disc))) / slope;
      }
      return startMs + Math.min(dSec, Math.max(0, tau)) * 1000;
    }
    acc += area;
    startMs += s.durationMs;
  }
  return undefined;
}

export interface ScheduleOptions {
  readonly segments: readonly RateSegment[];
  readonly arrivals: 'uniform' | 'poisson';
  readonly seed: number;
  /** This shard takes global iterations i with i % shardCount === shardIndex. */
  readonly shardIndex: number;
  readonly shardCount: number;
}

export interface ScheduledIteration {
  /** Global iteration index. */
  readonly index: number;
  /** Intended start, ms after the scenario start. */
  readonly offsetMs: number;
}

/** The shard's iterations in order of intended start; ends with the profile. */
export function* schedule(opts: ScheduleOptions): Generator<ScheduledIteration, void, undefined> {
  // The same seed gives the same schedule in every thread.
  const rng = seededRng(opts.seed);
  let cumulative = 0;
  for (let i = 0; ; i++) {
    if (opts.arrivals === 'poisson') {
      // Exp(1) draw; 1 - next() is in (0, 1], so the log is finite.
      cumulative += -Math.log(1 - rng.next());
    } else {
      cumulative = i;
    }
    const offsetMs = inverseCumulative(opts.segments, cumulative);
    if (offsetMs === undefined) return;
    if (i % opts.shardCount === opts.shardIndex) yield { index: i, offsetMs };
  }
}
