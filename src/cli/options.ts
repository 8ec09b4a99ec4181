// Options as data: each CLI option is declared once (its flag, its type and rules as a zod
// schema, its help text, its key in the config file, its default), and from that declaration
// come the yargs option, the help line and the parsed value: the flag when given, else the
// config file's setting, else the default, every problem named at once (exit 2).
import { basename, isAbsolute, resolve } from 'node:path';
import type { Argv, Options, PositionalOptions } from 'yargs';
import { z } from 'zod';
import { usageError } from '../errors.js';
import { configValue, configView, namesConfigTarget, type ConfigKey } from '../config/config-view.js';
import type { LoadedConfig } from '../config/load-config.js';

export interface OptionSpec<S extends z.ZodType = z.ZodType> {
  /** The name on the command line: `--time-scale`, or a positional's name. Absent: only the config file sets it. */
  readonly flag?: string;
  readonly positional?: boolean;
  readonly alias?: string;
  /** How yargs reads the text: one string (the default), number or boolean, or a repeatable list of strings. */
  readonly kind?: 'string' | 'number' | 'boolean' | 'strings';
  /** Type and rules of the value; its messages say what is accepted ("must be ..."), the flag is named before them. */
  readonly schema: S;
  readonly help?: string;
  /** Where the config file sets it. */
  readonly config?: ConfigKey;
  /** The config file's value as the flag would give it (e.g. a path relative to the file's folder). */
  readonly fromConfig?: (value: unknown, configDir: string) => unknown;
  readonly default?: z.input<S>;
  /** The default as the help shows it, when not the value itself (or when something else computes it). */
  readonly defaultHelp?: string;
  readonly choices?: readonly string[];
  /** yargs refuses the command line without it (the help marks it required). */
  readonly required?: boolean;
  /** `--target`: a name the config file defines stands for that target (its url, endpoint, key variable...). */
  readonly namesConfigTarget?: boolean;
}

export type OptionSet = Readonly<Record<string, OptionSpec>>;

/** The parsed options of a command, typed by their declarations. */
export type Flags<O extends OptionSet> = { readonly [K in keyof O]: z.output<O[K]['schema']> };

export function option<S extends z.ZodType>(o: OptionSpec<S>): OptionSpec<S> {
  return o;
}

/** A whole number from `min` to `max`; every refusal says the range. */
export function wholeNumber(min: number, max: number) {
  const rule = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: rule }).int({ error: rule }).min(min, { error: rule }).max(max, { error: rule });
}

/** A config value that names a file: relative to the config file's folder. */
export function configRelativePath(value: unknown, dir: string): unknown {
  return typeof value === 'string' && !isAbsolute(value) ? resolve(dir, value) : value;
}

/** Does the command read the config file (some option of it has a config key)? */
export function readsConfig(options: OptionSet): boolean {
  return Object.values(options).some((o) => o.config !== undefined);
}

/** A default as the help shows it: scalars as written, lists comma-separated. */
function helpText(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) && value.length > 0 ? value.map(helpText).join(',') : undefined;
}

function yargsOption(o: OptionSpec): Options & PositionalOptions {
  const kind = o.kind ?? 'string';
  const shownDefault = o.defaultHelp ?? helpText(o.default);
  return {
    type: kind === 'strings' ? 'string' : kind,
    ...(kind === 'strings' ? { array: true } : {}),
    ...(o.help !== undefined ? { describe: o.help } : {}),
    ...(o.alias !== undefined ? { alias: o.alias } : {}),
    ...(o.choices !== undefined ? { choices: [...o.choices] } : {}),
    ...(shownDefault !== undefined ? { defaultDescription: shownDefault } : {}),
    ...(o.required === true ? { demandOption: true } : {}),
  };
}

/** Declare `options` to yargs (no default values: an option not given stays undefined, so the config file can fill it). */
export function declareOptions(y: Argv, options: OptionSet): Argv {
  let out = y;
  for (const o of Object.values(options)) {
    if (o.flag === undefined) continue;
    out = o.positional === true ? out.positional(o.flag, yargsOption(o)) : out.option(o.flag, yargsOption(o));
  }
  return out;
}

/**
 * The value of every option: the flag when given, else the config file's setting, else the
 * default; validated together, every problem named with where the value came from.
 */
export function parseOptions<O extends OptionSet>(command: string, options: O, argv: Readonly<Record<string, unknown>>, loaded?: LoadedConfig): Flags<O> {
  const targetFlag = Object.values(options).find((o) => o.namesConfigTarget === true)?.flag;
  const targetName = loaded !== undefined && targetFlag !== undefined && namesConfigTarget(loaded.config, argv[targetFlag]) ? argv[targetFlag] : undefined;
  const view = loaded === undefined ? undefined : configView(loaded.config, targetName);
  const input: Record<string, unknown> = {};
  const fromFile = new Set<string>();
  for (const [key, o] of Object.entries(options)) {
    // A target name the file defines stands for the target's own settings.
    let value = o.flag === undefined || (o.namesConfigTarget === true && targetName !== undefined) ? undefined : argv[o.flag];
    if (value === undefined && o.config !== undefined && view !== undefined && loaded !== undefined) {
      const fromConfig = configValue(view, o.config);
      if (fromConfig !== undefined) {
        value = o.fromConfig ? o.fromConfig(fromConfig, loaded.dir) : fromConfig;
        fromFile.add(key);
      }
    }
    input[key] = value ?? o.default;
  }
  const shape = Object.fromEntries(Object.entries(options).map(([k, o]) => [k, o.schema]));
  const parsed = z.object(shape).safeParse(input);
  if (parsed.success) return parsed.data as Flags<O>;
  const problems = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const o = options[key];
    const where =
      o === undefined
        ? key
        : fromFile.has(key) && loaded !== undefined
          ? `${String(o.config)} (${basename(loaded.file)})`
          : o.flag === undefined
            ? String(o.config)
            : o.positional === true
              ? `<${o.flag}>`
              : `--${o.flag}`;
    // A missing value: the schema's own "is required: ..." when it has one.
    const message = input[key] === undefined && !issue.message.startsWith('is required') ? 'is required' : issue.message;
    return `  ✖ ${where} ${message}`;
  });
  throw usageError(`invalid options for qbench ${command}:\n${[...new Set(problems)].join('\n')}`);
}
