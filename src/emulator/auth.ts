// §5 authentication for every part of the emulator (queue routes, /_qbench routes, REST,
// GraphQL): the presented key is compared with the emulator's in constant time. Keys never
// reach an answer or a log line: errors say which credential was wrong, not what it held.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The emulator's key as bytes, and a buffer of its length the presented key is written into (no allocation per request). */
let keyBytes = { key: '', bytes: Buffer.alloc(0), scratch: Buffer.alloc(0) };

export function keyMatches(presented: string | undefined, apiKey: string): boolean {
  if (presented === undefined || apiKey === '') return false;
  if (keyBytes.key !== apiKey) {
    const bytes = Buffer.from(apiKey, 'utf8');
    keyBytes = { key: apiKey, bytes, scratch: Buffer.alloc(bytes.length) };
  }
  const { bytes, scratch } = keyBytes;
  if (Buffer.byteLength(presented, 'utf8') !== bytes.length) return false;
  scratch.write(presented, 'utf8');
  const same = timingSafeEqual(scratch, bytes);
  scratch.fill(0);
  return same;
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive); undefined for any other form. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/** The queue and control routes' §5 forms: the raw key or `Bearer <key>` (scheme case-insensitive). */
export function headerAuthorizes(header: string | undefined, apiKey: string): boolean {
  if (header === undefined) return false;
  if (keyMatches(header, apiKey)) return true;
  const m = /^bearer\s+(.+)$/i.exec(header.trim());
  return m !== null && keyMatches(m[1], apiKey);
}
