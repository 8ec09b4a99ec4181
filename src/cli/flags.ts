// Reading flag values the one way every command does: a repeatable flag as a list, and the
// whole set validated by the command's zod schema with every problem named at once.
import { z } from 'zod';
import { usageError } from '../errors.js';

/** A flag given once, several times, or not at all, as a list of strings. */
export function flagList(v: unknown): string[] {
  return v === undefined ? [] : (Array.isArray(v) ? v : [v]).map(String);
}

/** Validate `input` with the command's schema; a usage error naming every problem otherwise. */
export function parseFlags<T extends z.ZodType>(command: string, schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw usageError(`invalid options for qbench ${command}:\n${z.prettifyError(r.error)}`);
  return r.data;
}
