// How much a plan can be trusted: a twin's timing parts are fits of a calibration's samples, each
// known to a 95% interval of its median (calibration.json, src/calibrate/fit.ts Precision). The
// plan re-simulates the settings it names with every fitted part at the slow end of its interval
// and again at the fast end (a mixture's fast share, and the chance that a start waits for GPU
// capacity, at the matching end of its own interval), on
// the same seeds and traffic, so the chosen setting's figures come as intervals, with a warning
// where the choice would change inside them: the chosen setting missing an SLO at the slow end,
// or a cheaper setting meeting every SLO at the fast end.
import { readFile } from 'node:fs/promises';
import { configError } from '../errors.js';
import { z } from 'zod';
import { Distribution, quantileMs, type BaseDistribution } from '../deployment/index.js';
import { parseEmulatorConfig, type EmulatorConfig } from '../emulator/config.js';

/** One fitted part's interval, as factors of its fitted median. */
export interface PartInterval {
  readonly part: string;
  readonly classId?: string | undefined;
  readonly lowFactor: number;
  readonly highFactor: number;
  /**
   * A mixture's fast share and its interval; for `throttle` (the wait for GPU capacity), the
   * chance that a start waits and its interval.
   */
  readonly share?: { readonly p: number; readonly low: number; readonly high: number } | undefined;
}

/** The parts of a calibration report a plan reads (calibration.json: `kind`, each fit's part, distribution and precision). */
const CalibrationFits = z.object({
  kind: z.literal('qbench-calibration'),
  fits: z.array(
    z.object({
      part: z.string(),
      classId: z.string().optional(),
      dist: Distribution,
      precision: z.object({ medianLowMs: z.number().nonnegative(), medianHighMs: z.number().nonnegative(), share: z.object({ p: z.number(), low: z.number(), high: z.number() }).optional() }),
    }),
  ),
  /** The share of worker starts seen waiting for capacity and its 95% interval (absent: no start watched). */
  throttle: z.object({ probability: z.number(), low: z.number(), high: z.number() }).optional(),
});

/** The timing parts of the deployment model a fit can stand for (stream parts are not simulated by the planner). */
const SIMULATED_PARTS = new Set(['coldStart', 'dispatch', 'execution', 'overhead', 'throttle']);

/** Each fitted part's interval from a calibration report's JSON. */
export function partIntervals(report: unknown, source: string): PartInterval[] {
  const r = CalibrationFits.safeParse(report);
  if (!r.success) throw configError(`${source}: not a calibration report (calibration.json of qbench calibrate):\n${z.prettifyError(r.error)}`, { source });
  const out: PartInterval[] = [];
  for (const f of r.data.fits) {
    if (!SIMULATED_PARTS.has(f.part)) continue;
    // A mixture's interval is of one part's median (fit.ts precisionOf: the fast part's when it
    // holds half or more, else the full part's): the factors are of that part's median, not the
    // whole mixture's, which can sit anywhere between the parts.
    const d = f.dist;
    const median = d.kind === 'mixture' ? quantileMs(d.p >= 0.5 ? d.first : d.second, 0.5) : quantileMs(d, 0.5);
    if (!(median > 0)) continue;
    const th = r.data.throttle;
    const share = f.part === 'throttle' ? (th === undefined ? undefined : { p: th.probability, low: th.low, high: th.high }) : f.precision.share;
    out.push({ part: f.part, classId: f.classId, lowFactor: f.precision.medianLowMs / median, highFactor: f.precision.medianHighMs / median, share });
  }
  return out;
}

export async function readPartIntervals(file: string): Promise<PartInterval[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw configError(`--calibration: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, { file });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw configError(`--calibration: ${file} is not JSON: ${e instanceof Error ? e.message : String(e)}`, { file });
  }
  return partIntervals(json, `--calibration ${file}`);
}

function scaleBase(d: BaseDistribution, f: number): BaseDistribution {
  switch (d.kind) {
    case 'constant':
      return { kind: 'constant', ms: d.ms * f };
    case 'uniform':
      return { kind: 'uniform', minMs: d.minMs * f, maxMs: d.maxMs * f };
    case 'lognormal':
      return { kind: 'lognormal', medianMs: d.medianMs * f, sigma: d.sigma };
    case 'empirical':
      return { kind: 'empirical', quantiles: d.quantiles.map(([q, ms]) => [q, ms * f] as [number, number]) };
  }
}

/** `d` with every duration multiplied by `f` (a mixture's share replaced by `p` when given). */
export function scaleDistribution(d: Distribution, f: number, p?: number): Distribution {
  if (d.kind === 'mixture') return { kind: 'mixture', p: p ?? d.p, first: scaleBase(d.first, f), second: scaleBase(d.second, f) };
  return scaleBase(d, f);
}

export type IntervalEnd = 'slow' | 'fast';

/**
 * The twin with every part that has an interval at one end of it: `slow` takes each median's high
 * end, a mixture's fast share at its low end and the chance of waiting for capacity at its high
 * end, `fast` the opposite.
 */
export function twinAtEnd(twin: EmulatorConfig, endpointId: string, intervals: readonly PartInterval[], end: IntervalEnd): EmulatorConfig {
  const copy = JSON.parse(JSON.stringify(twin)) as { deployments: Record<string, { timing?: Record<string, unknown> }> } & Record<string, unknown>;
  const timing = copy.deployments[endpointId]?.timing;
  if (timing === undefined) return twin;
  for (const iv of intervals) {
    const f = end === 'slow' ? iv.highFactor : iv.lowFactor;
    if (iv.part === 'throttle') {
      // The wait at its interval's end, and the chance of waiting at the matching end of its own.
      const t = timing['throttle'] as { probability: number; duration: Distribution } | undefined;
      if (t === undefined) continue;
      const chance = iv.share === undefined ? t.probability : end === 'slow' ? iv.share.high : iv.share.low;
      timing['throttle'] = { probability: Math.min(1, Math.max(0, chance)), duration: scaleDistribution(t.duration, f) };
      continue;
    }
    const p = iv.share === undefined ? undefined : end === 'slow' ? iv.share.low : iv.share.high;
    const current = timing[iv.part] as (Distribution & { byInputField?: undefined }) | { byInputField: string; classes: Record<string, Distribution>; default: Distribution } | undefined;
    if (current === undefined) continue;
    if ('byInputField' in current && current.byInputField !== undefined) {
      const byClass = current;
      if (iv.classId !== undefined && byClass.classes[iv.classId] !== undefined) byClass.classes[iv.classId] = scaleDistribution(byClass.classes[iv.classId] as Distribution, f, p);
      else if (iv.classId === undefined) byClass.default = scaleDistribution(byClass.default, f, p);
    } else {
      timing[iv.part] = scaleDistribution(current, f, p);
    }
  }
  return parseEmulatorConfig(copy);
}
