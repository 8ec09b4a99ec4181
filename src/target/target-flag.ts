// How every command names what it talks to: `--target` is "emulator" (started in-process), a
// base URL (http(s)://host[:port][/prefix]), or a URL that names the endpoint
// (.../v2/<endpoint_id>); `--endpoint` names it otherwise. The API key is read from the
// variable `--api-key-env` names: QBENCH_API_KEY by default, RUNPOD_API_KEY when that is unset.
import { usageError } from '../errors.js';
import { API_VERSIONS } from '../spec/index.js';

export const EMULATOR_TARGET = 'emulator';
export const DEFAULT_API_KEY_ENV = 'QBENCH_API_KEY';
export const FALLBACK_API_KEY_ENV = 'RUNPOD_API_KEY';

/** The URL forms of --target (commands that cannot start an in-process emulator take only these). */
export const URL_TARGET_GRAMMAR = `a base URL (https://host), or a URL naming the endpoint (https://host/${API_VERSIONS.queue}/<endpoint_id>)`;
export const TARGET_GRAMMAR = `"${EMULATOR_TARGET}" (in-process), ${URL_TARGET_GRAMMAR}`;
export const API_KEY_ENV_HELP = `Environment variable holding the API key (default ${DEFAULT_API_KEY_ENV}, or ${FALLBACK_API_KEY_ENV} when ${DEFAULT_API_KEY_ENV} is unset); reports and curl lines name the variable, never the key`;

export type TargetSpec =
  | { readonly kind: 'emulator'; readonly endpointId: string | undefined }
  | {
      readonly kind: 'url';
      /** Origin plus any prefix before /v2/<endpoint_id>, without a trailing slash. */
      readonly queueUrl: string;
      /** From the URL or --endpoint; undefined when neither names one. */
      readonly endpointId: string | undefined;
    };

const ENDPOINT_IN_PATH = new RegExp(`^(.*)/${API_VERSIONS.queue}/([^/]+)/?$`);

/** Parse `--target` (and `--endpoint`, which must agree with an endpoint the URL names). */
export function parseTarget(target: string, endpoint?: string): TargetSpec {
  if (target === EMULATOR_TARGET) return { kind: 'emulator', endpointId: endpoint };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw usageError(`--target "${target}": ${TARGET_GRAMMAR}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--target "${target}": only http and https URLs, got ${url.protocol}`);
  if (url.search !== '' || url.hash !== '') throw usageError(`--target "${target}": no query or fragment; ${TARGET_GRAMMAR}`);
  const m = ENDPOINT_IN_PATH.exec(url.pathname);
  const inUrl = m?.[2] === undefined ? undefined : decodeURIComponent(m[2]);
  if (inUrl !== undefined && endpoint !== undefined && endpoint !== inUrl) {
    throw usageError(`--endpoint "${endpoint}" and --target (which names endpoint "${inUrl}") disagree; give one`);
  }
  const prefix = (m ? (m[1] ?? '') : url.pathname).replace(/\/+$/, '');
  return { kind: 'url', queueUrl: `${url.origin}${prefix}`, endpointId: endpoint ?? inUrl };
}

/** The endpoint id of a URL target, or a usage error naming both ways to give it. */
export function requireEndpoint(spec: TargetSpec & { kind: 'url' }): string {
  if (spec.endpointId === undefined) throw usageError(`--endpoint is required when --target names no endpoint (or write ${spec.queueUrl}/${API_VERSIONS.queue}/<endpoint_id>)`);
  return spec.endpointId;
}

/** The variable the key is read from: the flag's, else QBENCH_API_KEY, else RUNPOD_API_KEY when only that is set. */
export function apiKeyEnvName(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (flag !== undefined) return flag;
  return env[DEFAULT_API_KEY_ENV] === undefined && env[FALLBACK_API_KEY_ENV] !== undefined ? FALLBACK_API_KEY_ENV : DEFAULT_API_KEY_ENV;
}
