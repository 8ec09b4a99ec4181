// The jobs calibration sends: the user's own --input files (each one job body, §2.1 {input,
// policy?}), one input class each, named by the value of the class field in the input (given
// with --class-field, or the one top-level field whose values tell the files apart).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { JobRequest } from '../spec/index.js';
import { usageError } from '../errors.js';
import type { InputClass } from './observations.js';

/** With no --input: an empty input, what the emulator's model handler (and mock worker) accepts. */
export const DEFAULT_INPUT_CLASS: InputClass = { id: 'default', body: { input: {} } };

async function readBody(file: string): Promise<InputClass['body']> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw usageError(`--input ${file}: cannot read a JSON job body: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = JobRequest.safeParse(parsed);
  if (!r.success) throw usageError(`--input ${file}: not a job body {input, policy?} (§2.1):\n${z.prettifyError(r.error)}`);
  if (r.data.webhook !== undefined) throw usageError(`--input ${file}: leave out "webhook": calibration jobs call no webhook`);
  return r.data;
}

const classValue = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/** The top-level input field whose (scalar) values differ in every body; undefined when none does. */
export function findClassField(bodies: ReadonlyArray<InputClass['body']>): string | undefined {
  const first = bodies[0];
  if (first === undefined) return undefined;
  return Object.keys(first.input).find((k) => {
    const values = bodies.map((b) => classValue(b.input[k]));
    return values.every((v) => v !== undefined) && new Set(values).size === bodies.length;
  });
}

export interface InputClasses {
  readonly classes: readonly InputClass[];
  /** The field naming a job's class; undefined with one class. */
  readonly classField: string | undefined;
}

export async function loadInputClasses(files: readonly string[], classField: string | undefined): Promise<InputClasses> {
  if (files.length === 0) {
    if (classField !== undefined) throw usageError('--class-field needs --input files (one job body per class)');
    return { classes: [DEFAULT_INPUT_CLASS], classField: undefined };
  }
  const bodies = await Promise.all(files.map(readBody));
  if (files.length === 1) {
    const id = classField === undefined ? path.basename(files[0] as string).replace(/\.json$/i, '') : (classValue(bodies[0]?.input[classField]) ?? path.basename(files[0] as string));
    return { classes: [{ id, body: bodies[0] as InputClass['body'] }], classField: undefined };
  }
  const field = classField ?? findClassField(bodies);
  if (field === undefined) throw usageError(`--input: ${files.length} files but no input field tells them apart: name one with --class-field (its value is the class)`);
  const ids = bodies.map((b, i) => {
    const v = classValue(b.input[field]);
    if (v === undefined) throw usageError(`--class-field ${field}: ${files[i]} has no string, number or boolean input.${field}`);
    return v;
  });
  if (new Set(ids).size !== ids.length) throw usageError(`--class-field ${field}: two --input files share the value "${ids.find((v, i) => ids.indexOf(v) !== i)}"; one file per class`);
  return { classes: bodies.map((body, i) => ({ id: ids[i] as string, body })), classField: field };
}
