// The oracle: the spec schemas of src/spec classify every generated case as must-accept,
// must-refuse (with the documented status, §7: 400 for malformed requests and validation
// problems) or ambiguous where the spec allows more than one reading (the two "MB" readings
// of §4.1/§8, /status?ttl below policy.ttl's 10 s minimum, lenient integer parsing, null for
// an optional field, non-http webhook URLs). A target answer outside the class is a finding.
import { z } from 'zod';
import {
  HTTP_STATUS,
  JobRequest,
  StatusTtlQuery,
  TTL_MS,
  RUNSYNC_WAIT_MS,
  WaitQuery,
  RUN_PAYLOAD,
  RUNSYNC_PAYLOAD,
  TemplateCreate,
  TemplateUpdate,
  CREATE_ONLY_TEMPLATE_FIELDS,
} from '../spec/index.js';
import { bodyBytes, type CaseBody } from './case-body.js';
import type { JobRequestCase, PayloadCase, StatusTtlCase } from './queue-cases.js';

export type Expectation =
  | { readonly verdict: 'accept'; readonly reason: string }
  | { readonly verdict: 'refuse'; readonly statuses: readonly number[]; readonly reason: string }
  | { readonly verdict: 'ambiguous'; readonly reason: string };

/** §7: "400 Bad Request: malformed request or parameters; input validation problems." */
const REFUSE_400 = [HTTP_STATUS.badRequest] as const;
/**
 * An oversized body: §7 lists no 413, so 400 (a request problem) and 413 (HTTP's own status
 * for it) both count as a refusal; so does the server closing the connection mid-body.
 */
export const PAYLOAD_TOO_LARGE_STATUS = 413;
const REFUSE_OVERSIZE = [HTTP_STATUS.badRequest, PAYLOAD_TOO_LARGE_STATUS] as const;

const accept = (reason: string): Expectation => ({ verdict: 'accept', reason });
const refuse = (reason: string, statuses: readonly number[] = REFUSE_400): Expectation => ({ verdict: 'refuse', statuses, reason });
const ambiguous = (reason: string): Expectation => ({ verdict: 'ambiguous', reason });

function problems(error: z.ZodError): string {
  return z.prettifyError(error).replace(/\s*\n\s*/g, '; ');
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Copy of `value` with every `null` member of an object removed (recursively). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out;
}

/** An absolute URL whose scheme is not http(s): a URL, though not one a webhook can call. */
function isNonHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol !== 'http:' && u.protocol !== 'https:';
  } catch {
    return false;
  }
}

/**
 * Classify an object body against a schema. Readings that the spec leaves open (a null
 * standing for an absent optional field, a `webhook` that is a URL but not http) are
 * relaxed first: strict pass -> accept; only the relaxed body passes -> ambiguous; else refuse.
 */
function classifyObject(schema: z.ZodType, body: unknown, what: string): Expectation {
  const strict = schema.safeParse(body);
  if (strict.success) return accept(`valid ${what}`);
  let relaxed = withoutNulls(body);
  const notes: string[] = [];
  if (JSON.stringify(relaxed) !== JSON.stringify(body)) notes.push('null given for an optional field');
  if (isPlainObject(relaxed) && isNonHttpUrl(relaxed['webhook'])) {
    const { webhook: _webhook, ...rest } = relaxed;
    relaxed = rest;
    notes.push('webhook is a URL but not http(s)');
  }
  if (notes.length > 0 && schema.safeParse(relaxed).success) return ambiguous(`${what}: ${notes.join(', ')} (the spec does not say)`);
  return refuse(`invalid ${what}: ${problems(strict.error)}`);
}

function classifyBody(schema: z.ZodType, body: CaseBody, what: string): Expectation {
  if (body.kind === 'text') return refuse(`malformed JSON (${body.why})`);
  if (body.kind === 'padded') return accept(`valid ${what}`);
  if (!isPlainObject(body.value)) return refuse(`the ${what} must be a JSON object`);
  return classifyObject(schema, body.value, what);
}

/**
 * Classify a query integer (`wait`, `ttl`). Strict digits in range: accept. Text that a
 * lenient parser (parseInt, Number, or "empty means absent") would read as an in-range
 * value: ambiguous. Anything else: refuse.
 */
function classifyQueryInt(schema: z.ZodType, raw: string, range: { min: number; max: number }, what: string): Expectation {
  const strict = schema.safeParse(raw);
  if (strict.success) return accept(`${what}=${raw} is in range`);
  if (raw === '') return ambiguous(`empty ${what}: may be read as absent`);
  if (!/^-?\d+$/.test(raw)) {
    const lenient = [Number.parseInt(raw, 10), Number(raw)].filter((n) => Number.isInteger(n) && n >= range.min && n <= range.max);
    if (lenient.length > 0) return ambiguous(`${what}=${raw} is not an integer, but a lenient parser reads ${lenient[0]}`);
  }
  return refuse(`${what}=${raw}: ${problems(strict.error)}`);
}

/** Combine two classifications of one request: any refusal wins, then ambiguity. */
function both(a: Expectation, b: Expectation): Expectation {
  if (a.verdict === 'refuse') return a;
  if (b.verdict === 'refuse') return b;
  if (a.verdict === 'ambiguous') return a;
  if (b.verdict === 'ambiguous') return b;
  return accept(`${a.reason}; ${b.reason}`);
}

const RUNSYNC_WAIT_RANGE = { min: RUNSYNC_WAIT_MS.min, max: RUNSYNC_WAIT_MS.max };

/** §2.1 body and §4.1 `wait` of POST /run and /runsync. */
export function classifyJobRequest(c: JobRequestCase): Expectation {
  const body = classifyBody(JobRequest, c.body, 'job request');
  if (c.operation === 'run' || c.wait === undefined) return body;
  return both(body, classifyQueryInt(WaitQuery, c.wait, RUNSYNC_WAIT_RANGE, 'wait'));
}

/**
 * §4.1 GET /status/{id}?ttl=. policy.ttl's range (§2.1) must be accepted; below its 10 s
 * minimum the spec's own example (6000) says a smaller value works: ambiguous. `jobAgeMs` is
 * how long ago (emulated) the job was submitted: a ttl that has already run out may delete
 * the job at once (404), so such values are ambiguous too.
 */
export function classifyStatusTtl(c: StatusTtlCase, jobAgeMs: number): Expectation {
  const q = classifyQueryInt(StatusTtlQuery, c.ttl, { min: TTL_MS.min, max: TTL_MS.max }, 'ttl');
  if (q.verdict !== 'accept') return q;
  const ttlMs = Number(c.ttl);
  if (ttlMs < TTL_MS.min) return ambiguous(`ttl=${c.ttl} is below policy.ttl's minimum (${TTL_MS.min} ms, ${TTL_MS.section}) but the §4.1 example uses one`);
  if (ttlMs <= jobAgeMs) return ambiguous(`ttl=${c.ttl} ms has already run out for a job ${Math.round(jobAgeMs)} ms old`);
  return q;
}

/** §4.1/§8 payload caps: at or below the decimal reading accept, above the binary reading refuse. */
export function classifyPayload(c: PayloadCase): Expectation {
  const cap = c.operation === 'run' ? RUN_PAYLOAD : RUNSYNC_PAYLOAD;
  const bytes = bodyBytes(c.body);
  if (bytes <= cap.decimalBytes) return accept(`${bytes} bytes is within ${cap.megabytes} MB under both readings`);
  if (bytes > cap.binaryBytes) return refuse(`${bytes} bytes exceeds ${cap.megabytes} MB under both readings (${cap.section})`, REFUSE_OVERSIZE);
  return ambiguous(`${bytes} bytes lies between the decimal (${cap.decimalBytes}) and binary (${cap.binaryBytes}) readings of ${cap.megabytes} MB`);
}

/** What the oracle knows of the templates that exist (names are unique, §2.5). */
export interface TemplateNames {
  /** Names of templates that exist now. */
  readonly existing: ReadonlySet<string>;
}

/** §2.5 create body; a name already in use must be refused. */
export function classifyTemplateCreate(body: CaseBody, names: TemplateNames): Expectation {
  const e = classifyBody(TemplateCreate, body, 'template create body');
  if (e.verdict === 'refuse') return e;
  const name = body.kind === 'json' && isPlainObject(body.value) ? body.value['name'] : undefined;
  if (typeof name === 'string' && names.existing.has(name)) return refuse(`name "${name}" is already used by another template (§2.5 "must be unique")`);
  return e;
}

/** §2.5 update body: create-only fields refused; renaming onto another template's name refused. */
export function classifyTemplateUpdate(body: CaseBody, names: TemplateNames, currentName: string): Expectation {
  if (body.kind === 'json' && isPlainObject(body.value)) {
    const createOnly = CREATE_ONLY_TEMPLATE_FIELDS.filter((f) => Object.hasOwn(body.value as object, f));
    if (createOnly.length > 0) return refuse(`${createOnly.join(', ')} not accepted on update (§2.5)`);
  }
  const e = classifyBody(TemplateUpdate, body, 'template update body');
  if (e.verdict === 'refuse') return e;
  const name = body.kind === 'json' && isPlainObject(body.value) ? body.value['name'] : undefined;
  if (typeof name === 'string' && name !== currentName && names.existing.has(name)) return refuse(`name "${name}" is already used by another template (§2.5 "must be unique")`);
  return e;
}

/** Does an observed answer agree with the expectation? `status` null: the connection failed. */
export function agrees(e: Expectation, status: number | null): boolean {
  switch (e.verdict) {
    case 'ambiguous':
      return true;
    case 'accept':
      return status !== null && status >= 200 && status < 300;
    case 'refuse':
      return status !== null && e.statuses.includes(status);
  }
}

/** "expected" text of a finding. */
export function describeExpectation(e: Expectation): string {
  switch (e.verdict) {
    case 'accept':
      return `accepted (2xx): ${e.reason}`;
    case 'refuse':
      return `refused with ${e.statuses.join(' or ')}: ${e.reason}`;
    case 'ambiguous':
      return `either: ${e.reason}`;
  }
}

const POD_PORT_ENTRY = /^(\d{1,5})\/([a-z]+)$/;
/** Highest port number: `<port>` above it is not a port. */
const MAX_PORT_NUMBER = 65_535;

/**
 * §4.3 podFindAndDeployOnDemand input. The spec lists each field's type but neither which
 * fields are required, nor bounds, nor whether the list is complete: wrong types and broken
 * `<port>/<protocol>` strings must be refused; missing fields, unlisted fields, empty
 * strings, enum values beyond ALL/SECURE, other protocols and GraphQL's one-item-to-list
 * coercion are ambiguous; everything else must pass validation (the service may still
 * decline for stock, which is not a validation refusal).
 */
export function classifyPodInput(input: Readonly<Record<string, unknown>>, fields: Readonly<Record<string, string>>, required: readonly string[]): Expectation {
  const wrong: string[] = [];
  const open: string[] = [];
  const isString = (v: unknown): v is string => typeof v === 'string';
  const isEnvPair = (v: unknown) => isPlainObject(v) && isString(v['key']) && isString(v['value']) && Object.keys(v).length === 2;
  for (const [name, value] of Object.entries(input)) {
    const type = fields[name];
    if (type === undefined) {
      open.push(`${name} is not among the listed fields`);
      continue;
    }
    switch (type) {
      case 'integer':
        if (!Number.isInteger(value)) wrong.push(`${name} must be an integer`);
        break;
      case 'string':
        if (!isString(value)) wrong.push(`${name} must be a string`);
        else if (value === '') open.push(`${name} is empty`);
        break;
      case 'enum':
        if (!isString(value)) wrong.push(`${name} must be an enum value`);
        else if (value !== 'ALL' && value !== 'SECURE') open.push(`${name}=${value} is not one of the values shown (ALL, SECURE)`);
        break;
      case 'ports': {
        if (!isString(value)) {
          wrong.push(`${name} must be a string`);
          break;
        }
        const entries = value.split(',').map((e) => POD_PORT_ENTRY.exec(e));
        if (entries.some((m) => m?.[1] === undefined || Number(m[1]) < 1 || Number(m[1]) > MAX_PORT_NUMBER)) wrong.push(`${name} must be <port>/<protocol>`);
        else if (entries.some((m) => m?.[2] !== 'http' && m?.[2] !== 'tcp')) open.push(`${name} uses a protocol other than http or tcp`);
        break;
      }
      case 'env':
        if (Array.isArray(value) && value.every(isEnvPair)) break;
        if (isEnvPair(value)) open.push(`${name} is one pair, not a list (GraphQL coerces it)`);
        else wrong.push(`${name} must be a list of {key, value} strings`);
        break;
      case 'string-list':
        if (Array.isArray(value) && value.every(isString)) break;
        if (isString(value)) open.push(`${name} is one string, not a list (GraphQL coerces it)`);
        else wrong.push(`${name} must be a list of strings`);
        break;
    }
  }
  if (wrong.length > 0) return { verdict: 'refuse', statuses: [], reason: `invalid podFindAndDeployOnDemand input (§4.3): ${wrong.join('; ')}` };
  const missing = required.filter((f) => !Object.hasOwn(input, f));
  if (missing.length > 0) open.push(`${missing.join(', ')} missing (the spec does not say which fields are required)`);
  if (open.length > 0) return ambiguous(open.join('; '));
  return accept('valid podFindAndDeployOnDemand input');
}
