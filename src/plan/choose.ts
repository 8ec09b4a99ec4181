// The plan's answer from its judged points: the cheapest setting that meets every SLO within
// the budget, the cost frontier against each SLO's figure, the settings just cheaper that miss
// and why (queue wait, cold starts, or execution no scaling shortens), and, when none meets the
// SLOs, what would be needed.
import { ACCOUNT_WORKERS_CAP } from '../deployment/index.js';
import type { PlanMiss, PlanNearMiss, PlanPoint, PlanSection, PlanSetting } from '../result/model.js';
import { describePlanSetting as describeSetting, fmtMs, fmtRatio, fmtSloFigure as fmtFigure, fmtUsdPerHour } from '../report/render/format.js';
import type { GridAxes } from './grid.js';
import { pointQualifies } from './evaluate.js';
import { MEASURED_QUANTILES, sloThreshold, tailShare, type Slo } from './slo.js';

/** How many of the settings cheaper than the chosen one are explained. */
export const NEAR_MISSES = 3;

export type PlanAnswer = Pick<PlanSection, 'chosen' | 'frontiers' | 'nearMisses' | 'needed'>;

/** What the figures alone do not say about the twin. */
export interface TwinFacts {
  /** A long start of one worker (the twin's cold start p99, with its throttle wait): a job waiting longer waited on the queue too. */
  readonly coldStartHighMs: number;
}

/** How far above its threshold each figure is, summed: smaller is more comfortably within. */
function load(p: PlanPoint, slos: readonly Slo[]): number {
  return slos.reduce((a, s, i) => a + (p.sloFigures[i] ?? Number.POSITIVE_INFINITY) / Math.max(sloThreshold(s), Number.MIN_VALUE), 0);
}

/** Point indexes by cost, cheapest first; equal costs by the figures' margin, then grid order. */
function byCost(points: readonly PlanPoint[], slos: readonly Slo[], indexes: readonly number[]): number[] {
  return [...indexes].sort((a, b) => {
    const pa = points[a] as PlanPoint;
    const pb = points[b] as PlanPoint;
    return pa.costPerHourUsd.total - pb.costPerHourUsd.total || load(pa, slos) - load(pb, slos) || a - b;
  });
}

/** Per SLO, the points no cheaper point beats on the figure: cost against the figure's best reach. */
export function frontiers(points: readonly PlanPoint[], slos: readonly Slo[]): number[][] {
  return slos.map((_, i) => {
    const order = points
      .map((p, k) => ({ k, cost: p.costPerHourUsd.total, fig: p.sloFigures[i] ?? null }))
      .filter((x): x is { k: number; cost: number; fig: number } => x.fig !== null)
      .sort((a, b) => a.cost - b.cost || a.fig - b.fig || a.k - b.k);
    const out: number[] = [];
    let best = Number.POSITIVE_INFINITY;
    for (const x of order) {
      if (x.fig < best) {
        out.push(x.k);
        best = x.fig;
      }
    }
    return out;
  });
}

function percentileKey(slo: Extract<Slo, { kind: 'latency' }>) {
  return MEASURED_QUANTILES.get(slo.percentile) ?? 'p99Ms';
}

/** Why `p` misses SLO `i`: by how much, and the figures' cause. */
export function explainMiss(p: PlanPoint, i: number, slo: Slo, twin: TwinFacts): PlanMiss {
  const observed = p.sloFigures[i] ?? null;
  const threshold = sloThreshold(slo);
  const base = { slo: i, observed, threshold, overBy: observed === null ? null : observed - threshold };
  const coldShare = fmtRatio(p.coldStartJobShare);
  if (slo.kind === 'cold-share') {
    const keep = p.setting.workersMin === 0 ? 'no worker is kept up (workersMin 0)' : `${p.setting.workersMin} active worker(s) are not enough`;
    return { ...base, cause: 'cold-starts', explanation: `${coldShare} of jobs met a cold start (${p.coldStartsPerHour.toFixed(1)} cold starts/h): ${keep}, and idle workers stop after ${p.setting.idleTimeoutS} s` };
  }
  const tail = tailShare(slo.percentile);
  const label = `p${slo.percentile}`;
  if (observed === null) {
    const why = p.notCompletedShare > 0 ? `${fmtRatio(p.notCompletedShare)} of jobs did not complete (failed, timed out or expired), more than the ${fmtRatio(tail)} ${label} leaves out` : 'no job completed';
    return { ...base, cause: 'not-completed', explanation: why };
  }
  const delayQ = p.delay[percentileKey(slo)];
  // The tail is made of cold starts when more jobs met one than the quantile leaves out, and
  // the tail's wait is no longer than a long start: a longer wait is queueing behind busy workers.
  const over = fmtMs(base.overBy ?? 0);
  if (p.coldStartJobShare > tail && (delayQ === null || delayQ <= twin.coldStartHighMs)) {
    return { ...base, cause: 'cold-starts', explanation: `${over} over: ${coldShare} of jobs waited for a starting worker, more than the ${fmtRatio(tail)} ${label} leaves out: the ${label} falls among them (delay ${label} ${fmtMs(delayQ)}, a long start ${fmtMs(twin.coldStartHighMs)})` };
  }
  if (slo.metric === 'delay' || (delayQ !== null && delayQ >= (base.overBy ?? 0))) {
    const cold = p.coldStartJobShare > tail ? `longer than a long start of ${fmtMs(twin.coldStartHighMs)}` : `${coldShare} met a cold start, within the ${fmtRatio(tail)} ${label} leaves out`;
    return { ...base, cause: 'queue-wait', explanation: `${over} over: jobs waited in the queue for busy workers (delay ${label} ${fmtMs(delayQ)}, ${cold})` };
  }
  return { ...base, cause: 'execution', explanation: `${over} over with a delay ${label} of only ${fmtMs(delayQ)}: the handler's execution time and the service's overhead make up the rest, which no scaling setting shortens` };
}

/** How `p` differs from the chosen setting: "workersMax 3 (chosen 5), idle 5 s (chosen 60 s)". */
export function settingDiff(p: PlanSetting, chosen: PlanSetting): string {
  const parts: string[] = [];
  if (p.workersMin !== chosen.workersMin) parts.push(`workersMin ${p.workersMin} (chosen ${chosen.workersMin})`);
  if (p.workersMax !== chosen.workersMax) parts.push(`workersMax ${p.workersMax} (chosen ${chosen.workersMax})`);
  if (p.idleTimeoutS !== chosen.idleTimeoutS) parts.push(`idle ${p.idleTimeoutS} s (chosen ${chosen.idleTimeoutS} s)`);
  if (p.scalerType !== chosen.scalerType || p.scalerValue !== chosen.scalerValue) parts.push(`${p.scalerType} ${p.scalerValue} (chosen ${chosen.scalerType} ${chosen.scalerValue})`);
  return parts.length > 0 ? parts.join(', ') : 'the same setting';
}

/** What would be needed when no setting meets every SLO within the budget, in words. */
export function whatIsNeeded(points: readonly PlanPoint[], slos: readonly Slo[], axes: GridAxes, budgetPerHourUsd: number | undefined, twin: TwinFacts): string[] {
  const out: string[] = [];
  const meetAll = byCost(points, slos, points.flatMap((p, k) => (p.meets.every(Boolean) ? [k] : [])));
  const cheapest = meetAll[0] === undefined ? undefined : points[meetAll[0]];
  if (cheapest !== undefined && budgetPerHourUsd !== undefined) {
    out.push(`${meetAll.length} setting(s) meet every SLO but cost more than the budget of ${fmtUsdPerHour(budgetPerHourUsd)}: the cheapest costs ${fmtUsdPerHour(cheapest.costPerHourUsd.total)} (${describeSetting(cheapest.setting)})`);
    return out;
  }
  const topMax = Math.max(...axes.workersMax);
  const topMin = Math.max(...axes.workersMin);
  const topIdle = Math.max(...axes.idleTimeoutS);
  slos.forEach((slo, i) => {
    if (points.some((p) => p.meets[i] === true)) return;
    const ranked = points.map((p, k) => ({ k, fig: p.sloFigures[i] ?? null })).filter((x): x is { k: number; fig: number } => x.fig !== null);
    if (ranked.length === 0) {
      out.push(`no setting up to workersMax ${topMax} completed enough jobs to judge ${slo.text}`);
      return;
    }
    const best = ranked.reduce((a, b) => (b.fig < a.fig ? b : a));
    const p = points[best.k] as PlanPoint;
    const head = `every setting up to workersMax ${topMax} misses ${slo.text}; the best reached ${fmtFigure(slo, best.fig)} (${describeSetting(p.setting)})`;
    const miss = explainMiss(p, i, slo, twin);
    switch (miss.cause) {
      case 'queue-wait': {
        const cap =
          topMax >= ACCOUNT_WORKERS_CAP.highest
            ? `more max workers than the account's highest cap (${ACCOUNT_WORKERS_CAP.highest}) would be needed: split the traffic over endpoints, or make each job faster`
            : topMax >= ACCOUNT_WORKERS_CAP.default
              ? `more max workers than the account's default cap (${ACCOUNT_WORKERS_CAP.default}; up to ${ACCOUNT_WORKERS_CAP.highest} with a higher balance) would be needed: sweep --workers-max beyond ${topMax}`
              : `more max workers than ${topMax} would be needed: sweep --workers-max higher (the account cap is ${ACCOUNT_WORKERS_CAP.default} by default)`;
        out.push(`${head}; jobs wait for busy workers: ${cap}`);
        break;
      }
      case 'cold-starts':
        out.push(`${head}; jobs wait for starting workers: more active workers than ${topMin} (--workers-min) or an idle timeout longer than ${topIdle} s (--idle-timeout) would be needed`);
        break;
      case 'execution':
        out.push(`${head}; ${miss.explanation}: a faster handler or GPU would be needed`);
        break;
      case 'not-completed':
        out.push(`${head}; ${miss.explanation}`);
        break;
    }
  });
  if (out.length === 0) out.push('each SLO is met by some setting, but no setting meets them all together: widen the grid (--workers-max, --workers-min, --idle-timeout)');
  return out;
}

/** A miss within this many times its threshold is within reach of the SLO (a figure over it is an overloaded setting). */
export const MISS_REACH = 2;

/** What a setting's misses come to: which SLOs it misses and by how much, to two significant digits. */
function outcome(p: PlanPoint, slos: readonly Slo[]): string {
  return slos.map((s, i) => (p.meets[i] === true ? '-' : Number((p.sloFigures[i] ?? Number.POSITIVE_INFINITY).toPrecision(2)).toString())).join('|');
}

/**
 * The settings cheaper than the chosen one worth explaining (most expensive first): one per
 * distinct outcome (settings whose misses come to the same figures say the same thing), those
 * within reach of every SLO they miss first, the cheapest of each outcome, and only then, to fill
 * the list, the overloaded ones nearest the chosen cost.
 */
export function informativeMisses(points: readonly PlanPoint[], slos: readonly Slo[], cheaper: readonly number[]): number[] {
  const withinReach = (k: number) => slos.every((s, i) => (points[k] as PlanPoint).meets[i] === true || ((points[k] as PlanPoint).sloFigures[i] ?? Number.POSITIVE_INFINITY) <= MISS_REACH * sloThreshold(s));
  const cheapestPerOutcome = (ks: readonly number[]): number[] => {
    const seen = new Map<string, number>();
    // `cheaper` is cheapest first: the first of each outcome is its cheapest.
    for (const k of ks) if (!seen.has(outcome(points[k] as PlanPoint, slos))) seen.set(outcome(points[k] as PlanPoint, slos), k);
    return [...seen.values()];
  };
  const near = cheapestPerOutcome(cheaper.filter(withinReach));
  const nearOutcomes = new Set(near.map((k) => outcome(points[k] as PlanPoint, slos)));
  // Overloaded settings: one per outcome, nearest the chosen cost first.
  const far = cheapestPerOutcome([...cheaper].reverse().filter((k) => !withinReach(k) && !nearOutcomes.has(outcome(points[k] as PlanPoint, slos))));
  const byCostDesc = (a: number, b: number) => (points[b] as PlanPoint).costPerHourUsd.total - (points[a] as PlanPoint).costPerHourUsd.total || a - b;
  return [...near.sort(byCostDesc), ...far].slice(0, NEAR_MISSES);
}

/** The plan's answer. */
export function answer(points: readonly PlanPoint[], slos: readonly Slo[], axes: GridAxes, budgetPerHourUsd: number | undefined, twin: TwinFacts): PlanAnswer {
  const ranked = byCost(points, slos, points.map((_, k) => k));
  const chosen = ranked.find((k) => pointQualifies(points[k] as PlanPoint));
  const front = frontiers(points, slos);
  if (chosen === undefined) return { chosen: null, frontiers: front, nearMisses: [], needed: whatIsNeeded(points, slos, axes, budgetPerHourUsd, twin) };
  const c = points[chosen] as PlanPoint;
  const cheaper = ranked.slice(0, ranked.indexOf(chosen)).filter((k) => (points[k] as PlanPoint).costPerHourUsd.total < c.costPerHourUsd.total);
  const nearMisses: PlanNearMiss[] = informativeMisses(points, slos, cheaper).map((k) => {
    const p = points[k] as PlanPoint;
    return { point: k, differs: settingDiff(p.setting, c.setting), misses: slos.flatMap((s, i) => (p.meets[i] === true ? [] : [explainMiss(p, i, s, twin)])) };
  });
  return { chosen, frontiers: front, nearMisses, needed: [] };
}
