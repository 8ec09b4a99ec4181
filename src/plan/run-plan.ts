// One plan from start to answer: the grid of settings for the twin, every setting simulated with
// every seed (src/plan/sweep.ts), each judged against the SLOs and the budget, and the answer
// (cheapest setting, frontiers, near misses or what is needed) as the result model's plan section.
import { configError } from '../errors.js';
import { endpointDeployment, type EmulatorConfig } from '../emulator/config.js';
import { describeDeployment, quantileMs, type EndpointDeployment } from '../deployment/index.js';
import type { PlanSection } from '../result/model.js';
import { trafficDurationMs, type TrafficProfile } from '../sim/index.js';
import { answer, type TwinFacts } from './choose.js';
import { evaluatePoint } from './evaluate.js';
import { defaultAxes, gridSettings, withOverrides, type AxisOverrides, type Grid } from './grid.js';
import type { Slo } from './slo.js';
import { runSweep, type SweepOptions } from './sweep.js';
import { twinAtEnd, type PartInterval } from './precision.js';
import type { PlanPoint, PlanPrecision } from '../result/model.js';
import { describePlanSetting, fmtSloFigure, fmtUsdPerHour } from '../report/render/format.js';

export interface PlanOptions extends SweepOptions {
  /** The twin's file, as the report names it. */
  readonly twinFile: string;
  readonly twin: EmulatorConfig;
  /** The endpoint simulated; the twin's first by default. */
  readonly endpointId?: string | undefined;
  readonly traffic: TrafficProfile;
  readonly slos: readonly Slo[];
  readonly budgetPerHourUsd?: number | undefined;
  readonly axes?: AxisOverrides | undefined;
  /** Seeds per setting: seedBase, seedBase + 1, ... */
  readonly seeds: number;
  /** The calibration report's intervals of the twin's fitted parts: the answer is re-simulated at their ends. */
  readonly precision?: { readonly file: string; readonly intervals: readonly PartInterval[] } | undefined;
  readonly seedBase?: number | undefined;
}

/** A span in the largest whole unit it fills: 1h, 90m, 45s, 1500ms. */
export function spanText(ms: number): string {
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return ms >= 1_000 ? `${(ms / 1_000).toFixed(1)}s` : `${Math.round(ms)}ms`;
}

/** A traffic profile in words: "Poisson 5 jobs/s for 1h, 2 bursts, 3 input classes". */
export function describeTraffic(p: TrafficProfile): string {
  const a = p.arrivals;
  let base: string;
  switch (a.kind) {
    case 'constant':
      base = `constant ${a.ratePerSec} jobs/s`;
      break;
    case 'poisson':
      base = `Poisson ${a.ratePerSec} jobs/s`;
      break;
    case 'daily':
      base = `a daily curve of ${Math.min(...a.ratePerSecByHour)}..${Math.max(...a.ratePerSecByHour)} jobs/s by hour from hour ${a.startHour}`;
      break;
    case 'steps':
      base = `${a.ratePerSec.length} rate step(s) of ${a.stepS} s${a.source !== undefined ? ` from ${a.source}` : ''}`;
      break;
    case 'replay':
      base = `a replay of ${a.timesS?.length ?? 0} arrival times${a.source !== undefined ? ` from ${a.source}` : a.file !== undefined ? ` from ${a.file}` : ''}`;
      break;
  }
  const extras = [p.bursts.length > 0 ? `${p.bursts.length} burst(s)` : '', p.inputs !== undefined && p.inputs.length > 1 ? `${p.inputs.length} input classes` : ''].filter(Boolean);
  return `${base} for ${spanText(trafficDurationMs(p))}${extras.length > 0 ? `, ${extras.join(', ')}` : ''}`;
}

/** The grid a plan sweeps for this twin and these overrides. */
export function planGrid(twin: EmulatorConfig, endpointId: string, overrides: AxisOverrides = {}): Grid {
  return gridSettings(withOverrides(defaultAxes(endpointDeployment(twin, endpointId)), overrides));
}

/** The endpoint a plan simulates: the one named, else the twin's first. */
export function planEndpoint(twin: EmulatorConfig, endpointId: string | undefined): string {
  const id = endpointId ?? twin.endpoints[0];
  if (id === undefined || !twin.endpoints.includes(id)) throw configError(`the twin serves no endpoint "${String(id)}"; it serves ${twin.endpoints.join(', ')}`);
  return id;
}

/** The twin's long start: its cold start's p99, with the p99 of a throttle wait when it throttles. */
export function twinFacts(d: EndpointDeployment): TwinFacts {
  const throttle = d.timing.throttle;
  return { coldStartHighMs: quantileMs(d.timing.coldStart, 0.99) + (throttle !== undefined && throttle.probability > 0 ? quantileMs(throttle.duration, 0.99) : 0) };
}

export async function runPlan(o: PlanOptions): Promise<PlanSection> {
  const endpointId = planEndpoint(o.twin, o.endpointId);
  const deployment = endpointDeployment(o.twin, endpointId);
  const price = deployment.price;
  if (price === undefined) throw configError(`the twin's GPU type "${deployment.gpuTypeId}" has no price: give deployments.${endpointId}.prices["${deployment.gpuTypeId}"]`);
  const grid = planGrid(o.twin, endpointId, o.axes);
  if (grid.settings.length === 0) throw configError('the grid holds no valid setting: every workersMin given exceeds every workersMax');
  const seedBase = o.seedBase ?? 1;
  const seeds = Array.from({ length: o.seeds }, (_, i) => seedBase + i);
  const sweep = await runSweep({ twin: o.twin, endpointId, traffic: o.traffic, settings: grid.settings, seeds }, o);
  const points = grid.settings.map((s, i) => evaluatePoint(s, sweep.runs[i] ?? [], o.slos, o.budgetPerHourUsd));
  const a = grid.axes;
  const facts = twinFacts(deployment);
  const answered = answer(points, o.slos, grid.axes, o.budgetPerHourUsd, facts);
  const precision = o.precision === undefined || o.precision.intervals.length === 0 ? undefined : await precisionOf(o, endpointId, points, answered, seeds);
  return {
    twin: {
      file: o.twinFile,
      endpointId,
      gpuTypeId: deployment.gpuTypeId,
      gpuCount: deployment.gpuCount,
      flexPerS: price.flexPerS,
      activePerS: price.activePerS,
      priceSource: deployment.priceSource,
      settings: describeDeployment(deployment),
      coldStartHighMs: facts.coldStartHighMs,
    },
    traffic: { description: describeTraffic(o.traffic), durationMs: trafficDurationMs(o.traffic) },
    slos: o.slos.map((s) => ({ ...s })),
    ...(o.budgetPerHourUsd !== undefined ? { budgetPerHourUsd: o.budgetPerHourUsd } : {}),
    aggregation: 'worst-seed',
    seeds,
    grid: {
      workersMin: [...a.workersMin],
      workersMax: [...a.workersMax],
      idleTimeoutS: [...a.idleTimeoutS],
      scalerType: [...a.scalerType],
      scalerValue: { QUEUE_DELAY: [...a.scalerValue.QUEUE_DELAY], REQUEST_COUNT: [...a.scalerValue.REQUEST_COUNT] },
      settings: grid.settings.length,
      skippedInvalid: grid.skippedInvalid,
      skippedEquivalent: grid.skippedEquivalent,
    },
    points,
    ...answered,
    ...(precision !== undefined ? { precision } : {}),
    sweep: { simulations: grid.settings.length * seeds.length, threads: sweep.threads, wallMs: sweep.wallMs, events: sweep.events },
  };
}

/**
 * The chosen setting and the cheaper ones the answer explains, simulated again with the twin's
 * fitted parts at the slow and at the fast end of their intervals (same traffic, same seeds).
 */
async function precisionOf(o: PlanOptions, endpointId: string, points: readonly PlanPoint[], a: ReturnType<typeof answer>, seeds: readonly number[]): Promise<PlanPrecision> {
  const precision = o.precision as NonNullable<PlanOptions['precision']>;
  const named = [...(a.chosen === null ? [] : [a.chosen]), ...a.nearMisses.map((m) => m.point)];
  const atEnd = async (end: 'slow' | 'fast'): Promise<PlanPoint[]> => {
    if (named.length === 0) return [];
    const twin = twinAtEnd(o.twin, endpointId, precision.intervals, end);
    const settings = named.map((k) => (points[k] as PlanPoint).setting);
    const sweep = await runSweep({ twin, endpointId, traffic: o.traffic, settings, seeds }, { ...o, onProgress: undefined });
    return settings.map((s, i) => evaluatePoint(s, sweep.runs[i] ?? [], o.slos, o.budgetPerHourUsd));
  };
  const slow = await atEnd('slow');
  const fast = await atEnd('fast');
  const warnings: string[] = [];
  let chosen: PlanPrecision['chosen'];
  if (a.chosen !== null && slow[0] !== undefined && fast[0] !== undefined) {
    const meetsAtSlow = slow[0].meets.every(Boolean);
    chosen = { fast: fast[0].sloFigures, slow: slow[0].sloFigures, meetsAtSlow };
    o.slos.forEach((slo, i) => {
      if (slow[0]?.meets[i] !== true) warnings.push(`at the slow end of the calibration's 95% intervals the chosen setting misses ${slo.text} (${fmtSloFigure(slo, slow[0]?.sloFigures[i] ?? null)})`);
    });
  }
  const offset = a.chosen === null ? 0 : 1;
  const cheaperMeetingAtFast = a.nearMisses.map((m, j) => ({ k: m.point, p: fast[offset + j] })).filter((x) => x.p !== undefined && x.p.meets.every(Boolean)).map((x) => x.k);
  for (const k of cheaperMeetingAtFast) {
    const p = points[k] as PlanPoint;
    warnings.push(`at the fast end of the intervals the cheaper ${describePlanSetting(p.setting)} (${fmtUsdPerHour(p.costPerHourUsd.total)}) meets every SLO`);
  }
  if (warnings.length > 0) warnings.push("the calibration's precision does not settle this choice: calibrate with more jobs (--max-jobs, --cold-starts) to narrow the intervals");
  return {
    source: precision.file,
    parts: precision.intervals.map((iv) => ({ part: iv.part, ...(iv.classId !== undefined ? { classId: iv.classId } : {}), lowFactor: iv.lowFactor, highFactor: iv.highFactor, ...(iv.share !== undefined ? { share: iv.share } : {}) })),
    ...(chosen !== undefined ? { chosen } : {}),
    cheaperMeetingAtFast,
    warnings,
  };
}
