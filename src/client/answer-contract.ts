// The contract every answer of the target must keep, whatever the request was for: a success
// answer (2xx with a body) of a queue operation has the §4.1 shape (§2.2 job record with a §3.1
// state, §2.3 stream chunks, §2.4 health record, the exact {id, status} answers), a template create
// or update the §2.5 record, and a GraphQL answer carries exactly the fields its query selected
// with the §2.6-2.7 types. Only what SERVICE-SPEC.md states: error answers (their body shape is
// "not shown", §7), the routes whose shape it does not give (/requests, /openai/*) and the
// WIRE-COMPAT routes and extras (/status-sync, template GET/PATCH, workerId, error) are not judged here.
// The conformance probe and the fuzzer run every answer through `answerBreach` before a check or an
// oracle reasons about it, so a check cannot look past an answer no correct target would send.
import { z } from 'zod';
import { parse, Kind, OperationTypeNode, type DirectiveNode, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import {
  GraphqlAnswer, HealthRecord, JobRecord, PurgeAnswer, RetryAnswer, RunAnswer, StreamAnswer, StreamChunk, StreamObjectAnswer, TemplateRecord,
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
/** A queue operation's path, below any prefix of the base URL (the routes §4.1 gives a shape for). */
const QUEUE_OPERATION = /\/v2\/[^/]+\/(run|runsync|status|stream|cancel|retry|purge-queue|health)(?:\/[^/]+)?\/?$/;

interface ShapeRule {
  readonly section: string;
  readonly rule: string;
  readonly schema: z.ZodType;
}

/**
 * §2.2 job record as the spec gives it: the WIRE-COMPAT extras (workerId, error) are not judged
 * here, since a compat fact never fails a spec check.
 */
const SpecJobRecord = JobRecord.omit({ workerId: true, error: true });

/** /stream: a bare array, or the WIRE-COMPAT object; judged by the form the answer took, so the problems name fields. */
const STREAM_ARRAY = z.array(StreamChunk);

const QUEUE_SHAPES: Readonly<Record<string, ShapeRule>> = {
  run: { section: '§4.1', rule: '/run answers {id, status} with status IN_QUEUE', schema: RunAnswer },
  runsync: { section: '§4.1', rule: '/runsync answers a job record (§2.2) whose status is a job state (§3.1)', schema: SpecJobRecord },
  status: { section: '§4.1', rule: '/status answers a job record (§2.2) whose status is a job state (§3.1)', schema: SpecJobRecord },
  stream: { section: '§4.1', rule: '/stream answers stream chunks (§2.3): an array, or {status, stream} with a job state (§3.1)', schema: StreamAnswer },
  // A cancel of a queued or running job answers CANCELLED (§3.1, checked by the cancel checks); what
  // it answers for a job that already ended is not shown, so here only the record's shape is judged.
  cancel: { section: '§4.1', rule: '/cancel answers {id, status} with a job state (§3.1)', schema: SpecJobRecord.pick({ id: true, status: true }) },
  retry: { section: '§4.1', rule: '/retry answers {id, status} with status IN_QUEUE', schema: RetryAnswer },
  'purge-queue': { section: '§4.1', rule: '/purge-queue answers {removed: integer, status: "completed"}', schema: PurgeAnswer },
  health: { section: '§2.4', rule: '/health answers the health record: jobs.{completed, failed, inProgress, inQueue, retried} and workers.{idle, running}, integers', schema: HealthRecord },
};

const TEMPLATES = `/${API_VERSIONS.rest}/templates`;
const TEMPLATE_RECORD: ShapeRule = { section: '§2.5', rule: 'template create and update answer the template record', schema: TemplateRecord };

function problemsOf(error: z.ZodError): string {
  return z.prettifyError(error).replace(/\s*\n\s*/g, '; ');
}

function isSuccess(a: ContractAnswer): boolean {
  return a.status >= 200 && a.status < 300 && a.text.trim() !== '';
}

function judgeShape(rule: ShapeRule, a: ContractAnswer): AnswerBreach | null {
  if (a.json === undefined) return { section: rule.section, rule: rule.rule, problems: `the ${a.status} answer's body is not JSON` };
  const schema = rule.schema === StreamAnswer ? (Array.isArray(a.json) ? STREAM_ARRAY : StreamObjectAnswer) : rule.schema;
  const r = schema.safeParse(a.json);
  return r.success ? null : { section: rule.section, rule: rule.rule, problems: problemsOf(r.error) };
}

/** The §4.2 operations: create (POST /v1/templates) and update (POST /v1/templates/{id}/update). */
function restRule(method: string, path: string): ShapeRule | null {
  if (method !== 'POST') return null;
  // Below any prefix of the base URL.
  const at = path.indexOf(TEMPLATES);
  if (at < 0) return null;
  const rest = path.slice(at + TEMPLATES.length).replace(/\/+$/, '');
  return rest === '' || /^\/[^/]+\/update$/.test(rest) ? TEMPLATE_RECORD : null;
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

// --- GraphQL: the answer has the shape of the selection (GraphQL spec §6.3 CollectFields, §7.1) ---

/** A field's type as §2.6 / §2.7 give it; every field may be null (GraphQL's default) but `id`. */
type FieldType =
  | { readonly kind: 'scalar'; readonly what: string; readonly ok: (v: unknown) => boolean; readonly nonNull?: boolean }
  | { readonly kind: 'object'; readonly typeName: string; readonly fields: Readonly<Record<string, FieldType>> }
  | { readonly kind: 'list'; readonly of: FieldType }
  | { readonly kind: 'any' };

const str: FieldType = { kind: 'scalar', what: 'a string', ok: (v) => typeof v === 'string' };
const id: FieldType = { ...str, nonNull: true };
const int: FieldType = { kind: 'scalar', what: 'an integer', ok: (v) => Number.isInteger(v) };
const num: FieldType = { kind: 'scalar', what: 'a number', ok: (v) => typeof v === 'number' && Number.isFinite(v) };
const bool: FieldType = { kind: 'scalar', what: 'a boolean', ok: (v) => typeof v === 'boolean' };
const obj = (typeName: string, fields: Record<string, FieldType>): FieldType => ({ kind: 'object', typeName, fields });
const list = (of: FieldType): FieldType => ({ kind: 'list', of });
const ANY: FieldType = { kind: 'any' };

/** §2.6 pod fields, with the WIRE-COMPAT extras. */
const POD: FieldType = obj('Pod', {
  id, name: str, imageName: str, env: list(str), machineId: str, desiredStatus: str,
  machine: obj('PodMachineInfo', { podHostId: str, gpuDisplayName: str }),
  runtime: obj('PodRuntime', {
    uptimeInSeconds: int,
    ports: list(obj('PodRuntimePorts', { ip: str, isIpPublic: bool, privatePort: int, publicPort: int, type: str })),
    gpus: list(obj('PodRuntimeGpus', { id: str, gpuUtilPercent: num, memoryUtilPercent: num })),
    container: obj('PodRuntimeContainer', { cpuPercent: num, memoryPercent: num }),
  }),
  costPerHr: num, gpuCount: int, vcpuCount: num, memoryInGb: num, lastStatusChange: str, uptimeSeconds: int, podType: str,
});

/** §2.7 GPU type fields. */
const GPU_TYPE: FieldType = obj('GpuType', {
  id, displayName: str, memoryInGb: int, secureCloud: bool, communityCloud: bool,
  lowestPrice: obj('LowestPrice', {
    minimumBidPrice: num, uninterruptablePrice: num,
    stockStatus: { kind: 'scalar', what: `one of ${STOCK_STATUSES.join(', ')}`, ok: (v) => (STOCK_STATUSES as readonly unknown[]).includes(v) },
    availableGpuCounts: list(int),
  }),
});

/** §4.3 operations: the type each one's result has. */
const QUERY: FieldType = obj('Query', { pod: POD, myself: obj('User', { pods: list(POD) }), gpuTypes: list(GPU_TYPE) });
const MUTATION: FieldType = obj('Mutation', {
  podFindAndDeployOnDemand: POD, podRentInterruptable: POD, podResume: POD, podBidResume: POD, podStop: POD, podTerminate: ANY,
});

const GRAPHQL_SECTION = '§4.3';
const GRAPHQL_RULE = 'results come under a top-level data object keyed by the operation name, with the fields the query selected (§2.6, §2.7 types)';

interface Walk {
  /** The answer carries errors: a field that raised one is null whatever its type (GraphQL spec §6.4.4). */
  readonly errored: boolean;
  readonly doc: DocumentNode;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly out: string[];
}

/** One response key: the field name and every sub-selection merged under it. */
interface CollectedField {
  readonly name: string;
  /** Present for certain (false: under a directive or fragment whose outcome is not known here). */
  readonly certain: boolean;
  readonly selections: SelectionSetNode[];
}

/** A directive list's verdict: 'skip' (not selected), 'keep', or 'unknown' (a variable not given). */
function directiveOutcome(node: { readonly directives?: readonly DirectiveNode[] | undefined }, w: Walk): 'skip' | 'keep' | 'unknown' {
  let outcome: 'skip' | 'keep' | 'unknown' = 'keep';
  for (const d of node.directives ?? []) {
    if (d.name.value !== 'skip' && d.name.value !== 'include') continue;
    const arg = d.arguments?.find((a) => a.name.value === 'if')?.value;
    const value = arg?.kind === Kind.BOOLEAN ? arg.value : arg?.kind === Kind.VARIABLE ? w.variables[arg.name.value] : undefined;
    if (typeof value !== 'boolean') {
      outcome = 'unknown';
      continue;
    }
    if ((d.name.value === 'skip') === value) return 'skip';
  }
  return outcome;
}

/** CollectFields: the selection's fields by response key, fragments applying to `typeName` merged in. */
function collectFields(set: SelectionSetNode, typeName: string | undefined, w: Walk, into = new Map<string, CollectedField>(), certain = true): Map<string, CollectedField> {
  for (const s of set.selections) {
    const outcome = directiveOutcome(s, w);
    if (outcome === 'skip') continue;
    const sure = certain && outcome === 'keep';
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const had = into.get(key);
      const selections = [...(had?.selections ?? []), ...(s.selectionSet ? [s.selectionSet] : [])];
      into.set(key, { name: s.name.value, certain: sure || had?.certain === true, selections });
      continue;
    }
    const frag = s.kind === Kind.INLINE_FRAGMENT ? s : w.doc.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
    if (frag === undefined || (frag.kind !== Kind.INLINE_FRAGMENT && frag.kind !== Kind.FRAGMENT_DEFINITION)) continue;
    const condition = frag.typeCondition?.name.value;
    // A fragment on another concrete type does not apply; on an unknown type (an interface) it may.
    if (condition !== undefined && typeName !== undefined && condition !== typeName && KNOWN_TYPES.has(condition)) continue;
    collectFields(frag.selectionSet, typeName, w, into, sure && (condition === undefined || condition === typeName));
  }
  return into;
}

/** The object type names of the tables above (a fragment on another one of them cannot apply). */
function typeNames(t: FieldType, into: Set<string>): Set<string> {
  if (t.kind === 'list') typeNames(t.of, into);
  if (t.kind === 'object' && !into.has(t.typeName)) {
    into.add(t.typeName);
    for (const f of Object.values(t.fields)) typeNames(f, into);
  }
  return into;
}
const KNOWN_TYPES: ReadonlySet<string> = typeNames(MUTATION, typeNames(QUERY, new Set()));

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function merged(selections: readonly SelectionSetNode[]): SelectionSetNode | undefined {
  if (selections.length === 0) return undefined;
  return { kind: Kind.SELECTION_SET, selections: selections.flatMap((x) => x.selections) };
}

/** Problems of `value` (at `path`) against the selection and the field type. */
function walk(value: unknown, type: FieldType | undefined, selection: SelectionSetNode | undefined, w: Walk, path: string): void {
  const out = w.out;
  if (type?.kind === 'any') return;
  if (value === null) {
    if (type?.kind === 'scalar' && type.nonNull === true && !w.errored) out.push(`${path} is null, not ${type.what}`);
    return;
  }
  if (Array.isArray(value)) {
    if (type !== undefined && type.kind !== 'list') out.push(`${path} is a list, not ${type.kind === 'scalar' ? type.what : 'an object'}`);
    value.forEach((v: unknown, i) => walk(v, type?.kind === 'list' ? type.of : undefined, selection, w, `${path}[${i}]`));
    return;
  }
  if (type?.kind === 'list') {
    out.push(`${path} is ${JSON.stringify(value)}, not a list`);
    return;
  }
  if (selection === undefined) {
    if (type?.kind === 'scalar' && !type.ok(value)) out.push(`${path} is ${JSON.stringify(value)}, not ${type.what}`);
    return;
  }
  if (!isObject(value)) {
    out.push(`${path} is ${JSON.stringify(value)}, not an object`);
    return;
  }
  objectAgainstSelection(value, selection, type?.kind === 'object' ? type : undefined, w, path);
}

function objectAgainstSelection(value: Record<string, unknown>, selection: SelectionSetNode, type: Extract<FieldType, { kind: 'object' }> | undefined, w: Walk, path: string): void {
  const fields = collectFields(selection, type?.typeName, w);
  for (const [key, f] of fields) {
    const at = path === '' ? key : `${path}.${key}`;
    if (!Object.hasOwn(value, key)) {
      if (f.certain) w.out.push(`${at} was selected but is missing`);
      continue;
    }
    // A field outside §2.6 / §2.7 and WIRE-COMPAT: its presence is judged, its type is not known.
    const t = f.name === '__typename' ? str : type?.fields[f.name];
    walk(value[key], t, merged(f.selections), w, at);
  }
  for (const k of Object.keys(value)) if (!fields.has(k)) w.out.push(`${path === '' ? k : `${path}.${k}`} is in the answer but was not selected`);
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
  const variables = isObject(body) && isObject(body['variables']) ? body['variables'] : {};
  const out: string[] = [];
  const root = op.operation === OperationTypeNode.MUTATION ? MUTATION : op.operation === OperationTypeNode.QUERY ? QUERY : undefined;
  objectAgainstSelection(data, op.selectionSet, root?.kind === 'object' ? root : undefined, { doc, variables, out, errored: (shape.data.errors ?? []).length > 0 }, '');
  return out.length === 0 ? null : breach(out.map((p) => `data.${p}`).join('; '));
}
