// `qbench fuzz --target <emulator|url>`: property-based fuzzing of the validation
// rules and a model-based run of the §3.1 job state machine. Bounded by --runs and
// --max-duration, kept under the §8 rates by --rate-fraction, replayable with --seed,
// --property and --path; findings print as shrunk cases with curl lines and go into every
// report format. Exit 0 pass, 1 a property failed, 2 bad flags, 5 target unreachable.
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { usageError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { allProperties, PROPERTY_NAMES, runFuzz, type FuzzRunResult } from '../../fuzz/runner.js';
import { resolveFuzzTarget } from '../../fuzz/resolve-target.js';
import { describeProperty, fuzzResult, replayCommand } from '../../fuzz/fuzz-result.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun } from '../watch.js';
import { renderConsole } from '../../report/render/console.js';
import { EndpointId } from '../../spec/index.js';
import { apiKeyEnvName } from '../../target/index.js';
import { defineCommand } from '../command.js';
import { option } from '../options.js';
import { fuzzBudgetOptions } from '../suite-options.js';
import { faultOption, interfaceOptions, outOption, targetKeyOption, targetOptions } from '../target-options.js';

const SEED = 'must be a 32-bit integer';
const RATE_FRACTION = 'must be a number above 0 and at most 1 (the documented rate)';

export const fuzzCommand = defineCommand({
  command: 'fuzz',
  describe: 'Property-based fuzzing of the validation rules and model-based testing of the job state machine',
  options: {
    ...targetOptions({ defaultTarget: 'emulator' }),
    ...targetKeyOption(),
    ...interfaceOptions,
    out: outOption,
    modelEndpoint: option({ flag: 'model-endpoint', schema: EndpointId.optional(), help: 'URL target: endpoint with no other traffic for the state-machine run (default: --endpoint)' }),
    seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: SEED }).int({ error: SEED }).min(-(2 ** 31), { error: SEED }).max(2 ** 31 - 1, { error: SEED }).optional(), help: 'fast-check seed (default: random, printed for replay)' }),
    ...fuzzBudgetOptions,
    properties: option({ flag: 'property', kind: 'strings', schema: z.array(z.enum(PROPERTY_NAMES as [string, ...string[]], { error: `must be one of ${PROPERTY_NAMES.join(', ')}` })).optional(), help: `Run only these properties: ${PROPERTY_NAMES.join(', ')}` }),
    path: option({ flag: 'path', schema: z.string().regex(/^\d+(:\d+)*$/, { error: 'must be a fast-check path such as 12:3:0' }).optional(), help: 'Replay: the fast-check path printed with a finding (with --seed and one --property)' }),
    replayPath: option({ flag: 'replay-path', schema: z.string().min(1).optional(), help: 'Replay: the replayPath of a failing command sequence (job-state-machine)' }),
    rateFraction: option({ flag: 'rate-fraction', kind: 'number', schema: z.number({ error: RATE_FRACTION }).gt(0, { error: RATE_FRACTION }).max(1, { error: RATE_FRACTION }), default: 0.5, help: 'Share of each documented §8 rate the fuzzer may use' }),
    faults: faultOption('Emulator target: switch a fault on (self-test; repeatable)'),
    timeScale: option({ flag: 'time-scale', kind: 'number', schema: z.number({ error: 'must be a number' }).positive({ error: 'must be above 0' }).max(100_000, { error: 'must be at most 100000' }).optional(), help: 'Emulator target: emulated ms per real ms', defaultHelp: '60' }),
    allowBillable: option({ flag: 'allow-billable', kind: 'boolean', schema: z.boolean(), default: false, help: 'URL target: allow pod deploys (they cost money)' }),
  },
  run: async (f, io, invocation): Promise<ExitCode> => {
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
  },
});
