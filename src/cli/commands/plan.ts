// `qbench plan --twin <emulator.json> --rate <jobs/s> --duration <d> | --traffic <file> --slo ...`:
// simulate the twin on a virtual clock over a grid of scaling settings, several seeds each, on
// worker threads, and answer with the cheapest setting that meets every SLO, the cost frontier
// and the near misses. Writes every report format; exit 0 a setting meets the SLOs, 1 none does
// (with what would be needed), 2 bad flags, twin or traffic file.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { usageError } from '../../errors.js';
import type { ExitCode } from '../../exit-codes.js';
import { collectMachineInfo, buildMeta } from '../../result/machine.js';
import { SCHEMA_VERSION, type QbenchResult } from '../../result/model.js';
import { computeOverall } from '../../result/overall.js';
import { renderConsole } from '../../report/render/console.js';
import { runReportDir, writeAllReports } from '../../report/write-all.js';
import { AXIS_FORMS, AXIS_RULES, axisSchema, ScalerTypeList } from '../../plan/grid.js';
import { runPlan } from '../../plan/run-plan.js';
import { SLO_FORMS, SloList } from '../../plan/slo.js';
import { loadTrafficProfile, loadTwin, MAX_DURATION_S, MAX_RATE_PER_SEC, trafficFromFlags } from '../../sim/index.js';
import { DurationMs, EndpointId } from '../../spec/index.js';
import { defineCommand } from '../command.js';
import { option, wholeNumber } from '../options.js';
import { outOption } from '../target-options.js';

export const PLAN_DEFAULTS = { seeds: 3, seed: 1 } as const;
/** Most seeds per setting and threads: a sweep is their product with the grid. */
const MAX_SEEDS = 20;
const MAX_THREADS = 64;

const axis = (rule: Parameters<typeof axisSchema>[0]) => axisSchema(rule).optional();

const OPTIONS = {
  twin: option({ flag: 'twin', schema: z.string({ error: 'is required: the emulator config to simulate (the emulator.json `qbench calibrate` writes, or any emulator config)' }).min(1), help: 'The twin: the emulator.json `qbench calibrate` writes, or any emulator config file' }),
  endpoint: option({ flag: 'twin-endpoint', schema: EndpointId.optional(), help: "The twin's endpoint to simulate, when it serves several (default: its first)" }),
  traffic: option({ flag: 'traffic', schema: z.string().min(1).optional(), help: 'A traffic profile (JSON: constant, Poisson, daily curve, steps, replay; bursts; input classes), instead of --rate/--duration' }),
  ratePerSec: option({ flag: 'rate', kind: 'number', schema: z.number({ error: 'must be jobs per second' }).positive({ error: `must be above 0 and at most ${MAX_RATE_PER_SEC}` }).max(MAX_RATE_PER_SEC, { error: `must be above 0 and at most ${MAX_RATE_PER_SEC}` }).optional(), help: "Poisson arrivals of the twin's default input, jobs/s (with --duration)" }),
  durationMs: option({ flag: 'duration', schema: DurationMs.pipe(z.number().positive({ error: 'must be above 0' }).max(MAX_DURATION_S * 1_000, { error: 'must be at most 168h' })).optional(), help: 'Simulated traffic length with --rate, e.g. 1h, 30m' }),
  slos: option({ flag: 'slo', kind: 'strings', schema: SloList, default: [], help: `An objective every chosen setting meets (repeatable): ${SLO_FORMS}` }),
  budgetPerHourUsd: option({ flag: 'budget', kind: 'number', schema: z.number({ error: 'must be dollars per hour' }).positive({ error: 'must be above 0 ($/h)' }).optional(), help: 'Most dollars per hour: a setting that costs more is out' }),
  workersMin: option({ flag: 'workers-min', schema: axis(AXIS_RULES.workersMin), help: `Active workers tried: ${AXIS_FORMS} (default 0..2 and the twin's own)` }),
  workersMax: option({ flag: 'workers-max', schema: axis(AXIS_RULES.workersMax), help: "Max workers tried (default 1 up to the account's cap of 5, or the twin's own max if higher)" }),
  idleTimeoutS: option({ flag: 'idle-timeout', schema: axis(AXIS_RULES.idleTimeoutS), help: "Idle timeouts tried, seconds (default 1,5,15,60,300 and the twin's own)" }),
  scalerType: option({ flag: 'scaler-type', schema: ScalerTypeList.optional(), help: 'Scaler types tried: QUEUE_DELAY, REQUEST_COUNT or both, comma-separated (default both)' }),
  scalerValue: option({ flag: 'scaler-value', schema: axis(AXIS_RULES.scalerValue), help: 'Scaler values tried for every type: s of queue delay or jobs per worker (default 1,2,4)' }),
  seeds: option({ flag: 'seeds', kind: 'number', schema: wholeNumber(1, MAX_SEEDS), default: PLAN_DEFAULTS.seeds, help: 'Seeds per setting; every SLO is judged on the worst' }),
  seed: option({ flag: 'seed', kind: 'number', schema: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }), default: PLAN_DEFAULTS.seed, help: 'The first seed (seeds are seed, seed+1, ...)' }),
  threads: option({ flag: 'threads', kind: 'number', schema: wholeNumber(1, MAX_THREADS).optional(), defaultHelp: 'available parallelism', help: 'Worker threads of the sweep (1: on the main thread)' }),
  out: outOption,
};

/** Progress on stderr: in place on a terminal, every tenth otherwise. */
function progressPrinter(io: { stderr: (t: string) => void; isTty: boolean }) {
  const started = performance.now();
  let shownTenth = -1;
  return (done: number, total: number) => {
    const secs = ((performance.now() - started) / 1_000).toFixed(1);
    const line = `plan: ${done}/${total} simulations (${Math.floor((done / total) * 100)}%), ${secs} s`;
    if (io.isTty) {
      io.stderr(`\r${line}${done === total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth > shownTenth) {
      shownTenth = tenth;
      io.stderr(`${line}\n`);
    }
  };
}

export const planCommand = defineCommand({
  command: 'plan',
  describe: 'Find the cheapest scaling settings that meet your SLOs: simulate a twin over a grid of settings, on worker threads, in seconds',
  options: OPTIONS,
  builder: (y) =>
    y
      .example("$0 plan --twin reports/calibrate-x/emulator.json --rate 5 --duration 1h --slo 'p99(e2e)<8s'", 'cheapest settings keeping p99 under 8 s at 5 jobs/s')
      .example("$0 plan --twin emulator.json --traffic traffic.json --slo 'p90(delay)<2s' --slo 'cold(share)<5%' --budget 2 --workers-max 1..10", 'two SLOs, a budget, a wider grid'),
  run: async (f, io, invocation): Promise<ExitCode> => {
    const fromFlags = f.ratePerSec !== undefined || f.durationMs !== undefined;
    if (f.traffic !== undefined && fromFlags) throw usageError('invalid options for qbench plan:\n  ✖ --traffic replaces --rate/--duration: give one or the other');
    if (f.traffic === undefined && (f.ratePerSec === undefined || f.durationMs === undefined)) {
      throw usageError('invalid options for qbench plan:\n  ✖ the traffic: --rate <jobs/s> with --duration <e.g. 1h>, or --traffic <profile.json>');
    }
    const twin = await loadTwin(f.twin);
    const traffic = f.traffic !== undefined ? await loadTrafficProfile(f.traffic) : trafficFromFlags({ ratePerSec: f.ratePerSec ?? 0, durationMs: f.durationMs ?? 0 });
    const startedAt = new Date();
    const plan = await runPlan({
      twinFile: f.twin,
      twin,
      endpointId: f.endpoint,
      traffic,
      slos: f.slos,
      budgetPerHourUsd: f.budgetPerHourUsd,
      axes: { workersMin: f.workersMin, workersMax: f.workersMax, idleTimeoutS: f.idleTimeoutS, scalerType: f.scalerType, scalerValue: f.scalerValue },
      seeds: f.seeds,
      seedBase: f.seed,
      threads: f.threads ?? availableParallelism(),
      onProgress: progressPrinter(io),
      signal: io.signal,
    });
    const meta = buildMeta({
      command: invocation.commandLine,
      startedAt,
      endedAt: new Date(),
      target: { kind: 'simulation', queueUrl: path.resolve(f.twin), endpointId: plan.twin.endpointId, timeScale: 1 },
      machine: collectMachineInfo(),
    });
    const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta, plan };
    const result: QbenchResult = { ...partial, overall: computeOverall(partial) };
    const dir = await runReportDir(startedAt, f.out);
    const written = await writeAllReports(result, dir, { updateLatest: f.out === undefined });
    io.stdout(renderConsole(result));
    io.stdout(`\nreports: ${written.dir}\n`);
    return result.overall.exitCode as ExitCode;
  },
});
