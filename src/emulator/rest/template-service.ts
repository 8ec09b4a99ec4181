// The REST template interface (§2.5, §4.2, §5, §7, §9; WIRE-COMPAT REST): create, get, list,
// update (POST .../update and PATCH), delete under `/v1/templates`, plus the binding of a
// queue endpoint to a serverless template (`PATCH /v1/endpoints/{id}` with `{templateId}`)
// that rolling releases (§4.2) follow. Bearer auth; errors are `{error, code}` JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { API_VERSIONS, HTTP_STATUS } from '../../spec/index.js';
import type { EmulatorServices, SubService } from '../sub-services.js';
import { bearerToken, keyMatches } from '../auth.js';
import { closeIfBodyPending, closeLingering, isPlainObject, readJsonBody, sendJson, sendNoContent } from '../json-io.js';
import { templateStoreFor, type StoredTemplate, type TemplateStore } from './template-store.js';
import { parseTemplateCreate, parseTemplateUpdate, problemBody, type FieldProblem } from './template-validation.js';

const TEMPLATES_PATH = `/${API_VERSIONS.rest}/templates`;
const ENDPOINTS_PATH = `/${API_VERSIONS.rest}/endpoints`;
const METHOD_NOT_ALLOWED = 405;
const PAYLOAD_TOO_LARGE = 413;

type Route =
  | { readonly op: 'collection' }
  | { readonly op: 'item'; readonly id: string }
  | { readonly op: 'item-update'; readonly id: string }
  | { readonly op: 'endpoint'; readonly endpointId: string }
  | { readonly op: 'endpoint-update'; readonly endpointId: string }
  | { readonly op: 'unknown' };

function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Which REST route a path names; null when the path is not this service's. */
function routeOf(pathname: string): Route | null {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  let base: 'templates' | 'endpoints';
  let rest: string;
  if (path === TEMPLATES_PATH || path.startsWith(`${TEMPLATES_PATH}/`)) {
    base = 'templates';
    rest = path.slice(TEMPLATES_PATH.length);
  } else if (path.startsWith(`${ENDPOINTS_PATH}/`)) {
    base = 'endpoints';
    rest = path.slice(ENDPOINTS_PATH.length);
  } else {
    return null;
  }
  const segs = rest.split('/').filter((s) => s !== '').map(decodeSegment);
  if (segs.some((s) => s === undefined)) return { op: 'unknown' };
  const [first, second, ...more] = segs as string[];
  if (more.length > 0) return { op: 'unknown' };
  if (base === 'templates') {
    if (first === undefined) return { op: 'collection' };
    if (second === undefined) return { op: 'item', id: first };
    return second === 'update' ? { op: 'item-update', id: first } : { op: 'unknown' };
  }
  if (first === undefined) return null;
  if (second === undefined) return { op: 'endpoint', endpointId: first };
  return second === 'update' ? { op: 'endpoint-update', endpointId: first } : null;
}

const ALLOWED: Record<Exclude<Route['op'], 'unknown'>, readonly string[]> = {
  collection: ['GET', 'POST'],
  item: ['GET', 'PATCH', 'DELETE'],
  'item-update': ['POST'],
  endpoint: ['PATCH'],
  'endpoint-update': ['POST'],
};

const BoolQuery = z.enum(['true', 'false'], { error: 'must be true or false' });

const EndpointBinding = z.strictObject({
  templateId: z.string({ error: 'templateId must be a string' }).min(1, { error: 'templateId must not be empty' }),
});

export function createTemplateService(services: EmulatorServices): SubService {
  const store: TemplateStore = templateStoreFor(services);

  const badRequest = (res: ServerResponse, problems: readonly FieldProblem[], code?: string) =>
    sendJson(res, HTTP_STATUS.badRequest, problemBody(problems, code));
  const notFound = (res: ServerResponse, id: string) =>
    sendJson(res, HTTP_STATUS.notFound, { error: `templateId: no template with id "${id}"`, code: 'NOT_FOUND' });
  const readOnly = (res: ServerResponse, id: string) =>
    // §7: 401 covers "lacking permission" as well as a wrong key.
    sendJson(res, HTTP_STATUS.unauthorized, {
      error: `templateId: "${id}" is an official template managed by the service operator; it cannot be changed or deleted`,
      code: 'READ_ONLY_TEMPLATE',
    });

  /** The JSON object body, or an answer already sent (undefined). */
  async function objectBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const body = await readJsonBody(req);
    switch (body.kind) {
      case 'json':
        return body.value;
      case 'empty':
        badRequest(res, [{ field: 'body', rule: 'must be a JSON object (the request had no body)' }]);
        return undefined;
      case 'invalid-json':
        badRequest(res, [{ field: 'body', rule: `is not valid JSON (${body.reason})` }]);
        return undefined;
      case 'too-deep':
        sendJson(res, HTTP_STATUS.badRequest, { error: body.reason, code: 'BODY_TOO_DEEP' });
        return undefined;
      case 'too-large':
        sendJson(res, PAYLOAD_TOO_LARGE, { error: `body: larger than ${body.limitBytes} bytes`, code: 'BODY_TOO_LARGE' }, closeLingering(req, body.limitBytes));
        return undefined;
      case 'aborted':
        return undefined;
    }
  }

  function startRelease(t: StoredTemplate): void {
    if (t.fields.isServerless !== true) return;
    const version = t.version;
    store.releaseStarted(t.id, version);
    services.rollingRelease(t.id, version).then(
      () => store.releaseEnded(t.id, version),
      (e: unknown) => store.releaseEnded(t.id, version, e instanceof Error ? e.message : String(e)),
    );
  }

  async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await objectBody(req, res);
    if (body === undefined) return;
    const parsed = parseTemplateCreate(body);
    if (!parsed.ok) return badRequest(res, parsed.problems);
    const out = store.create(parsed.value);
    if (out.kind === 'duplicate-name') {
      return badRequest(res, [{ field: 'name', rule: `must be unique: a template named "${out.name}" already exists` }], 'DUPLICATE_NAME');
    }
    sendJson(res, HTTP_STATUS.ok, store.toRecord(out.template));
  }

  async function update(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const body = await objectBody(req, res);
    if (body === undefined) return;
    // An unknown id, then a template the caller may not change, come before judging the body.
    const existing = store.get(id);
    if (!existing) return notFound(res, id);
    if (existing.owner === 'provider') return readOnly(res, id);
    const parsed = parseTemplateUpdate(body, services.faults);
    if (!parsed.ok) return badRequest(res, parsed.problems);
    const out = store.update(id, parsed.value);
    switch (out.kind) {
      case 'not-found':
        return notFound(res, id);
      case 'read-only':
        return readOnly(res, id);
      case 'duplicate-name':
        return badRequest(res, [{ field: 'name', rule: `must be unique: another template is already named "${out.name}"` }], 'DUPLICATE_NAME');
      case 'updated':
        startRelease(out.template);
        return sendJson(res, HTTP_STATUS.ok, store.toRecord(out.template));
    }
  }

  function list(res: ServerResponse, url: URL): void {
    const problems: FieldProblem[] = [];
    const flags: Record<string, boolean> = {};
    for (const name of ['includeRunpodTemplates', 'includePublicTemplates', 'includeEndpointBoundTemplates']) {
      const raw = url.searchParams.get(name);
      if (raw === null) continue;
      const r = BoolQuery.safeParse(raw);
      if (r.success) flags[name] = r.data === 'true';
      else problems.push({ field: name, rule: 'must be true or false' });
    }
    if (problems.length > 0) return badRequest(res, problems);
    const all = store.list(flags.includeRunpodTemplates === true);
    sendJson(res, HTTP_STATUS.ok, all.map((t) => store.toRecord(t)));
  }

  function remove(res: ServerResponse, id: string): void {
    const out = store.delete(id);
    switch (out.kind) {
      case 'not-found':
        return notFound(res, id);
      case 'read-only':
        return readOnly(res, id);
      case 'in-use':
        return badRequest(
          res,
          [{ field: 'templateId', rule: `is in use by endpoint(s) ${out.endpointIds.join(', ')}; bind them to another template first` }],
          'TEMPLATE_IN_USE',
        );
      case 'deleted':
        return sendNoContent(res);
    }
  }

  async function bindEndpoint(req: IncomingMessage, res: ServerResponse, endpointId: string): Promise<void> {
    const body = await objectBody(req, res);
    if (body === undefined) return;
    if (!isPlainObject(body)) return badRequest(res, [{ field: 'body', rule: 'must be a JSON object' }]);
    const parsed = EndpointBinding.safeParse(body);
    if (!parsed.success) {
      const problems: FieldProblem[] = parsed.error.issues.flatMap((i) =>
        i.code === 'unrecognized_keys'
          ? i.keys.map((k) => ({ field: k, rule: 'is not supported by the emulator (only templateId can be changed on an endpoint)' }))
          : [{ field: 'templateId', rule: body.templateId === undefined ? 'is required' : i.message.replace(/^templateId /, '') }],
      );
      return badRequest(res, problems);
    }
    const { templateId } = parsed.data;
    const t = store.get(templateId);
    if (!t) return badRequest(res, [{ field: 'templateId', rule: `no template with id "${templateId}"` }]);
    if (t.fields.isServerless !== true) {
      return badRequest(res, [{ field: 'templateId', rule: `template "${templateId}" is a pod template (isServerless false); endpoints need a serverless template` }]);
    }
    if (!services.bindEndpoint || !services.bindEndpoint(endpointId, templateId, t.version)) {
      return sendJson(res, HTTP_STATUS.notFound, { error: `endpointId: no endpoint with id "${endpointId}"`, code: 'NOT_FOUND' });
    }
    store.bind(endpointId, templateId);
    sendJson(res, HTTP_STATUS.ok, { id: endpointId, templateId, templateVersion: t.version });
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, r: Route): Promise<void> {
    const method = req.method ?? 'GET';
    if (r.op === 'unknown') return void sendJson(res, HTTP_STATUS.notFound, { error: `path: no REST route ${url.pathname}`, code: 'NOT_FOUND' });
    const allowed = ALLOWED[r.op];
    if (!allowed.includes(method)) {
      return sendJson(res, METHOD_NOT_ALLOWED, { error: `method: ${method} is not allowed on ${url.pathname} (allowed: ${allowed.join(', ')})`, code: 'METHOD_NOT_ALLOWED' }, { allow: allowed.join(', ') });
    }
    switch (r.op) {
      case 'collection':
        return method === 'POST' ? create(req, res) : list(res, url);
      case 'item': {
        if (method === 'PATCH') return update(req, res, r.id);
        if (method === 'DELETE') return remove(res, r.id);
        const t = store.get(r.id);
        return t ? sendJson(res, HTTP_STATUS.ok, store.toRecord(t)) : notFound(res, r.id);
      }
      case 'item-update':
        return update(req, res, r.id);
      case 'endpoint':
      case 'endpoint-update':
        return bindEndpoint(req, res, r.endpointId);
    }
  }

  return {
    name: 'rest-templates',
    async handle(req, res, url) {
      const r = routeOf(url.pathname);
      if (r === null) return false;
      // §5: Authorization: Bearer <token>; the 'rest-auth-off' fault waives it.
      // The body of a request with a wrong key is never read: the connection closes after the 401.
      if (!services.faults.has('rest-auth-off') && !keyMatches(bearerToken(req), services.apiKey)) {
        sendJson(res, HTTP_STATUS.unauthorized, {
          error: 'authorization: missing or wrong API key (send Authorization: Bearer <API_KEY>)',
          code: 'UNAUTHORIZED',
        }, closeIfBodyPending(req));
        return true;
      }
      await route(req, res, url, r);
      return true;
    },
    info: () => store.info(),
    reset: () => store.reset(),
  };
}
