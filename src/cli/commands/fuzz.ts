// `qbench fuzz --target <emulator|url>` (issue 8): property-based fuzzing of the validation
// rules and a model-based run of the §3.1 job state machine. Bounded by --runs and
// --max-duration, kept under the §8 rates by --rate-fraction, replayable with --seed,
// --property and --path; findings print as shrunk cases with curl lines and go into every
// report format. Exit 0 pass, 1 a property failed, 2 bad flags, 5 target unreachable.
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { usageError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { FAULT_NAMES, isFaultName } from '../../emulator/faults.js';
import { allProperties, PROPERTY_NAMES, runFuzz, type FuzzRunResult } from '../../fuzz/runner.js';
import { resolveFuzzTarget } from '../../fuzz/resolve-target.js';
import { describeProperty, fuzzResult, replayCommand } from '../../fuzz/fuzz-result.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun } from '../watch.js';
import { renderConsole } from '../../report/render/console.js';
import { apiKeyEnvName, TARGET_GRAMMAR } from '../../target/index.js';
import type { CommandModule } from '../command.js';
import { outOption, targetOptions } from '../target-options.js';
import { flagList, parseFlags } from '../flags.js';
import { parseDurationMs } from './load.js';

/** Upper bounds that keep any run finite. */
const MAX = { runs: 100_000, modelRuns: 10_000, maxCommands: 200, durationMs: 24 * 3_600_000 } as const;
export const FUZZ_DEFAULTS = { runs: 100, modelRuns: 15, maxCommands: 12, maxDuration: '45s', rateFraction: 0.5 } as const;

const Flags = z
  .strictObject({
    target: z.string().min(1, { error: `--target: ${TARGET_GRAMMAR}` }),
    apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/i, { error: '--api-key-env: an environment variable name' }),
    endpoint: z.string().min(1).optional(),
    modelEndpoint: z.string().min(1).optional(),
    restUrl: z.url({ error: '--rest-url: an http(s) URL' }).optional(),
    graphqlUrl: z.url({ error: '--graphql-url: an http(s) URL' }).optional(),
    seed: z.number({ error: '--seed: an integer' }).int({ error: '--seed: an integer' }).min(-(2 ** 31), { error: '--seed: a 32-bit integer' }).max(2 ** 31 - 1, { error: '--seed: a 32-bit integer' }).optional(),
    runs: z.number({ error: '--runs: a number' }).int({ error: '--runs: a whole number' }).min(1, { error: '--runs: at least 1' }).max(MAX.runs, { error: `--runs: at most ${MAX.runs}` }),
    modelRuns: z.number({ error: '--model-runs: a number' }).int({ error: '--model-runs: a whole number' }).min(1, { error: '--model-runs: at least 1' }).max(MAX.modelRuns, { error: `--model-runs: at most ${MAX.modelRuns}` }),
    maxCommands: z.number({ error: '--max-commands: a number' }).int({ error: '--max-commands: a whole number' }).min(1, { error: '--max-commands: at least 1' }).max(MAX.maxCommands, { error: `--max-commands: at most ${MAX.maxCommands}` }),
    maxDurationMs: z.number().int().min(1_000, { error: '--max-duration: at least 1s' }).max(MAX.durationMs, { error: '--max-duration: at most 24h' }),
    properties: z.array(z.enum(PROPERTY_NAMES as [string, ...string[]], { error: `--property: one of ${PROPERTY_NAMES.join(', ')}` })).optional(),
    path: z.string().regex(/^\d+(:\d+)*$/, { error: '--path: a fast-check path such as 12:3:0' }).optional(),
    replayPath: z.string().min(1).optional(),
    rateFraction: z.number({ error: '--rate-fraction: a number' }).gt(0, { error: '--rate-fraction: above 0' }).max(1, { error: '--rate-fraction: at most 1 (the documented rate)' }),
    faults: z.array(z.string().refine(isFaultName, { error: `--fault: one of ${FAULT_NAMES.join(', ')}` })),
    timeScale: z.number({ error: '--time-scale: a number' }).positive({ error: '--time-scale: above 0' }).max(100_000, { error: '--time-scale: at most 100000' }).optional(),
    allowBillable: z.boolean(),
    out: z.string().min(1).optional(),
  })
  .refine((f) => f.path === undefined || f.properties?.length === 1, { error: '--path replays one property: name it with exactly one --property', path: ['path'] })
  .refine((f) => f.replayPath === undefined || (f.properties?.length === 1 && f.properties[0] === 'job-state-machine'), {
    error: '--replay-path replays a command sequence: use it with --property job-state-machine',
    path: ['replayPath'],
  });

export const fuzzCommand: CommandModule = {
  command: 'fuzz',
  describe: 'Property-based fuzzing of the validation rules and model-based testing of the job state machine',
  builder: (y) =>
    outOption(targetOptions(y, { defaultTarget: 'emulator', interfaces: true }))
      .option('model-endpoint', { type: 'string', describe: 'URL target: endpoint with no other traffic for the state-machine run (default: --endpoint)' })
      .option('seed', { type: 'number', describe: 'fast-check seed (default: random, printed for replay)' })
      .option('runs', { type: 'number', default: FUZZ_DEFAULTS.runs, describe: 'Generated cases per validation property' })
      .option('model-runs', { type: 'number', default: FUZZ_DEFAULTS.modelRuns, describe: 'Command sequences of the state-machine run' })
      .option('max-commands', { type: 'number', default: FUZZ_DEFAULTS.maxCommands, describe: 'Most commands per sequence' })
      .option('max-duration', { type: 'string', default: FUZZ_DEFAULTS.maxDuration, describe: 'Wall-clock budget of the whole run, e.g. 45s, 5m' })
      .option('property', { type: 'string', array: true, describe: `Run only these properties: ${PROPERTY_NAMES.join(', ')}` })
      .option('path', { type: 'string', describe: 'Replay: the fast-check path printed with a finding (with --seed and one --property)' })
      .option('replay-path', { type: 'string', describe: 'Replay: the replayPath of a failing command sequence (job-state-machine)' })
      .option('rate-fraction', { type: 'number', default: FUZZ_DEFAULTS.rateFraction, describe: 'Share of each documented §8 rate the fuzzer may use' })
      .option('fault', { type: 'string', array: true, describe: 'Emulator target: switch a fault on (self-test; repeatable)' })
      .option('time-scale', { type: 'number', describe: 'Emulator target: emulated ms per real ms (default 60)' })
      .option('allow-billable', { type: 'boolean', default: false, describe: 'URL target: allow pod deploys (they cost money)' }),
  run: async (argv, io): Promise<ExitCode> => {
    const durationText = argv['max-duration'];
    const maxDurationMs = typeof durationText === 'string' ? parseDurationMs(durationText) : undefined;
    if (maxDurationMs === undefined) throw usageError(`--max-duration "${String(durationText)}": write e.g. 30s, 2m, 1m30s`);
    const f = parseFlags('fuzz', Flags, {
      target: argv['target'],
      apiKeyEnv: apiKeyEnvName(argv['api-key-env'] as string | undefined, io.env),
      endpoint: argv['endpoint'],
      modelEndpoint: argv['model-endpoint'],
      restUrl: argv['rest-url'],
      graphqlUrl: argv['graphql-url'],
      seed: argv['seed'],
      runs: argv['runs'],
      modelRuns: argv['model-runs'],
      maxCommands: argv['max-commands'],
      maxDurationMs,
      properties: argv['property'] === undefined ? undefined : flagList(argv['property']),
      path: argv['path'],
      replayPath: argv['replay-path'],
      rateFraction: argv['rate-fraction'],
      faults: flagList(argv['fault']),
      timeScale: argv['time-scale'],
      allowBillable: argv['allow-billable'],
      out: argv['out'],
    });
    const seed = f.seed ?? randomInt(2 ** 31 - 1);
    const resolved = await resolveFuzzTarget({
      target: f.target,
      apiKey: io.env[f.apiKeyEnv],
      apiKeyEnv: f.apiKeyEnv,
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
      argv: ['qbench', 'fuzz', ...process.argv.slice(3)],
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
    const result = fuzzResult({ run, target: resolved.target, startedAt, endedAt: new Date(), command: ['qbench', 'fuzz', ...process.argv.slice(3)], interrupted: io.signal.aborted });
    io.stdout(`${run.requests} requests${run.rateLimited > 0 ? `, ${run.rateLimited} answered 429 despite the rate budget (lower --rate-fraction)` : ''}\n`);
    await watch.finish(result);
    const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
    io.stdout(renderConsole(result));
    io.stdout(`\nreports: ${written.dir}\n`);
    return result.overall.exitCode as ExitCode;
  },
};
