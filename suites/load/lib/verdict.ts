// Shared by the shipped load scenarios: sorting what they could not set up (a precondition:
// inconclusive) from what they saw broken (a violation: fail), and finding traffic of one
// operation that the scenario did not send, through the emulator's GET /_qbench/counters
// when the target advertises it (an emulator answering /_qbench/info).
import { sleepUntilAborted, type Analysis, type RunContext, type Finding, type RateLimitedOperation } from 'qbench/suite';
import { valueAt } from './answer.js';

/** A finding that states a precondition of the scenario, not a rule of the spec. */
export function precondition(label: string, expected: string, observed: string, met: boolean): Finding {
  return { label, expected, observed, passed: met, precondition: true };
}

/**
 * The scenario's status from its findings. With every precondition met, any broken rule
 * fails it. With one unmet, the rules could not be judged: inconclusive, unless the scenario
 * saw a violation that no missing precondition explains (`violatedAnyway`: e.g. more admitted
 * than the limit, which traffic of others can only lower).
 */
export function statusOf(findings: readonly Finding[], violatedAnyway = false): Analysis['status'] {
  const unmet = findings.some((f) => f.precondition === true && !f.passed);
  const broken = findings.some((f) => f.precondition !== true && !f.passed);
  if (!unmet) return broken ? 'fail' : 'pass';
  return violatedAnyway ? 'fail' : 'inconclusive';
}

/** The start of an inconclusive scenario's summary: what it could not set up ('' otherwise). */
export function setupNote(status: Analysis['status'], findings: readonly Finding[]): string {
  if (status !== 'inconclusive') return '';
  const unmet = findings.filter((f) => f.precondition === true && !f.passed).map((f) => `${f.label}: ${f.observed}`);
  return `could not set up: ${unmet.join('; ')}; `;
}

/** One operation's counters on the emulator (all requests it saw, admitted or refused). */
export interface OperationCount {
  /** Requests of the operation the emulator has seen on this endpoint, admitted or refused. */
  readonly seen: number;
  /** Of them admitted inside the current rate window. */
  readonly inWindow: number;
  /** Admitted and not answered yet (holding a concurrency slot). */
  readonly inFlight: number;
}

/**
 * The endpoint's counters of `op` from GET /_qbench/counters; undefined on a target that does
 * not advertise them (no /_qbench/info, or the route does not answer).
 */
export async function operationCount(rc: RunContext, op: RateLimitedOperation): Promise<OperationCount | undefined> {
  if (rc.target.info === undefined) return undefined;
  const r = await rc.request({ method: 'GET', path: '/_qbench/counters', scope: 'origin' });
  if (r.status !== 200) return undefined;
  const counters = r.json();
  if (valueAt(counters, 'endpoints', rc.target.endpointId) === undefined) return undefined;
  const n = (k: string) => {
    const v = valueAt(counters, 'endpoints', rc.target.endpointId, 'requests', op, k);
    return typeof v === 'number' ? v : 0;
  };
  return { seen: n('admitted') + n('rejectedRate') + n('rejectedConcurrency'), inWindow: n('inWindow'), inFlight: n('inFlight') };
}

/** Real ms added to a wait for a window to pass: a request sent now reaches a target later. */
export const WINDOW_FLOOR_REAL_MS = 250;

/**
 * Before a scenario counts `op` on an emulator: wait (at most one window and a margin) until
 * no admission of `op` is left in the current window and none is in flight, then return the
 * counters to diff against at the end. `busy` says what was still there if it never cleared.
 */
export async function awaitQuietOperation(rc: RunContext, op: RateLimitedOperation, windowRealMs: number): Promise<{ start: OperationCount; waitedMs: number; busy?: string } | undefined> {
  const t0 = performance.now();
  const limit = windowRealMs * 1.1 + WINDOW_FLOOR_REAL_MS;
  for (;;) {
    const c = await operationCount(rc, op);
    if (c === undefined) return undefined;
    const waitedMs = performance.now() - t0;
    if (c.inWindow === 0 && c.inFlight === 0) return { start: c, waitedMs };
    if (waitedMs >= limit || rc.signal.aborted) {
      return { start: c, waitedMs, busy: `${c.inWindow} admissions of /${op} by others still in the window and ${c.inFlight} in flight after waiting ${Math.round(waitedMs)} ms` };
    }
    await sleepUntilAborted(Math.max(5, Math.min(windowRealMs / 20, 250)), rc.signal);
  }
}

/** Requests of `op` between two counter readings that this scenario did not send (never below 0). */
export function foreignRequests(start: OperationCount, end: OperationCount, ownSent: number): number {
  return Math.max(0, end.seen - start.seen - ownSent);
}

/** One request as the client saw it (rate windows place it between send and answer). */
export interface SentExchange {
  readonly sentMs: number;
  readonly endMs: number;
  readonly status: number | null;
}

/**
 * On a target without counters: send one request of the operation before the schedule. A 429
 * to it, when this scenario has had nothing admitted, means requests it did not send used the
 * window; after one quiet window it is sent once more. `inUse` is that evidence when the
 * second one was refused too; `exchange` is the last probe (the scenario's own request).
 */
export async function probeWindow(rc: RunContext, send: () => ReturnType<RunContext['request']>, windowRealMs: number): Promise<{ exchange: SentExchange; inUse?: string }> {
  const now = () => performance.timeOrigin + performance.now();
  const once = async (): Promise<SentExchange> => {
    const sentMs = now();
    const a = await send();
    return { sentMs, endMs: now(), status: a.status };
  };
  const first = await once();
  if (first.status !== 429) return { exchange: first };
  const waitMs = windowRealMs * 1.1 + WINDOW_FLOOR_REAL_MS;
  await sleepUntilAborted(waitMs, rc.signal);
  const again = await once();
  if (again.status !== 429) return { exchange: again };
  return { exchange: again, inUse: `429 to this scenario's first request, and again after a quiet ${Math.round(waitMs)} ms: requests it did not send hold the window` };
}
