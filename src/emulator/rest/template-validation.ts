// §2.5 validation of template create and update bodies, with the spec's zod schemas, turned
// into one problem per field ("<field>: <rule>") so that a 400 names every problem at once.
// The fault switch 'template-update-accepts-category' (§2.5) lets an update carry `category`.
import { z } from 'zod';
import { CREATE_ONLY_TEMPLATE_FIELDS, TEMPLATE_CATEGORIES, TemplateCreate, TemplateUpdate } from '../../spec/index.js';
import type { FaultSet } from '../faults.js';
import { isPlainObject } from '../json-io.js';

export interface FieldProblem {
  /** The field, as a path: `name`, `env.HOME`, `ports[2]`. */
  readonly field: string;
  readonly rule: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly FieldProblem[] };

/** An update body; `category` only ever appears under the fault switch. */
export type TemplateUpdateBody = TemplateUpdate & { category?: (typeof TEMPLATE_CATEGORIES)[number] };

const TemplateUpdateWithCategory = TemplateUpdate.extend({
  category: z.enum(TEMPLATE_CATEGORIES, { error: 'category must be one of NVIDIA, AMD, CPU' }).optional(),
});

const createOnly: ReadonlySet<string> = new Set(CREATE_ONLY_TEMPLATE_FIELDS);

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? 'body' : out;
}

/** The spec schemas phrase messages as "<field> must ..."; keep only the rule after the field name. */
function ruleOf(message: string, topField: string): string {
  return message.startsWith(`${topField} `) ? message.slice(topField.length + 1) : message;
}

function problemsOf(error: z.ZodError, body: Record<string, unknown>, mode: 'create' | 'update'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({
          field: key,
          rule: mode === 'update' && createOnly.has(key)
            ? 'is not accepted on update (create-only field, §2.5)'
            : 'is not a template field (§2.5)',
        });
      }
      continue;
    }
    const top = issue.path[0];
    const topField = typeof top === 'string' ? top : '';
    if (issue.path.length === 1 && topField !== '' && body[topField] === undefined) {
      problems.push({ field: topField, rule: 'is required' });
      continue;
    }
    problems.push({ field: fieldPath(issue.path), rule: ruleOf(issue.message, topField) });
  }
  return problems;
}

const notAnObject: Parsed<never> = { ok: false, problems: [{ field: 'body', rule: 'must be a JSON object' }] };

export function parseTemplateCreate(body: unknown): Parsed<TemplateCreate> {
  if (!isPlainObject(body)) return notAnObject;
  const r = TemplateCreate.safeParse(body);
  return r.success ? { ok: true, value: r.data } : { ok: false, problems: problemsOf(r.error, body, 'create') };
}

export function parseTemplateUpdate(body: unknown, faults: FaultSet): Parsed<TemplateUpdateBody> {
  if (!isPlainObject(body)) return notAnObject;
  const schema = faults.has('template-update-accepts-category') ? TemplateUpdateWithCategory : TemplateUpdate;
  const r = schema.safeParse(body);
  return r.success ? { ok: true, value: r.data } : { ok: false, problems: problemsOf(r.error, body, 'update') };
}

/** The `{error, code, problems}` body of a 400 (WIRE-COMPAT: `{error, code?}`). */
export function problemBody(problems: readonly FieldProblem[], code = 'INVALID_REQUEST'): { error: string; code: string; problems: readonly FieldProblem[] } {
  return { error: problems.map((p) => `${p.field}: ${p.rule}`).join('; '), code, problems };
}
