// The target flags every command that talks to a service declares the same way: --target,
// --endpoint (old spelling --endpoint-id kept), --api-key-env, and --rest-url/--graphql-url
// for the commands that reach the template and pod interfaces.
import type { Argv } from 'yargs';
import { API_KEY_ENV_HELP, TARGET_GRAMMAR } from '../target/index.js';

export interface TargetOptionsSpec {
  /** Default of --target (e.g. "emulator"); none: the flag is required unless `optional`. */
  readonly defaultTarget?: string;
  readonly optional?: boolean;
  /** Declare --rest-url and --graphql-url. */
  readonly interfaces?: boolean;
}

export function targetOptions(y: Argv, o: TargetOptionsSpec = {}): Argv {
  let out = y
    .option('target', {
      type: 'string',
      describe: `What to talk to: ${TARGET_GRAMMAR}`,
      ...(o.defaultTarget !== undefined ? { default: o.defaultTarget } : o.optional === true ? {} : { demandOption: true }),
    })
    .option('endpoint', { type: 'string', alias: 'endpoint-id', describe: 'Endpoint id, when --target names none' })
    .option('api-key-env', { type: 'string', describe: API_KEY_ENV_HELP });
  if (o.interfaces === true) {
    out = out
      .option('rest-url', { type: 'string', describe: 'REST template interface base URL (the emulator target sets it)' })
      .option('graphql-url', { type: 'string', describe: 'GraphQL pod interface URL (the emulator target sets it)' });
  }
  return out;
}
