// The one-line reproduction of a finding: a curl command with the key as an environment
// variable reference (never the key itself, §5 auth per interface), and big bodies built by
// a shell substitution instead of being spelled out.
import { PADDED_BODY_OVERHEAD_BYTES, type CaseBody } from './case-body.js';

/** Name of the environment variable a printed curl line reads the key from. */
export const API_KEY_ENV = 'QBENCH_API_KEY';

export type AuthPlacement = 'header-bearer' | 'query-api-key' | 'none';

export interface CurlSpec {
  readonly method: string;
  /** URL without any key in it. */
  readonly url: string;
  readonly auth: AuthPlacement;
  readonly body?: CaseBody | undefined;
  readonly contentType?: string | undefined;
}

/** POSIX single-quote a shell word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlLine(spec: CurlSpec): string {
  const parts = ['curl', '-sS', '-i', '-X', spec.method];
  if (spec.auth === 'query-api-key') {
    const sep = spec.url.includes('?') ? '&' : '?';
    // Double quotes so the shell expands the variable; the URL itself carries no quotes.
    parts.push(`"${spec.url.replace(/(["\\$`])/g, '\\$1')}${sep}api_key=$${API_KEY_ENV}"`);
  } else {
    parts.push(shellQuote(spec.url));
  }
  if (spec.auth === 'header-bearer') parts.push('-H', `"authorization: Bearer $${API_KEY_ENV}"`);
  if (spec.body !== undefined) {
    parts.push('-H', shellQuote(`content-type: ${spec.contentType ?? 'application/json'}`));
    if (spec.body.kind === 'padded') {
      const padBytes = Math.max(0, spec.body.bytes - PADDED_BODY_OVERHEAD_BYTES);
      parts.push('--data-binary', `@<(printf '{"input":{"pad":"'; head -c ${padBytes} /dev/zero | tr '\\0' x; printf '"}}')`);
    } else {
      const text = spec.body.kind === 'json' ? JSON.stringify(spec.body.value) : spec.body.text;
      parts.push('--data-binary', shellQuote(text));
    }
  }
  return parts.join(' ');
}
