// Throttling (DEPLOYMENT-FACTS.md: a starting worker may wait for GPU capacity, `throttled` on
// /health, before its cold start): the share of the worker starts watched that were seen
// throttled is the probability, with its 95% interval; the waits read to their end are the
// `throttle` fit (infer.ts). Together they are the twin's timing.throttle.
import { quantileMs } from '../deployment/index.js';
import { wilson95, Z95 } from './fit.js';
import type { PartFit } from './part-fit.js';
import type { Observations } from './observations.js';

/** Workers that waited for GPU capacity before their cold start (the model's timing.throttle), as measured. */
export interface ThrottleEstimate {
  /** Worker starts watched on a /health that counts throttled workers, and those seen throttled. */
  readonly starts: number;
  readonly throttled: number;
  /** throttled / starts, and its 95% interval (Wilson). */
  readonly probability: number;
  readonly low: number;
  readonly high: number;
  /** What the twin was given, in words. */
  readonly detail: string;
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** The throttle probability from the starts watched, and what the twin is given, in words; undefined: none watched. */
export function throttleEstimate(th: Observations['throttle'], fit: PartFit | undefined): ThrottleEstimate | undefined {
  if (th.starts === 0) return undefined;
  const probability = th.throttled / th.starts;
  const { low, high } = wilson95(probability, th.starts);
  const share = `${th.throttled} of ${th.starts} worker starts watched waited for GPU capacity (throttled on /health)`;
  let detail: string;
  if (th.throttled === 0) detail = `none of the ${th.starts} worker starts watched waited for GPU capacity (throttled on /health): the twin has no throttling (at 95% the probability is below ${pct(high)})`;
  else if (fit === undefined) detail = `${share}, but no wait was read to its end: the twin has no throttling; measuring it takes a throttled start watched until it leaves the throttled count (a longer watch, --cold-starts)`;
  else detail = `${share}: probability ${pct(probability)} (95%: ${pct(low)}-${pct(high)}), the wait fitted from ${fit.samplesMs.length - fit.fit.outliersMs.length} of them (median ${Math.round(quantileMs(fit.fit.dist, 0.5))} ms); the cold start is timed from the wait's end`;
  return { starts: th.starts, throttled: th.throttled, probability, low, high, detail };
}

/** Starts that place a probability near one half within ±10 points (95%, Wald): z^2 p (1 - p) / 0.1^2 at p = 0.5. */
const STARTS_FOR_TEN_POINTS = Math.ceil((Z95 * Z95 * 0.25) / 0.01);

/** The report's note on throttling: what was measured and given to the twin, or that nothing was and what measuring it takes. */
export function throttleNote(t: ThrottleEstimate | undefined): string {
  return `throttle: ${
    t?.detail ??
    `not measured (no worker start was watched on a /health that counts throttled workers); the twin has no throttling; measuring it takes worker starts (cold batches, --cold-starts > 0, or a burst that scales up) on a /health that reports workers.throttled: about ${STARTS_FOR_TEN_POINTS} starts for its probability within ±10 points`
  }`;
}
