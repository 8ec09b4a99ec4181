// The work of `qbench fuzz` (declared in fuzz.ts): resolve the target, run the properties
// within the budget, print each finding with its replay command and write every report.
import { randomInt } from 'node:crypto';
import { usageError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { allProperties, runFuzz, type FuzzRunResult } from '../../fuzz/runner.js';
import { resolveFuzzTarget } from '../../fuzz/resolve-target.js';
import { describeProperty, fuzzResult, replayCommand } from '../../fuzz/fuzz-result.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun } from '../watch.js';
import { renderConsole } from '../../report/render/console.js';
import { apiKeyEnvName } from '../../target/index.js';
import type { CliIo, Invocation } from '../command.js';
import type { Flags } from '../options.js';
import type { FUZZ_OPTIONS } from './fuzz.js';

export async function runFuzzCommand(f: Flags<typeof FUZZ_OPTIONS>, io: CliIo, invocation: Invocation): Promise<ExitCode> {
  const problems: string[] = [];
  if (f.path !== undefined && f.properties?.length !== 1) problems.push('--path replays one property: name it with exactly one --property');
  if (f.replayPath !== undefined && !(f.properties?.length === 1 && f.properties[0] === 'job-state-machine')) problems.push('--replay-path replays a command sequence: use it with --property job-state-machine');
  if (problems.length > 0) throw usageError(`invalid options for qbench fuzz:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
  const apiKeyEnv = apiKeyEnvName(f.apiKeyEnv, io.env);
  const maxDurationMs = f.maxDurationMs;
  const seed = f.seed ?? randomInt(2 ** 31 - 1);
  const resolved = await resolveFuzzTarget({
    target: f.target,
    apiKey: io.env[apiKeyEnv],
    apiKeyEnv,
    endpointId: f.endpoint,
    modelEndpointId: f.modelEndpoint,
    restUrl: f.restUrl,
    graphqlUrl: f.graphqlUrl,
    faults: f.faults,
    timeScale: f.timeScale,
  });
  const startedAt = new Date();
  const t = resolved.target;
  const dir = await runReportDir(startedAt, f.out);
  const watch = await watchRun({
    dir,
    command: 'fuzz',
    argv: invocation.commandLine,
    options: { seed, runs: f.runs, modelRuns: f.modelRuns, maxCommands: f.maxCommands, maxDurationMs, properties: f.properties, rateFraction: f.rateFraction },
    target: { kind: t.kind, queueUrl: t.queueUrl, endpointId: t.endpointId, timeScale: t.timeScale, ...(t.restUrl !== undefined ? { restUrl: t.restUrl } : {}), ...(t.graphqlUrl !== undefined ? { graphqlUrl: t.graphqlUrl } : {}) },
    env: io.env,
    log: (l) => io.stderr(`${l}\n`),
  });
  watch.facts('fuzz', { seed, numRuns: f.runs });
  watch.plan('fuzz', allProperties({ maxCommands: f.maxCommands, replayPath: f.replayPath }).map((p) => p.name).filter((n) => f.properties === undefined || f.properties.includes(n)));
  let run: FuzzRunResult;
  try {
    io.stdout(`qbench fuzz: seed ${seed}, ${f.runs} runs per property, ${f.modelRuns} command sequences, budget ${maxDurationMs / 1000} s${f.faults.length > 0 ? `, faults: ${f.faults.join(', ')}` : ''}\n`);
    run = await runFuzz({
      target: resolved.target,
      seed,
      numRuns: f.runs,
      modelRuns: f.modelRuns,
      maxCommands: f.maxCommands,
      maxDurationMs,
      properties: f.properties,
      path: f.path,
      replayPath: f.replayPath,
      rateFraction: f.rateFraction,
      allowBillable: f.allowBillable,
      signal: io.signal,
      onEvent: (e) => {
        if (e.kind === 'skip') io.stdout(`SKIP  ${e.property}: ${e.reason}\n`);
        if (e.kind === 'end') {
          watch.property(e.property);
          const replayTarget = f.target === 'emulator' ? ['emulator', ...f.faults.map((x) => `--fault ${x}`)] : [f.target];
          io.stdout(describeProperty(e.property, replayCommand(e.property, replayTarget[0] ?? f.target, replayTarget.slice(1)), e.tally));
        }
      },
    });
  } catch (e) {
    await watch.abandon();
    throw e;
  } finally {
    await resolved.close();
  }
  const result = fuzzResult({ run, target: resolved.target, startedAt, endedAt: new Date(), command: invocation.commandLine, interrupted: io.signal.aborted });
  io.stdout(`${run.requests} requests${run.rateLimited > 0 ? `, ${run.rateLimited} answered 429 despite the rate budget (lower --rate-fraction)` : ''}\n`);
  await watch.finish(result);
  const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
  io.stdout(renderConsole(result));
  io.stdout(`\nreports: ${written.dir}\n`);
  return result.overall.exitCode as ExitCode;
}
