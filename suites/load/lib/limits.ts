// Shared by the shipped load scenarios: the documented §8 limits (src/spec), the limits an
// emulator advertises in GET /_qbench/info, the `op` and `expect` parameters, the real-time
// length of a rate window, the request of each rate-limited operation, and window arithmetic
// on send times.
import {
  RATE_LIMITS, RATE_WINDOW_MS, param, type RateLimitedOperation, type LoadTarget, type RequestSpec, type RunContext,
} from 'qbench/suite';
import { valueAt } from './answer.js';

export const PROBED_OPERATIONS = ['run', 'runsync', 'status', 'stream', 'cancel', 'purge-queue'] as const satisfies readonly RateLimitedOperation[];
export type ProbedOperation = (typeof PROBED_OPERATIONS)[number];

/**
 * `--param expect`: what the verdict compares with, the documented §8 value (default), or
 * (`advertised`) what the emulator says it enforces.
 */
export const EXPECT_PARAM = param.oneOf(['documented', 'advertised']).default('documented');
export type Expect = 'documented' | 'advertised';

/** `--param op` of the scenarios that probe any of the rate-limited operations (default all). */
export const PROBED_OPERATIONS_PARAM = param.list(param.oneOf(PROBED_OPERATIONS)).default([...PROBED_OPERATIONS]);

/** `--param op` of the scenarios about /run and /runsync (default both). */
export const RUN_OPERATIONS_PARAM = param.list(param.oneOf(['run', 'runsync'])).default(['run', 'runsync']);

export interface ExpectedRule {
  readonly requestsPerWindow: number;
  readonly concurrency: number | null;
  /** Where the numbers come from, for the findings. */
  readonly source: string;
}

/** The limit the target enforces (the emulator says so), else the documented one. */
export function enforcedRule(target: LoadTarget, op: RateLimitedOperation): ExpectedRule {
  const requestsPerWindow = valueAt(target.info, 'limits', 'rates', op, 'requestsPerWindow');
  if (typeof requestsPerWindow === 'number') {
    const concurrency = valueAt(target.info, 'limits', 'rates', op, 'concurrency');
    return { requestsPerWindow, concurrency: typeof concurrency === 'number' ? concurrency : null, source: 'emulator /_qbench/info' };
  }
  return documentedRule(op);
}

export function documentedRule(op: RateLimitedOperation): ExpectedRule {
  const r = RATE_LIMITS[op];
  return { requestsPerWindow: r.requestsPerWindow, concurrency: r.concurrency, source: `${r.section} table` };
}

/** What the verdict compares with (see EXPECT_PARAM). */
export function expectedRule(target: LoadTarget, op: RateLimitedOperation, expect: Expect): ExpectedRule {
  return expect === 'advertised' ? enforcedRule(target, op) : documentedRule(op);
}

/** Real ms of one §8 rate window on this target (shorter when the emulator scales its windows). */
export function rateWindowRealMs(target: LoadTarget): number {
  const scaled = target.info?.['scaleRateWindows'] === true;
  return scaled ? RATE_WINDOW_MS / target.timeScale : RATE_WINDOW_MS;
}

/** Requests per window the emulator adds per running worker (§8 dynamic rule), if it says. */
export function advertisedRequestsPerWorker(target: LoadTarget): number | undefined {
  const perWorker = valueAt(target.info, 'limits', 'requestsPerWorker');
  return typeof perWorker === 'number' ? perWorker : undefined;
}

/** The request one probe of `op` sends; `jobId` is a real job for the id-taking operations. */
export function operationRequest(op: ProbedOperation, jobId: string, input: Record<string, unknown> = {}): RequestSpec {
  switch (op) {
    case 'run':
      return { method: 'POST', path: '/run', body: { input } };
    case 'runsync':
      return { method: 'POST', path: '/runsync', body: { input } };
    case 'status':
      return { method: 'GET', path: `/status/${encodeURIComponent(jobId)}` };
    case 'stream':
      return { method: 'GET', path: `/stream/${encodeURIComponent(jobId)}` };
    case 'cancel':
      return { method: 'POST', path: `/cancel/${encodeURIComponent(jobId)}` };
    case 'purge-queue':
      return { method: 'POST', path: '/purge-queue' };
  }
}

/** Submit a job and wait until it is terminal (setup of status/stream/cancel probes). */
export async function finishedJob(ctx: RunContext, input: Record<string, unknown> = {}): Promise<string> {
  const a = await ctx.request({ method: 'POST', path: '/runsync', body: { input } });
  const id = valueAt(a.json(), 'id');
  if (a.status !== 200 || typeof id !== 'string') throw new Error(`setup: POST /runsync answered ${a.status ?? 'no answer'}: ${a.bodyText.slice(0, 200)}`);
  return id;
}

/** Largest number of times inside any window of `windowMs` (times sorted ascending). */
export function maxInSlidingWindow(sortedTimesMs: readonly number[], windowMs: number): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sortedTimesMs.length; hi++) {
    while (sortedTimesMs[hi]! - sortedTimesMs[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Counts per consecutive window from `t0Ms` (the "accepted in every window" table). */
export function countsPerWindow(timesMs: readonly number[], t0Ms: number, windowMs: number, windows: number): number[] {
  const out = new Array<number>(windows).fill(0);
  for (const t of timesMs) {
    const i = Math.floor((t - t0Ms) / windowMs);
    if (i >= 0 && i < windows) out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

/** One request as the client saw it: admitted by the server somewhere in [sentMs, endMs]. */
export interface Exchange {
  readonly sentMs: number;
  readonly endMs: number;
  readonly status: number | null;
}

/**
 * Bounds on the most requests the server admitted inside any window of `windowMs`, from the
 * client's view (admission happened between send and answer): `atLeast` counts requests
 * wholly inside some window, `atMost` those overlapping it. Robust to generator jitter.
 */
export function admittedPerWindowBounds(xs: readonly Exchange[], windowMs: number): { atLeast: number; atMost: number } {
  const bySent = [...xs].sort((a, b) => a.sentMs - b.sentMs);
  let atLeast = 0;
  let atMost = 0;
  const n = bySent.length;
  for (let i = 0; i < n; i++) {
    const a = bySent[i]!.sentMs;
    let inside = 0;
    for (let j = i; j < n; j++) {
      const x = bySent[j]!;
      if (x.sentMs >= a + windowMs) break;
      if (x.endMs <= a + windowMs) inside++;
    }
    atLeast = Math.max(atLeast, inside);
  }
  const byEnd = [...xs].sort((a, b) => a.endMs - b.endMs);
  for (let i = 0; i < n; i++) {
    const a = byEnd[i]!.endMs;
    // Window [a, a + windowMs): anything answered at or after a and sent before its end.
    let overlapping = 0;
    for (let j = i; j < n; j++) {
      const x = byEnd[j]!;
      if (x.sentMs < a + windowMs) overlapping++;
    }
    atMost = Math.max(atMost, overlapping);
  }
  return { atLeast, atMost };
}
