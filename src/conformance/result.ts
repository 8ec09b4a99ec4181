// From check results to the shared result model (src/result/model.ts): the conformance
// section with its summary and coverage, the overall verdict and the exit code. Spec checks
// decide the exit code; compat findings and skips never do; an expected failure does not.
import { EXIT, type ExitCode } from '../exit-codes.js';
import { SCHEMA_VERSION, type CheckResult, type ConformanceSection, type CoverageRow, type QbenchResult, type TargetInfo } from '../result/model.js';
import { buildMeta } from '../result/machine.js';
import { checkFailsRun, computeOverall, type OverallExtras } from '../result/overall.js';
import { buildCoverage } from './coverage.js';
import type { Suite } from './suite.js';

/** A check result that fails the run (the report's rule: spec failures and errors, unless an --expect entry matches). */
export function isBlocking(r: CheckResult, strict = false): boolean {
  return checkFailsRun(r, strict);
}

export function buildConformanceSection(suite: Suite, results: readonly CheckResult[], profile: string): ConformanceSection {
  return conformanceSectionOf(buildCoverage(suite), results, profile);
}

/** The section from check results and the suite's coverage rows (a run rebuilt from its journal has no suite). */
export function conformanceSectionOf(coverage: readonly CoverageRow[], results: readonly CheckResult[], profile: string): ConformanceSection {
  const count = (s: string) => results.filter((r) => r.verdict.status === s).length;
  return {
    profile,
    checks: [...results],
    coverage: [...coverage],
    summary: {
      pass: count('pass'),
      fail: count('fail'),
      skip: count('skip'),
      error: count('error'),
      inconclusive: count('inconclusive'),
      expectedFailures: results.filter((r) => r.expectation?.matched === true && r.verdict.status !== 'pass').length,
      unexpectedPasses: results.filter((r) => r.expectation !== undefined && r.expectation.expected !== 'pass' && r.verdict.status === 'pass').length,
    },
  };
}

export function conformanceExitCode(results: readonly CheckResult[], strict = false): ExitCode {
  return results.some((r) => isBlocking(r, strict)) ? EXIT.TARGET_FAILED : EXIT.OK;
}

export interface ResultInput {
  readonly suite: Suite;
  readonly results: readonly CheckResult[];
  readonly profile: string;
  readonly command: readonly string[];
  readonly startedAt: Date;
  readonly endedAt: Date;
  readonly target: TargetInfo;
  readonly extras?: OverallExtras;
}

export function buildResult(input: ResultInput): QbenchResult {
  const partial = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'qbench-result' as const,
    meta: buildMeta({ command: input.command, startedAt: input.startedAt, endedAt: input.endedAt, target: input.target }),
    conformance: buildConformanceSection(input.suite, input.results, input.profile),
  };
  return { ...partial, overall: computeOverall(partial, input.extras ?? {}) };
}
