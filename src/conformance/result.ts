// From check results to the shared result model (src/report/model.ts): the conformance
// section with its summary and coverage, the overall verdict and the exit code. Spec checks
// decide the exit code; compat findings and skips never do; an expected failure does not.
import { hostname, platform, arch, cpus, totalmem } from 'node:os';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { SCHEMA_VERSION, type CheckResult, type ConformanceSection, type MachineInfo, type QbenchResult, type TargetInfo } from '../report/model.js';
import { VERSION } from '../version.js';
import { buildCoverage } from './coverage.js';
import type { Suite } from './suite.js';

/** A check result that fails the run: a spec check that failed or broke, unless expected. */
export function isBlocking(r: CheckResult): boolean {
  if (r.kind !== 'spec') return false;
  if (r.verdict.status !== 'fail' && r.verdict.status !== 'error') return false;
  return !(r.expectation?.matched ?? false);
}

export function buildConformanceSection(suite: Suite, results: readonly CheckResult[], profile: string): ConformanceSection {
  const count = (s: string) => results.filter((r) => r.verdict.status === s).length;
  return {
    profile,
    checks: [...results],
    coverage: buildCoverage(suite),
    summary: {
      pass: count('pass'),
      fail: count('fail'),
      skip: count('skip'),
      error: count('error'),
      expectedFailures: results.filter((r) => r.expectation?.matched === true && r.verdict.status !== 'pass').length,
      unexpectedPasses: results.filter((r) => r.expectation !== undefined && r.expectation.expected !== 'pass' && r.verdict.status === 'pass').length,
    },
  };
}

export function conformanceExitCode(results: readonly CheckResult[]): ExitCode {
  return results.some(isBlocking) ? EXIT.TARGET_FAILED : EXIT.OK;
}

export function machineInfo(): MachineInfo {
  const c = cpus();
  return {
    hostname: hostname(),
    platform: platform(),
    arch: arch(),
    cpus: c.length,
    cpuModel: c[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    nodeVersion: process.version,
  };
}

export interface ResultInput {
  readonly suite: Suite;
  readonly results: readonly CheckResult[];
  readonly profile: string;
  readonly command: readonly string[];
  readonly startedAt: Date;
  readonly endedAt: Date;
  readonly target: TargetInfo;
}

export function buildResult(input: ResultInput): QbenchResult {
  const exitCode = conformanceExitCode(input.results);
  const blocking = input.results.filter(isBlocking);
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'qbench-result',
    meta: {
      qbenchVersion: VERSION,
      command: [...input.command],
      startedAt: input.startedAt.toISOString(),
      endedAt: input.endedAt.toISOString(),
      durationMs: input.endedAt.getTime() - input.startedAt.getTime(),
      target: input.target,
      machine: machineInfo(),
    },
    conformance: buildConformanceSection(input.suite, input.results, input.profile),
    overall: {
      status: exitCode === EXIT.OK ? 'pass' : 'fail',
      exitCode,
      reasons: blocking.map((r) => `${r.id} (${r.clause.section}) ${r.verdict.status}`),
    },
  };
}
