// What more a calibration must measure for its twin to reach a stated precision: after the
// planned queue phases, `qbench calibrate --precision P` spends what --max-jobs leaves on more
// warm jobs (dispatch, execution, overhead) and more cold batches (cold starts, throttling) until
// every part it targets is known that well, read off the precision each fit already carries.
//  - a median (dispatch, execution by class, overhead, a one-part cold start): its 95% interval
//    within ±P;
//  - a share (the fast part of a cold-start mixture, the chance a start waits for capacity):
//    its 95% interval within ±2P points (P 5%: ±10 points, the report's own measure).
// A queue near capacity multiplies a service time's error in its waits (a twin 4% fast on
// execution can be 15% short on delayTime at 80% load), so P is the lever on the twin's
// delay figures; the report says what was reached and what the budget left short.
import type { PartFit } from './part-fit.js';
import { wilson95 } from './fit.js';
import type { ThrottleEstimate } from './throttle.js';

const LN_FIVE_PERCENT = Math.log(1.05);

/** Samples for a median within ±`p` from those for ±5% (the interval narrows as 1 / sqrt n). */
export function samplesForRelative(samplesFor5Percent: number, p: number): number {
  return Math.ceil(samplesFor5Percent * (LN_FIVE_PERCENT / Math.log(1 + p)) ** 2);
}

/** The larger side of Wilson's 95% interval of a share `p` of `n` draws. */
export function shareHalfWidth(p: number, n: number): number {
  const { low, high } = wilson95(p, n);
  return Math.max(high - p, p - low);
}

/**
 * The fewest draws whose Wilson interval at `share` is within ±`points` on its larger side (near
 * 0 or 1 that side is wider than the normal's z sqrt(p (1 - p) / n), so a rare share needs more).
 */
export function drawsForShare(share: number, points: number): number {
  let hi = 1;
  while (shareHalfWidth(share, hi) > points && hi < 1e7) hi *= 2;
  let lo = Math.max(1, hi >> 1);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (shareHalfWidth(share, mid) <= points) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

export interface PrecisionNeed {
  /** More warm jobs per input class. */
  readonly warmJobsPerClass: number;
  /** More worker starts to watch. */
  readonly coldStarts: number;
  /** Each part short of the target: what it is known to now, and the samples it needs. */
  readonly short: readonly string[];
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * What `fits` and `throttle` lack for `p`: warm jobs per input class (each warm job is a sample of
 * dispatch and overhead, and of its class's execution), worker starts (each watched start is a
 * cold-start sample and a throttle draw). A part still short of `p` asks for one sample at least.
 * Not targeted: the throttle's wait (sampled only by the starts that wait, a share of them) and
 * each part's median of a cold-start mixture (its share is).
 */
export function precisionNeed(fits: readonly PartFit[], throttle: ThrottleEstimate | undefined, p: number, classes = 1): PrecisionNeed {
  let warmTotal = 0;
  let warmPerClass = 0;
  let cold = 0;
  const short: string[] = [];
  for (const f of fits) {
    const n = f.samplesMs.length - f.fit.outliersMs.length;
    const label = f.classId === undefined ? f.part : `${f.part} (${f.classId})`;
    if (f.part === 'dispatch' || f.part === 'execution' || f.part === 'overhead') {
      if (f.precision.medianRelative <= p) continue;
      const need = Math.max(1, samplesForRelative(f.precision.samplesFor5Percent, p) - n);
      if (f.part === 'execution' && classes > 1) warmPerClass = Math.max(warmPerClass, need);
      else warmTotal = Math.max(warmTotal, need);
      short.push(`${label} median ±${pct(f.precision.medianRelative)} from ${n} samples: ${need} more`);
    } else if (f.part === 'coldStart') {
      const share = f.precision.share;
      if (share !== undefined) {
        const half = shareHalfWidth(share.p, n);
        if (half <= 2 * p) continue;
        const need = Math.max(1, drawsForShare(share.p, 2 * p) - n);
        cold = Math.max(cold, need);
        short.push(`cold-start fast share ${pct(share.p)} ±${pct(half)} from ${n} starts: ${need} more`);
      } else if (f.fit.dist.kind !== 'constant' && f.precision.medianRelative > p) {
        const need = Math.max(1, samplesForRelative(f.precision.samplesFor5Percent, p) - n);
        cold = Math.max(cold, need);
        short.push(`cold-start median ±${pct(f.precision.medianRelative)} from ${n} starts: ${need} more`);
      }
    }
  }
  // None seen throttled still leaves a chance up to the interval's top (3 starts in 100 would move the tail).
  if (throttle !== undefined && throttle.starts > 0) {
    const half = shareHalfWidth(throttle.probability, throttle.starts);
    if (half > 2 * p) {
      const need = Math.max(1, drawsForShare(throttle.probability, 2 * p) - throttle.starts);
      cold = Math.max(cold, need);
      short.push(`throttle probability ${pct(throttle.probability)} ±${pct(half)} from ${throttle.starts} starts: ${need} more`);
    }
  }
  return { warmJobsPerClass: Math.max(warmPerClass, Math.ceil(warmTotal / classes)), coldStarts: cold, short };
}

/**
 * The jobs left split between the warm and the cold need in proportion to their cost in jobs
 * (all of each when the budget holds both).
 */
export function splitBudget(left: number, warmJobs: number, coldJobs: number): { warm: number; cold: number } {
  if (left <= 0) return { warm: 0, cold: 0 };
  const total = warmJobs + coldJobs;
  if (total <= left) return { warm: warmJobs, cold: coldJobs };
  const warm = Math.floor((left * warmJobs) / total);
  return { warm, cold: left - warm };
}
