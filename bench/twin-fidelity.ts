// How close a calibrated twin comes to its ground truth, per figure, on the fuller run: the
// built `qbench calibrate` measures an opaque ground-truth `qbench emulate` (settings of
// test/integration/calibrate/twin-harness.ts) with a larger plan, then one seeded schedule (the
// test's, repeated) runs at once against four emulators: the twin, the ground truth on the twin's
// seed (common random numbers: the model's error alone), the ground truth on that seed again (what
// the host's timing alone moves: column "replay") and the ground truth on another seed (what an
// independent run looks like). The last column is the named peer: the ground truth against itself
// on another seed, the noise floor any twin is judged against. Beside them, the simulated
// comparison: the ground truth's config and the written twin, each with its own scaling settings,
// on long identical traffic in the discrete-event mode (SIMULATED_PLAN: 200 simulated hours of the
// same rate shape), where sampling noise is small: the calibration's error alone, and its floor.
// Each fitted part is printed beside the ground truth's own value and the precision the calibration
// report claims for it (its 95% interval), so what the twin's figures hang on is visible.
// --truth-seeds runs the whole proof once per ground-truth seed (another calibration sample each)
// and ends with the largest error per figure over them.
// Needs `npm run build` first.
// Run: npx tsx bench/twin-fidelity.ts [--time-scale 60|1] [--repeat 3] [--plan full|large|single|test] [--truth-seeds 42,43,44]
// (--plan test: the integration test's smaller calibration plan, to see what its figures hang on.)
// At --time-scale 1 it runs in real time: about 45 minutes with the default plan and --repeat 1.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startProxy } from '../test/integration/conformance/border-proxy.js';
import { BIN } from '../test/integration/conformance/border-emulate.js';
import {
  arrivals, calibrate, drive, TEST_PLAN, emulatorConfigOf, ENDPOINT, figures, groundTruth, readJson, SCHEDULE, simulatedComparison, startEmulator, stopEmulate, warmUp, type EmulateProcess,
} from '../test/integration/calibrate/twin-harness.js';
import { parseTwin } from '../src/sim/index.js';
import { quantileMs, type Distribution } from '../src/deployment/index.js';
import type { CalibrationReport } from '../src/calibrate/report.js';
import type { Figure } from '../test/integration/calibrate/twin-harness.js';

const { values } = parseArgs({
  options: {
    'time-scale': { type: 'string', default: '60' },
    repeat: { type: 'string', default: '3' },
    plan: { type: 'string', default: 'full' },
    'truth-seeds': { type: 'string', default: '42' },
    'keep-dir': { type: 'boolean', default: false },
  },
});
const scale = Number(values['time-scale']);
const repeat = Number(values.repeat);
if (!(scale > 0) || !(repeat >= 1)) throw new Error('--time-scale must be > 0 and --repeat >= 1');
const truthSeeds = values['truth-seeds'].split(',').map(Number);
if (truthSeeds.length === 0 || truthSeeds.some((x) => !Number.isInteger(x) || x < 0)) throw new Error('--truth-seeds must be whole numbers, comma-separated');
const PLANS: Readonly<Record<string, readonly string[]>> = {
  full: ['--warm-jobs', '60', '--cold-starts', '60', '--cold-batch', '4', '--burst-jobs', '30', '--stream-jobs', '1', '--max-jobs', '151'],
  // About what the report asks for a median within ±5% (sigma 0.35: 198) and a fast share within ±0.1 (92).
  large: ['--warm-jobs', '200', '--cold-starts', '120', '--cold-batch', '4', '--burst-jobs', '40', '--stream-jobs', '1', '--max-jobs', '361'],
  // The plan before cold batches (one cold start per idle gap), for comparison.
  single: ['--warm-jobs', '60', '--cold-starts', '20', '--burst-jobs', '30', '--stream-jobs', '1', '--max-jobs', '111'],
  test: TEST_PLAN,
};
const PLAN_ARGS: readonly string[] = PLANS[values.plan] ?? [];
if (PLAN_ARGS.length === 0) throw new Error(`--plan must be one of ${Object.keys(PLANS).join(', ')}`);
if (!existsSync(BIN)) throw new Error(`no built CLI at ${BIN}: run npm run build first`);

const dir = await mkdtemp(path.join(tmpdir(), 'qbench-twin-bench-'));
const procs: EmulateProcess[] = [];
const start = async (config: Record<string, unknown>, name: string) => {
  const file = path.join(dir, name);
  await writeFile(file, JSON.stringify(config));
  const e = await startEmulator(file, scale);
  procs.push(e);
  return e;
};

const pct = (v: number) => `${(v * 100).toFixed(1)}%`.padStart(7);
const num = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toString() : v.toFixed(1)).padStart(9);

/** Each fitted part's median (and a mixture's share) against the ground truth's, with the precision the report claims. */
function partTable(report: CalibrationReport, truthSeed: number): string {
  const truth = groundTruth(truthSeed).timing as Record<string, Distribution | undefined>;
  const rows: string[] = [`${'part'.padEnd(22)} ${'truth'.padStart(9)} ${'fitted'.padStart(9)} ${'error'.padStart(7)} ${'claimed ±'.padStart(9)}  n`];
  for (const f of report.fits) {
    const t = truth[f.part];
    if (t === undefined) continue;
    const claim = Number.isFinite(f.precision.medianRelative) ? pct(f.precision.medianRelative).padStart(9) : '        -';
    if (t.kind === 'mixture' && f.dist.kind === 'mixture') {
      rows.push(`${'coldStart fast share'.padEnd(22)} ${num(t.p * 100)} ${num(f.dist.p * 100)} ${`${((f.dist.p - t.p) * 100).toFixed(1)} pt`.padStart(7)} ${f.precision.share === undefined ? '' : `${(f.precision.share.low * 100).toFixed(0)}-${(f.precision.share.high * 100).toFixed(0)}%`.padStart(9)}  ${f.n}`);
      for (const [name, a, b] of [['coldStart fast median', t.first, f.dist.first], ['coldStart full median', t.second, f.dist.second]] as const) {
        const ta = quantileMs(a, 0.5);
        const fb = quantileMs(b, 0.5);
        rows.push(`${name.padEnd(22)} ${num(ta)} ${num(fb)} ${pct((fb - ta) / ta)} ${''.padStart(9)}`);
      }
      continue;
    }
    const ta = quantileMs(t, 0.5);
    const fb = quantileMs(f.dist, 0.5);
    rows.push(`${`${f.part} median`.padEnd(22)} ${num(ta)} ${num(fb)} ${pct((fb - ta) / ta)} ${claim}  ${f.n}`);
  }
  return rows.join('\n');
}

interface SeedResult {
  readonly withCrn: Figure[];
  readonly simulated: Figure[];
}

async function proveOnce(truthSeed: number): Promise<SeedResult> {
  const t0 = performance.now();
  const truth = await start(emulatorConfigOf(groundTruth(truthSeed)), `truth-${truthSeed}.json`);
  const proxy = await startProxy({ upstream: truth.url, delayMs: 1, jitterMs: 1, opaque: true });
  const out = path.join(dir, `twin-${truthSeed}`);
  const plan = [...PLAN_ARGS, '--max-duration', `${Math.ceil((values.plan === 'large' ? 21_600 : 7_200) / scale) + 60}s`];
  const cal = await calibrate(proxy.url, out, ['--time-scale', String(scale), '--health-poll-ms', String(Math.max(5, Math.round(250 / scale))), ...plan]);
  await proxy.close();
  if (cal.code !== 0) throw new Error(`qbench calibrate exited ${cal.code}:\n${cal.out}`);
  console.log(cal.out);
  const report = await readJson<CalibrationReport>(path.join(out, 'calibration.json'));
  const t1 = performance.now();

  const twinFile = path.join(out, 'emulator.json');
  const twinConfig = await readJson<{ deployments: Record<string, { seed: number }> }>(twinFile);
  const seed = twinConfig.deployments[ENDPOINT]?.seed ?? 1;
  const tSim = performance.now();
  const sim = simulatedComparison(parseTwin(emulatorConfigOf(groundTruth(seed)), 'ground truth'), parseTwin(twinConfig, twinFile));
  const simS = (performance.now() - tSim) / 1000;
  const [crn, replay, other, twin] = await Promise.all([
    start(emulatorConfigOf(groundTruth(seed)), `truth-crn-${truthSeed}.json`),
    start(emulatorConfigOf(groundTruth(seed)), `truth-replay-${truthSeed}.json`),
    start(emulatorConfigOf(groundTruth(seed + 1_000)), `truth-other-${truthSeed}.json`),
    startEmulator(twinFile, scale),
  ]);
  procs.push(twin);
  await Promise.all([crn, replay, other, twin].map((e) => warmUp(e.url)));
  const at = arrivals(SCHEDULE, 7, repeat);
  const startAt = performance.now() + 200;
  const [rCrn, rReplay, rOther, rTwin] = await Promise.all([crn, replay, other, twin].map((e) => drive(e.url, at, scale, startAt)));
  await Promise.all([crn, replay, other, twin].map((e) => stopEmulate(e)));
  const withCrn = figures(rCrn!, rTwin!);
  const replayed = figures(rCrn!, rReplay!);
  const independent = figures(rOther!, rTwin!);
  const floor = figures(rOther!, rCrn!);
  console.log(`\nground-truth seed ${truthSeed}: each fitted part against the ground truth's (claimed: the 95% precision the calibration report gives)`);
  console.log(partTable(report, truthSeed));
  console.log(`\ntwin fidelity at time scale ${scale}, plan ${values.plan}, ground-truth seed ${truthSeed}: ${at.length} jobs over HTTP (schedule x${repeat}); calibration ${((t1 - t0) / 1000).toFixed(0)} s, comparison ${((performance.now() - t1) / 1000).toFixed(0)} s real; simulated: ${sim.jobs} jobs per config, ${simS.toFixed(1)} s`);
  console.log(`${''.padEnd(15)} ${'HTTP'.padEnd(57, '-')} ${'simulated'.padEnd(43, '-')}`);
  console.log(`${'figure'.padEnd(15)} ${'truth'.padStart(9)} ${'twin'.padStart(9)} ${'error'.padStart(7)} ${'replay'.padStart(7)} ${'indep.'.padStart(7)} ${'floor'.padStart(7)} ${'truth'.padStart(9)} ${'twin'.padStart(9)} ${'error'.padStart(7)} ${'floor'.padStart(7)}`);
  withCrn.forEach((f, i) => {
    const s = sim.error[i]!;
    if (s.name !== f.name) throw new Error(`figures out of order: ${f.name} vs ${s.name}`);
    console.log(`${f.name.padEnd(15)} ${num(f.truth)} ${num(f.twin)} ${pct(f.relError)} ${pct(replayed[i]!.relError)} ${pct(independent[i]!.relError)} ${pct(floor[i]!.relError)} ${num(s.truth)} ${num(s.twin)} ${pct(s.relError)} ${pct(sim.floor[i]!.relError)}`);
  });
  console.log('HTTP, error: twin vs ground truth on the same random streams (the model alone); replay: the ground truth vs itself on the same streams (the host alone); indep.: vs the ground truth on another seed; floor: the ground truth vs itself on another seed (the peer).');
  console.log('simulated: the two configs, each with its own settings, on the same schedules and timing seeds (quantiles the mean over the seeds, cold starts and worker-seconds summed); error: the calibration alone; floor: the ground truth vs itself on other timing seeds.');
  await stopEmulate(truth);
  return { withCrn, simulated: sim.error };
}

try {
  const results: SeedResult[] = [];
  for (const s of truthSeeds) results.push(await proveOnce(s));
  if (results.length > 1) {
    console.log(`\nover ${results.length} ground-truth seeds (${truthSeeds.join(', ')}): the largest and the mean error per figure`);
    console.log(`${'figure'.padEnd(15)} ${'HTTP max'.padStart(9)} ${'HTTP mean'.padStart(9)} ${'sim max'.padStart(9)} ${'sim mean'.padStart(9)}`);
    results[0]!.withCrn.forEach((f, i) => {
      const http = results.map((r) => r.withCrn[i]!.relError);
      const sim = results.map((r) => r.simulated[i]!.relError);
      const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
      console.log(`${f.name.padEnd(15)} ${pct(Math.max(...http)).padStart(9)} ${pct(mean(http)).padStart(9)} ${pct(Math.max(...sim)).padStart(9)} ${pct(mean(sim)).padStart(9)}`);
    });
  }
} finally {
  await Promise.all(procs.map((p) => stopEmulate(p)));
  if (values['keep-dir'] === true) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
