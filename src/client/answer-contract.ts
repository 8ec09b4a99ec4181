// The contract every answer of the target must keep, whatever the request was for: a success
// answer (2xx with a body) of a queue operation has the §4.1 shape (§2.2 job record with a §3.1
// state, §2.3 stream chunks, §2.4 health record, the exact {id, status} answers), a template
// operation's the §2.5 record, and a GraphQL answer carries exactly the fields its query selected
// with the §2.6-2.7 types. Error answers (their body shape is "not shown", §7) and the routes whose
// shape the spec does not give (/requests, /openai/*) are not judged here.
// The conformance probe and the fuzzer run every answer through `answerBreach` before a check or an
// oracle reasons about it, so a check cannot look past an answer no correct target would send.
import { z } from 'zod';
import { parse, Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import {
  CancelAnswer, GraphqlAnswer, HealthRecord, JobRecord, PurgeAnswer, RetryAnswer, RunAnswer, StreamAnswer, TemplateRecord,
  API_VERSIONS, STOCK_STATUSES,
} from '../spec/index.js';

export type AnswerInterface = 'queue' | 'rest' | 'graphql';

/** The request an answer belongs to, as far as the contract needs it. */
export interface ContractRequest {
  readonly iface: AnswerInterface;
  readonly method: string;
  /** The request's path: below the interface's base URL, or the whole URL path (a prefix is allowed). */
  readonly path: string;
  /** The JSON body sent (GraphQL: `{query, variables?, operationName?}`). */
  readonly json?: unknown;
}

export interface ContractAnswer {
  readonly status: number;
  readonly text: string;
  /** Parsed body, or undefined when it is empty or not JSON. */
  readonly json: unknown;
}

/** An answer no reading of the contract allows. */
export interface AnswerBreach {
  /** The section that gives the shape, e.g. `§4.1`. */
  readonly section: string;
  /** What the contract says the answer is. */
  readonly rule: string;
  /** Every problem found, one line each. */
  readonly problems: string;
}

/** A queue operation's path, below any prefix of the base URL. */
const QUEUE_OPERATION = /\/v2\/[^/]+\/(run|runsync|status|status-sync|stream|cancel|retry|purge-queue|health)(?:\/[^/]+)?\/?$/;

interface ShapeRule {
  readonly section: string;
  readonly rule: string;
  readonly schema: z.ZodType;
}

const QUEUE_SHAPES: Readonly<Record<string, ShapeRule>> = {
  run: { section: '§4.1', rule: '/run answers {id, status} with status IN_QUEUE', schema: RunAnswer },
  runsync: { section: '§4.1', rule: '/runsync answers a job record (§2.2) whose status is a job state (§3.1)', schema: JobRecord },
  status: { section: '§4.1', rule: '/status answers a job record (§2.2) whose status is a job state (§3.1)', schema: JobRecord },
  'status-sync': { section: '§4.1', rule: '/status-sync answers like /status: a job record (§2.2) whose status is a job state (§3.1)', schema: JobRecord },
  stream: { section: '§4.1', rule: '/stream answers stream chunks (§2.3): an array, or {status, stream} with a job state (§3.1)', schema: StreamAnswer },
  cancel: { section: '§4.1', rule: '/cancel answers {id, status} with status CANCELLED', schema: CancelAnswer },
  retry: { section: '§4.1', rule: '/retry answers {id, status} with status IN_QUEUE', schema: RetryAnswer },
  'purge-queue': { section: '§4.1', rule: '/purge-queue answers {removed: integer, status: "completed"}', schema: PurgeAnswer },
  health: { section: '§2.4', rule: '/health answers the health record: jobs.{completed, failed, inProgress, inQueue, retried} and workers.{idle, running}, integers', schema: HealthRecord },
};

const TEMPLATES = `/${API_VERSIONS.rest}/templates`;
const TEMPLATE_RECORD: ShapeRule = { section: '§2.5', rule: 'a template operation answers the template record', schema: TemplateRecord };
const TEMPLATE_LIST: ShapeRule = { section: '§2.5', rule: 'GET /v1/templates answers a list of template records', schema: z.array(TemplateRecord) };

function problemsOf(error: z.ZodError): string {
  return z.prettifyError(error).replace(/\s*\n\s*/g, '; ');
}

function isSuccess(a: ContractAnswer): boolean {
  return a.status >= 200 && a.status < 300 && a.text.trim() !== '';
}

function judgeShape(rule: ShapeRule, a: ContractAnswer): AnswerBreach | null {
  if (a.json === undefined) return { section: rule.section, rule: rule.rule, problems: `the ${a.status} answer's body is not JSON` };
  const r = rule.schema.safeParse(a.json);
  return r.success ? null : { section: rule.section, rule: rule.rule, problems: problemsOf(r.error) };
}

function restRule(method: string, path: string): ShapeRule | null {
  // Below any prefix of the base URL.
  const at = path.indexOf(`${TEMPLATES}`);
  if (at < 0) return null;
  const rest = path.slice(at).replace(/\/+$/, '');
  if (rest === TEMPLATES) return method === 'POST' ? TEMPLATE_RECORD : method === 'GET' ? TEMPLATE_LIST : null;
  if (!rest.startsWith(`${TEMPLATES}/`)) return null;
  const tail = rest.slice(TEMPLATES.length + 1).split('/');
  if (tail.length === 2 && tail[1] === 'update' && method === 'POST') return TEMPLATE_RECORD;
  if (tail.length === 1 && (method === 'GET' || method === 'PATCH')) return TEMPLATE_RECORD;
  return null;
}

/** The breach of the contract this answer shows, or null when some reading of the contract allows it. */
export function answerBreach(req: ContractRequest, a: ContractAnswer): AnswerBreach | null {
  if (req.iface === 'graphql') return graphqlBreach(req.json, a);
  if (!isSuccess(a)) return null;
  const path = req.path.split('?')[0] ?? '';
  if (req.iface === 'queue') {
    const op = QUEUE_OPERATION.exec(path)?.[1];
    const rule = op === undefined ? undefined : QUEUE_SHAPES[op];
    return rule ? judgeShape(rule, a) : null;
  }
  const rule = restRule(req.method, path);
  return rule ? judgeShape(rule, a) : null;
}

// --- GraphQL: the answer has the shape of the selection (GraphQL spec §6.3, §7.1) ---

/** A field's type as §2.6 / §2.7 give it. */
type FieldType =
  | { readonly kind: 'scalar'; readonly what: string; readonly ok: (v: unknown) => boolean; readonly nullable?: boolean }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, FieldType>>; readonly nullable?: boolean }
  | { readonly kind: 'list'; readonly of: FieldType; readonly nullable?: boolean }
  | { readonly kind: 'any' };

const str: FieldType = { kind: 'scalar', what: 'a string', ok: (v) => typeof v === 'string' };
const int: FieldType = { kind: 'scalar', what: 'an integer', ok: (v) => Number.isInteger(v) };
const num: FieldType = { kind: 'scalar', what: 'a number', ok: (v) => typeof v === 'number' && Number.isFinite(v) };
const nullableNum: FieldType = { ...num, nullable: true };
const bool: FieldType = { kind: 'scalar', what: 'a boolean', ok: (v) => typeof v === 'boolean' };
const obj = (fields: Record<string, FieldType>): FieldType => ({ kind: 'object', fields, nullable: true });
const list = (of: FieldType): FieldType => ({ kind: 'list', of, nullable: true });
const ANY: FieldType = { kind: 'any' };

/** §2.6 pod fields, with the WIRE-COMPAT extras. */
const POD: FieldType = obj({
  id: str, name: str, imageName: str, env: list(str), machineId: str, desiredStatus: str,
  machine: obj({ podHostId: str, gpuDisplayName: str }),
  runtime: obj({
    uptimeInSeconds: int,
    ports: list(obj({ ip: str, isIpPublic: bool, privatePort: int, publicPort: int, type: str })),
    gpus: list(obj({ id: str, gpuUtilPercent: num, memoryUtilPercent: num })),
    container: obj({ cpuPercent: num, memoryPercent: num }),
  }),
  costPerHr: num, gpuCount: int, vcpuCount: num, memoryInGb: num, lastStatusChange: str, uptimeSeconds: int, podType: str,
});

/** §2.7 GPU type fields. */
const GPU_TYPE: FieldType = obj({
  id: str, displayName: str, memoryInGb: int, secureCloud: bool, communityCloud: bool,
  lowestPrice: obj({
    minimumBidPrice: nullableNum, uninterruptablePrice: nullableNum,
    stockStatus: { kind: 'scalar', what: `one of ${STOCK_STATUSES.join(', ')}`, ok: (v) => (STOCK_STATUSES as readonly unknown[]).includes(v), nullable: true },
    availableGpuCounts: list(int),
  }),
});

/** §4.3 operations: the type each one's result has. */
const ROOT_FIELDS: Readonly<Record<string, FieldType>> = {
  podFindAndDeployOnDemand: POD, podRentInterruptable: POD, podResume: POD, podBidResume: POD, podStop: POD,
  pod: POD, myself: obj({ pods: list(POD) }), gpuTypes: list(GPU_TYPE), podTerminate: ANY,
};

const GRAPHQL_SECTION = '§4.3';
const GRAPHQL_RULE = 'results come under a top-level data object keyed by the operation name, with the fields the query selected (§2.6, §2.7 types)';

interface SelectedField {
  /** Response key: the alias or the field name. */
  readonly key: string;
  readonly name: string;
  /** Under @skip/@include or a fragment whose type condition may not apply: may be absent. */
  readonly optional: boolean;
  readonly selection: SelectionSetNode | undefined;
}

function selectedFields(set: SelectionSetNode, doc: DocumentNode, optional = false): SelectedField[] {
  const out: SelectedField[] = [];
  for (const s of set.selections) {
    const conditional = optional || (s.directives ?? []).some((d) => d.name.value === 'skip' || d.name.value === 'include');
    if (s.kind === Kind.FIELD) {
      out.push({ key: s.alias?.value ?? s.name.value, name: s.name.value, optional: conditional, selection: s.selectionSet });
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      out.push(...selectedFields(s.selectionSet, doc, conditional || s.typeCondition !== undefined));
    } else {
      const frag = doc.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
      if (frag?.kind === Kind.FRAGMENT_DEFINITION) out.push(...selectedFields(frag.selectionSet, doc, true));
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Problems of `value` (at `path`) against the selection and the field type. */
interface Walk {
  readonly doc: DocumentNode;
  readonly out: string[];
  /** The answer carries errors: a field that raised one is null whatever its type (GraphQL spec §6.4.4). */
  readonly errored: boolean;
}

function walk(value: unknown, type: FieldType, selection: SelectionSetNode | undefined, w: Walk, path: string): void {
  const out = w.out;
  if (type.kind === 'any') return;
  if (value === null) {
    if (type.nullable !== true && !w.errored) out.push(`${path} is null, not ${type.kind === 'scalar' ? type.what : type.kind === 'list' ? 'a list' : 'an object'}`);
    return;
  }
  if (type.kind === 'scalar') {
    if (!type.ok(value)) out.push(`${path} is ${JSON.stringify(value)}, not ${type.what}`);
    return;
  }
  if (type.kind === 'list') {
    if (!Array.isArray(value)) {
      out.push(`${path} is not a list`);
      return;
    }
    value.forEach((v: unknown, i) => walk(v, type.of, selection, w, `${path}[${i}]`));
    return;
  }
  if (!isObject(value)) {
    out.push(`${path} is ${JSON.stringify(value)}, not an object`);
    return;
  }
  if (selection === undefined) return;
  objectAgainstSelection(value, selection, w, path, (name) => type.fields[name]);
}

function objectAgainstSelection(value: Record<string, unknown>, selection: SelectionSetNode, w: Walk, path: string, typeOf: (name: string) => FieldType | undefined): void {
  const out = w.out;
  const fields = selectedFields(selection, w.doc);
  const keys = new Set(fields.map((f) => f.key));
  for (const f of fields) {
    const at = path === '' ? f.key : `${path}.${f.key}`;
    if (!Object.hasOwn(value, f.key)) {
      if (!f.optional && !fields.some((g) => g.key === f.key && g !== f && Object.hasOwn(value, g.key))) out.push(`${at} was selected but is missing`);
      continue;
    }
    const t = f.name === '__typename' ? str : typeOf(f.name);
    // A field outside §2.6 / §2.7 and WIRE-COMPAT: its presence is judged, its type is not known.
    if (t === undefined) continue;
    walk(value[f.key], t, f.selection, w, at);
  }
  for (const k of Object.keys(value)) if (!keys.has(k)) out.push(`${path === '' ? k : `${path}.${k}`} is in the answer but was not selected`);
}

function operationOf(doc: DocumentNode, name: unknown): OperationDefinitionNode | undefined {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (typeof name === 'string') return ops.find((o) => o.name?.value === name);
  return ops.length === 1 ? ops[0] : undefined;
}

function graphqlBreach(body: unknown, a: ContractAnswer): AnswerBreach | null {
  // Any status but 200 carries no GraphQL result the contract shapes (WIRE-COMPAT: errors come with 200).
  if (a.status !== 200) return null;
  const breach = (problems: string): AnswerBreach => ({ section: GRAPHQL_SECTION, rule: GRAPHQL_RULE, problems });
  if (a.json === undefined) return breach('the 200 answer\'s body is not JSON');
  const shape = GraphqlAnswer.safeParse(a.json);
  if (!shape.success) return breach(problemsOf(shape.error));
  const query = isObject(body) ? body['query'] : undefined;
  if (typeof query !== 'string') return null;
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch {
    // A query that does not parse has no selection to answer (the target answers errors).
    return null;
  }
  const op = operationOf(doc, isObject(body) ? body['operationName'] : undefined);
  const data = shape.data.data;
  if (op === undefined || data === null || data === undefined) {
    if (data === undefined && (shape.data.errors ?? []).length === 0) return breach('neither data nor errors in the answer');
    return null;
  }
  const out: string[] = [];
  objectAgainstSelection(data, op.selectionSet, { doc, out, errored: (shape.data.errors ?? []).length > 0 }, '', (name) => ROOT_FIELDS[name]);
  return out.length === 0 ? null : breach(out.map((p) => `data.${p}`).join('; '));
}
