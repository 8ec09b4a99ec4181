// The grid of scaling settings a plan sweeps: one list of values per axis (workersMin,
// workersMax, idleTimeout, scalerType, scalerValue), defaults derived from the twin's own
// settings and the service's documented limits (DEPLOYMENT-FACTS.md), each axis overridable.
import { z } from 'zod';
import { parseDurationMs } from '../spec/grammar.js';
import { ACCOUNT_WORKERS_CAP, IDLE_TIMEOUT_S, SCALER_TYPES, type EndpointDeployment, type ScalerType } from '../deployment/index.js';
import { SECOND_MS } from '../spec/index.js';
import type { ScalingSettings } from '../sim/types.js';

export interface GridAxes {
  readonly workersMin: readonly number[];
  readonly workersMax: readonly number[];
  readonly idleTimeoutS: readonly number[];
  readonly scalerType: readonly ScalerType[];
  /** Seconds of queue delay (QUEUE_DELAY) or jobs per worker (REQUEST_COUNT), per type. */
  readonly scalerValue: Readonly<Record<ScalerType, readonly number[]>>;
}

/** The axes a user may override; absent ones keep their default. */
export interface AxisOverrides {
  readonly workersMin?: readonly number[] | undefined;
  readonly workersMax?: readonly number[] | undefined;
  readonly idleTimeoutS?: readonly number[] | undefined;
  readonly scalerType?: readonly ScalerType[] | undefined;
  /** Applies to every scaler type swept. */
  readonly scalerValue?: readonly number[] | undefined;
}

/** Max-worker counts tried above 5, up to the account's highest cap. */
const WORKERS_MAX_LADDER = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60] as const;
/** Active-worker counts tried by default. */
const WORKERS_MIN_DEFAULT = [0, 1, 2] as const;
/** Idle timeouts tried by default, seconds: from the shortest allowed to five minutes. */
const IDLE_TIMEOUT_DEFAULT_S = [1, 5, 15, 60, 300] as const;
/** Scaler values tried by default: seconds of queue delay, jobs per worker. */
const SCALER_VALUE_DEFAULT: Readonly<Record<ScalerType, readonly number[]>> = { QUEUE_DELAY: [1, 2, 4], REQUEST_COUNT: [1, 2, 4] };

const sortedUnique = (xs: Iterable<number>): number[] => [...new Set(xs)].sort((a, b) => a - b);

/** The twin's own scaling settings in the service's terms (its scaler may be the emulator's queue-depth one: then none). */
export function twinSettings(d: EndpointDeployment): { workersMin: number; workersMax: number; idleTimeoutS: number; scaler: { type: ScalerType; value: number } | undefined } {
  const s = d.scaler;
  const scaler = s.type === 'QUEUE_DELAY' ? { type: s.type, value: s.delayMs / SECOND_MS } : s.type === 'REQUEST_COUNT' ? { type: s.type, value: s.jobsPerWorkerTarget } : undefined;
  return { workersMin: d.workersMin, workersMax: d.workersMax, idleTimeoutS: Math.max(IDLE_TIMEOUT_S.min, Math.round(d.idleTimeoutMs / SECOND_MS)), scaler };
}

/**
 * The default axes for a twin: max workers up to the account's default cap (or the twin's own
 * max when it is higher: that account allows it), active workers 0..2, idle timeouts from 1 s to
 * 5 min, both scaler types at 1, 2 and 4; the twin's own value added on every axis.
 */
export function defaultAxes(d: EndpointDeployment): GridAxes {
  const own = twinSettings(d);
  const top = Math.min(ACCOUNT_WORKERS_CAP.highest, Math.max(ACCOUNT_WORKERS_CAP.default, own.workersMax));
  const workersMax = sortedUnique([...WORKERS_MAX_LADDER.filter((n) => n <= top), top, Math.min(own.workersMax, top)]);
  const workersMin = sortedUnique([...WORKERS_MIN_DEFAULT, Math.min(own.workersMin, top)]);
  const scalerValue: Record<ScalerType, number[]> = { QUEUE_DELAY: [...SCALER_VALUE_DEFAULT.QUEUE_DELAY], REQUEST_COUNT: [...SCALER_VALUE_DEFAULT.REQUEST_COUNT] };
  if (own.scaler) scalerValue[own.scaler.type] = sortedUnique([...scalerValue[own.scaler.type], own.scaler.value]);
  return {
    workersMin,
    workersMax,
    idleTimeoutS: sortedUnique([...IDLE_TIMEOUT_DEFAULT_S, Math.min(own.idleTimeoutS, IDLE_TIMEOUT_S.max)]),
    scalerType: [...SCALER_TYPES],
    scalerValue,
  };
}

/** `base` with the given axes replaced. */
export function withOverrides(base: GridAxes, o: AxisOverrides): GridAxes {
  const value = o.scalerValue;
  return {
    workersMin: o.workersMin ?? base.workersMin,
    workersMax: o.workersMax ?? base.workersMax,
    idleTimeoutS: o.idleTimeoutS ?? base.idleTimeoutS,
    scalerType: o.scalerType ?? base.scalerType,
    scalerValue: value === undefined ? base.scalerValue : { QUEUE_DELAY: value, REQUEST_COUNT: value },
  };
}

export interface Grid {
  readonly axes: GridAxes;
  /** In a fixed order: workersMax, workersMin, scaler type, scaler value, idle timeout. */
  readonly settings: readonly ScalingSettings[];
  /** Combinations left out because workersMin exceeds workersMax. */
  readonly skippedInvalid: number;
  /**
   * Combinations left out as the same setting as one kept: with workersMin equal to workersMax
   * every worker is active and stays up, so the scaler and the idle timeout change nothing.
   */
  readonly skippedEquivalent: number;
}

/** Every valid combination of the axes, once. */
export function gridSettings(axes: GridAxes): Grid {
  const settings: ScalingSettings[] = [];
  let skippedInvalid = 0;
  let skippedEquivalent = 0;
  const perPair = axes.scalerType.reduce((n, t) => n + axes.scalerValue[t].length, 0) * axes.idleTimeoutS.length;
  for (const workersMax of axes.workersMax) {
    for (const workersMin of axes.workersMin) {
      if (workersMin > workersMax) {
        skippedInvalid += perPair;
        continue;
      }
      let first = true;
      for (const scalerType of axes.scalerType) {
        for (const scalerValue of axes.scalerValue[scalerType]) {
          for (const idleTimeoutS of axes.idleTimeoutS) {
            if (workersMin === workersMax && !first) {
              skippedEquivalent += 1;
              continue;
            }
            first = false;
            settings.push({ workersMin, workersMax, idleTimeoutS, scalerType, scalerValue });
          }
        }
      }
    }
  }
  return { axes, settings, skippedInvalid, skippedEquivalent };
}

// ---------------------------------------------------------------- axis flags

export const AXIS_FORMS = 'a list and/or ranges of whole numbers, e.g. 1..10 or 0,1,2 or 1..4,8';

/** Most values one axis may hold: the grid is their product. */
export const MAX_AXIS_VALUES = 100;

interface AxisRule {
  readonly min: number;
  readonly max: number;
  /** Items may be durations (30s, 5m), read as whole seconds. */
  readonly durations?: boolean;
}

/** Parse an axis: "1..10", "5,30,60", "1..4,8", and with durations "5s,1m,5m"; a string says what is wrong. */
export function parseAxis(text: string, rule: AxisRule): number[] | string {
  const values: number[] = [];
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    const range = /^(\d+)\s*\.\.\s*(\d+)$/.exec(item);
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (from > to) return `"${item}": a range runs upwards (${to}..${from}?)`;
      if (to - from >= MAX_AXIS_VALUES) return `"${item}": more than ${MAX_AXIS_VALUES} values`;
      for (let v = from; v <= to; v += 1) values.push(v);
      continue;
    }
    if (/^\d+$/.test(item)) {
      values.push(Number(item));
      continue;
    }
    const ms = rule.durations === true ? parseDurationMs(item) : undefined;
    if (ms !== undefined && ms % SECOND_MS === 0) {
      values.push(ms / SECOND_MS);
      continue;
    }
    return `"${item}" is not ${rule.durations === true ? 'a whole number of seconds, a duration in whole seconds (30s, 5m) or a range (1..10)' : 'a whole number or a range (1..10)'}`;
  }
  const out = sortedUnique(values);
  const bad = out.filter((v) => v < rule.min || v > rule.max);
  if (bad.length > 0) return `${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''} outside ${rule.min}..${rule.max}`;
  if (out.length > MAX_AXIS_VALUES) return `more than ${MAX_AXIS_VALUES} values`;
  return out;
}

/** An axis flag's schema: text in, sorted distinct numbers out. */
export function axisSchema(rule: AxisRule): z.ZodType<number[], string> {
  return z.string().transform((text, ctx) => {
    const parsed = parseAxis(text, rule);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: `${parsed}; write ${AXIS_FORMS}${rule.durations === true ? ' (seconds; 30s, 5m also read)' : ''}` });
      return z.NEVER;
    }
    return parsed;
  });
}

/** The axes' bounds: the service's documented ranges (DEPLOYMENT-FACTS.md). */
export const AXIS_RULES = {
  workersMin: { min: 0, max: ACCOUNT_WORKERS_CAP.highest },
  workersMax: { min: 1, max: ACCOUNT_WORKERS_CAP.highest },
  idleTimeoutS: { min: IDLE_TIMEOUT_S.min, max: IDLE_TIMEOUT_S.max, durations: true },
  scalerValue: { min: 1, max: 3600 },
} as const satisfies Record<string, AxisRule>;

/** Scaler types as a flag: "QUEUE_DELAY,REQUEST_COUNT" (any case). */
export const ScalerTypeList = z.string().transform((text, ctx): ScalerType[] => {
  const items = text.split(',').map((x) => x.trim().toUpperCase());
  const bad = items.filter((x) => !(SCALER_TYPES as readonly string[]).includes(x));
  if (bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `${bad.map((b) => `"${b}"`).join(', ')}: scaler types are ${SCALER_TYPES.join(', ')} (comma-separated)` });
    return z.NEVER;
  }
  return [...new Set(items)] as ScalerType[];
});
