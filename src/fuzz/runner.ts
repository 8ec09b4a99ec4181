// Runs the fuzz properties against one target within a time budget: each property goes to
// fast-check (fixed seed, bounded runs, interrupted at its share of --max-duration), the
// shrunk counterexample of a failure is kept with its seed, path and evidence, and the whole
// is returned as the report model's `fuzz` section (src/result/model.ts FuzzSection).
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { QbenchError } from '../errors.js';
import type { FuzzProperty, FuzzSection } from '../result/model.js';
import { FuzzHttp, type FuzzAnswer } from './http.js';
import { Disagreement, observedText, type AnyFuzzProperty, type FuzzPropertyDef, type PropertyContext } from './property.js';
import { RateBudget } from './rate-budget.js';
import { queuePath, type FuzzTarget } from './target.js';
import { jobRequestProperty, payloadProperty, statusTtlProperty, templateProperty } from './validation-properties.js';
import { stateMachineProperty } from './model/model-property.js';
import { podInputProperty } from './pod-property.js';

export interface FuzzRunOptions {
  readonly target: FuzzTarget;
  readonly seed: number;
  /** Generated cases per validation property. */
  readonly numRuns: number;
  /** Command sequences of the model-based property. */
  readonly modelRuns: number;
  /** Most commands per sequence. */
  readonly maxCommands: number;
  /** Wall-clock budget of the whole run (each property gets its share; unused time rolls over). */
  readonly maxDurationMs: number;
  /** Property names to run (default: all). */
  readonly properties?: readonly string[] | undefined;
  /** fast-check path of a failure to replay (with exactly one property selected). */
  readonly path?: string | undefined;
  /** fast-check replayPath of a failing command sequence (state machine). */
  readonly replayPath?: string | undefined;
  /** Share of each documented §8 rate the fuzzer may use. */
  readonly rateFraction: number;
  readonly allowBillable?: boolean;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: FuzzEvent) => void) | undefined;
}

export type FuzzEvent =
  | { readonly kind: 'start'; readonly property: string; readonly budgetMs: number; readonly runs: number }
  | { readonly kind: 'end'; readonly property: FuzzProperty; readonly tally?: OracleTally | undefined }
  | { readonly kind: 'skip'; readonly property: string; readonly reason: string };

/** How the oracle classed the cases a validation property sent. */
export interface OracleTally {
  accept: number;
  refuse: number;
  ambiguous: number;
}

export interface FuzzRunResult {
  readonly section: FuzzSection;
  /** Per validation property: cases by oracle class (shrinking included). */
  readonly tallies: Readonly<Record<string, OracleTally>>;
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  /** Requests sent, and 429s met in spite of the rate budget. */
  readonly requests: number;
  readonly rateLimited: number;
}

/** Every property, in the order they run; names are what --property takes. */
export function allProperties(o: Pick<FuzzRunOptions, 'maxCommands' | 'replayPath'>): AnyFuzzProperty[] {
  return [
    jobRequestProperty,
    statusTtlProperty,
    payloadProperty,
    templateProperty,
    podInputProperty,
    stateMachineProperty({ maxCommands: o.maxCommands, replayPath: o.replayPath }),
  ] as AnyFuzzProperty[];
}

export { PROPERTY_NAMES } from './property-names.js';

/** Share of the time budget: the model-based run (sequences with waits) weighs more. */
const weightOf = (p: AnyFuzzProperty) => (p.kind === 'state-machine' ? 3 : 1);

/** fast-check prints a command sequence's replayPath inside its rendering. */
export function replayPathOf(counterexample: string): string | undefined {
  return /replayPath="([^"]*)"/.exec(counterexample)?.[1];
}

async function preflight(target: FuzzTarget, http: FuzzHttp, signal: AbortSignal | undefined): Promise<void> {
  const a = await http.send({ operation: 'health', method: 'GET', url: queuePath(target, target.endpointId, '/health'), auth: 'header-bearer' }, signal);
  if (a.status === null) throw new QbenchError('QB_ERR_UNREACHABLE', `target unreachable: GET ${queuePath(target, target.endpointId, '/health')}: ${a.error ?? 'no answer'}`);
}

/**
 * A property passes only on answers: one whose requests all went unanswered (the target went
 * away after the preflight) could pass on cases where "refused" includes a dropped connection,
 * so it ends as an error naming the network failure instead.
 */
export function withoutAnswers(r: FuzzProperty, sent: number, answered: number, lastError: string | undefined): FuzzProperty {
  if (r.status !== 'pass' || sent === 0 || answered > 0) return r;
  const { finding: _none, ...rest } = r;
  return { ...rest, status: 'error', error: `none of its ${sent} requests got an HTTP answer (${lastError ?? 'no answer'}): the target stopped answering` };
}

/** The finding of the first answer of a case that broke the contract (src/client/answer-contract.ts). */
export function contractDisagreement(breaches: readonly FuzzAnswer[]): Disagreement | undefined {
  const first = breaches[0];
  if (first?.breach === undefined) return undefined;
  return new Disagreement(`${first.breach.section}: ${first.breach.rule}`, `${first.breach.problems} in ${observedText(first)}`, [first.exchange], first.curl);
}

async function runOne(def: FuzzPropertyDef<unknown>, ctx: PropertyContext, controller: AbortController, o: FuzzRunOptions, runs: number, budgetMs: number): Promise<FuzzProperty> {
  const started = performance.now();
  const base = { name: def.name, clause: def.clause, kind: def.kind };
  try {
    await def.setup?.(ctx);
  } catch (e) {
    controller.abort();
    if (e instanceof Disagreement) {
      return { ...base, status: 'fail', runs: 0, durationMs: performance.now() - started, finding: { seed: o.seed, path: '', counterexample: '(setup)', expected: e.expected, observed: e.observed, exchanges: [...e.exchanges], ...(e.curl !== undefined ? { curl: e.curl } : {}) } };
    }
    return { ...base, status: 'error', runs: 0, durationMs: performance.now() - started, error: e instanceof Error ? e.message : String(e) };
  }
  let last: { value: unknown; error: Disagreement } | undefined;
  const prop = fc.asyncProperty(def.arbitrary(ctx), async (value) => {
    const breachesBefore = ctx.http.breaches.length;
    try {
      await def.check(ctx, value);
      // Whatever the case expected, an answer that breaks the contract is a finding.
      const breach = contractDisagreement(ctx.http.breaches.slice(breachesBefore));
      if (breach !== undefined) throw breach;
    } catch (e) {
      const err = e instanceof Disagreement ? e : contractDisagreement(ctx.http.breaches.slice(breachesBefore)) ?? e;
      if (err instanceof Disagreement && !controller.signal.aborted) last = { value, error: err };
      throw err;
    }
  });
  const details = await fc.check(prop, {
    seed: o.seed,
    numRuns: runs,
    ...(o.path !== undefined ? { path: o.path } : {}),
    plugins: [fc.interruptAfterTimeLimit(Math.max(1, Math.floor(budgetMs)))],
  });
  const found = last;
  controller.abort();
  try {
    await def.teardown?.({ ...ctx, signal: o.signal ?? new AbortController().signal });
  } catch {
    // Cleanup is best effort: what it could not remove carries the run id in its name.
  }
  const durationMs = performance.now() - started;
  const ranRuns = details.numRuns;
  if (!details.failed && ranRuns === 0) {
    return { ...base, status: 'error', runs: 0, durationMs, error: 'the time budget ran out before a single case ran: raise --max-duration' };
  }
  if (!details.failed) return { ...base, status: 'pass', runs: ranRuns, durationMs };
  const err = details.errorInstance;
  if (!(err instanceof Disagreement) || found === undefined || details.counterexample === null) {
    const message = err instanceof Error ? err.message : details.interrupted ? 'interrupted before any run finished' : String(err);
    return { ...base, status: 'error', runs: ranRuns, durationMs, error: message };
  }
  const shrunk = (details.counterexample as unknown[])[0];
  const d = found.value === shrunk ? found.error : err;
  return {
    ...base,
    status: 'fail',
    runs: ranRuns,
    durationMs,
    finding: {
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      counterexample: def.describe(shrunk),
      expected: d.expected,
      observed: d.observed,
      exchanges: [...d.exchanges],
      ...(d.curl !== undefined ? { curl: d.curl } : {}),
    },
  };
}

export async function runFuzz(o: FuzzRunOptions): Promise<FuzzRunResult> {
  const started = performance.now();
  const budget = new RateBudget({ fraction: o.rateFraction, windowMs: o.target.rateWindowMs });
  const http = new FuzzHttp({ apiKey: o.target.apiKey, apiKeyEnv: o.target.apiKeyEnv, budget, signal: o.signal });
  const runId = randomBytes(4).toString('hex');
  const selected = allProperties(o).filter((p) => o.properties === undefined || o.properties.includes(p.name));
  const results: FuzzProperty[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const tallies: Record<string, OracleTally> = {};
  try {
    await preflight(o.target, http, o.signal);
    const runnable: { def: AnyFuzzProperty; ctx: PropertyContext; controller: AbortController }[] = [];
    for (const def of selected) {
      const controller = new AbortController();
      const signal = o.signal ? AbortSignal.any([o.signal, controller.signal]) : controller.signal;
      const tally = (verdict: keyof OracleTally) => {
        const t = (tallies[def.name] ??= { accept: 0, refuse: 0, ambiguous: 0 });
        t[verdict] += 1;
      };
      const ctx: PropertyContext = { target: o.target, http, signal, runId, allowBillable: o.allowBillable ?? false, tally };
      const reason = def.skipReason(ctx);
      if (reason !== undefined) {
        skipped.push({ name: def.name, reason });
        o.onEvent?.({ kind: 'skip', property: def.name, reason });
      } else runnable.push({ def, ctx, controller });
    }
    let weightLeft = runnable.reduce((s, r) => s + weightOf(r.def), 0);
    for (const { def, ctx, controller } of runnable) {
      if (o.signal?.aborted) throw new QbenchError('QB_ERR_ABORTED', 'fuzz run interrupted');
      const leftMs = o.maxDurationMs - (performance.now() - started);
      const budgetMs = Math.max(0, (leftMs * weightOf(def)) / weightLeft);
      weightLeft -= weightOf(def);
      const runs = Math.max(1, Math.min(def.kind === 'state-machine' ? o.modelRuns : o.numRuns, def.maxRuns ?? Number.POSITIVE_INFINITY));
      o.onEvent?.({ kind: 'start', property: def.name, budgetMs, runs });
      const sent0 = http.sent;
      const answered0 = http.answered;
      const r = withoutAnswers(await runOne(def, ctx, controller, o, runs, budgetMs), http.sent - sent0, http.answered - answered0, http.lastError);
      if (o.signal?.aborted) throw new QbenchError('QB_ERR_ABORTED', 'fuzz run interrupted');
      results.push(r);
      o.onEvent?.({ kind: 'end', property: r, tally: tallies[def.name] });
    }
  } finally {
    await http.close();
  }
  return {
    section: { seed: o.seed, numRuns: o.numRuns, durationMs: performance.now() - started, properties: results },
    tallies,
    skipped,
    requests: http.sent,
    rateLimited: http.rateLimited,
  };
}
