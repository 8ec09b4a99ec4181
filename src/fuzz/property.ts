// What one fuzz property is: a spec clause, an arbitrary and an async check of one generated
// value against the target. A check throws `Disagreement` when the target and the oracle
// disagree; the runner hands the property to fast-check, which shrinks the value.
import type fc from 'fast-check';
import type { Clause, HttpExchange } from '../result/model.js';
import type { FuzzAnswer, FuzzHttp } from './http.js';
import type { FuzzTarget } from './target.js';

/** A finding: what the spec wants versus what the target did, with the evidence. */
export class Disagreement extends Error {
  constructor(
    readonly expected: string,
    readonly observed: string,
    readonly exchanges: readonly HttpExchange[],
    readonly curl?: string,
  ) {
    super(`expected ${expected}; observed ${observed}`);
    this.name = 'Disagreement';
  }
}

export interface PropertyContext {
  readonly target: FuzzTarget;
  readonly http: FuzzHttp;
  /** Aborted when the property's time is up: checks still running stop at their next request. */
  readonly signal: AbortSignal;
  /** Unique per run: prefixes names the run creates (templates, pods) so it can clean up after. */
  readonly runId: string;
  /** Allow operations that cost money on a real target (pod deploys). */
  readonly allowBillable: boolean;
  /** Count one case by the oracle's class (reported so users see how much was ambiguous). */
  readonly tally: (verdict: 'accept' | 'refuse' | 'ambiguous') => void;
}

export interface FuzzPropertyDef<T> {
  readonly name: string;
  readonly clause: Clause;
  readonly kind: 'validation' | 'state-machine';
  /** At most this many runs whatever --runs says (expensive cases: big bodies). */
  readonly maxRuns?: number;
  /** Why the property cannot run against this target, or undefined when it can. */
  skipReason(ctx: PropertyContext): string | undefined;
  arbitrary(ctx: PropertyContext): fc.Arbitrary<T>;
  /** Send one generated value; throw Disagreement on a finding. */
  check(ctx: PropertyContext, value: T): Promise<void>;
  /** Render the (shrunk) value for the report. */
  describe(value: T): string;
  setup?(ctx: PropertyContext): Promise<void>;
  teardown?(ctx: PropertyContext): Promise<void>;
}

/** Erases T for lists of properties of different value types. */
export type AnyFuzzProperty = FuzzPropertyDef<never> | FuzzPropertyDef<unknown>;

/** "observed" text of an answer: status and the start of its body. */
export function observedText(a: FuzzAnswer): string {
  if (a.status === null) return `no answer (${a.error ?? 'connection failed'})`;
  const body = a.text.length > 300 ? `${a.text.slice(0, 300)}…` : a.text;
  return `${a.status} ${body}`.trim();
}
