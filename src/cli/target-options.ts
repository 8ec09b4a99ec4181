// The options several commands declare the same way: --target, --endpoint (old spelling
// --endpoint-id kept), --api-key-env, --rest-url/--graphql-url for the commands that reach the
// template and pod interfaces, --out for the commands that write reports, --config for the
// commands that read the config file, --fault for those that start an emulator. Their help
// text is written here once (SHARED_HELP); a command adds at most a note after it.
import { z } from 'zod';
import { EnvVarName, HttpUrlText } from '../config/text-schemas.js';
import { FAULT_NAMES, isFaultName, type FaultName } from '../emulator/faults.js';
import { EndpointId } from '../spec/index.js';
import { API_KEY_ENV_HELP, TARGET_GRAMMAR, URL_TARGET_GRAMMAR } from '../target/target-flag.js';
import { configRelativePath, option } from './options.js';

export const SHARED_HELP = {
  target: `What to talk to: ${TARGET_GRAMMAR}`,
  urlTarget: `What to talk to: ${URL_TARGET_GRAMMAR}`,
  endpoint: 'Endpoint id, when --target names none (--endpoint-id is the old spelling)',
  /** `qbench emulate`: the endpoints it serves, not the one a target names. */
  servedEndpoints: 'Endpoint id to serve (repeatable; default demo)',
  apiKeyEnv: API_KEY_ENV_HELP,
  restUrl: 'REST template interface base URL (the emulator target sets it)',
  graphqlUrl: 'GraphQL pod interface URL (the emulator target sets it)',
  /** The report directory of the commands that run something (check, load, fuzz, start). */
  out: 'Report directory: every format (result.json, report.html, junit.xml, summary.md, summary.txt); default reports/<timestamp>, also linked as reports/latest; the config file\'s reportDir',
  config: 'Config file (default: qbench.config.ts, .mts, .js, .mjs or .json in the working directory); flags override it',
} as const;

export interface TargetOptionsSpec {
  /** Default of --target (e.g. "emulator"); none: the flag is required unless `optional`. */
  readonly defaultTarget?: string;
  readonly optional?: boolean;
  /** Only URL targets: the command cannot start an in-process emulator. */
  readonly urlOnly?: boolean;
  /** An older spelling of --target kept as an alias (named in the help). */
  readonly targetAlias?: string;
  /** false: the command reads no config file (no named targets). */
  readonly fromConfig?: boolean;
  /** What a flag means for this command beyond the shared text (appended after "; "). */
  readonly notes?: { readonly target?: string; readonly endpoint?: string; readonly apiKeyEnv?: string };
}

const withNote = (text: string, note: string | undefined): string => (note === undefined ? text : `${text}; ${note}`);

/** --api-key-env with the shared help (and a command's note); `config` is where the file names the variable. */
export function apiKeyEnvOption(note: string | undefined, config: 'target.apiKeyEnv' | 'emulator.apiKeyEnv' | undefined) {
  return option({ flag: 'api-key-env', schema: EnvVarName.optional(), help: withNote(SHARED_HELP.apiKeyEnv, note), ...(config !== undefined ? { config } : {}) });
}

/** --out, the report directory of a run (every format, reports/latest). */
export const outOption = option({ flag: 'out', schema: z.string().min(1, { error: 'must name a directory' }).optional(), help: SHARED_HELP.out, config: 'reportDir', fromConfig: configRelativePath });

/** --config, declared by the commands that read the config file (main.ts reads it). */
export const configOption = option({ flag: 'config', schema: z.string().min(1).optional(), help: SHARED_HELP.config });

function targetDecls<S extends z.ZodType<string | undefined>>(o: TargetOptionsSpec, schema: S) {
  const fromConfig = o.fromConfig !== false;
  const notes = [o.notes?.target, o.targetAlias === undefined ? undefined : `--${o.targetAlias} is the old spelling`].filter((n) => n !== undefined).join('; ');
  return {
    target: option({
      flag: 'target',
      schema,
      help: withNote(o.urlOnly === true ? SHARED_HELP.urlTarget : SHARED_HELP.target, notes || undefined),
      ...(o.targetAlias !== undefined ? { alias: o.targetAlias } : {}),
      ...(o.defaultTarget !== undefined ? { default: o.defaultTarget as z.input<S> } : {}),
      ...(o.defaultTarget === undefined && o.optional !== true ? { required: true } : {}),
      ...(fromConfig ? { config: 'target.url' as const, namesConfigTarget: true } : {}),
    }),
    endpoint: option({
      flag: 'endpoint',
      alias: 'endpoint-id',
      schema: EndpointId.optional(),
      help: withNote(SHARED_HELP.endpoint, o.notes?.endpoint),
      ...(fromConfig ? { config: 'target.endpoint' as const } : {}),
    }),
  };
}

const grammarOf = (o: TargetOptionsSpec): string => (o.urlOnly === true ? URL_TARGET_GRAMMAR : TARGET_GRAMMAR);

/** --target (required, or with a default) and --endpoint. */
export function targetOptions(o: Omit<TargetOptionsSpec, 'optional'> = {}) {
  return targetDecls(o, z.string({ error: `is required: ${grammarOf(o)}` }).min(1, { error: `must be ${grammarOf(o)}` }));
}

/** --target (the command runs without one too) and --endpoint. */
export function optionalTargetOptions(o: Omit<TargetOptionsSpec, 'optional' | 'defaultTarget'> = {}) {
  return targetDecls({ ...o, optional: true }, z.string().min(1, { error: `must be ${grammarOf(o)}` }).optional());
}

/** --api-key-env of a command given a target (the named target may name the variable). */
export function targetKeyOption(note?: string) {
  return { apiKeyEnv: apiKeyEnvOption(note, 'target.apiKeyEnv') };
}

/** --rest-url and --graphql-url, for the commands that reach the template and pod interfaces. */
export const interfaceOptions = {
  restUrl: option({ flag: 'rest-url', schema: HttpUrlText.optional(), help: SHARED_HELP.restUrl, config: 'target.restUrl' }),
  graphqlUrl: option({ flag: 'graphql-url', schema: HttpUrlText.optional(), help: SHARED_HELP.graphqlUrl, config: 'target.graphqlUrl' }),
};

/** A comma-separated or repeated list of flag values, as one list. */
export const commaList = z.array(z.string()).default([]).transform((a) => a.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v.length > 0));

/** --fault: emulator fault switches, by name (repeatable or comma-separated). */
export function faultOption(help: string, config?: 'emulator.faults') {
  return option({
    flag: 'fault',
    kind: 'strings',
    schema: commaList.transform((names, ctx) => {
      const bad = names.filter((n) => !isFaultName(n));
      if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `has unknown fault ${bad.map((b) => `"${b}"`).join(', ')}; valid faults: ${FAULT_NAMES.join(', ')}` });
      return names as FaultName[];
    }),
    help,
    ...(config !== undefined ? { config } : {}),
  });
}
