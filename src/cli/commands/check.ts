// `qbench check` (issue 5): run the conformance suite against a target (a URL, or
// `--target emulator` in-process), write every report format (as load does), exit 0 when
// every required check passed and 1 otherwise. `--self-test` proves the suite against every
// emulator fault; `--coverage-matrix` writes the clause/check matrix; `--list` lists checks.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { configError, redactSecrets, usageError } from '../../errors.js';
import { FAULT_NAMES, isFaultName, type FaultName } from '../../emulator/faults.js';
import {
  connectTarget, startEmulatorTarget, runChecks, buildResult, loadExpectations, unknownPatterns, renderCoverageMarkdown,
  runSelfTest, renderDetectionTable, isSlow, NO_EXPECTATIONS, CHECK_TAGS, buildCoverage, selectChecks, type Connected,
} from '../../conformance/index.js';
import type { CheckResult, TargetInfo } from '../../report/model.js';
import { renderJson } from '../../report/render/json.js';
import { renderJunit } from '../../report/render/junit.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun } from '../watch.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { apiKeyEnvName, parseTarget, requireEndpoint, TARGET_GRAMMAR } from '../../target/index.js';
import type { CliIo, CommandModule } from '../command.js';
import { outOption, targetOptions } from '../target-options.js';
import { parseFlags } from '../flags.js';

const MAX_CONCURRENCY = 32;
const MAX_TIME_SCALE = 1000;

const list = (what: string) =>
  z.array(z.string({ error: `${what} takes check ids, id prefixes ending in *, or tags` })).default([])
    .transform((a) => a.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0));

const CheckArgs = z.object({
  target: z.string({ error: '--target must be a URL or "emulator"' }).optional(),
  'api-key-env': z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: '--api-key-env must name an environment variable (letters, digits, _)' }).optional(),
  endpoint: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, { error: '--endpoint must be an endpoint id (letters, digits, - and _)' }).optional(),
  'rest-url': z.url({ error: '--rest-url must be an absolute URL' }).optional(),
  'graphql-url': z.url({ error: '--graphql-url must be an absolute URL' }).optional(),
  only: list('--only'),
  skip: list('--skip'),
  profile: z.enum(['quick', 'full'], { error: '--profile must be quick or full' }).default('quick'),
  expect: z.string().optional(),
  concurrency: z.number({ error: '--concurrency must be a number' }).int({ error: '--concurrency must be a whole number' }).min(1, { error: `--concurrency must be 1..${MAX_CONCURRENCY}` }).max(MAX_CONCURRENCY, { error: `--concurrency must be 1..${MAX_CONCURRENCY}` }).default(4),
  'allow-billable': z.boolean().default(false),
  'callback-host': z.string().min(1).optional(),
  'spare-endpoint': list('--spare-endpoint'),
  json: z.string().optional(),
  junit: z.string().optional(),
  out: z.string().min(1, { error: '--out must name a directory' }).optional(),
  'time-scale': z.number({ error: '--time-scale must be a number' }).positive({ error: `--time-scale must be in (0, ${MAX_TIME_SCALE}]` }).max(MAX_TIME_SCALE, { error: `--time-scale must be in (0, ${MAX_TIME_SCALE}]` }).optional(),
  fault: z.array(z.string()).default([]).transform((a) => a.flatMap((s) => s.split(',')).filter((s) => s.length > 0)),
  'self-test': z.boolean().default(false),
  strict: z.boolean().default(false),
  'coverage-matrix': z.string().optional(),
  list: z.boolean().default(false),
  parallel: z.number().int().min(1, { error: '--parallel must be 1..8' }).max(8, { error: '--parallel must be 1..8' }).default(3),
});
type CheckArgs = z.output<typeof CheckArgs>;

function parseArgs(argv: Record<string, unknown>): CheckArgs {
  const a = parseFlags('check', CheckArgs, argv);
  const problems: string[] = [];
  const badFaults = a.fault.filter((f) => !isFaultName(f));
  if (badFaults.length > 0) problems.push(`--fault: unknown fault ${badFaults.join(', ')}; valid: ${FAULT_NAMES.join(', ')}`);
  if (a.fault.length > 0 && a.target !== 'emulator' && !a['self-test']) problems.push('--fault applies to --target emulator (or --self-test) only');
  if (a['time-scale'] !== undefined && a.target !== 'emulator' && !a['self-test']) problems.push('--time-scale applies to --target emulator (or --self-test) only');
  if (!a['self-test'] && !a.list && a['coverage-matrix'] === undefined && a.target === undefined) problems.push(`--target is required: ${TARGET_GRAMMAR}`);
  if (a.target !== undefined && a.target !== 'emulator') {
    try {
      const spec = parseTarget(a.target, a.endpoint);
      if (spec.kind === 'url') requireEndpoint(spec);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  }
  const patterns = [...a.only, ...a.skip];
  const unknown = unknownPatterns(conformanceSuite, patterns);
  if (unknown.length > 0) problems.push(`--only/--skip: ${unknown.join(', ')} match no check id and no tag (tags: ${CHECK_TAGS.join(', ')})`);
  if (problems.length > 0) throw usageError(`invalid options for qbench check:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
  return a;
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

async function selfTest(a: CheckArgs, io: CliIo): Promise<ExitCode> {
  const faults = a.fault.length > 0 ? (a.fault as FaultName[]) : undefined;
  io.stdout(`qbench check --self-test: the clean emulator, then ${faults?.length ?? FAULT_NAMES.length} faults (${a.parallel} at a time)\n`);
  const report = await runSelfTest(conformanceSuite, {
    profile: a.profile,
    concurrency: a.concurrency,
    parallel: a.parallel,
    signal: io.signal,
    ...(faults ? { faults } : {}),
    ...(a['time-scale'] !== undefined ? { timeScale: a['time-scale'] } : {}),
    onClean: (clean) => {
      const bad = clean.filter((r) => r.verdict.status === 'fail' || r.verdict.status === 'error');
      io.stdout(`clean emulator: ${clean.filter((r) => r.verdict.status === 'pass').length} pass, ${bad.length} fail/error, ${clean.filter((r) => r.verdict.status === 'skip').length} skip\n`);
      for (const r of bad) io.stdout(line(r));
      io.stdout(failureDetails(bad));
    },
    onRow: (row) => io.stdout(`${row.caughtBy.length > 0 ? 'caught ' : 'MISSED '} ${row.fault} (${row.clause}) by ${row.caughtBy.join(', ') || 'nothing'} [${(row.durationMs / 1000).toFixed(1)}s${row.retriedAlone === true ? ', run again alone' : ''}]\n`),
  });
  io.stdout(`\n${renderDetectionTable(report.rows)}`);
  io.stdout(`\n${report.cleanPassed ? 'clean emulator passed every check' : 'the CLEAN emulator FAILED checks'}; ${report.rows.filter((r) => r.caughtBy.length > 0).length}/${report.rows.length} faults caught in ${(report.durationMs / 1000).toFixed(0)} s\n`);
  return report.cleanPassed && report.allCaught ? EXIT.OK : EXIT.TARGET_FAILED;
}

export const checkCommand: CommandModule = {
  command: 'check',
  describe: 'Run the conformance suite against a target (URL or the in-process emulator)',
  builder: (y) =>
    outOption(targetOptions(y, { optional: true, interfaces: true }))
      .option('only', { type: 'array', string: true, describe: 'Run only these checks: ids, id prefixes ending in *, or tags' })
      .option('skip', { type: 'array', string: true, describe: 'Skip these checks: ids, id prefixes ending in *, or tags' })
      .option('profile', { type: 'string', default: 'quick', describe: 'quick or full. quick: checks that finish within 60 s of waiting at the target\'s time scale; full: all' })
      .option('expect', { type: 'string', describe: 'Known-failures file (id, verdict, reason, optional expires)' })
      .option('concurrency', { type: 'number', default: 4, describe: `Checks in flight at once (1..${MAX_CONCURRENCY})` })
      .option('allow-billable', { type: 'boolean', default: false, describe: 'Run checks that cost money on a real target (pods)' })
      .option('callback-host', { type: 'string', describe: 'Host/IP the target can reach this machine at (webhook checks)' })
      .option('spare-endpoint', { type: 'array', string: true, describe: 'Extra idle endpoint ids on the target that checks may take for exact counts' })
      .option('json', { type: 'string', describe: 'Also write the result (QbenchResult JSON) to this file' })
      .option('junit', { type: 'string', describe: 'Also write JUnit XML to this file' })
      .option('time-scale', { type: 'number', describe: `Emulated ms per real ms of --target emulator (default 60, max ${MAX_TIME_SCALE})` })
      .option('fault', { type: 'array', string: true, describe: 'Emulator fault switch (with --target emulator or --self-test), repeatable' })
      .option('self-test', { type: 'boolean', default: false, describe: 'Run the suite against the clean emulator and against each fault; print the detection table' })
      .option('parallel', { type: 'number', default: 3, describe: 'With --self-test: fault emulators side by side (1..8)' })
      .option('coverage-matrix', { type: 'string', describe: 'Write the clause coverage matrix (markdown) to this file and exit' })
      .option('strict', { type: 'boolean', default: false, describe: 'An inconclusive check (could not set up what it judges) fails the run: for gating on a private endpoint' })
      .option('list', { type: 'boolean', default: false, describe: 'List the checks and exit' }),
  run: async (argv, io) => {
    const a = parseArgs(argv);
    if (a.list) {
      for (const c of conformanceSuite.checks) io.stdout(`${c.id.padEnd(48)} ${c.kind.padEnd(6)} ${c.interface.padEnd(7)} [${c.tags.join(',')}] ${c.title}\n`);
      return EXIT.OK;
    }
    if (a['coverage-matrix'] !== undefined) {
      await writeOut(a['coverage-matrix'], renderCoverageMarkdown(conformanceSuite));
      io.stdout(`wrote ${a['coverage-matrix']}\n`);
      if (a.target === undefined && !a['self-test']) return EXIT.OK;
    }
    if (a['self-test']) return selfTest(a, io);

    const expectations = a.expect !== undefined ? await loadExpectations(a.expect) : NO_EXPECTATIONS;
    for (const e of expectations.expired) io.stderr(`qbench: --expect: the entry for ${e.id} expired on ${e.expires ?? '?'} and no longer applies\n`);
    let connected: Connected;
    const startedAt = new Date();
    if (a.target === 'emulator') {
      const t = await startEmulatorTarget({ faults: a.fault as FaultName[], allowBillable: true, ...(a['time-scale'] !== undefined ? { timeScale: a['time-scale'] } : {}) });
      connected = t;
      io.stdout(`qbench check: emulator at ${t.emulator.url} (time scale ${t.target.timeScale}${a.fault.length > 0 ? `, faults ${a.fault.join(', ')}` : ''})\n`);
    } else {
      const keyEnv = apiKeyEnvName(a['api-key-env'], io.env);
      const key = io.env[keyEnv];
      if (key === undefined || key.length === 0) throw configError(`--api-key-env: the environment variable ${keyEnv} is not set (it must hold the API key)`);
      const spec = parseTarget(a.target as string, a.endpoint);
      if (spec.kind !== 'url') throw usageError(`--target: ${TARGET_GRAMMAR}`);
      connected = await connectTarget({
        queueUrl: spec.queueUrl,
        restUrl: a['rest-url'],
        graphqlUrl: a['graphql-url'],
        endpointId: requireEndpoint(spec),
        apiKey: key,
        apiKeyEnv: keyEnv,
        allowBillable: a['allow-billable'],
        callbackHost: a['callback-host'],
        ...(a['spare-endpoint'].length > 0 ? { spareEndpoints: a['spare-endpoint'] } : {}),
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
      argv: ['qbench', 'check', ...process.argv.slice(3)],
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
      command: ['qbench', 'check', ...process.argv.slice(3)],
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
  },
};
