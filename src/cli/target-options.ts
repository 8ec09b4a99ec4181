// The options every command that talks to a service declares the same way: --target,
// --endpoint (old spelling --endpoint-id kept), --api-key-env, --rest-url/--graphql-url for
// the commands that reach the template and pod interfaces, and --config for the commands that
// read the config file. Their help text is written here once (SHARED_HELP); a command adds at
// most a note after it.
import type { Argv, Options } from 'yargs';
import { API_KEY_ENV_HELP, TARGET_GRAMMAR, URL_TARGET_GRAMMAR } from '../target/index.js';

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
  /** Declare --rest-url and --graphql-url. */
  readonly interfaces?: boolean;
  /** Only URL targets: the command cannot start an in-process emulator. */
  readonly urlOnly?: boolean;
  /** An older spelling of --target kept as an alias (named in the help). */
  readonly targetAlias?: string;
  /** false: no --api-key-env (the key reaches the command another way). */
  readonly apiKeyEnv?: boolean;
  /** What a flag means for this command beyond the shared text (appended after "; "). */
  readonly notes?: { readonly target?: string; readonly endpoint?: string; readonly apiKeyEnv?: string };
}

const withNote = (text: string, note: string | undefined): string => (note === undefined ? text : `${text}; ${note}`);

/** --api-key-env with the shared help (and a command's note). */
export function apiKeyEnvOption(y: Argv, note?: string): Argv {
  return y.option('api-key-env', { type: 'string', describe: withNote(SHARED_HELP.apiKeyEnv, note) });
}

/** --out, the report directory of a run (every format, reports/latest). */
export function outOption(y: Argv): Argv {
  return y.option('out', { type: 'string', describe: SHARED_HELP.out });
}

/** --config, declared by the commands that read the config file. */
export function configOption(y: Argv): Argv {
  return y.option('config', { type: 'string', describe: SHARED_HELP.config });
}

export function targetOptions(y: Argv, o: TargetOptionsSpec = {}): Argv {
  const target: Options = {
    type: 'string',
    describe: withNote(o.urlOnly === true ? SHARED_HELP.urlTarget : SHARED_HELP.target, [o.notes?.target, o.targetAlias === undefined ? undefined : `--${o.targetAlias} is the old spelling`].filter((n) => n !== undefined).join('; ') || undefined),
    ...(o.targetAlias !== undefined ? { alias: o.targetAlias } : {}),
    ...(o.defaultTarget !== undefined ? { default: o.defaultTarget } : o.optional === true ? {} : { demandOption: true }),
  };
  let out: Argv = y.option('target', target).option('endpoint', { type: 'string', alias: 'endpoint-id', describe: withNote(SHARED_HELP.endpoint, o.notes?.endpoint) });
  if (o.apiKeyEnv !== false) out = apiKeyEnvOption(out, o.notes?.apiKeyEnv);
  if (o.interfaces === true) {
    out = out.option('rest-url', { type: 'string', describe: SHARED_HELP.restUrl }).option('graphql-url', { type: 'string', describe: SHARED_HELP.graphqlUrl });
  }
  return out;
}
