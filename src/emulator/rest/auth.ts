// §5 authentication of the REST and GraphQL parts: compare a presented key with the
// emulator's key in constant time, and read the `Bearer` form of the authorization header.
// Keys never reach an answer or a log line: errors say which credential was wrong, not what it held.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function keyMatches(presented: string | undefined, apiKey: string): boolean {
  if (presented === undefined || apiKey === '') return false;
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(apiKey, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive); undefined for any other form. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
