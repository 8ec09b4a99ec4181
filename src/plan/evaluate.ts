// One grid point judged: its seeds' simulation figures aggregated (every SLO on the worst seed,
// cost as the mean over seeds, per simulated hour) and each SLO met or not, within the budget
// or not. The worst seed, not the mean: a setting is chosen only when no seed tried misses.
import { HOUR_MS } from '../spec/index.js';
import type { PlanLatency, PlanPoint } from '../result/model.js';
import type { LatencyQuantiles, ScalingSettings, SimulationFigures } from '../sim/types.js';
import { meetsSlo, sloFigure, tailShare, type Slo } from './slo.js';

/** The worst (highest) of values, null when none is known. */
function worst(values: ReadonlyArray<number | null>): number | null {
  let out: number | null = null;
  for (const v of values) if (v !== null && (out === null || v > out)) out = v;
  return out;
}

const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

/** A latency quantile is unknown where no job completed; the worst seed's value otherwise. */
function worstLatency(runs: readonly SimulationFigures[], pick: (f: SimulationFigures) => LatencyQuantiles): PlanLatency {
  return {
    p50Ms: worst(runs.map((f) => pick(f).p50Ms)),
    p90Ms: worst(runs.map((f) => pick(f).p90Ms)),
    p95Ms: worst(runs.map((f) => pick(f).p95Ms)),
    p99Ms: worst(runs.map((f) => pick(f).p99Ms)),
  };
}

const notCompletedShare = (f: SimulationFigures): number => (f.jobs.arrived === 0 ? 0 : f.jobs.notCompleted / f.jobs.arrived);

/**
 * The figure an SLO judges in one run, with the jobs that did not complete counted as slower
 * than any threshold: when they are more than the quantile leaves out (1% for p99), the
 * quantile is beyond reach and the run has no figure (it cannot meet the SLO).
 */
export function runFigure(slo: Slo, f: SimulationFigures): number | null {
  if (slo.kind === 'latency' && notCompletedShare(f) >= tailShare(slo.percentile)) return null;
  return sloFigure(slo, f);
}

/** Aggregate one setting's runs (one per seed) into a point of the plan. */
export function evaluatePoint(setting: ScalingSettings, runs: readonly SimulationFigures[], slos: readonly Slo[], budgetPerHourUsd: number | undefined): PlanPoint {
  // A plain Error: runPlan runs every setting on at least one seed (--seeds is at least 1).
  if (runs.length === 0) throw new Error('evaluatePoint needs at least one run');
  const perHour = (f: SimulationFigures, usd: number) => (f.simulatedMs > 0 ? (usd * HOUR_MS) / f.simulatedMs : 0);
  const costPerHourUsd = {
    total: mean(runs.map((f) => perHour(f, f.cost.total))),
    active: mean(runs.map((f) => perHour(f, f.cost.active))),
    flex: mean(runs.map((f) => perHour(f, f.cost.flex))),
    idle: mean(runs.map((f) => perHour(f, f.cost.idle))),
  };
  const sloFigures: Array<number | null> = [];
  const meets: boolean[] = [];
  for (const slo of slos) {
    const figures = runs.map((f) => runFigure(slo, f));
    // A run without a figure cannot meet the SLO: the point then has none either.
    const judged = figures.includes(null) ? null : worst(figures);
    sloFigures.push(judged);
    meets.push(meetsSlo(slo, judged));
  }
  return {
    setting: { ...setting },
    costPerHourUsd,
    e2e: worstLatency(runs, (f) => f.e2e),
    delay: worstLatency(runs, (f) => f.delay),
    coldStartsPerHour: mean(runs.map((f) => perHour(f, f.coldStarts))),
    coldStartJobShare: worst(runs.map((f) => f.coldStartJobShare)) ?? 0,
    notCompletedShare: worst(runs.map(notCompletedShare)) ?? 0,
    peakWorkers: Math.max(...runs.map((f) => f.peakWorkers)),
    sloFigures,
    meets,
    withinBudget: budgetPerHourUsd === undefined || costPerHourUsd.total <= budgetPerHourUsd,
  };
}

/** Meets every SLO within the budget. */
export const pointQualifies = (p: PlanPoint): boolean => p.withinBudget && p.meets.every(Boolean);
