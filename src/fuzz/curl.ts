// The one-line reproduction of a finding, drawn by the shared curl renderer: the key as an
// environment variable reference (never the key itself, §5 auth per interface), and big
// bodies built by a shell recipe instead of being spelled out.
import { paddedBodyRecipe, renderCurl, type CurlAuth } from '../client/curl.js';
import { DEFAULT_API_KEY_ENV } from '../target/index.js';
import { PAD_PREFIX, PAD_SUFFIX, PADDED_BODY_OVERHEAD_BYTES, type CaseBody } from './case-body.js';

/** The environment variable a printed curl line reads the key from when --api-key-env names none. */
export const API_KEY_ENV = DEFAULT_API_KEY_ENV;

export type AuthPlacement = 'header-bearer' | 'query-api-key' | 'none';

export interface CurlSpec {
  readonly method: string;
  /** URL without any key in it. */
  readonly url: string;
  readonly auth: AuthPlacement;
  readonly body?: CaseBody | undefined;
  readonly contentType?: string | undefined;
}

/** The request as the shared renderer (src/client/curl.ts) draws it. */
export function curlLine(spec: CurlSpec, apiKeyEnv: string = API_KEY_ENV): string {
  const auth: CurlAuth =
    spec.auth === 'header-bearer' ? { kind: 'header', name: 'authorization', prefix: 'Bearer ', secret: true }
    : spec.auth === 'query-api-key' ? { kind: 'query', param: 'api_key', secret: true }
    : { kind: 'none' };
  const headers = spec.body === undefined ? {} : { 'content-type': spec.contentType ?? 'application/json' };
  const body = spec.body;
  if (body === undefined) return renderCurl({ method: spec.method, url: spec.url, headers, auth, apiKeyEnv, bodyBytes: 0 });
  if (body.kind === 'padded') {
    const recipe = paddedBodyRecipe(PAD_PREFIX, Math.max(0, body.bytes - PADDED_BODY_OVERHEAD_BYTES), PAD_SUFFIX);
    return renderCurl({ method: spec.method, url: spec.url, headers, auth, apiKeyEnv, bodyBytes: body.bytes, bodyRecipe: recipe });
  }
  const text = body.kind === 'json' ? JSON.stringify(body.value) : body.text;
  return renderCurl({ method: spec.method, url: spec.url, headers, auth, apiKeyEnv, body: text, bodyBytes: Buffer.byteLength(text) });
}
