// Assertions shared by the schema boundary tests: a value parses, a value does not, and the
// prettified error of one that must fail (to check that messages name their fields).
import { expect } from 'vitest';
import { z } from 'zod';

export const ok = (schema: z.ZodType, v: unknown): void => expect(schema.safeParse(v).success, JSON.stringify(v)).toBe(true);
export const bad = (schema: z.ZodType, v: unknown): void => expect(schema.safeParse(v).success, JSON.stringify(v)).toBe(false);

export function problems(schema: z.ZodType, v: unknown): string {
  const r = schema.safeParse(v);
  if (r.success) throw new Error(`expected ${JSON.stringify(v)} to fail`);
  return z.prettifyError(r.error);
}
