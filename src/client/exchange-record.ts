// How an HTTP exchange is kept for a report, for conformance evidence and fuzz findings alike:
// headers flattened, secrets redacted before anything is cut (a cut must not leave half a key
// that no longer matches), and bodies cut to a fixed length that says how much was left out.
import { redactSecrets } from '../errors.js';

/** Bodies recorded in a report are cut to this many characters. */
export const EXCHANGE_BODY_LIMIT_CHARS = 4096;

/** A body as a report keeps it: redacted, then cut. */
export function recordBody(text: string): string {
  const safe = redactSecrets(text);
  return safe.length <= EXCHANGE_BODY_LIMIT_CHARS ? safe : `${safe.slice(0, EXCHANGE_BODY_LIMIT_CHARS)}... [${safe.length - EXCHANGE_BODY_LIMIT_CHARS} more characters]`;
}

/** Headers as a report keeps them: one string per name, redacted. */
export function recordHeaders(h: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = redactSecrets(Array.isArray(v) ? v.join(', ') : v);
  return out;
}
