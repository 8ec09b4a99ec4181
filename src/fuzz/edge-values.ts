// Values concentrated at and around the bounds of src/spec/limits.ts (§2.1, §4.1, §8):
// every bound, one step either side, the default, a few in range and far out of range,
// plus the wrong JSON types. Nothing here repeats a spec number: bounds are passed in.
import fc from 'fast-check';

export interface IntRange {
  readonly min: number;
  readonly max: number;
  readonly defaultValue?: number;
}

/** The integers where off-by-one bugs live: each bound, its neighbours and the default. */
export function boundaryPoints(b: IntRange): number[] {
  const pts = [b.min - 1, b.min, b.min + 1, b.max - 1, b.max, b.max + 1];
  if (b.defaultValue !== undefined) pts.push(b.defaultValue);
  return [...new Set(pts)];
}

/**
 * Integers around a range, weighted towards the boundary points. Shrinks towards the lower
 * bound, so a shrunk counterexample names the bound that broke.
 */
export function intAroundBounds(b: IntRange): fc.Arbitrary<number> {
  const span = Math.max(1, b.max - b.min);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...boundaryPoints(b)) },
    { weight: 2, arbitrary: fc.integer({ min: b.min, max: b.max }) },
    { weight: 1, arbitrary: fc.integer({ min: b.min - span, max: b.min - 1 }) },
    { weight: 1, arbitrary: fc.integer({ min: b.max + 1, max: b.max + span }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, -b.min, Number.MAX_SAFE_INTEGER) },
  );
}

/** A number that is not a whole number but sits inside the range (`integer` fields refuse it). */
export function fractionalInRange(b: IntRange): fc.Arbitrary<number> {
  return fc.constantFrom(b.min + 0.5, b.max - 0.5);
}

/** JSON values of the wrong type for a numeric field (a numeric string keeps the right digits). */
export function wrongTypeForInt(b: IntRange): fc.Arbitrary<unknown> {
  return fc.constantFrom<unknown>(String(b.min), true, [], {}, 'abc');
}

/** JSON values of the wrong type for a boolean field. */
export const wrongTypeForBoolean: fc.Arbitrary<unknown> = fc.constantFrom<unknown>('true', 1, 0, 'false', [], {});

/** JSON values of the wrong type for a string field. */
export const wrongTypeForString: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(1, true, [], {}, ['a']);

/** JSON values of the wrong type for an object field. */
export const wrongTypeForObject: fc.Arbitrary<unknown> = fc.constantFrom<unknown>('x', 1, true, [], ['a'], '{}');

/** Query-string renderings of an integer around the bounds, plus text a strict parser must refuse. */
export function queryIntAroundBounds(b: IntRange): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: intAroundBounds(b).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('abc', 'null', 'true', '-', `${b.min}ms`, `${b.min}.5`, '1e3', `0x${b.min.toString(16)}`, '') },
  );
}
