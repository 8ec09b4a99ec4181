// §4.1/§8 "one streamed chunk is at most 1 MB; larger output is split across chunks".
// A chunk is measured as the UTF-8 bytes of `JSON.stringify(chunk)`. Oversized string
// outputs are split into consecutive substrings, arrays into consecutive sub-arrays, any
// other value into slices of its JSON text; each part carries `split: {index, count}` so
// a client can join them (strings and JSON text by concatenation, arrays by concat).
import type { StoredChunk } from './job.js';

export function serializedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/** Bytes one UTF-16 code unit (or surrogate pair) takes inside a JSON string literal. */
function jsonCharBytes(s: string, i: number): { bytes: number; units: number } {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return { bytes: 2, units: 1 };
  if (c < 0x20) return { bytes: c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6, units: 1 };
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  // Lone surrogates are escaped as \uXXXX by JSON.stringify.
  if (c >= 0xd800 && c <= 0xdfff) return { bytes: 6, units: 1 };
  return { bytes: 3, units: 1 };
}

/** Split `s` into pieces whose JSON string literal (without quotes) takes at most `budget` bytes. */
function splitString(s: string, budget: number): string[] {
  const parts: string[] = [];
  let start = 0;
  let used = 0;
  let i = 0;
  while (i < s.length) {
    const { bytes, units } = jsonCharBytes(s, i);
    if (used + bytes > budget && i > start) {
      parts.push(s.slice(start, i));
      start = i;
      used = 0;
    }
    used += bytes;
    i += units;
  }
  parts.push(s.slice(start));
  return parts;
}

function splitArray(a: readonly unknown[], budget: number): unknown[][] {
  const parts: unknown[][] = [];
  let current: unknown[] = [];
  let used = 2; // []
  for (const el of a) {
    const b = serializedBytes(el) + (current.length > 0 ? 1 : 0);
    if (used + b > budget && current.length > 0) {
      parts.push(current);
      current = [];
      used = 2;
    }
    current.push(el);
    used += serializedBytes(el) + (current.length > 1 ? 1 : 0);
  }
  parts.push(current);
  return parts;
}

/**
 * Turn one handler chunk into stored chunks of at most `capBytes` serialized bytes each.
 * `split: false` (fault 'stream-chunk-oversize') keeps it whole.
 */
export function toChunks(output: unknown, metrics: Record<string, unknown> | undefined, capBytes: number, split = true): StoredChunk[] {
  const whole: StoredChunk = metrics === undefined ? { output } : { output, metrics };
  if (!split || serializedBytes(whole) <= capBytes) return [whole];
  // Room left for the payload once the envelope (metrics, split marker, keys) is counted.
  const envelope = serializedBytes({ output: '', metrics, split: { index: 999_999, count: 999_999 } });
  const budget = Math.max(64, capBytes - envelope - 2);
  let pieces: unknown[];
  if (typeof output === 'string') {
    pieces = splitString(output, budget);
  } else if (Array.isArray(output)) {
    const arrays = splitArray(output, budget);
    // An element too big on its own is split as its JSON text.
    pieces = arrays.flatMap((arr): unknown[] => (serializedBytes(arr) > budget ? splitString(JSON.stringify(arr), budget) : [arr]));
  } else {
    pieces = splitString(JSON.stringify(output) ?? 'null', budget);
  }
  return pieces.map((p, index) => {
    const c: StoredChunk = { output: p, split: { index, count: pieces.length } };
    if (metrics !== undefined && index === pieces.length - 1) c.metrics = metrics;
    return c;
  });
}
