// The body of one generated request: a JSON value (encoded when sent) or raw text for the
// malformed-JSON cases of §7 ("malformed request"), and the helper that builds objects from
// fields that may be absent, so "missing field" is a generated case like any other.
import fc from 'fast-check';

export type CaseBody =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string; readonly why: string }
  /** A JSON body padded to exactly `bytes` (payload-cap cases); built only when sent. */
  | { readonly kind: 'padded'; readonly bytes: number };

/** Marks a field left out of a generated object. */
export const ABSENT: unique symbol = Symbol('absent');
export type Absent = typeof ABSENT;

/**
 * A field that is present with `presentWeight` in 10 (its value from `arb`), absent otherwise.
 * The presence draw shrinks towards "absent", so a shrunk case keeps only the fields it needs.
 */
export function maybe<T>(arb: fc.Arbitrary<T>, presentWeight = 5): fc.Arbitrary<T | Absent> {
  return fc.tuple(fc.integer({ min: 0, max: 9 }), arb).map(([n, v]): T | Absent => (n >= 10 - presentWeight ? v : ABSENT));
}

/** Build an object from generated fields, dropping the absent ones (absent shrinks first). */
export function objectOf(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== ABSENT) out[k] = v;
  return out;
}

/** The property `pad` whose string fills a padded body; `{"input":{"pad":"…"}}`. */
export const PAD_PREFIX = '{"input":{"pad":"';
export const PAD_SUFFIX = '"}}';
export const PADDED_BODY_OVERHEAD_BYTES = PAD_PREFIX.length + PAD_SUFFIX.length;

/** The bytes of a body as they go on the wire. */
export function encodeBody(body: CaseBody): string {
  switch (body.kind) {
    case 'json':
      return JSON.stringify(body.value);
    case 'text':
      return body.text;
    case 'padded':
      return PAD_PREFIX + 'x'.repeat(Math.max(0, body.bytes - PADDED_BODY_OVERHEAD_BYTES)) + PAD_SUFFIX;
  }
}

/** Size on the wire without building a padded body. */
export function bodyBytes(body: CaseBody): number {
  return body.kind === 'padded' ? Math.max(body.bytes, PADDED_BODY_OVERHEAD_BYTES) : Buffer.byteLength(encodeBody(body));
}

/** A short human rendering (padded bodies are not spelled out). */
export function describeBody(body: CaseBody): string {
  switch (body.kind) {
    case 'json':
      return JSON.stringify(body.value) ?? 'undefined';
    case 'text':
      return `${JSON.stringify(body.text)} (${body.why})`;
    case 'padded':
      return `{"input":{"pad":"x…"}} padded to ${body.bytes} bytes`;
  }
}
