// Splitting streamed output into chunks under the §4.1 1 MB cap: every chunk fits, the parts
// join back to the original, small chunks stay whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializedBytes, toChunks } from '../../../src/emulator/queue/stream-chunks.js';

describe('stream chunk splitting (§4.1 1 MB cap)', () => {
  it('strings: every chunk fits the cap and the parts join back to the original', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: 200, max: 2000 }), (s, cap) => {
        const chunks = toChunks(s, undefined, cap);
        for (const c of chunks) expect(serializedBytes(c)).toBeLessThanOrEqual(cap);
        expect(chunks.map((c) => c.output).join('')).toBe(s);
      }),
    );
  });

  it('arrays split into sub-arrays; other values into slices of their JSON text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 50 }), { maxLength: 200 }), (arr) => {
        const chunks = toChunks(arr, { stream_index: 1 }, 400);
        for (const c of chunks) expect(serializedBytes(c)).toBeLessThanOrEqual(400);
        expect(chunks.flatMap((c) => c.output as string[])).toEqual(arr);
      }),
    );
    const obj = { text: 'y'.repeat(5000), n: 1 };
    const parts = toChunks(obj, undefined, 1000);
    expect(JSON.parse(parts.map((c) => c.output as string).join(''))).toEqual(obj);
  });

  it('small chunks stay whole, without a split marker; split:false keeps big ones whole', () => {
    expect(toChunks('hi', undefined, 100)).toEqual([{ output: 'hi' }]);
    expect(toChunks('x'.repeat(500), undefined, 100, false)).toHaveLength(1);
  });
});
