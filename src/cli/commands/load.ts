// `qbench load <scenario files...> --target <url|emulator>`: run load scenarios (issue 6),
// print live progress and a verdict per scenario, write every report format through
// src/report, and exit 0 pass (an inconclusive scenario too, unless --strict) / 1 failed threshold
// or verdict / 2 bad scenario or flag / 4 invalid measurement / 5 nothing answered the preflight request (src/load/preflight.ts). Flags are validated by one zod schema; any scenario field can be
// overridden with --set path=value and is validated with the scenario itself.
import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import { usageError, configError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { HARD_LIMITS } from '../../load/scenario.js';
import { resolveTarget } from '../../load/target.js';
import { runLoad, type ScenarioEntry } from '../../load/run-load.js';
import { CONFIG_SCENARIOS_KEY } from '../../config/apply-config.js';
import { createProgressPrinter } from '../../load/progress.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { watchRun } from '../watch.js';
import { parseMetricsFlags } from '../../metrics/endpoints.js';
import { renderConsole } from '../../report/render/console.js';
import { apiKeyEnvName, TARGET_GRAMMAR } from '../../target/index.js';
import type { CommandModule } from '../command.js';
import { outOption, targetOptions } from '../target-options.js';
import { flagList, parseFlags } from '../flags.js';
import { resolveShard, resolveStartAt } from '../../load/sharding.js';

/** A flag's text (numbers as written); undefined when absent; an error when given twice. */
export function optionalText(v: unknown, flag: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw usageError(`${flag}: give it once, as text`);
  return v;
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "90s", "2m", "500ms", "1h", "1m30s" -> ms; undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim()) return undefined;
  return Math.round(parts.reduce((a, p) => a + Number(p[1]) * (UNITS_MS[p[2] ?? 's'] ?? 0), 0));
}

function pairs(flag: string, v: unknown, parseValue: boolean): [string, unknown][] {
  return flagList(v).map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError(`--${flag} "${item}": write key=value`);
    const key = item.slice(0, eq);
    const raw = item.slice(eq + 1);
    if (!parseValue) return [key, raw];
    try {
      return [key, JSON.parse(raw) as unknown];
    } catch {
      return [key, raw];
    }
  });
}

const Flags = z.strictObject({
  scenarios: z.array(z.string().min(1), { error: 'name at least one scenario file (or list them under load.scenarios in the config file)' }).min(1, { error: 'name at least one scenario file (or list them under load.scenarios in the config file)' }),
  target: z.string().min(1, { error: `--target: ${TARGET_GRAMMAR}` }),
  endpointId: z.string().min(1).optional(),
  apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/i, { error: '--api-key-env: an environment variable name' }),
  durationMs: z.number().int().positive().max(HARD_LIMITS.maxDurationMs, { error: `--duration: at most ${HARD_LIMITS.maxDurationMs / 3_600_000}h` }).optional(),
  ratePerSec: z.number().positive({ error: '--rate must be > 0' }).max(HARD_LIMITS.maxRatePerSec, { error: `--rate: at most ${HARD_LIMITS.maxRatePerSec}/s` }).optional(),
  vus: z.number().int({ error: '--vus must be an integer' }).positive({ error: '--vus must be >= 1' }).max(HARD_LIMITS.maxVus, { error: `--vus: at most ${HARD_LIMITS.maxVus}` }).optional(),
  threads: z.number().int().positive({ error: '--threads must be >= 1' }).max(HARD_LIMITS.maxThreads, { error: `--threads: at most ${HARD_LIMITS.maxThreads}` }).optional(),
  maxRequests: z.number().int().positive({ error: '--max-requests must be >= 1' }).max(HARD_LIMITS.maxRequests, { error: `--max-requests: at most ${HARD_LIMITS.maxRequests}` }).optional(),
  timeScale: z.number().positive({ error: '--time-scale must be > 0' }).max(100_000, { error: '--time-scale: at most 100000' }).optional(),
  scaleRateWindows: z.boolean().optional(),
  out: z.string().min(1).optional(),
  strict: z.boolean(),
});

export const loadCommand: CommandModule = {
  command: 'load [scenarios..]',
  describe: 'Run load scenarios (suites/load/*.ts or your own) against a target and write the reports',
  builder: (y) =>
    outOption(targetOptions(y.positional('scenarios', { type: 'string', array: true, describe: 'Scenario files (.ts/.js modules; default export a scenario, a list, or a factory)' })))
      .option('duration', { type: 'string', describe: 'Override every scenario duration, e.g. 30s, 2m (ramps keep their shape)' })
      .option('rate', { type: 'number', describe: 'Override the arrival rate (req/s; ramps are scaled to this peak)' })
      .option('vus', { type: 'number', describe: 'Override VUs (closed-loop) or connections (max-throughput)' })
      .option('threads', { type: 'number', describe: 'Worker threads generating load (the rate is split exactly)' })
      .option('max-requests', { type: 'number', describe: 'Hard cap on HTTP requests per scenario' })
      .option('set', { type: 'string', array: true, describe: 'Override any scenario field: --set path=JSON (e.g. --set maxInFlight=500 --set stages.0.durationMs=5000)' })
      .option('param', { type: 'string', array: true, describe: 'Parameter for scenario factories: --param key=value (e.g. --param op=cancel)' })
      .option('only', { type: 'string', array: true, describe: 'Run only the scenarios with these names' })
      .option('time-scale', { type: 'number', describe: 'Emulator target: emulated ms per real ms' })
      .option('scale-rate-windows', { type: 'boolean', describe: 'Emulator target: rate windows on the scaled clock too' })
      .option('emulator-config', { type: 'string', describe: 'Emulator target: JSON config file (limits, workers...)' })
      .option('strict', { type: 'boolean', default: false, describe: 'An inconclusive scenario (could not set up what it judges) fails the run: for gating on a private endpoint' })
      .option('shard', { type: 'string', describe: 'Run shard i of n (every n-th start of the one global schedule), e.g. --shard 0/4; qbench merge joins the shards' })
      .option('shards', { type: 'string', describe: 'Shard count, the index taken from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)' })
      .option('start-at', { type: 'string', describe: 'ISO-8601 instant at which every shard starts its schedule (or QBENCH_START_AT)' })
      .option('metrics', { type: 'string', array: true, describe: 'Stream live metrics every second: prometheus=<remote-write URL> or otlp=<OTLP/HTTP metrics URL> (repeatable); a slow endpoint loses samples, never the schedule' }),
  run: async (argv, io): Promise<ExitCode> => {
    let durationMs: number | undefined;
    const durationText = argv['duration'];
    if (durationText !== undefined) {
      durationMs = typeof durationText === 'string' ? parseDurationMs(durationText) : undefined;
      if (durationMs === undefined) throw usageError(`--duration "${typeof durationText === 'string' ? durationText : typeof durationText}": write e.g. 500ms, 30s, 2m, 1h, 1m30s`);
    }
    // Scenario files from the config file, when the command line names none.
    const fromConfig = argv[CONFIG_SCENARIOS_KEY] as ScenarioEntry[] | undefined;
    const f = parseFlags('load', Flags, {
      scenarios: fromConfig?.map((e) => e.file) ?? argv['scenarios'],
      target: argv['target'],
      endpointId: argv['endpoint'],
      apiKeyEnv: apiKeyEnvName(argv['api-key-env'] as string | undefined, io.env),
      durationMs,
      ratePerSec: argv['rate'],
      vus: argv['vus'],
      threads: argv['threads'],
      maxRequests: argv['max-requests'],
      timeScale: argv['time-scale'],
      scaleRateWindows: argv['scale-rate-windows'],
      out: argv['out'],
      strict: argv['strict'] === true,
    });
    const set = pairs('set', argv['set'], true);
    const params = Object.fromEntries(pairs('param', argv['param'], false)) as Record<string, string>;
    const only = flagList(argv['only']);
    const metrics = parseMetricsFlags(flagList(argv['metrics']));

    let emulatorConfig: Record<string, unknown> = {};
    if (typeof argv['emulator-config'] === 'string') {
      try {
        emulatorConfig = JSON.parse(await readFile(argv['emulator-config'], 'utf8')) as Record<string, unknown>;
      } catch (e) {
        throw configError(`--emulator-config: cannot read ${argv['emulator-config']}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (f.timeScale !== undefined) emulatorConfig['timeScale'] = f.timeScale;
    if (f.scaleRateWindows !== undefined) emulatorConfig['scaleRateWindows'] = f.scaleRateWindows;
    if (f.target !== 'emulator' && Object.keys(emulatorConfig).length > 0) throw usageError('--time-scale, --scale-rate-windows and --emulator-config apply only to --target emulator');

    const shard = resolveShard(optionalText(argv['shard'], '--shard'), optionalText(argv['shards'], '--shards'), io.env);
    const startAtMs = resolveStartAt(optionalText(argv['start-at'], '--start-at'), io.env);
    const resolved = await resolveTarget({ target: f.target, endpointId: f.endpointId, apiKey: io.env[f.apiKeyEnv], emulator: emulatorConfig });
    const progress = createProgressPrinter(io.stdout, io.isTty);
    const dir = await runReportDir(new Date(), f.out);
    const t = resolved.target;
    const watch = await watchRun({
      dir,
      command: 'load',
      argv: ['qbench', 'load', ...process.argv.slice(3)],
      options: { ...f, set, params, only, ...(shard ? { shard } : {}), ...(startAtMs !== undefined ? { startAt: new Date(startAtMs).toISOString() } : {}) },
      target: { kind: t.kind, queueUrl: t.queueUrl, endpointId: t.endpointId, timeScale: t.timeScale },
      env: io.env,
      labels: shard ? { shard: `${shard.index}/${shard.count}` } : undefined,
      log: (line) => io.stderr(`${line}\n`),
      metrics,
      shard,
    });
    try {
      const result = await runLoad({
        files: fromConfig ?? f.scenarios,
        target: resolved.target,
        overrides: {
          ...(f.durationMs !== undefined ? { durationMs: f.durationMs } : {}),
          ...(f.ratePerSec !== undefined ? { ratePerSec: f.ratePerSec } : {}),
          ...(f.vus !== undefined ? { vus: f.vus } : {}),
          ...(f.threads !== undefined ? { threads: f.threads } : {}),
          ...(f.maxRequests !== undefined ? { maxRequests: f.maxRequests } : {}),
          set,
        },
        params,
        only,
        shard,
        startAtMs,
        strict: f.strict,
        signal: io.signal,
        observer: watch.load,
        command: ['qbench', 'load', ...process.argv.slice(3)],
        onProgress: (p) => progress.update(p),
        log: (line) => {
          progress.done();
          io.stderr(`${line}\n`);
        },
        onScenarioDone: (r) => {
          progress.done();
          io.stdout(`${r.name}: ${r.verdict.status.toUpperCase()} ${r.verdict.summary}\n`);
        },
      });
      progress.done();
      await watch.finish(result);
      const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
      io.stdout(renderConsole(result));
      io.stdout(`\nreports: ${written.dir}\n`);
      // A shard's verdict covers its share only: the run's verdict is formed by qbench merge.
      // It fails the process only when it could not run (bad input, internal error).
      if (shard && (result.overall.status === 'pass' || result.overall.status === 'fail' || result.overall.status === 'invalid')) {
        io.stdout(`shard ${shard.index}/${shard.count} done (its own verdict ${result.overall.status.toUpperCase()} covers its share only); qbench merge forms the run's verdict\n`);
        return 0;
      }
      return result.overall.exitCode as ExitCode;
    } catch (e) {
      await watch.abandon();
      throw e;
    } finally {
      await resolved.close();
    }
  },
};
