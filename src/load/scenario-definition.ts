// A scenario file that declares its `--param`s: a zod schema per parameter (each value arrives
// as text; the `param` helpers read numbers, lists and choices from it and say what they
// accept) and a function from the target and the parsed parameters to the scenario(s). A bad
// parameter, or one no loaded scenario takes, is a scenario error (exit 2) naming it.
import { z } from 'zod';
import { scenarioError } from '../errors.js';
import type { LoadTarget } from './context.js';
import type { ScenarioInput } from './scenario.js';

/** A parameter's schema: from the `--param` text (undefined when not given) to its value. */
export type ParamSchema = z.ZodType<unknown, string | undefined> | z.ZodType<unknown, string>;
export type ParamShape = Readonly<Record<string, ParamSchema>>;
export type ParamsOf<P extends ParamShape> = z.output<z.ZodObject<{ -readonly [K in keyof P]: P[K] }>>;

export interface ScenarioContext<Params> {
  readonly target: LoadTarget;
  readonly params: Params;
}

/** One scenario or a list; `S` is the state its setup hook returns. */
export type Scenarios<S> = ScenarioInput<S> | readonly ScenarioInput<S>[];

const DEFINITION = Symbol.for('qbench.scenario-definition');

/** What `defineScenario` returns: a file's default export. */
export interface ScenarioDefinition {
  readonly [DEFINITION]: true;
  /** The parameters it takes, by name. */
  readonly params: readonly string[];
  /** Parse `params` (every problem at once) and build the scenarios. */
  readonly create: (target: LoadTarget, params: Readonly<Record<string, string>>, file: string) => Promise<readonly ScenarioInput[]>;
}

export function isScenarioDefinition(v: unknown): v is ScenarioDefinition {
  return typeof v === 'object' && v !== null && (v as Partial<ScenarioDefinition>)[DEFINITION] === true;
}

/** `--param key=...: what it accepts`, every problem of `params` at once. */
function paramProblems(error: z.ZodError, params: Readonly<Record<string, string>>): string[] {
  return error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    const given = params[key];
    return given === undefined ? `--param ${key} is required: expected ${i.message}` : `--param ${key}=${given}: expected ${i.message}`;
  });
}

/**
 * Declare a scenario file: `params` the schema of each `--param` it takes, `create` its
 * scenario(s) for the target and the parsed parameters. `S`, the type of the state its setup
 * hook returns, follows from `create`'s scenarios: steps and later hooks see it typed.
 */
export function defineScenario<const P extends ParamShape, S = undefined>(def: {
  readonly params: P;
  readonly create: (ctx: ScenarioContext<ParamsOf<P>>) => Scenarios<S> | Promise<Scenarios<S>>;
}): ScenarioDefinition {
  const schema = z.object(def.params);
  return {
    [DEFINITION]: true,
    params: Object.keys(def.params),
    create: async (target, params, file) => {
      const parsed = schema.safeParse(params);
      if (!parsed.success) throw scenarioError(`${file}: bad --param:\n${paramProblems(parsed.error, params).map((p) => `✖ ${p}`).join('\n')}`, { file });
      const made = await def.create({ target, params: parsed.data });
      // The engine hands each function the state its setup returned: `S` is erased here only.
      const list = (Array.isArray(made) ? made : [made]) as readonly unknown[];
      return list as readonly ScenarioInput[];
    },
  };
}

/** A parameter value that `create` finds wrong for this target (exit 2, naming it). */
export function paramError(key: string, message: string): Error {
  return scenarioError(`--param ${key}: ${message}`);
}

function describeNumber(o: NumberParam): string {
  const bounds =
    o.min !== undefined && o.max !== undefined
      ? [`from ${o.min} to ${o.max}`]
      : [o.min !== undefined ? `>= ${o.min}` : undefined, o.above !== undefined ? `> ${o.above}` : undefined, o.max !== undefined ? `<= ${o.max}` : undefined, o.below !== undefined ? `< ${o.below}` : undefined].filter((x) => x !== undefined);
  const range = bounds.length > 0 ? ` ${bounds.join(' and ')}` : '';
  return `${o.integer === true ? 'a whole number' : 'a number'}${range}${o.unit !== undefined ? ` (${o.unit})` : ''}`;
}

export interface NumberParam {
  readonly integer?: boolean;
  /** Inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** Exclusive bounds. */
  readonly above?: number;
  readonly below?: number;
  /** What the number counts, e.g. "real ms". */
  readonly unit?: string;
}

function numberOk(o: NumberParam, n: number): boolean {
  return Number.isFinite(n) && (o.integer !== true || Number.isInteger(n)) && (o.min === undefined || n >= o.min) && (o.max === undefined || n <= o.max) && (o.above === undefined || n > o.above) && (o.below === undefined || n < o.below);
}

const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** Schemas of `--param` values: each reads the text and says what it accepts when it cannot. */
export const param = {
  number(o: NumberParam = {}) {
    const accepts = describeNumber(o);
    return z.string().refine((t) => NUMBER_TEXT.test(t.trim()) && numberOk(o, Number(t)), { error: accepts }).transform(Number);
  },
  oneOf<const T extends readonly [string, ...string[]]>(values: T) {
    return z.enum(values, { error: `one of ${values.join(', ')}` });
  },
  /** Comma-separated values, each read by `item` (a `param` schema). */
  list<T>(item: z.ZodType<T, string>) {
    return z.string().transform((text, ctx) => {
      const out: T[] = [];
      for (const part of text.split(',').map((p) => p.trim())) {
        const r = item.safeParse(part);
        if (!r.success) {
          ctx.addIssue({ code: 'custom', message: `a comma-separated list, each ${r.error.issues[0]?.message ?? 'accepted'} ("${part}" is not)` });
          return z.NEVER;
        }
        out.push(r.data);
      }
      return out;
    });
  },
};
