// Overall verdict and exit code from the sections of a result.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/exit-codes.js';
import { computeOverall } from '../../../src/result/overall.js';
import { sampleResult } from './sample-result.js';

describe('computeOverall', () => {
  it('passes a clean run with exit 0', () => {
    expect(computeOverall(sampleResult())).toMatchObject({ status: 'pass', exitCode: EXIT.OK });
  });

  it('fails with exit 1 on a conformance failure, naming the clause', () => {
    const o = computeOverall(sampleResult({ withConformanceFailure: true }));
    expect(o).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED });
    expect(o.reasons.join('\n')).toMatch(/§2\.1 execution-timeout-min: expected 400/);
  });

  it('fails on a fuzz counterexample with its seed and path', () => {
    const o = computeOverall(sampleResult({ withFuzzFailure: true }));
    expect(o.exitCode).toBe(EXIT.TARGET_FAILED);
    expect(o.reasons.join('\n')).toMatch(/seed 42, path 36:1:0/);
  });

  it('is invalid with exit 4 when the generator could not keep up, and a failure outranks it', () => {
    expect(computeOverall(sampleResult({ invalid: true }))).toMatchObject({ status: 'invalid', exitCode: EXIT.INVALID_MEASUREMENT });
    expect(computeOverall(sampleResult({ invalid: true, withConformanceFailure: true }))).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED });
  });

  it('fails on a failed threshold and honours the expectation file', () => {
    const r = sampleResult();
    r.load!.scenarios[0]!.thresholds[0]!.passed = false;
    expect(computeOverall(r).exitCode).toBe(EXIT.TARGET_FAILED);
    const e = sampleResult({ withConformanceFailure: true });
    const failing = e.conformance!.checks.find((c) => c.verdict.status === 'fail')!;
    failing.expectation = { expected: 'fail', reason: 'known bug #12', matched: true };
    expect(computeOverall(e).exitCode).toBe(EXIT.OK);
    const passing = e.conformance!.checks.find((c) => c.verdict.status === 'pass')!;
    passing.expectation = { expected: 'fail', reason: 'stale entry', matched: false };
    expect(computeOverall(e).reasons.join('\n')).toMatch(/expectation file said fail \(stale entry\)/);
  });

  it('compat findings never fail the run', () => {
    const r = sampleResult();
    const compat = r.conformance!.checks.find((c) => c.kind === 'compat')!;
    compat.verdict = { status: 'fail', expected: '200', observed: '201', exchanges: [], curl: 'curl x' };
    expect(computeOverall(r).exitCode).toBe(EXIT.OK);
  });

  it('an inconclusive check fails the run only under strict, with its reason', () => {
    const r = sampleResult();
    const spec = r.conformance!.checks.find((c) => c.kind === 'spec' && c.verdict.status === 'pass')!;
    spec.verdict = { status: 'inconclusive', reason: 'the job never left the queue within 42 s', exchanges: [] };
    expect(computeOverall(r)).toMatchObject({ status: 'pass', exitCode: EXIT.OK });
    const strict = computeOverall(r, { strict: true });
    expect(strict).toMatchObject({ status: 'fail', exitCode: EXIT.TARGET_FAILED, strict: true });
    expect(strict.reasons.join('\n')).toMatch(/inconclusive under --strict: the job never left the queue/);
  });

  it('interrupted and internal errors map to their exit codes', () => {
    expect(computeOverall(sampleResult(), { interrupted: true }).exitCode).toBe(EXIT.INTERRUPTED);
    expect(computeOverall(sampleResult(), { internalErrors: ['boom'] }).exitCode).toBe(EXIT.INTERNAL);
    expect(computeOverall(sampleResult(), { unreachable: 'ECONNREFUSED' }).exitCode).toBe(EXIT.TARGET_UNREACHABLE);
  });
});
