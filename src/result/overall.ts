// The overall verdict of a run and its process exit code (src/exit-codes.ts), computed from the
// conformance, load, fuzz and plan sections of the result model. A definite failure of the target
// outranks an invalid measurement; an interrupted or broken run outranks both.
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { CheckResult, Finding, LlmLoad, LlmRun, LlmSection, LoadScenarioResult, OverallVerdict, QbenchResult } from './model.js';

export interface OverallExtras {
  /** The run was stopped by SIGINT/SIGTERM before it finished. */
  interrupted?: boolean;
  /** qbench itself failed somewhere (a suite threw); each entry is one plain-words reason. */
  internalErrors?: readonly string[];
  /** The target could not be reached at all. */
  unreachable?: string;
  /** --strict: an inconclusive check or load scenario fails the run (gating on a private endpoint). */
  strict?: boolean;
}

/**
 * Did this check fail the run? compat findings never do; an --expect file can excuse a failure;
 * an inconclusive check (no evidence either way) does only under `strict`.
 */
export function checkFailsRun(c: CheckResult, strict = false): boolean {
  if (c.kind === 'compat') return false;
  if (c.verdict.status === 'inconclusive') return strict;
  if (c.expectation) return !c.expectation.matched;
  return c.verdict.status === 'fail' || c.verdict.status === 'error';
}

function checkReason(c: CheckResult): string {
  if (c.expectation && !c.expectation.matched) {
    return `conformance ${c.clause.section} ${c.id}: ${c.verdict.status}, but the expectation file said ${c.expectation.expected} (${c.expectation.reason})`;
  }
  if (c.verdict.status === 'fail') return `conformance ${c.clause.section} ${c.id}: expected ${c.verdict.expected}, observed ${c.verdict.observed}`;
  if (c.verdict.status === 'error') return `conformance ${c.clause.section} ${c.id}: the check errored: ${c.verdict.message}`;
  if (c.verdict.status === 'inconclusive') return `conformance ${c.clause.section} ${c.id}: inconclusive under --strict: ${c.verdict.reason}`;
  return `conformance ${c.clause.section} ${c.id}: ${c.verdict.status}`;
}

/**
 * How one finding of a load scenario reads: met, broken (a violation), or not judged — an
 * unmet precondition, or any unmet finding of a scenario that ended inconclusive (it could
 * not set up what the finding needs).
 */
export function findingOutcome(f: Finding, scenarioStatus: LoadScenarioResult['verdict']['status']): 'pass' | 'fail' | 'inconclusive' {
  if (f.passed) return 'pass';
  return f.precondition === true || scenarioStatus === 'inconclusive' ? 'inconclusive' : 'fail';
}

/** Why a scenario is inconclusive: its summary and the preconditions it could not set up. */
export function scenarioInconclusiveWhy(s: LoadScenarioResult): string {
  const unmet = s.verdict.findings.filter((f) => f.precondition === true && !f.passed).map((f) => `${f.label}: expected ${f.expected}, observed ${f.observed}`);
  return [s.verdict.summary, ...unmet].join('; ');
}

/** A load level in words: `constant 2/s`, `Poisson 2/s`, `concurrency 8`. */
export function llmLoadLabel(l: LlmLoad): string {
  return l.kind === 'rate' ? `${l.arrivals === 'poisson' ? 'Poisson' : 'constant'} ${l.ratePerSec}/s` : `concurrency ${l.concurrency}`;
}

/** One LLM run in words: its path (and API), and its load level. */
export function llmRunLabel(r: LlmRun): string {
  return `${r.path}${r.path === 'openai' ? ` ${r.api}${r.streamed ? ' SSE' : ' no-stream'}` : ''} at ${llmLoadLabel(r.load)}`;
}

/**
 * An LLM section's failures and invalid runs. Every SLO of a run at a fixed level must hold; a
 * sweep's levels are measured, not judged (its higher levels are meant to break the SLOs): a
 * sweep with SLOs fails when no level of a path met them all. A run with no successful request fails.
 */
export function llmVerdicts(llm: LlmSection): { failures: string[]; invalid: string[] } {
  const failures: string[] = [];
  const invalid: string[] = [];
  for (const r of llm.runs) {
    const label = `llm ${llmRunLabel(r)}`;
    if (!r.validity.valid) invalid.push(`${label}: measurement invalid: ${r.validity.reasons.join('; ')}`);
    const sent = r.requests.completed + r.requests.failed;
    if (sent > 0 && r.requests.completed === 0) {
      failures.push(`${label}: every request failed (${r.requests.errors[0] ?? 'no answer'})`);
      continue;
    }
    if (r.role !== 'fixed') continue;
    const broken = r.slos.filter((x) => !x.holds);
    if (broken.length > 0) {
      failures.push(`${label}: ${broken.map((x) => (x.kind === 'percentile' ? `SLO ${x.text} not met (observed ${x.valueMs === null ? 'no data' : `${x.valueMs} ms`})` : `SLO ${x.text} met by ${x.metRequests} of ${sent} requests`)).join('; ')}`);
    }
  }
  if (llm.slos.length > 0) {
    for (const a of llm.sweepAnswers ?? []) {
      if (a.maxRatePerSec === null) failures.push(`llm ${a.path} sweep: no rate level met every SLO (${llm.slos.join(', ')})`);
    }
  }
  return { failures, invalid };
}

/** Compute the overall verdict from the sections (the `overall` field of the input is ignored). */
export function computeOverall(result: Omit<QbenchResult, 'overall'> & { overall?: unknown }, extras: OverallExtras = {}): OverallVerdict {
  const failures: string[] = [];
  const invalid: string[] = [];
  /** Inconclusive scenarios that do not fail the run: said in every verdict's reasons. */
  const notes: string[] = [];

  const strict = extras.strict === true;
  for (const c of result.conformance?.checks ?? []) if (checkFailsRun(c, strict)) failures.push(checkReason(c));

  for (const s of result.load?.scenarios ?? []) {
    if (!s.validity.valid || s.verdict.status === 'invalid') {
      // A threshold missed by a generator that could not keep up says nothing about the target.
      const why = s.validity.reasons.length > 0 ? s.validity.reasons.join('; ') : s.verdict.summary;
      invalid.push(`load ${s.name}: measurement invalid: ${why}`);
      continue;
    }
    if (s.verdict.status === 'inconclusive') {
      // Thresholds are rules the user set: one that failed fails the run whatever else.
      const failed = s.thresholds.filter((t) => !t.passed);
      if (failed.length > 0) failures.push(`load ${s.name}: ${failed.map((t) => `threshold ${t.metric} ${t.expression} (observed ${t.observed ?? 'no data'})`).join('; ')}`);
      else if (strict) failures.push(`load ${s.name}: inconclusive under --strict: ${scenarioInconclusiveWhy(s)}`);
      else notes.push(`load ${s.name}: inconclusive (not failing the run; --strict makes it fail): ${scenarioInconclusiveWhy(s)}`);
      continue;
    }
    if (s.verdict.status === 'fail') {
      const parts = [
        ...s.thresholds.filter((t) => !t.passed).map((t) => `threshold ${t.metric} ${t.expression} (observed ${t.observed ?? 'no data'})`),
        ...s.verdict.findings.filter((f) => findingOutcome(f, s.verdict.status) === 'fail').map((f) => `${f.clause ? `${f.clause} ` : ''}${f.label}: expected ${f.expected}, observed ${f.observed}`),
      ];
      failures.push(`load ${s.name}: ${parts.length > 0 ? parts.join('; ') : s.verdict.summary}`);
    } else {
      const failed = s.thresholds.filter((t) => !t.passed);
      if (failed.length > 0) failures.push(`load ${s.name}: ${failed.map((t) => `threshold ${t.metric} ${t.expression} (observed ${t.observed ?? 'no data'})`).join('; ')}`);
    }
  }

  for (const p of result.fuzz?.properties ?? []) {
    if (p.status === 'fail') failures.push(`fuzz ${p.clause.section} ${p.name}: ${p.finding ? `expected ${p.finding.expected}, observed ${p.finding.observed} (seed ${p.finding.seed}, path ${p.finding.path})` : 'property failed'}`);
    else if (p.status === 'error') failures.push(`fuzz ${p.clause.section} ${p.name}: errored: ${p.error ?? 'unknown error'}`);
  }

  if (result.llm) {
    const v = llmVerdicts(result.llm);
    failures.push(...v.failures);
    invalid.push(...v.invalid);
  }

  // A plan fails when no setting meets its SLOs (within its budget): what would be needed is the reason.
  if (result.plan && result.plan.chosen === null) failures.push(...result.plan.needed.map((n) => `plan: ${n}`));
  if (result.llmPlan && result.llmPlan.chosen === null) failures.push(...result.llmPlan.needed.map((n) => `LLM plan: ${n}`));

  const verdict = (status: OverallVerdict['status'], exitCode: ExitCode, reasons: string[]): OverallVerdict => ({ status, exitCode, reasons, ...(strict ? { strict } : {}) });
  if (extras.interrupted) return verdict('error', EXIT.INTERRUPTED, ['interrupted before the run finished', ...failures, ...invalid]);
  if (extras.internalErrors && extras.internalErrors.length > 0) {
    return verdict('error', EXIT.INTERNAL, [...extras.internalErrors.map((e) => `internal error: ${e}`), ...failures, ...invalid]);
  }
  if (extras.unreachable) return verdict('error', EXIT.TARGET_UNREACHABLE, [`target unreachable: ${extras.unreachable}`]);
  if (failures.length > 0) return verdict('fail', EXIT.TARGET_FAILED, [...failures, ...invalid, ...notes]);
  if (invalid.length > 0) return verdict('invalid', EXIT.INVALID_MEASUREMENT, [...invalid, ...notes]);
  const ran = [
    result.conformance ? `${result.conformance.checks.length} conformance checks` : '',
    result.load ? `${result.load.scenarios.length} load scenarios` : '',
    result.fuzz ? `${result.fuzz.properties.length} fuzz properties` : '',
    result.plan ? `a plan of ${result.plan.points.length} settings` : '',
    result.llm ? `${result.llm.runs.length} LLM runs` : '',
    result.llmPlan ? `an LLM plan of ${result.llmPlan.points.length} settings` : '',
  ].filter(Boolean);
  return verdict('pass', EXIT.OK, [ran.length > 0 ? `passed: ${ran.join(', ')}` : 'nothing was run', ...notes]);
}
