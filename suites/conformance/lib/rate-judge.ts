// The verdict on one §8 rate burst: how many of the requests one window admitted, against the
// effective limit of the dynamic rule, max(base, running workers x requests_per_worker). The
// limit is known only where no worker ran during the burst (the base) or where the target
// advertises requests_per_worker; otherwise a 429 onset is an observation, and no 429 at all is
// no violation: the check must find a window with no running worker, or end inconclusive.
import { fail, inconclusive, skip, HTTP_STATUS, type ProbeResponse } from 'qbench/suite';
import { describe, field } from './http.js';

/** Longest burst, as a share of the rate window, whose count can still be placed in one window. */
export const BURST_WINDOW_SHARE = 0.9;

export interface RateBurst {
  /** The documented requests per window (§8 table, or the emulator's advertised table). */
  readonly base: number;
  /** §8 requests_per_worker when the target advertises it; null when unknown. */
  readonly requestsPerWorker: number | null;
  /** The endpoint is the check's own: counts are exact (no tolerance for other clients). */
  readonly dedicated: boolean;
  readonly windowRealMs: number;
  /** Requests the check meant to send in the window (probe included). */
  readonly planned: number;
  /** Every answer of the window, the probe first. */
  readonly answers: readonly ProbeResponse[];
  /** /health answers read just before, during and just after the burst. */
  readonly health: readonly ProbeResponse[];
  readonly elapsedRealMs: number;
  /** No further attempt follows: judge with what there is. */
  readonly last: boolean;
}

export interface EffectiveLimit {
  readonly value: number;
  /** spec: no worker ran, so the base applied; advertised: the target's requests_per_worker. */
  readonly source: 'spec' | 'advertised';
}

export type RateJudgement =
  | { readonly kind: 'pass'; readonly observed: string; readonly effective: EffectiveLimit | null; readonly requestsPerWorkerObserved?: number }
  /** Judge once more in a fresh window; `quiet`: one with no running worker (the limit is unknown while workers run). */
  | { readonly kind: 'again'; readonly why: string; readonly quiet: boolean };

/** Requests sent past the limit: 20% of it, at least 3 (so a limit 10% late is caught). */
export function extraFor(limit: number): number {
  return Math.max(3, Math.ceil(limit * 0.2));
}

/** Tolerance above the limit on a shared endpoint: 2% (a 10%-late limiter still fails). Exact on a dedicated one. */
export function toleranceFor(limit: number, dedicated: boolean): number {
  return dedicated ? 0 : Math.floor(limit * 0.02);
}

/** workers.running of a /health answer, or null when it does not say. */
export function runningOf(res: ProbeResponse): number | null {
  const n = field(field(res.json, 'workers'), 'running');
  return res.status === HTTP_STATUS.ok && typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

/**
 * The most workers the /health answers showed running, and the answer that showed it; null when
 * any answer did not say (a worker count missed between readings could have raised the limit).
 */
export function mostRunning(health: readonly ProbeResponse[]): { running: number; res: ProbeResponse } | null {
  let best: { running: number; res: ProbeResponse } | null = null;
  for (const res of health) {
    const running = runningOf(res);
    if (running === null) return null;
    if (best === null || running > best.running) best = { running, res };
  }
  return best;
}

/** The effective limit of the window when it is known: no worker ran (the base), or requests_per_worker is advertised. */
export function knownEffective(base: number, requestsPerWorker: number | null, running: number | null): EffectiveLimit | null {
  if (running === 0) return { value: base, source: 'spec' };
  if (running !== null && requestsPerWorker !== null) return { value: Math.max(base, running * requestsPerWorker), source: 'advertised' };
  return null;
}

function bySend(list: readonly ProbeResponse[]): ProbeResponse[] {
  return [...list].sort((a, b) => a.sentAtMs - b.sentAtMs);
}

/**
 * Judge one window. Fails only on what the window's answers show broken (requests the network path
 * lost are counted, never judged): fewer admitted than the base (the dynamic rule only raises the limit), or more admitted than an effective limit
 * that is known. The evidence of a failure is the exchange that broke the rule (the first
 * admission past the limit, the first early 429), after the /health answer the limit rests on.
 */
export function judgeRateBurst(b: RateBurst): RateJudgement {
  const admitted = bySend(b.answers.filter((a) => a.status !== 0 && a.status !== HTTP_STATUS.tooManyRequests));
  const refused = bySend(b.answers.filter((a) => a.status === HTTP_STATUS.tooManyRequests));
  const errors = b.answers.filter((a) => a.status === 0);
  const sent = b.answers.length;
  // Requests the network path lost are no answers of the target: a surplus of admissions among the
  // answers that came is still a violation; too few admitted may be the lost ones, so inconclusive.
  const firstError = errors[0];
  const lost = errors.length;
  if (sent < b.planned || b.elapsedRealMs > b.windowRealMs * BURST_WINDOW_SHARE) {
    skip(`the burst took ${Math.round(b.elapsedRealMs)} ms (${sent} of ${b.planned} requests sent), too close to the ${b.windowRealMs} ms window to judge the count`);
  }
  const a = admitted.length;
  const firstRefusal = refused[0];
  // Fewer admitted than the base: an early 429 (the dynamic rule never lowers the limit), or
  // requests sent before this check (an earlier run's, another client's) in the same window.
  if (a < b.base && firstRefusal !== undefined) {
    if (firstError !== undefined && a + lost >= b.base) inconclusive(`${a} admitted before 429, under the documented ${b.base}, and the network path lost ${lost} requests of the window (first: ${describe(firstError)}): they may have been admitted`, [firstRefusal, firstError]);
    if (!b.last) return { kind: 'again', why: `${a} admitted, under the documented ${b.base}`, quiet: false };
    if (!b.dedicated) inconclusive(`${a} of ${sent} admitted before 429 on a shared endpoint, under the documented ${b.base}: traffic this check did not send may have used the window; give --spare-endpoint for an exact count`, firstRefusal);
    fail(`at least ${b.base} admitted in one window (429 only past the documented count)`, `${a} admitted, ${refused.length} refused`, firstRefusal);
  }
  const peak = mostRunning(b.health);
  const running = peak?.running ?? null;
  const runningText = running === null ? 'an unknown number of running workers (/health did not say)' : `${running} running workers (/health)`;
  const effective = knownEffective(b.base, b.requestsPerWorker, running);
  if (effective !== null) {
    const upper = effective.value + toleranceFor(effective.value, b.dedicated);
    const why = effective.source === 'spec' ? `no worker running, so the base ${b.base} of §8` : `max(${b.base}, ${running} running workers x ${b.requestsPerWorker} requests_per_worker advertised)`;
    if (a > upper) {
      // The first admission past the limit (in the order sent) is the request that should have drawn 429.
      fail(`at most ${effective.value} admitted in one window (${why}), then 429`, `${a} admitted of ${sent}${firstRefusal === undefined ? ', no 429' : ''}`, [peak!.res, admitted[upper]!]);
    }
    if (firstRefusal === undefined) {
      // Every request admitted, none past the limit: the effective limit rose above what was sent.
      const reason = `no 429 in ${sent} requests, but the effective limit was ${effective.value} (${why}), not below them`;
      if (!b.last) return { kind: 'again', why: reason, quiet: true };
      inconclusive(`${reason}; no window with 0 running workers came`, peak!.res);
    }
    return { kind: 'pass', effective, observed: `${a} admitted, ${refused.length} x 429 in ${Math.round(b.elapsedRealMs)} ms (effective limit ${effective.value}: ${why})${lost > 0 ? `; the network path lost ${lost}` : ''}` };
  }
  if (firstRefusal === undefined) {
    const reason = `no 429 in ${sent} requests while ${runningText}: the effective limit is max(${b.base}, running workers x requests_per_worker) (§8) and this target does not advertise requests_per_worker, so admitting more than ${b.base} is no violation`;
    if (!b.last) return { kind: 'again', why: reason, quiet: true };
    inconclusive(`${reason}; no window with 0 running workers came`, peak?.res ?? b.answers.at(-1));
  }
  // The onset was reached with workers running: it measures the effective limit, and a + running
  // gives requests_per_worker (an upper bound where the base applied): an observation, not a verdict.
  const observedRpw = running !== null && running > 0 ? Math.round((a / running) * 100) / 100 : undefined;
  return {
    kind: 'pass',
    effective: null,
    ...(observedRpw !== undefined ? { requestsPerWorkerObserved: observedRpw } : {}),
    observed: `${a} admitted, ${refused.length} x 429 in ${Math.round(b.elapsedRealMs)} ms with ${runningText}${observedRpw !== undefined ? `; requests_per_worker observed ${observedRpw} (admitted / running; §8 gives no value)` : ''}`,
  };
}
