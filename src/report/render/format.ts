// Number formatting and plain-words explanations shared by every renderer.
import type { MetricChange, QbenchComparison } from '../../result/compare-model.js';
import type { LoadScenarioResult, OutcomeCounts, PlanSetting, PlanSlo, RunCost, Validity } from '../../result/model.js';

/** Milliseconds with a sensible precision: 0.412 ms, 41.2 ms, 1,204 ms, 12.3 s. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms >= 10_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms >= 1_000) return `${Math.round(ms).toLocaleString('en-US')} ms`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtRate(perSec: number | null | undefined): string {
  if (perSec === null || perSec === undefined || !Number.isFinite(perSec)) return '–';
  return `${perSec >= 100 ? Math.round(perSec).toLocaleString('en-US') : perSec.toFixed(1)}/s`;
}

/** A ratio (0..1) as a percentage. */
export function fmtRatio(r: number | null | undefined): string {
  if (r === null || r === undefined || !Number.isFinite(r)) return '–';
  if (r === 0) return '0%';
  if (r < 0.001) return '<0.1%';
  return `${(r * 100).toFixed(r < 0.1 ? 2 : 1)}%`;
}

/** A signed percentage change: +12.3%, −4.0%. */
export function fmtChange(pct: number | null | undefined, unit = '%'): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  const s = Math.abs(pct) >= 100 ? Math.abs(pct).toFixed(0) : Math.abs(pct).toFixed(1);
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${s}${unit}`;
}

export function fmtDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

export const totalOf = (c: OutcomeCounts): number => c['2xx'] + c['429'] + c['4xx'] + c['5xx'] + c.network_error;

export function scenarioTotals(s: LoadScenarioResult): OutcomeCounts & { total: number } {
  const t: OutcomeCounts = { '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 };
  for (const st of s.steps) for (const k of Object.keys(t) as (keyof OutcomeCounts)[]) t[k] += st.counts[k];
  return { ...t, total: totalOf(t) };
}

/** Levels above which the generator's own health is worth a warning (not spec numbers: qbench's judgement). */
export const VALIDITY_WARN = {
  sendLatenessP99Ms: 10,
  eventLoopDelayP99Ms: 20,
  generatorCpuPercent: 85,
  achievedShare: 0.95,
} as const;

/** The generator's validity, in plain words: one sentence per problem, worst first. */
export function validityWarnings(v: Validity): string[] {
  const out: string[] = [];
  if (!v.valid) out.push('This measurement is INVALID: the load generator, not the target, was the bottleneck. Do not read its latencies as the target\'s.');
  for (const r of v.reasons) out.push(r.endsWith('.') ? r : `${r}.`);
  if (v.targetRatePerSec !== undefined && v.targetRatePerSec > 0 && v.achievedRatePerSec < v.targetRatePerSec * VALIDITY_WARN.achievedShare) {
    out.push(`The generator sent ${fmtRate(v.achievedRatePerSec)} of the ${fmtRate(v.targetRatePerSec)} asked for (${Math.round((v.achievedRatePerSec / v.targetRatePerSec) * 100)}%).`);
  }
  if (v.droppedIterations > 0) out.push(`${fmtCount(v.droppedIterations)} requests could not be started on time and were dropped (no free virtual user).`);
  const late = v.sendLateness.percentiles;
  if (late.count > 0 && late.p99 > VALIDITY_WARN.sendLatenessP99Ms) {
    out.push(`1% of requests left the generator more than ${fmtMs(late.p99)} after their scheduled time (worst ${fmtMs(late.max)}); corrected latency accounts for it, service time does not.`);
  }
  if (v.eventLoopDelayMs.count > 0 && v.eventLoopDelayMs.p99 > VALIDITY_WARN.eventLoopDelayP99Ms) {
    out.push(`The generator's event loop stalled up to ${fmtMs(v.eventLoopDelayMs.max)} (p99 ${fmtMs(v.eventLoopDelayMs.p99)}): timings carry that much error.`);
  }
  if (v.generatorCpuPercent > VALIDITY_WARN.generatorCpuPercent) {
    out.push(`The generator used ${Math.round(v.generatorCpuPercent)}% CPU: close to saturation.`);
  }
  return out;
}

/** Sort spec sections naturally: §2.1 < §2.10 < §10 < WIRE-COMPAT. */
export function compareSections(a: string, b: string): number {
  const num = (s: string) => (s.match(/\d+/g) ?? []).map(Number);
  const na = num(a);
  const nb = num(b);
  const aSec = a.startsWith('§');
  const bSec = b.startsWith('§');
  if (aSec !== bSec) return aSec ? -1 : 1;
  for (let i = 0; i < Math.max(na.length, nb.length); i++) {
    const d = (na[i] ?? -1) - (nb[i] ?? -1);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

/** The top-level spec section of a clause: '§3.1' → '§3'. */
export function topSection(section: string): string {
  const m = /^§(\d+)/.exec(section);
  return m ? `§${m[1]}` : section;
}

/** Dollars with 4 significant digits (a run on an emulator often costs fractions of a cent). */
export function fmtUsd(usd: number | null): string {
  return usd === null ? 'no price' : `$${usd.toPrecision(4)}`;
}

/** One line on what a load run cost on the emulator's deployment model (load.cost). */
export function costLine(c: RunCost): string {
  const s = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  const parts = [
    `${fmtUsd(c.costUsd)} for ${s(c.billedS)} billed worker-s (active ${s(c.activeS)}, flex ${s(c.flexS)}) on ${c.gpuCount}x ${c.gpuTypeId}`,
    `${c.coldStarts} cold start${c.coldStarts === 1 ? '' : 's'}, ${s(c.initializingS + c.throttledS)} s starting (unbilled)`,
  ];
  if (c.costPer1000JobsUsd !== null) parts.push(`${fmtUsd(c.costPer1000JobsUsd)} per 1,000 jobs (${fmtCount(c.jobs)} ended)`);
  if (c.costPerMillionTokensUsd !== null) parts.push(`${fmtUsd(c.costPerMillionTokensUsd)} per million tokens (${fmtCount(c.tokens)} streamed)`);
  return `cost on the emulated deployment of ${c.endpointId}: ${parts.join(' · ')}${c.priceSource === null ? '' : ` (prices: ${c.priceSource})`}`;
}

/** Dollars per hour: $0.412/h, $12.41/h. */
export function fmtUsdPerHour(usd: number): string {
  return `$${usd < 10 ? usd.toFixed(3) : usd.toFixed(2)}/h`;
}

/** A plan's setting in one line: "workers 0..3, idle 5 s, QUEUE_DELAY 4 s". */
export function describePlanSetting(s: PlanSetting): string {
  // With as many active workers as the most, none scales or stops: the scaler and idle timeout do nothing.
  if (s.workersMin === s.workersMax) return `workers ${s.workersMin}..${s.workersMax} (all active, none scales)`;
  const scaler = s.scalerType === 'QUEUE_DELAY' ? `QUEUE_DELAY ${s.scalerValue} s` : `REQUEST_COUNT ${s.scalerValue} jobs/worker`;
  return `workers ${s.workersMin}..${s.workersMax}, idle ${s.idleTimeoutS} s, ${scaler}`;
}

/** The figure an SLO judges, in its unit: a duration or a share; "no figure" when none. */
export function fmtSloFigure(slo: PlanSlo, v: number | null): string {
  if (v === null) return 'no figure';
  return slo.kind === 'latency' ? fmtMs(v) : fmtRatio(v);
}

/** A compared value in its unit: milliseconds, a rate per second, or a share. */
export const fmtMetricValue = (m: MetricChange, v: number | null): string => (m.unit === 'ms' ? fmtMs(v) : m.unit === 'per_sec' ? fmtRate(v) : fmtRatio(v));

/** The unit of a metric's change: percentage points for a share, percent otherwise. */
export const changeUnit = (m: MetricChange): string => (m.unit === 'ratio' ? ' pts' : '%');

/** One judged unit of a comparison (a load scenario, or an LLM path at one level) and its rows. */
export interface ComparisonUnit {
  /** The scenario's name, or "llm <path> <level>". */
  name: string;
  /** The JUnit class of its cases. */
  suite: string;
  presence: 'both' | 'baseline-only' | 'candidate-only';
  invalid: readonly string[];
  /** A scenario's steps ("scenario/step"), or the LLM level's one row. */
  rows: readonly { label: string; baselineCount: number; candidateCount: number; metrics: readonly MetricChange[] }[];
}

/** The units every comparison renderer lists: the load scenarios, then the LLM levels. */
export function comparisonUnits(c: QbenchComparison): ComparisonUnit[] {
  return [
    ...c.scenarios.map((s) => ({
      name: s.name,
      suite: s.name,
      presence: s.presence,
      invalid: s.invalid,
      rows: s.steps.map((st) => ({ label: `${s.name}/${st.step}`, baselineCount: st.baselineCount, candidateCount: st.candidateCount, metrics: st.metrics })),
    })),
    ...(c.llm ?? []).map((l) => {
      const name = `llm ${l.path} ${l.level}`;
      return {
        name,
        suite: `llm.${l.path}`,
        presence: l.presence,
        invalid: l.invalid,
        rows: l.presence === 'both' ? [{ label: name, baselineCount: l.baselineCount, candidateCount: l.candidateCount, metrics: l.metrics }] : [],
      };
    }),
  ];
}

/** "only in the baseline" / "only in the candidate" for a unit one run lacks (reported, never judged). */
export const presenceNote = (presence: ComparisonUnit['presence']): string => `only in the ${presence === 'baseline-only' ? 'baseline' : 'candidate'}`;
