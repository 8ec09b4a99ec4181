// The work of `qbench check` (declared in check.ts): the options checked together, then the
// check list, the coverage matrix, the self-test or a run against the target with its reports.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { configError, redactSecrets, usageError } from '../../errors.js';
import { FAULT_NAMES } from '../../emulator/faults.js';
import {
  connectTarget, startEmulatorTarget, runChecks, buildResult, loadExpectations, unknownPatterns, renderCoverageMarkdown,
  runSelfTest, renderDetectionTable, isSlow, NO_EXPECTATIONS, CHECK_TAGS, buildCoverage, selectChecks, shippedSuite, type Connected, type Suite,
} from '../../conformance/index.js';
import type { CheckResult, TargetInfo } from '../../result/model.js';
import { renderJson } from '../../report/render/json.js';
import { renderJunit } from '../../report/render/junit.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun } from '../watch.js';
import { apiKeyEnvName, parseTarget, requireEndpoint, resolveTargetFlag, TARGET_GRAMMAR } from '../../target/index.js';
import { CONNECT_INFO_TIMEOUT_MS } from '../../conformance/connect.js';
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import type { CHECK_OPTIONS } from './check.js';

type CheckArgs = Flags<typeof CHECK_OPTIONS>;

/** What the options say together: every problem at once. */
function checkTogether(a: CheckArgs, conformanceSuite: Suite): void {
  const problems: string[] = [];
  if (a.faults.length > 0 && a.target !== 'emulator' && !a.selfTest) problems.push('--fault applies to --target emulator (or --self-test) only');
  if (a.timeScale !== undefined && a.target !== 'emulator' && !a.selfTest) problems.push('--time-scale applies to --target emulator (or --self-test) only');
  if (!a.selfTest && !a.list && a.coverageMatrix === undefined && a.target === undefined) problems.push(`--target is required: ${TARGET_GRAMMAR}`);
  if (a.target !== undefined && a.target !== 'emulator') {
    try {
      const spec = parseTarget(a.target, a.endpoint);
      if (spec.kind === 'url') requireEndpoint(spec);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  }
  const unknown = unknownPatterns(conformanceSuite, [...a.only, ...a.skip]);
  if (unknown.length > 0) problems.push(`--only/--skip: ${unknown.join(', ')} match no check id and no tag (tags: ${CHECK_TAGS.join(', ')})`);
  if (problems.length > 0) throw usageError(`invalid options for qbench check:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
}

function line(r: CheckResult): string {
  const v = r.verdict;
  const mark = v.status === 'pass' ? 'PASS ' : v.status === 'fail' ? (r.kind === 'compat' ? 'COMPAT' : 'FAIL ') : v.status === 'skip' ? 'SKIP ' : v.status === 'inconclusive' ? 'INCONCLUSIVE' : 'ERROR';
  const exp = r.expectation ? ` [expected ${r.expectation.expected}${r.expectation.matched ? '' : ', NOT MATCHED'}]` : '';
  const detail = v.status === 'skip' || v.status === 'inconclusive' ? ` (${v.reason})` : v.status === 'error' ? `: ${v.message}` : '';
  return `${mark} ${r.clause.section.padEnd(11)} ${r.id}${exp} ${(r.durationMs / 1000).toFixed(1)}s${detail}\n`;
}

function failureDetails(results: readonly CheckResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    if (r.verdict.status !== 'fail') continue;
    out.push(`\n${r.kind === 'compat' ? 'COMPAT' : 'FAIL'} ${r.id} (${r.clause.section} "${r.clause.quote}")`);
    out.push(`  expected: ${r.verdict.expected}`);
    out.push(`  observed: ${r.verdict.observed}`);
    out.push(`  reproduce: ${r.verdict.curl}`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

async function writeOut(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, text);
}

async function selfTest(a: CheckArgs, io: CliIo, conformanceSuite: Suite): Promise<ExitCode> {
  const faults = a.faults.length > 0 ? a.faults : undefined;
  io.stdout(`qbench check --self-test: the clean emulator, then ${faults?.length ?? FAULT_NAMES.length} faults (${a.parallel} at a time)\n`);
  const report = await runSelfTest(conformanceSuite, {
    profile: a.profile,
    concurrency: a.concurrency,
    parallel: a.parallel,
    signal: io.signal,
    ...(faults ? { faults } : {}),
    ...(a.timeScale !== undefined ? { timeScale: a.timeScale } : {}),
    onClean: (clean) => {
      const bad = clean.filter((r) => r.verdict.status === 'fail' || r.verdict.status === 'error');
      io.stdout(`clean emulator: ${clean.filter((r) => r.verdict.status === 'pass').length} pass, ${bad.length} fail/error, ${clean.filter((r) => r.verdict.status === 'skip').length} skip\n`);
      for (const r of bad) io.stdout(line(r));
      io.stdout(failureDetails(bad));
    },
    onRow: (row) => io.stdout(`${row.caughtBy.length > 0 ? 'caught ' : 'MISSED '} ${row.fault} (${row.clause}) by ${row.caughtBy.join(', ') || `nothing${row.inconclusive.length > 0 ? ` (inconclusive only, which never counts: ${row.inconclusive.join(', ')})` : ''}`} [${(row.durationMs / 1000).toFixed(1)}s${row.retriedAlone === true ? ', run again alone' : ''}]\n`),
  });
  io.stdout(`\n${renderDetectionTable(report.rows)}`);
  io.stdout(`\n${report.cleanPassed ? 'clean emulator passed every check' : 'the CLEAN emulator FAILED checks'}; ${report.rows.filter((r) => r.caughtBy.length > 0).length}/${report.rows.length} faults caught in ${(report.durationMs / 1000).toFixed(0)} s\n`);
  return report.cleanPassed && report.allCaught ? EXIT.OK : EXIT.TARGET_FAILED;
}

export async function runCheck(a: CheckArgs, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const conformanceSuite = await shippedSuite();
  checkTogether(a, conformanceSuite);
  if (a.list) {
    for (const c of conformanceSuite.checks) io.stdout(`${c.id.padEnd(48)} ${c.kind.padEnd(6)} ${c.interface.padEnd(7)} [${c.tags.join(',')}] ${c.title}\n`);
    return EXIT.OK;
  }
  if (a.coverageMatrix !== undefined) {
    await writeOut(a.coverageMatrix, renderCoverageMarkdown(conformanceSuite));
    io.stdout(`wrote ${a.coverageMatrix}\n`);
    if (a.target === undefined && !a.selfTest) return EXIT.OK;
  }
  if (a.selfTest) return selfTest(a, io, conformanceSuite);

  const expectations = a.expect !== undefined ? await loadExpectations(a.expect) : NO_EXPECTATIONS;
  for (const e of expectations.expired) io.stderr(`qbench: --expect: the entry for ${e.id} expired on ${e.expires ?? '?'} and no longer applies\n`);
  let connected: Connected;
  const startedAt = new Date();
  if (a.target === 'emulator') {
    const t = await startEmulatorTarget({ faults: a.faults, allowBillable: true, ...(a.timeScale !== undefined ? { timeScale: a.timeScale } : {}) });
    connected = t;
    io.stdout(`qbench check: emulator at ${t.emulator.url} (time scale ${t.target.timeScale}${a.faults.length > 0 ? `, faults ${a.faults.join(', ')}` : ''})\n`);
  } else {
    const keyEnv = apiKeyEnvName(a.apiKeyEnv, io.env);
    const key = io.env[keyEnv];
    if (key === undefined || key.length === 0) throw configError(`--api-key-env: the environment variable ${keyEnv} is not set (it must hold the API key)`);
    // A target that does not answer stops the run before anything is judged.
    const resolved = await resolveTargetFlag({ target: a.target as string, endpointId: a.endpoint, apiKey: key, unreachable: 'error', timeoutMs: CONNECT_INFO_TIMEOUT_MS });
    if (resolved.kind !== 'url') throw usageError(`--target: ${TARGET_GRAMMAR}`);
    connected = await connectTarget({
      queueUrl: resolved.queueUrl,
      restUrl: a.restUrl,
      graphqlUrl: a.graphqlUrl,
      endpointId: resolved.endpointId,
      facts: resolved.facts,
      apiKey: key,
      apiKeyEnv: keyEnv,
      allowBillable: a.allowBillable,
      callbackHost: a.callbackHost,
      ...(a.spareEndpoints.length > 0 ? { spareEndpoints: a.spareEndpoints } : {}),
    });
  }
  const target = connected.target;
  const targetInfo: TargetInfo = {
    kind: target.kind,
    queueUrl: target.queueUrl,
    endpointId: target.endpointId,
    ...(target.restUrl !== undefined ? { restUrl: target.restUrl } : {}),
    ...(target.graphqlUrl !== undefined ? { graphqlUrl: target.graphqlUrl } : {}),
    timeScale: target.timeScale,
    ...(target.faults.length > 0 ? { faults: [...target.faults] } : {}),
  };
  const dir = await runReportDir(startedAt, a.out);
  const watch = await watchRun({
    dir,
    command: 'check',
    argv: invocation.commandLine,
    options: { profile: a.profile, only: a.only, skip: a.skip, concurrency: a.concurrency, strict: a.strict, ...(a.expect !== undefined ? { expect: a.expect } : {}) },
    target: targetInfo,
    env: io.env,
    log: (l) => io.stderr(`${l}\n`),
  });
  watch.facts('conformance', { profile: a.profile, coverage: buildCoverage(conformanceSuite) });
  watch.plan('conformance', selectChecks(conformanceSuite, { only: a.only, skip: a.skip }).map((c) => c.id));
  let results: CheckResult[];
  try {
    const slow = conformanceSuite.checks.filter((c) => isSlow(c, target)).length;
    io.stdout(`target ${target.kind} ${target.queueUrl} endpoint ${target.endpointId}, time scale ${target.timeScale}, profile ${a.profile}${a.profile === 'quick' && slow > 0 ? ` (${slow} slow checks left to --profile full)` : ''}\n`);
    results = await runChecks(conformanceSuite, target, connected.probe, {
      profile: a.profile,
      only: a.only,
      skip: a.skip,
      concurrency: a.concurrency,
      expectations,
      signal: io.signal,
      onNotice: (text) => io.stdout(`${text}\n`),
      onResult: (r) => {
        watch.check(r);
        io.stdout(line(r));
      },
    });
  } catch (e) {
    await watch.abandon();
    throw e;
  } finally {
    await connected.close();
  }
  const result = buildResult({
    suite: conformanceSuite,
    results,
    profile: a.profile,
    command: invocation.commandLine,
    startedAt,
    endedAt: new Date(),
    target: targetInfo,
    extras: { ...(io.signal.aborted ? { interrupted: true } : {}), ...(a.strict ? { strict: true } : {}) },
  });
  io.stdout(failureDetails(results));
  const s = result.conformance?.summary;
  if (s) {
    io.stdout(`\n${s.pass} pass, ${s.fail} fail, ${s.skip} skip, ${s.error} error, ${s.inconclusive ?? 0} inconclusive${s.inconclusive && !a.strict ? ' (not failing the run; --strict makes them fail it)' : ''}; ${s.expectedFailures} expected failures, ${s.unexpectedPasses} unexpected passes\n`);
  }
  io.stdout(`overall: ${result.overall.status.toUpperCase()}${result.overall.reasons.length > 0 && result.overall.status !== 'pass' ? `\n  ${result.overall.reasons.map(redactSecrets).join('\n  ')}` : ''}\n`);
  if (a.json !== undefined) await writeOut(a.json, renderJson(result));
  if (a.junit !== undefined) await writeOut(a.junit, renderJunit(result));
  await watch.finish(result);
  const written = await writeAllReports(result, dir, { updateLatest: a.out === undefined });
  io.stdout(`reports: ${written.dir}\n`);
  return result.overall.exitCode as ExitCode;
}
