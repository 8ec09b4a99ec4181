// The GraphQL pod interface (§2.6, §2.7, §3.2, §4.3, §5, §7, §9; WIRE-COMPAT GraphQL):
// POST /graphql with {query, variables?, operationName?}, run by the graphql engine on the
// SDL schema. Auth by `?api_key=` or `Authorization: Bearer`; a wrong or missing key is
// HTTP 401; every GraphQL-level error (parse, validation, refusal) is HTTP 200 with `errors`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildSchema, execute as executeDocument, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { GraphqlRequest, HTTP_STATUS } from '../../spec/index.js';
import { keyMatches, bearerToken } from '../auth.js';
import { closeIfBodyPending, closeLingering, readJsonBody, sendJson } from '../json-io.js';
import { MAX_JSON_DEPTH, documentNestingExceeds } from '../json-limits.js';
import { templateStoreFor } from '../rest/template-store.js';
import type { EmulatorServices, SubService } from '../sub-services.js';
import { DEFAULT_CATALOGUE, type GpuCatalogue } from './gpu-catalogue.js';
import { PodStore } from './pod-store.js';
import { createRootValue, type RequestContext } from './resolvers.js';
import { POD_SCHEMA_SDL } from './schema-sdl.js';
import { Stock } from './stock.js';

/** §9: the GraphQL address carries no version segment. */
export const GRAPHQL_PATH = '/graphql';
const METHOD_NOT_ALLOWED = 405;
const PAYLOAD_TOO_LARGE = 413;
const INTERNAL = 'INTERNAL_SERVER_ERROR';
/** Bounds the parser's work on a hostile document (real client documents use a few hundred tokens). */
const MAX_DOCUMENT_TOKENS = 20_000;

let schemaOnce: GraphQLSchema | undefined;
/** Built once per process: the SDL is constant. */
export function podSchema(): GraphQLSchema {
  schemaOnce ??= buildSchema(POD_SCHEMA_SDL);
  return schemaOnce;
}

/** Distinct valid documents kept parsed; real clients use a handful. */
const DOCUMENT_CACHE_ENTRIES = 256;
/** Longer documents are parsed every time, so the cache stays small whatever clients send. */
const MAX_CACHED_DOCUMENT_CHARS = 16_384;

/** A small LRU map from document text to its parsed, validated AST. */
class DocumentCache {
  private readonly entries = new Map<string, DocumentNode>();
  constructor(private readonly capacity: number) {}

  get(query: string): DocumentNode | undefined {
    const doc = this.entries.get(query);
    if (doc !== undefined) {
      // Refresh its place: Map iteration order is insertion order.
      this.entries.delete(query);
      this.entries.set(query, doc);
    }
    return doc;
  }

  set(query: string, doc: DocumentNode): void {
    this.entries.set(query, doc);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

export interface PodServiceOptions {
  /** The GPU catalogue (default: the built-in one). */
  readonly catalogue?: GpuCatalogue;
}

function requestError(res: ServerResponse, status: number, message: string, code: string, headers?: Readonly<Record<string, string>>): void {
  sendJson(res, status, { errors: [{ message, extensions: { code } }] }, headers);
}

/**
 * Every error carries extensions.code (Apollo's names for the engine's own errors); errors
 * thrown by our code that are not GraphQLErrors must not leak internals.
 */
function formatErrors(errors: readonly GraphQLError[], defaultCode: string): unknown[] {
  return errors.map((e) => {
    if (e.originalError && !(e.originalError instanceof GraphQLError)) {
      return { message: 'Internal error', path: e.path, locations: e.locations, extensions: { code: INTERNAL } };
    }
    const json = e.toJSON();
    return typeof json.extensions?.code === 'string' ? json : { ...json, extensions: { ...json.extensions, code: defaultCode } };
  });
}

/**
 * The 'graphql-field-omitted' fault: the first pod or GPU type object of the answer (a root field's
 * object, or the first element of its list, one level of nesting for myself.pods) loses its last key.
 */
function omitLastSelectedField(data: unknown): void {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(data)) return;
  const first = (v: unknown): Record<string, unknown> | undefined => (Array.isArray(v) ? v.find(isObj) : isObj(v) ? v : undefined);
  for (const value of Object.values(data)) {
    let target = first(value);
    if (target !== undefined && Object.keys(target).length === 1 && Array.isArray(Object.values(target)[0])) target = first(Object.values(target)[0]);
    const keys = target === undefined ? [] : Object.keys(target);
    const last = keys.at(-1);
    if (target !== undefined && keys.length > 1 && last !== undefined) {
      delete target[last];
      return;
    }
  }
}

export function createPodService(services: EmulatorServices, options: PodServiceOptions = {}): SubService {
  const schema = podSchema();
  const stock = new Stock(options.catalogue ?? DEFAULT_CATALOGUE);
  const store = new PodStore(stock, services.clock, services.faults);
  const templates = templateStoreFor(services);
  templates.setRuntimeSource((id) => store.templateRunMs(id));
  const rootValue = createRootValue(store, stock, templates);
  // Load tests send the same few documents over and over: parse and validate each once.
  const validDocuments = new DocumentCache(DOCUMENT_CACHE_ENTRIES);

  function authorised(req: IncomingMessage, url: URL): boolean {
    if (services.faults.has('graphql-auth-off')) return true;
    const queryKey = url.searchParams.get('api_key') ?? undefined;
    return keyMatches(queryKey, services.apiKey) || keyMatches(bearerToken(req), services.apiKey);
  }

  async function execute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too-large') return requestError(res, PAYLOAD_TOO_LARGE, `body: larger than ${body.limitBytes} bytes`, 'PAYLOAD_TOO_LARGE', closeLingering(req, body.limitBytes));
    if (body.kind === 'too-deep') return requestError(res, HTTP_STATUS.badRequest, body.reason, 'BAD_REQUEST');
    if (body.kind === 'empty') return requestError(res, HTTP_STATUS.badRequest, 'body: must be a JSON object with a "query" string', 'BAD_REQUEST');
    if (body.kind === 'invalid-json') return requestError(res, HTTP_STATUS.badRequest, `body: is not valid JSON (${body.reason})`, 'BAD_REQUEST');
    const parsed = GraphqlRequest.safeParse(body.value);
    if (!parsed.success) {
      const message = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`).join('; ');
      return requestError(res, HTTP_STATUS.badRequest, message, 'BAD_REQUEST');
    }
    const { query, variables, operationName } = parsed.data;
    const contextValue: RequestContext = { nowMs: services.clock.now() };
    let document = validDocuments.get(query);
    if (document === undefined) {
      // The engine's parser and validator recurse once per nesting level: refuse deep documents first.
      if (documentNestingExceeds(query)) {
        const message = `query: nested more than ${MAX_JSON_DEPTH} levels deep (the emulator accepts at most ${MAX_JSON_DEPTH})`;
        return sendJson(res, HTTP_STATUS.ok, { errors: [{ message, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
      }
      try {
        document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
      } catch (e) {
        if (!(e instanceof GraphQLError)) throw e;
        return sendJson(res, HTTP_STATUS.ok, { errors: formatErrors([e], 'GRAPHQL_PARSE_FAILED') });
      }
      const invalid = validate(schema, document);
      if (invalid.length > 0) return sendJson(res, HTTP_STATUS.ok, { errors: formatErrors(invalid, 'GRAPHQL_VALIDATION_FAILED') });
      if (query.length <= MAX_CACHED_DOCUMENT_CHARS) validDocuments.set(query, document);
    }
    const result = await executeDocument({
      schema,
      document,
      rootValue,
      contextValue,
      variableValues: variables ?? null,
      operationName: operationName ?? null,
    });
    const answer: Record<string, unknown> = {};
    // Errors without a path come from variable coercion or operation selection: the caller's input.
    if (result.errors) answer.errors = formatErrors(result.errors, 'BAD_USER_INPUT');
    if ('data' in result) answer.data = result.data ?? null;
    if (services.faults.has('graphql-field-omitted')) omitLastSelectedField(answer.data);
    sendJson(res, HTTP_STATUS.ok, answer);
  }

  return {
    name: 'graphql-pods',
    async handle(req, res, url) {
      if (url.pathname !== GRAPHQL_PATH && url.pathname !== `${GRAPHQL_PATH}/`) return false;
      // The body of a request with a wrong key is never read: the connection closes after the 401.
      if (!authorised(req, url)) {
        const error = 'api_key: missing or wrong API key (send ?api_key=<API_KEY> or Authorization: Bearer <API_KEY>)';
        sendJson(res, HTTP_STATUS.unauthorized, { error, errors: [{ message: error, extensions: { code: 'UNAUTHENTICATED' } }] }, closeIfBodyPending(req));
        return true;
      }
      if (req.method !== 'POST') {
        sendJson(res, METHOD_NOT_ALLOWED, { errors: [{ message: `method: ${req.method ?? ''} is not allowed; send POST`, extensions: { code: 'METHOD_NOT_ALLOWED' } }] }, { allow: 'POST', ...closeIfBodyPending(req) });
        return true;
      }
      await execute(req, res);
      return true;
    },
    info: () => ({
      pods: store.list().map((p) => ({ id: p.id, desiredStatus: p.desiredStatus, gpuTypeId: p.gpuType.id, gpuCount: p.gpuCount, machineId: p.machine.id, podType: p.kind })),
      gpuStock: stock.summary(),
    }),
    reset: () => store.reset(),
  };
}
