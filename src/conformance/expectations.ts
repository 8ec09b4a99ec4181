// --expect files: known failures of a target (id, expected verdict, reason, optional expiry).
// A matched expectation keeps a known failure from failing the run; any other verdict of a
// listed check (an unexpected pass included) fails it (src/result checkFailsRun), so the file
// is kept current; an expired entry no longer applies.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { configError } from '../errors.js';

export const Expectation = z.strictObject({
  id: z.string().min(1, { error: 'id must name a check' }),
  verdict: z.enum(['pass', 'fail', 'skip', 'error'], { error: 'verdict must be one of pass, fail, skip, error' }),
  reason: z.string().min(1, { error: 'reason must say why the verdict is expected' }),
  /** ISO date (YYYY-MM-DD) after which the entry no longer applies. */
  expires: z.iso.date({ error: 'expires must be a date YYYY-MM-DD' }).optional(),
});
export type Expectation = z.infer<typeof Expectation>;

export const ExpectationFile = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  expectations: z.array(Expectation),
});

export interface LoadedExpectations {
  readonly active: ReadonlyMap<string, Expectation>;
  /** Entries past their expiry date: ignored, listed as a warning. */
  readonly expired: readonly Expectation[];
}

export const NO_EXPECTATIONS: LoadedExpectations = { active: new Map(), expired: [] };

export function parseExpectations(input: unknown, source: string, today: Date = new Date()): LoadedExpectations {
  const r = ExpectationFile.safeParse(input);
  if (!r.success) throw configError(`invalid expectation file ${source}:\n${z.prettifyError(r.error)}`);
  const active = new Map<string, Expectation>();
  const expired: Expectation[] = [];
  const todayIso = today.toISOString().slice(0, 10);
  const dup = new Set<string>();
  for (const e of r.data.expectations) {
    if (active.has(e.id) || dup.has(e.id)) throw configError(`invalid expectation file ${source}: ${e.id} is listed twice`);
    dup.add(e.id);
    if (e.expires !== undefined && e.expires < todayIso) expired.push(e);
    else active.set(e.id, e);
  }
  return { active, expired };
}

export async function loadExpectations(path: string, today?: Date): Promise<LoadedExpectations> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw configError(`--expect: cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw configError(`--expect: ${path} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseExpectations(json, path, today);
}
