// Hand-made simulation figures for the planner's unit tests: every field given, so that the
// aggregation, the chooser and the explanations can be checked exactly.
import type { SimulationFigures } from '../../../src/sim/types.js';

export interface FigureParts {
  seed?: number;
  /** Simulated span; one hour by default, so that cost per hour is the cost. */
  simulatedMs?: number;
  e2eP99Ms?: number | null;
  e2eP50Ms?: number | null;
  delayP99Ms?: number | null;
  costUsd?: number;
  activeUsd?: number;
  idleUsd?: number;
  coldStarts?: number;
  coldStartJobShare?: number;
  arrived?: number;
  notCompleted?: number;
  peakWorkers?: number;
}

export function figures(p: FigureParts = {}): SimulationFigures {
  const e2eP99 = p.e2eP99Ms === undefined ? 1_000 : p.e2eP99Ms;
  const delayP99 = p.delayP99Ms === undefined ? 100 : p.delayP99Ms;
  const e2eP50 = p.e2eP50Ms === undefined ? (e2eP99 === null ? null : e2eP99 / 2) : p.e2eP50Ms;
  const cost = p.costUsd ?? 1;
  const active = p.activeUsd ?? 0;
  const arrived = p.arrived ?? 1_000;
  const notCompleted = p.notCompleted ?? 0;
  return {
    seed: p.seed ?? 1,
    simulatedMs: p.simulatedMs ?? 3_600_000,
    jobs: { arrived, completed: arrived - notCompleted, notCompleted },
    e2e: { p50Ms: e2eP50, p90Ms: e2eP99 === null ? null : e2eP99 * 0.9, p99Ms: e2eP99, maxMs: e2eP99 === null ? null : e2eP99 * 1.5 },
    delay: { p50Ms: delayP99 === null ? null : delayP99 / 4, p90Ms: delayP99 === null ? null : delayP99 / 2, p99Ms: delayP99, maxMs: delayP99 },
    coldStarts: p.coldStarts ?? 0,
    coldStartJobShare: p.coldStartJobShare ?? 0,
    peakWorkers: p.peakWorkers ?? 1,
    workerSeconds: { total: 100, active: 0, flex: 100, idle: 10 },
    cost: { total: cost, active, flex: cost - active, idle: p.idleUsd ?? 0 },
    events: 10,
  };
}
