// One-line curl reproductions of requests, for conformance failures and fuzz findings alike.
// The API key never appears: the line references the environment variable the user named
// with --api-key-env (`"$QBENCH_API_KEY"`), so it can be pasted into a shell that has it.

/** How the request carried its credentials, for rendering. */
export type CurlAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'header'; readonly name: string; readonly prefix: string; readonly secret: true }
  | { readonly kind: 'header'; readonly name: string; readonly value: string; readonly secret: false }
  | { readonly kind: 'query'; readonly param: string; readonly secret: true }
  | { readonly kind: 'query'; readonly param: string; readonly value: string; readonly secret: false };

export interface CurlInput {
  readonly method: string;
  /** The URL without the auth query parameter. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly auth: CurlAuth;
  readonly apiKeyEnv: string;
  /** Small bodies inline; large ones through `bodyRecipe` (a shell command printing the body). */
  readonly body?: string;
  readonly bodyBytes: number;
  readonly bodyRecipe?: string;
}

/** Bodies longer than this are not inlined; a recipe (or a placeholder) stands in. */
export const CURL_INLINE_BODY_LIMIT_BYTES = 4096;

/** Single-quote for POSIX shells. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function renderCurl(c: CurlInput): string {
  const parts: string[] = ['curl', '-sS', '-i', '-X', c.method];
  let url = shellQuote(c.url);
  if (c.auth.kind === 'query') {
    const sep = c.url.includes('?') ? '&' : '?';
    url = c.auth.secret
      ? `${shellQuote(`${c.url}${sep}${c.auth.param}=`)}"$${c.apiKeyEnv}"`
      : shellQuote(`${c.url}${sep}${c.auth.param}=${c.auth.value}`);
  }
  parts.push(url);
  if (c.auth.kind === 'header') {
    parts.push('-H', c.auth.secret ? `${shellQuote(`${c.auth.name}: ${c.auth.prefix}`)}"$${c.apiKeyEnv}"` : shellQuote(`${c.auth.name}: ${c.auth.value}`));
  }
  for (const [name, value] of Object.entries(c.headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  let prefix = '';
  if (c.bodyRecipe !== undefined) {
    prefix = `${c.bodyRecipe} | `;
    parts.push('--data-binary', '@-');
  } else if (c.body !== undefined && c.bodyBytes <= CURL_INLINE_BODY_LIMIT_BYTES) {
    parts.push('--data-binary', shellQuote(c.body));
  } else if (c.bodyBytes > 0) {
    parts.push('--data-binary', `@body.json  # the ${c.bodyBytes}-byte body is not reproduced here`);
  }
  return prefix + parts.join(' ');
}

/** A shell recipe printing `{"input":{"pad":"xxx..."}}` of exactly `totalBytes` bytes. */
export function paddedBodyRecipe(prefix: string, padBytes: number, suffix: string): string {
  return `{ printf '%s' ${shellQuote(prefix)}; head -c ${padBytes} /dev/zero | tr '\\0' x; printf '%s' ${shellQuote(suffix)}; }`;
}
