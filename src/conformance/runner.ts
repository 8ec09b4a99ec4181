// The check runner: selects checks by profile, --only/--skip (id, id prefix with
// `*`, or tag), billable gating and the interfaces the target has; runs them through a
// bounded pool (rate-limit checks in a phase of their own so their bursts never meet the
// others); turns each outcome into a report verdict with evidence and a curl line.
import type { CheckResult, HttpExchange, Verdict } from '../result/model.js';
import { redactSecrets } from '../errors.js';
import { CheckFailure, CheckInconclusive, CheckSkip, evidenceExchanges, violatingExchange, type CheckContext, type CheckDefinition, type Evidence } from './check.js';
import { checkBudget } from './budget.js';
import { burstTurn } from './bursts.js';
import { RateLedger, untilSettledOrAborted } from './ledger.js';
import { NO_EXPECTATIONS, type LoadedExpectations } from './expectations.js';
import { runPool } from './pool.js';
import type { Probe, ProbeResponse } from './probe.js';
import { clauseById, type Suite } from './suite.js';
import type { Target } from './target.js';
import { timeModel } from './time-model.js';
import { sleepUntilAborted } from '../client/sleep.js';

export type Profile = 'quick' | 'full';

/** A check whose waits take longer than this at the target's time scale runs only in `full`. */
export const QUICK_BUDGET_REAL_MS = 60_000;
/** Real ms a check may take beyond its own waits before the runner stops it. */
export const CHECK_BASE_TIMEOUT_MS = 90_000;
/** Exchanges attached to an inconclusive verdict when the check named none. */
const FALLBACK_EVIDENCE = 3;
/** The reproduction line of a failure whose check named no exchange. */
const NO_EVIDENCE_CURL = '(the check named no exchange as evidence)';
/** Runs of a check that could not set up its precondition: the first and one retry with fresh resources. */
export const INCONCLUSIVE_ATTEMPTS = 2;
/** Real ms the runner waits at most, before the checks, for jobs left on the target's endpoint by earlier runs. */
export const LEFTOVER_WAIT_REAL_MS = 15_000;
const LEFTOVER_POLL_REAL_MS = 250;

interface JobCounts { readonly inQueue: number; readonly inProgress: number }

/** The endpoint's queued and running job counts from /health; null when it does not answer them. */
async function jobCounts(probe: Probe, endpoint: string, signal: AbortSignal): Promise<(JobCounts & { idleWorkers: number; runningWorkers: number }) | null> {
  const res = await probe.send({ iface: 'queue', method: 'GET', path: `/v2/${encodeURIComponent(endpoint)}/health`, signal });
  const jobs = (res.json as { jobs?: Partial<JobCounts> } | undefined)?.jobs;
  const workers = (res.json as { workers?: { idle?: unknown; running?: unknown } } | undefined)?.workers;
  if (res.status !== 200 || typeof jobs?.inQueue !== 'number' || typeof jobs.inProgress !== 'number') return null;
  return { inQueue: jobs.inQueue, inProgress: jobs.inProgress, idleWorkers: typeof workers?.idle === 'number' ? workers.idle : 0, runningWorkers: typeof workers?.running === 'number' ? workers.running : 0 };
}

/**
 * Jobs left on the shared endpoint by earlier runs (this suite's own blockers from an interrupted
 * run included) would hold up every check that needs a worker: wait for them, at most
 * LEFTOVER_WAIT_REAL_MS, and say so. Checks that still meet them end inconclusive, not failed.
 */
async function awaitLeftovers(target: Target, probe: Probe, signal: AbortSignal, notice: (text: string) => void): Promise<void> {
  const started = performance.now();
  let c = await jobCounts(probe, target.endpointId, signal);
  // A queue count beside idle workers and nothing running is no job waiting (the checks judge that count).
  const busy = (x: typeof c) => x !== null && (x.inProgress > 0 || (x.inQueue > 0 && !(x.runningWorkers === 0 && x.idleWorkers > 0)));
  if (!busy(c) || c === null) return;
  notice(`endpoint ${target.endpointId} holds jobs from earlier runs (${c.inQueue} queued, ${c.inProgress} in progress): waiting up to ${LEFTOVER_WAIT_REAL_MS / 1000} s for them to end`);
  while (busy(c) && performance.now() - started < LEFTOVER_WAIT_REAL_MS && !signal.aborted) {
    await sleepUntilAborted(LEFTOVER_POLL_REAL_MS, signal);
    c = await jobCounts(probe, target.endpointId, signal);
  }
  const waited = Math.round((performance.now() - started) / 1000);
  notice(busy(c) && c !== null
    ? `endpoint ${target.endpointId} still holds ${c.inQueue} queued and ${c.inProgress} running jobs after ${waited} s: checks that need a free worker may end inconclusive`
    : `endpoint ${target.endpointId} is idle after ${waited} s`);
}

/**
 * Why an exchange that a check would fail on carries no answer of the target (a reset, a refused
 * connect, a stall past the request's timeout), or null when the target answered. A request the
 * check held open and released itself is the check's own doing, judged by the check.
 */
export function pathFault(res: ProbeResponse): string | null {
  if (res.status !== 0 || res.released === true) return null;
  return res.exchange.error ?? 'no answer';
}

/**
 * One rule over every check: an answer that breaks the contract (src/client/answer-contract.ts) is
 * a failure of the check that read it, whatever the check was waiting for and whatever it concluded
 * (a pass that never looked at the field, an inconclusive "busy" wait, a skip, an error). A failure
 * the check found itself stands: it names its own evidence.
 */
export function contractVerdict(verdict: Verdict, probe: Probe): Verdict {
  const first = probe.breaches[0];
  if (first?.breach === undefined || verdict.status === 'fail') return verdict;
  const b = first.breach;
  const more = probe.breaches.length > 1 ? ` (${probe.breaches.length - 1} more answer${probe.breaches.length > 2 ? 's' : ''} of this check broke the contract)` : '';
  const was = verdict.status === 'pass' ? '' : `; the check itself ended ${verdict.status}: ${verdict.status === 'inconclusive' || verdict.status === 'skip' ? verdict.reason : verdict.status === 'error' ? verdict.message : ''}`;
  const body = first.text.length > 300 ? `${first.text.slice(0, 300)}...` : first.text;
  return {
    status: 'fail',
    expected: redactSecrets(`${b.section}: ${b.rule}`),
    observed: redactSecrets(`${b.problems} in HTTP ${first.status} ${body}${more}${was}`),
    exchanges: [first.exchange],
    curl: first.curl,
  };
}

export interface RunOptions {
  readonly profile: Profile;
  /** Ids, id prefixes ending in `*`, or tags; empty: everything. */
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  /** Checks in flight at once (default 4). */
  readonly concurrency?: number;
  readonly expectations?: LoadedExpectations;
  readonly signal?: AbortSignal;
  /** Called with what the runner did on the check's behalf (a wait for leftover jobs). */
  readonly onNotice?: (text: string) => void;
  /** Called as each check ends (progress display). */
  readonly onResult?: (r: CheckResult) => void;
}

function matches(check: CheckDefinition, pattern: string): boolean {
  if (pattern.endsWith('*')) return check.id.startsWith(pattern.slice(0, -1));
  return check.id === pattern || (check.tags as readonly string[]).includes(pattern);
}

/** Why a check does not run on this target with these options, or null when it runs. */
export function exclusionReason(check: CheckDefinition, target: Target, probe: Probe, opts: RunOptions): string | null {
  if (!probe.hasInterface(check.interface)) {
    return `the target has no ${check.interface === 'rest' ? 'REST address (--rest-url)' : 'GraphQL address (--graphql-url)'}`;
  }
  if (check.tags.includes('billable') && target.kind !== 'emulator' && !target.allowBillable) {
    return 'costs money on a real target (pods): run with --allow-billable';
  }
  if (check.tags.includes('needs-callback') && target.callbackHost === null) {
    return 'the target cannot reach a receiver on this machine: give --callback-host';
  }
  if (opts.profile === 'quick' && isSlow(check, target)) {
    return `slow at this target's time scale (${Math.round(realWaitMs(check, target) / 1000)} s of waiting): runs in --profile full`;
  }
  return null;
}

export function realWaitMs(check: CheckDefinition, target: Target): number {
  return (check.emulatedWaitMs ?? 0) / target.timeScale;
}

export function isSlow(check: CheckDefinition, target: Target): boolean {
  return check.tags.includes('slow') || realWaitMs(check, target) > QUICK_BUDGET_REAL_MS;
}

/** The checks the options select (before target gating); throws nothing, unknown patterns select nothing. */
export function selectChecks(suite: Suite, opts: Pick<RunOptions, 'only' | 'skip'>): CheckDefinition[] {
  const only = opts.only ?? [];
  const skipList = opts.skip ?? [];
  return suite.checks.filter((c) => (only.length === 0 || only.some((p) => matches(c, p))) && !skipList.some((p) => matches(c, p)));
}

/** Patterns of --only/--skip that match no check and no tag (a typo the user should hear about). */
export function unknownPatterns(suite: Suite, patterns: readonly string[]): string[] {
  return patterns.filter((p) => !suite.checks.some((c) => matches(c, p)));
}

export async function runChecks(suite: Suite, target: Target, probe: Probe, opts: RunOptions): Promise<CheckResult[]> {
  const clauses = clauseById(suite);
  const expectations = opts.expectations ?? NO_EXPECTATIONS;
  const selected = selectChecks(suite, opts);
  const spare = [...target.spareEndpoints];
  const taken = new Map<string, string>();
  const time = timeModel(target.timeScale);
  const signal = opts.signal ?? new AbortController().signal;

  const ledger = new RateLedger(target.limits.rateWindowRealMs);
  /** Destructive checks (purges) not yet given an endpoint of their own: a spare is kept for each. */
  const destructiveWaiting = new Set(selected.filter((c) => c.tags.includes('destructive') && !c.tags.includes('rate-limit') && c.interface === 'queue' && exclusionReason(c, target, probe, opts) === null).map((c) => c.id));

  /** One run of a check; `attempt` keys its dedicated endpoints, so a retry gets fresh ones where spares remain. */
  const attemptOnce = async (check: CheckDefinition, checkProbe: Probe, measured: Record<string, unknown>, attempt: number): Promise<Verdict | CheckInconclusive> => {
    const budgetMs = Math.ceil(CHECK_BASE_TIMEOUT_MS + 2 * realWaitMs(check, target));
    // Turns for shared resources (another check's rate window or burst) are not the check's own time.
    const allowance = checkBudget(budgetMs);
    const budget = allowance.signal;
    // The first answer that breaks the contract decides the verdict (contractVerdict): the check
    // stops there instead of waiting on with an answer it cannot read (a state spelled otherwise).
    const breach = new AbortController();
    checkProbe.onBreach = (res) => breach.abort(new Error(`an answer broke the contract: ${res.breach?.problems ?? ''}`));
    const checkSignal = AbortSignal.any([signal, budget, breach.signal]);
    const ctx: CheckContext = {
      target,
      http: checkProbe,
      time,
      signal: checkSignal,
      measure: (k, v) => {
        measured[k] = v;
      },
      dedicatedEndpoint: (purpose) => {
        const key = `${check.id}/${purpose}`;
        const fresh = `${key}#${attempt}`;
        const have = taken.get(fresh) ?? (attempt > 0 && spare.length === 0 ? taken.get(`${key}#0`) : undefined);
        if (have !== undefined) return have;
        // A check that purges must never share an endpoint with checks running beside it: one spare
        // is kept for each such check that has not taken one yet, and the others fall back first.
        const destructive = check.tags.includes('destructive');
        if (destructive) destructiveWaiting.delete(check.id);
        else if (spare.length <= destructiveWaiting.size) return null;
        const ep = spare.shift();
        if (ep === undefined) return null;
        taken.set(fresh, ep);
        return ep;
      },
      rateWindow: (endpoint, operation) => allowance.excluding(() => ledger.claim(endpoint, operation, checkSignal)),
      rateWindowUse: (endpoint, operation, send) => allowance.excluding(() => ledger.use(endpoint, operation, send, checkSignal)),
      burst: async (send) => {
        const turn = burstTurn();
        let done: () => void;
        try {
          done = await allowance.excluding(() => untilSettledOrAborted(turn, checkSignal));
        } catch (e) {
          // Given up while waiting: pass the turn on as soon as it comes.
          void turn.then((d) => d());
          throw e;
        }
        try {
          return await send();
        } finally {
          done();
        }
      },
    };
    try {
      const pass = await check.run(ctx);
      return pass?.observed !== undefined ? { status: 'pass', observed: pass.observed } : { status: 'pass' };
    } catch (e) {
      if (e instanceof CheckInconclusive) return e;
      if (e instanceof CheckFailure) {
        // The check's own evidence, never its last request: that may be a /health read or a clean-up.
        // A check compiled without types could still throw without any: say so rather than guess.
        const named = (e.evidence as Evidence | undefined) !== undefined;
        const lost = named ? pathFault(violatingExchange(e.evidence)) : null;
        if (lost !== null) return new CheckInconclusive(`no answer of the target to judge: ${lost} (a fault of the network path, not an answer; expected ${redactSecrets(e.expected)})`, violatingExchange(e.evidence));
        return {
          status: 'fail',
          expected: redactSecrets(e.expected),
          observed: redactSecrets(e.observed),
          exchanges: named ? evidenceExchanges(e.evidence) : [],
          curl: named ? violatingExchange(e.evidence).curl : NO_EVIDENCE_CURL,
        };
      }
      if (e instanceof CheckSkip) return { status: 'skip', reason: e.reason };
      if (budget.aborted && !signal.aborted) return { status: 'error', message: `the check did not finish within its ${Math.round(budgetMs / 1000)} s budget (not counting its waits for other checks' rate windows and bursts)` };
      const err = e instanceof Error ? e : new Error(String(e));
      return { status: 'error', message: redactSecrets(err.message), ...(err.stack ? { stack: redactSecrets(err.stack) } : {}) };
    } finally {
      checkProbe.onBreach = undefined;
      allowance.dispose();
    }
  };

  /** A check that could not set up what it judges runs once more with fresh resources, then ends inconclusive. */
  const attemptTwice = async (check: CheckDefinition, checkProbe: Probe, measured: Record<string, unknown>): Promise<Verdict> => {
    const reasons: string[] = [];
    let last: CheckInconclusive | undefined;
    for (let attempt = 0; attempt < INCONCLUSIVE_ATTEMPTS; attempt++) {
      const v = await attemptOnce(check, checkProbe, measured, attempt);
      if (!(v instanceof CheckInconclusive)) return v;
      last = v;
      reasons.push(v.reason);
      if (signal.aborted || !v.retryable) break;
    }
    let exchanges: HttpExchange[] = evidenceExchanges(last?.evidence);
    if (exchanges.length === 0) exchanges = checkProbe.log.slice(-FALLBACK_EVIDENCE).map((r) => r.exchange);
    const reason = reasons.length > 1 && reasons[0] !== reasons[1] ? `${reasons.at(-1) ?? ''} (first attempt: ${reasons[0] ?? ''})` : (reasons.at(-1) ?? '');
    return { status: 'inconclusive', reason: redactSecrets(reason), exchanges };
  };

  const runOne = async (check: CheckDefinition): Promise<CheckResult> => {
    const primary = clauses.get(check.clauses[0]);
    const started = performance.now();
    const measured: Record<string, unknown> = {};
    const checkProbe = probe.fork();
    let verdict: Verdict;
    const excluded = exclusionReason(check, target, probe, opts);
    if (excluded !== null) {
      verdict = { status: 'skip', reason: excluded };
    } else if (signal.aborted) {
      verdict = { status: 'skip', reason: 'the run was interrupted' };
    } else {
      verdict = contractVerdict(await attemptTwice(check, checkProbe, measured), checkProbe);
    }
    const tags = [...check.tags];
    if (!tags.includes('slow') && isSlow(check, target)) tags.push('slow');
    const result: CheckResult = {
      id: check.id,
      title: check.title,
      clause: { section: primary?.section ?? '?', quote: primary?.quote ?? check.clauses[0] },
      interface: check.interface,
      tags,
      kind: check.kind,
      verdict,
      durationMs: performance.now() - started,
      ...(Object.keys(measured).length > 0 ? { measured } : {}),
    };
    const exp = expectations.active.get(check.id);
    const withExp: CheckResult = exp
      ? { ...result, expectation: { expected: exp.verdict, reason: exp.reason, matched: exp.verdict === verdict.status } }
      : result;
    opts.onResult?.(withExp);
    return withExp;
  };

  // Rate-limit checks first, apart from the rest, all together: each takes its operation of its
  // endpoint from the ledger (a shared endpoint serves checks of different operations at once, two
  // of one operation one window apart), and their bursts take turns on this host (suites/conformance/lib/bursts.ts).
  // On a shared endpoint, destructive checks (purges) run alone, last, so they never remove another check's jobs.
  // Only checks whose jobs need a worker wait on leftovers (a rate burst does not).
  if (selected.some((c) => c.interface === 'queue' && c.tags.includes('needs-mock-worker') && exclusionReason(c, target, probe, opts) === null)) {
    await awaitLeftovers(target, probe.fork(), signal, opts.onNotice ?? (() => undefined));
  }
  const shared = target.spareEndpoints.length === 0;
  const bursts = selected.filter((c) => c.tags.includes('rate-limit'));
  const alone = shared ? selected.filter((c) => !c.tags.includes('rate-limit') && c.tags.includes('destructive')) : [];
  const others = selected.filter((c) => !bursts.includes(c) && !alone.includes(c));
  const burstResults = await runPool(bursts, bursts.length, runOne);
  const otherResults = await runPool(others, opts.concurrency ?? 4, runOne);
  const aloneResults = await runPool(alone, 1, runOne);
  const byId = new Map([...burstResults, ...otherResults, ...aloneResults].map((r) => [r.id, r]));
  return selected.map((c) => byId.get(c.id) as CheckResult);
}
