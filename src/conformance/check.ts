// The check model: a check is data (id, cited clauses, interface, tags, kind) plus
// code (`run(ctx)`). A check signals its verdict by returning (pass) or by throwing one of
// the outcomes below; the runner turns them into the report's Verdict union.
import type { HttpExchange } from '../result/model.js';
import type { Probe, ProbeResponse } from './probe.js';
import type { RateLease } from './ledger.js';
import type { Target } from './target.js';
import type { TimeModel } from './time-model.js';

/** Tags a check may carry; the runner selects and gates on them. */
export const CHECK_TAGS = [
  /** Waits long at real time: runs only in the full profile (or when the target's time scale makes it short). */
  'slow',
  /** Costs money on a real target (pods): runs only with --allow-billable, always on the emulator. */
  'billable',
  /** Changes shared state of the target (purges its queue, bursts it to 429). */
  'destructive',
  /** Drives the handler with mock-worker inputs (mock_delay, mock_error, mock_return). */
  'needs-mock-worker',
  /** Sends a burst to reach a rate or concurrency limit. */
  'rate-limit',
  /** Waits on a spec duration (ttl, timeout, retention, webhook spacing). */
  'timing',
  /** Needs the target to call back a receiver on this machine (webhooks). */
  'needs-callback',
] as const;
export type CheckTag = (typeof CHECK_TAGS)[number];

export type CheckInterface = 'queue' | 'rest' | 'graphql';
/** spec: SERVICE-SPEC.md requires it; compat: a WIRE-COMPAT fact, reported but never failing the run. */
export type CheckKind = 'spec' | 'compat';

/** What a check returns when it passes: an optional note of what it saw. */
export interface CheckPass {
  readonly observed?: string;
}

export interface CheckContext {
  readonly target: Target;
  /** The recording HTTP probe of this check (its exchanges become the failure evidence). */
  readonly http: Probe;
  readonly time: TimeModel;
  /** Aborted when the run is interrupted or the check exceeds its time budget. */
  readonly signal: AbortSignal;
  /** Record a measured value for the report (largest accepted body, MB reading, ...). */
  measure(key: string, value: unknown): void;
  /**
   * An endpoint id of the check's own (emulator: a dedicated endpoint nobody else uses,
   * so counts and limits are exact); null on a real target, where only `target.endpointId` exists.
   */
  dedicatedEndpoint(purpose: string): string | null;
  /**
   * Take `operation` of `endpoint` for a count or a burst: resolves once no other check of the
   * run holds it and its last rate window has passed (the runner's ledger). Release it when done.
   */
  rateWindow(endpoint: string, operation: string): Promise<RateLease>;
  /**
   * Send `operation` of `endpoint` outside a count (a clean-up purge): waits while a check holds
   * it, and the next `rateWindow` claim waits one clean window after it.
   */
  rateWindowUse<T>(endpoint: string, operation: string, send: () => Promise<T>): Promise<T>;
  /**
   * Run a burst (requests meant to reach a rate or concurrency limit) once every burst that asked
   * before has finished, in any run of this process: bursts at once would share this host's CPU and
   * stretch past the window. The wait for the turn is not counted against the check's budget.
   */
  burst<T>(send: () => Promise<T>): Promise<T>;
}

export interface CheckDefinition {
  /** Stable id, dotted: `<interface>.<topic>.<rule>`. */
  readonly id: string;
  readonly title: string;
  /** Clause ids from the suite's clause list; the first is the one quoted in the report. */
  readonly clauses: readonly [string, ...string[]];
  readonly interface: CheckInterface;
  readonly kind: CheckKind;
  readonly tags: readonly CheckTag[];
  /**
   * Emulated time the check waits on spec durations. With the target's time scale this tells
   * how long it takes at real time; one longer than the quick budget runs only in `full`.
   */
  readonly emulatedWaitMs?: number;
  run(ctx: CheckContext): Promise<CheckPass | undefined>;
}

/**
 * The exchanges that show a violation, the violating one last: the report lists them all and
 * the failure's curl reproduction is the last one's. A failure must name its own: the last
 * request a check happened to send (a /health read, a clean-up) reproduces nothing.
 */
export type Evidence = ProbeResponse | readonly [...ProbeResponse[], ProbeResponse] | readonly [ProbeResponse, ...ProbeResponse[]];

/** The exchange whose curl line reproduces a failure: the evidence's last. */
export function violatingExchange(evidence: Evidence): ProbeResponse {
  return isEvidenceList(evidence) ? (evidence.at(-1) as ProbeResponse) : evidence;
}

function isEvidenceList(evidence: Evidence | readonly ProbeResponse[]): evidence is readonly ProbeResponse[] {
  return Array.isArray(evidence);
}

/** Thrown by a check: the target broke the rule. */
export class CheckFailure extends Error {
  constructor(
    readonly expected: string,
    readonly observed: string,
    /** The exchanges that show it, the violating one last (its curl line is the reproduction). */
    readonly evidence: Evidence,
  ) {
    super(`expected ${expected}; observed ${observed}`);
    this.name = 'CheckFailure';
  }
}

/** Thrown by a check: it cannot judge this target (and says why). */
export class CheckSkip extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'CheckSkip';
  }
}

/**
 * Thrown by a check: it could not establish what it needs to judge the clause (a precondition
 * not reached in time, a rate window already in use, traffic it did not send showing in a
 * count). Not a violation: the runner retries the check once (unless it says a retry would see
 * the same), then reports it inconclusive.
 */
export class CheckInconclusive extends Error {
  constructor(
    readonly reason: string,
    /** The exchanges that show why; the runner falls back to the check's last exchanges. */
    readonly evidence?: ProbeResponse | readonly ProbeResponse[],
    /** False when the check already waited for its precondition as long as a retry would: the runner does not run it again. */
    readonly retryable = true,
  ) {
    super(reason);
    this.name = 'CheckInconclusive';
  }
}

export function fail(expected: string, observed: string, evidence: Evidence): never {
  throw new CheckFailure(expected, observed, evidence);
}

export function skip(reason: string): never {
  throw new CheckSkip(reason);
}

export function inconclusive(reason: string, evidence?: ProbeResponse | readonly ProbeResponse[], opts: { readonly retryable?: boolean } = {}): never {
  throw new CheckInconclusive(reason, evidence, opts.retryable ?? true);
}

/** A verdict's evidence as report exchanges. */
export function evidenceExchanges(evidence: Evidence | readonly ProbeResponse[] | undefined): HttpExchange[] {
  if (evidence === undefined) return [];
  return (isEvidenceList(evidence) ? evidence : [evidence]).map((r) => r.exchange);
}
