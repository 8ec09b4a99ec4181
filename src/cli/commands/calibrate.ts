// `qbench calibrate --target <url> --endpoint <id>`: measure a deployment through its public
// queue interface within a budget printed (and confirmed) before anything is sent, and write a
// twin: <out>/emulator.json for `qbench emulate --emulator-config`, calibration.json and .html.
// Exit 0 done, 2 bad flags (or no --yes without a terminal), 4 no job completed, 5 unreachable.
import { z } from 'zod';
import type { Options } from 'yargs';
import { registerSecret, usageError } from '../../errors.js';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { SCALER_TYPES } from '../../emulator/deployment/index.js';
import { apiKeyEnvName, parseTarget, requireEndpoint, URL_TARGET_GRAMMAR } from '../../target/index.js';
import { describeDist } from '../../calibrate/report-html.js';
import { loadInputClasses } from '../../calibrate/inputs.js';
import { DEFAULT_ASSUMPTIONS, estimateCost, formatPlan, planCalibration } from '../../calibrate/plan.js';
import { runCalibration, writeCalibration } from '../../calibrate/run-calibration.js';
import { timestampDirName } from '../../report/write-all.js';
import type { CommandModule } from '../command.js';
import { targetOptions } from '../target-options.js';
import { flagList, parseFlags } from '../flags.js';
import { parseDurationMs } from './load.js';

export const CALIBRATE_DEFAULTS = { maxJobs: 100, maxDuration: '10m', warmJobs: 20, coldStarts: 6, burstJobs: 16, streamJobs: 3, seed: 1 } as const;

const count = (flag: string, max: number) => z.number({ error: `--${flag}: a number` }).int({ error: `--${flag}: a whole number` }).min(0, { error: `--${flag}: 0 to ${max}` }).max(max, { error: `--${flag}: 0 to ${max}` });
const positive = (flag: string, max: number) => count(flag, max).min(1, { error: `--${flag}: 1 to ${max}` });

const Flags = z.strictObject({
  'max-jobs': positive('max-jobs', 10_000),
  'max-duration': z.number({ error: '--max-duration: write e.g. 90s, 10m, 1h' }).int().min(1_000, { error: '--max-duration: at least 1s' }).max(24 * 3_600_000, { error: '--max-duration: at most 24h' }),
  'warm-jobs': count('warm-jobs', 1_000),
  'cold-starts': count('cold-starts', 200),
  'burst-jobs': count('burst-jobs', 400),
  'stream-jobs': count('stream-jobs', 200),
  'time-scale': z.number({ error: '--time-scale: a number' }).positive({ error: '--time-scale: above 0' }).max(100_000, { error: '--time-scale: at most 100000' }).optional(),
  'health-poll-ms': z.number({ error: '--health-poll-ms: a number' }).min(1, { error: '--health-poll-ms: 1 to 60000' }).max(60_000, { error: '--health-poll-ms: 1 to 60000' }).optional(),
  seed: z.number({ error: '--seed: an integer' }).int({ error: '--seed: an integer' }),
  'workers-min': count('workers-min', 1_000).optional(),
  'workers-max': positive('workers-max', 1_000).optional(),
  'idle-timeout': z.number({ error: '--idle-timeout: seconds' }).int({ error: '--idle-timeout: whole seconds' }).min(1, { error: '--idle-timeout: 1 to 3600 s' }).max(3600, { error: '--idle-timeout: 1 to 3600 s' }).optional(),
  'scaler-type': z.enum(SCALER_TYPES, { error: `--scaler-type: ${SCALER_TYPES.join(' or ')}` }).optional(),
  'scaler-value': positive('scaler-value', 100_000).optional(),
  'jobs-per-worker': positive('jobs-per-worker', 1_000).optional(),
  'gpu-type': z.string().min(1).optional(),
  'gpu-count': positive('gpu-count', 16).optional(),
  'price-per-s': z.number({ error: '--price-per-s: $ per GPU-second' }).positive({ error: '--price-per-s: above 0' }).optional(),
});

/** Every option but the target ones, declared from one table. */
const OPTIONS: Record<string, Options> = {
  out: { type: 'string', describe: 'Directory for emulator.json, calibration.json and calibration.html (default reports/calibrate-<timestamp>)' },
  input: { type: 'string', array: true, describe: 'A JSON job body {input, policy?} your handler takes (repeatable: one input class per file; default {"input":{}})' },
  'class-field': { type: 'string', describe: 'With several --input: the input field whose value names the class (default: the one field that tells the files apart)' },
  'max-jobs': { type: 'number', default: CALIBRATE_DEFAULTS.maxJobs, describe: 'Most jobs sent, all phases together: never exceeded' },
  'max-duration': { type: 'string', default: CALIBRATE_DEFAULTS.maxDuration, describe: 'Wall-clock limit, e.g. 90s, 10m; unfinished jobs are cancelled at it' },
  yes: { type: 'boolean', default: false, describe: 'Start without the confirmation prompt (needed when stdin is not a terminal, e.g. CI)' },
  'warm-jobs': { type: 'number', default: CALIBRATE_DEFAULTS.warmJobs, describe: 'Jobs per input class, one at a time on a warm worker (dispatch, execution, overhead)' },
  'cold-starts': { type: 'number', default: CALIBRATE_DEFAULTS.coldStarts, describe: 'Cold starts: each one job after the workers have stopped' },
  'burst-jobs': { type: 'number', default: CALIBRATE_DEFAULTS.burstJobs, describe: 'Jobs sent at once to watch the scaler (0: no burst)' },
  'stream-jobs': { type: 'number', default: CALIBRATE_DEFAULTS.streamJobs, describe: 'Jobs per class read through /stream (the first tells whether the handler streams)' },
  'time-scale': { type: 'number', describe: "The target's ms per real ms: for an emulator started with --time-scale (default 1, the service)" },
  'health-poll-ms': { type: 'number', describe: 'Real ms between /health polls while watching workers (default 250 / time scale, at least 5)' },
  seed: { type: 'number', default: CALIBRATE_DEFAULTS.seed, describe: "Seed of the twin's timing sampler" },
  'workers-min': { type: 'number', describe: 'Given: active workers (otherwise measured at rest)' },
  'workers-max': { type: 'number', describe: 'Given: most workers (otherwise the most seen in the burst, a lower bound)' },
  'idle-timeout': { type: 'number', describe: 'Given: idle timeout in s (otherwise measured on /health)' },
  'scaler-type': { type: 'string', choices: [...SCALER_TYPES], describe: 'Given: the scaler (otherwise read from the burst)' },
  'scaler-value': { type: 'number', describe: 'Given: the scaler value, s (QUEUE_DELAY) or jobs per worker (REQUEST_COUNT)' },
  'jobs-per-worker': { type: 'number', describe: 'Given: jobs one worker runs at once (otherwise measured in the burst)' },
  'gpu-type': { type: 'string', describe: 'Given: the GPU type (prices the budget and the twin), e.g. "4090 PRO"' },
  'gpu-count': { type: 'number', describe: 'Given: GPUs per worker (default 1)' },
  'price-per-s': { type: 'number', describe: 'Flex $ per GPU-second, instead of the price table' },
};

export const calibrateCommand: CommandModule = {
  command: 'calibrate',
  describe: 'Measure a deployment by URL within a budget and write a twin: an emulator config that reproduces it, with a calibration report',
  builder: (y) => targetOptions(y, { urlOnly: true }).options(OPTIONS).example('$0 calibrate --target https://api.example --endpoint abc123 --input job.json --gpu-type "4090 PRO" --yes', 'calibrate with your own job body, no prompt'),
  run: async (argv, io): Promise<ExitCode> => {
    const durationText = argv['max-duration'];
    const maxDurationMs = typeof durationText === 'string' ? parseDurationMs(durationText) : undefined;
    if (maxDurationMs === undefined) throw usageError(`--max-duration "${String(durationText)}": write e.g. 90s, 10m, 1h`);
    const f = parseFlags('calibrate', Flags, { ...Object.fromEntries(Object.keys(Flags.shape).map((k) => [k, argv[k]])), 'max-duration': maxDurationMs });
    const spec = parseTarget(String(argv['target']), argv['endpoint'] as string | undefined);
    if (spec.kind !== 'url') throw usageError(`--target: calibrate measures a deployment by URL: ${URL_TARGET_GRAMMAR}`);
    const endpointId = requireEndpoint(spec);
    const keyEnv = apiKeyEnvName(argv['api-key-env'] as string | undefined, io.env);
    const apiKey = io.env[keyEnv];
    if (apiKey === undefined || apiKey === '') throw usageError(`no API key: set ${keyEnv} (or name another variable with --api-key-env)`);
    registerSecret(apiKey);
    const inputs = await loadInputClasses(flagList(argv['input']), argv['class-field'] as string | undefined);
    const timeScale = f['time-scale'];
    const plan = planCalibration({
      classes: inputs.classes.length,
      warmJobs: f['warm-jobs'],
      coldStarts: f['cold-starts'],
      burstJobs: f['burst-jobs'],
      streamJobs: f['stream-jobs'],
      maxJobs: f['max-jobs'],
      maxDurationMs: f['max-duration'],
    });
    const given = {
      workersMin: f['workers-min'],
      workersMax: f['workers-max'],
      idleTimeoutS: f['idle-timeout'],
      scalerType: f['scaler-type'],
      scalerValue: f['scaler-value'],
      jobsPerWorker: f['jobs-per-worker'],
      gpuTypeId: f['gpu-type'],
      gpuCount: f['gpu-count'],
    };
    const assumed = <T>(v: T | undefined, fallback: T) => (v === undefined ? { value: fallback, source: 'service default' as const } : { value: v, source: 'given' as const });
    const cost = estimateCost(plan, {
      workersMax: assumed(given.workersMax, DEFAULT_ASSUMPTIONS.workersMax),
      idleTimeoutS: assumed(given.idleTimeoutS, DEFAULT_ASSUMPTIONS.idleTimeoutS),
      gpuTypeId: given.gpuTypeId,
      gpuCount: given.gpuCount ?? 1,
      pricePerS: f['price-per-s'],
    });
    const where = `${spec.queueUrl}/v2/${endpointId}`;
    io.stdout(formatPlan(where, plan, cost, given.gpuCount ?? 1));
    if (argv['yes'] !== true) {
      if (io.ask === undefined) throw usageError('stdin is not a terminal, so nothing can confirm the plan: add --yes to start the calibration without a prompt');
      const answer = await io.ask('Send these jobs? [y/N] ');
      if (!/^y(es)?$/i.test(answer.trim())) {
        io.stdout('calibration not started: nothing was sent\n');
        return EXIT.OK;
      }
    }
    const report = await runCalibration({
      queueUrl: spec.queueUrl,
      endpointId,
      apiKey,
      classes: inputs.classes,
      classField: inputs.classField,
      plan,
      cost,
      given,
      timeScale: timeScale === undefined ? { value: 1, source: 'default' } : { value: timeScale, source: 'given' },
      healthPollMs: f['health-poll-ms'] ?? Math.max(5, Math.round(250 / (timeScale ?? 1))),
      seed: f.seed,
      command: ['qbench', 'calibrate', ...process.argv.slice(3)],
      signal: io.signal,
      log: (line) => io.stderr(`${line}\n`),
    });
    const out = (argv['out'] as string | undefined) ?? `reports/calibrate-${timestampDirName(report.startedAt)}`;
    const written = await writeCalibration(report, out);
    io.stdout(`\n${report.budget.jobsSent} jobs sent (at most ${plan.maxJobs}), ${(report.budget.realMs / 1000).toFixed(1)} s\n`);
    for (const s of report.settings) io.stdout(`  ${s.name.padEnd(14)} ${String(s.value).padEnd(12)} ${s.source}\n`);
    for (const fit of report.fits) io.stdout(`  ${`${fit.part}${fit.classId !== undefined ? `[${fit.classId}]` : ''}`.padEnd(20)} n=${String(fit.n).padEnd(4)} KS ${fit.gof.ks.toFixed(3)} ${describeDist(fit.dist)}\n`);
    for (const n of report.notes) io.stdout(`  note: ${n}\n`);
    io.stdout(`\nwrote ${written.emulatorConfig}, ${written.json}, ${written.html}\nserve the twin: qbench emulate --emulator-config ${written.emulatorConfig}\n`);
    if (report.jobs.completed === 0) {
      io.stderr('qbench calibrate: no job completed: nothing was measured (see the notes and phases in the report)\n');
      return EXIT.INVALID_MEASUREMENT;
    }
    return EXIT.OK;
  },
};
