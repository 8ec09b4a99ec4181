// §2.5 / §4.2 REST templates: required fields, defaults, unique names, create-only fields
// refused on update, ports and mount-path rules, field types, the echoed record; §5 bearer
// auth and 401. Every template a check makes gets a unique name and is deleted afterwards
// (WIRE-COMPAT DELETE /v1/templates/{id}).
import { randomUUID } from 'node:crypto';
import {
  fail, API_VERSIONS, HTTP_STATUS, TEMPLATE_DEFAULTS, TemplateRecord, type CheckContext, type CheckDefinition,
  type ProbeResponse,
} from 'qbench/suite';
import { describe, expectRefusal, expectShape, expectStatus, field, send } from './lib/http.js';

const BASE = `/${API_VERSIONS.rest}/templates`;

function uniqueName(tag: string): string {
  return `qbench-${tag}-${randomUUID().slice(0, 8)}`;
}

function is2xx(res: ProbeResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

function expect2xx(res: ProbeResponse, what: string): void {
  if (!is2xx(res)) fail(`${what}: a 2xx answer (the success code is not specified)`, describe(res), res);
}

interface Made { readonly id: string; readonly res: ProbeResponse }

async function create(ctx: CheckContext, body: Record<string, unknown>, made: string[]): Promise<Made> {
  const res = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, json: body });
  expect2xx(res, 'POST /v1/templates with a valid body');
  const id = field(res.json, 'id');
  if (typeof id !== 'string' || id.length === 0) fail('a template record with a string id', describe(res), res);
  made.push(id);
  return { id, res };
}

function update(ctx: CheckContext, id: string, body: unknown): Promise<ProbeResponse> {
  return send(ctx, { iface: 'rest', method: 'POST', path: `${BASE}/${encodeURIComponent(id)}/update`, json: body });
}

async function cleanup(ctx: CheckContext, made: readonly string[]): Promise<void> {
  for (const id of made) await ctx.http.send({ iface: 'rest', method: 'DELETE', path: `${BASE}/${encodeURIComponent(id)}` }).catch(() => undefined);
}

/** Run `fn` with a list that collects the ids of created templates, deleting them afterwards. */
async function withTemplates<T>(ctx: CheckContext, fn: (made: string[]) => Promise<T>): Promise<T> {
  const made: string[] = [];
  try {
    return await fn(made);
  } finally {
    await cleanup(ctx, made);
  }
}

const IMAGE = 'qbench/conformance:latest';

export const templateChecks: CheckDefinition[] = [
  {
    id: 'rest.auth.missing-or-wrong-token-401',
    title: 'Template create and update answer 401 without a token and with a wrong one',
    clauses: ['5/401', '5/rest-auth', '7/401'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      for (const auth of ['none', 'wrong'] as const) {
        const c = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, auth, json: { name: uniqueName('auth'), imageName: IMAGE } });
        expectStatus(c, HTTP_STATUS.unauthorized, `POST /v1/templates with ${auth === 'none' ? 'no' : 'a wrong'} token`);
        const u = await send(ctx, { iface: 'rest', method: 'POST', path: `${BASE}/qbench-any/update`, auth, json: { readme: 'x' } });
        expectStatus(u, HTTP_STATUS.unauthorized, `POST /v1/templates/{id}/update with ${auth === 'none' ? 'no' : 'a wrong'} token`);
      }
      return undefined;
    },
  },
  {
    id: 'rest.template.defaults',
    title: 'Create with only name and imageName answers the record with every documented default',
    clauses: ['2.5/template-defaults', '4.2/template-create', '5/rest-auth', '9/versions'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const name = uniqueName('defaults');
        const { res } = await create(ctx, { name, imageName: IMAGE }, made);
        const rec = expectShape(res, TemplateRecord, 'the template record');
        const wrong = (Object.keys(TEMPLATE_DEFAULTS) as (keyof typeof TEMPLATE_DEFAULTS)[])
          .filter((k) => JSON.stringify(rec[k]) !== JSON.stringify(TEMPLATE_DEFAULTS[k]))
          .map((k) => `${k}=${JSON.stringify(rec[k])}`);
        if (wrong.length > 0) fail(`defaults ${JSON.stringify(TEMPLATE_DEFAULTS)}`, `differs: ${wrong.join(', ')}`, res);
        if (rec.name !== name || rec.imageName !== IMAGE) fail('name and imageName echoed', describe(res), res);
        return undefined;
      });
    },
  },
  {
    id: 'rest.template.required-fields',
    title: 'Create without name or without imageName is refused with 400',
    clauses: ['2.5/template-required', '7/400'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        for (const body of [{ imageName: IMAGE }, { name: uniqueName('noimage') }, {}]) {
          const res = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, json: body });
          const id = field(res.json, 'id');
          if (typeof id === 'string') made.push(id);
          expectStatus(res, HTTP_STATUS.badRequest, `POST /v1/templates with ${JSON.stringify(body)}`);
        }
        return undefined;
      });
    },
  },
  {
    id: 'rest.template.unique-name',
    title: 'A second template with the same name is refused',
    clauses: ['2.5/template-name-unique'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const name = uniqueName('unique');
        await create(ctx, { name, imageName: IMAGE }, made);
        const again = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, json: { name, imageName: 'other/image:1' } });
        const id = field(again.json, 'id');
        if (typeof id === 'string') made.push(id);
        expectRefusal(again, 'a second POST /v1/templates with the same name');
        // Renaming another template onto the taken name is refused as well.
        const other = await create(ctx, { name: uniqueName('unique-b'), imageName: IMAGE }, made);
        const rename = await update(ctx, other.id, { name });
        expectRefusal(rename, 'an update that renames a template onto a taken name');
        return { observed: `refused with ${again.status} (create) and ${rename.status} (rename)` };
      });
    },
  },
  {
    id: 'rest.template.create-only-on-update',
    title: 'Update refuses category and isServerless with 400 and leaves them unchanged',
    clauses: ['2.5/template-create-only', '4.2/template-update', '7/400'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const { id } = await create(ctx, { name: uniqueName('createonly'), imageName: IMAGE, category: 'NVIDIA', isServerless: false }, made);
        const cat = await update(ctx, id, { category: 'AMD' });
        expectStatus(cat, HTTP_STATUS.badRequest, 'update with category');
        const srv = await update(ctx, id, { isServerless: true });
        expectStatus(srv, HTTP_STATUS.badRequest, 'update with isServerless');
        const ok = await update(ctx, id, { readme: 'updated by qbench' });
        expect2xx(ok, 'update with readme only');
        const rec = expectShape(ok, TemplateRecord, 'the updated record');
        if (rec.category !== 'NVIDIA' || rec.isServerless) fail('category NVIDIA and isServerless false unchanged', describe(ok), [cat, srv, ok]);
        return undefined;
      });
    },
  },
  {
    id: 'rest.template.ports-and-mount-path',
    title: 'ports entries must be <port>/<http|tcp>; volumeMountPath must be absolute',
    clauses: ['2.5/template-ports', '2.5/template-mount-path', '7/400'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const good = await create(ctx, { name: uniqueName('ports'), imageName: IMAGE, ports: ['8888/http', '22/tcp'], volumeMountPath: '/data/models' }, made);
        const rec = expectShape(good.res, TemplateRecord, 'the record');
        if (JSON.stringify(rec.ports) !== JSON.stringify(['8888/http', '22/tcp']) || rec.volumeMountPath !== '/data/models') fail('ports and volumeMountPath echoed', describe(good.res), good.res);
        const bad: [string, Record<string, unknown>][] = [
          ['a port without protocol', { ports: ['8888'] }],
          ['protocol udp', { ports: ['8888/udp'] }],
          ['a non-numeric port', { ports: ['http/8888'] }],
          ['ports as a string', { ports: '8888/http' }],
          ['a relative volumeMountPath', { volumeMountPath: 'data/models' }],
        ];
        for (const [what, extra] of bad) {
          const res = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, json: { name: uniqueName('badports'), imageName: IMAGE, ...extra } });
          const id = field(res.json, 'id');
          if (typeof id === 'string') made.push(id);
          expectStatus(res, HTTP_STATUS.badRequest, `create with ${what}`);
          const up = await update(ctx, good.id, extra);
          expectStatus(up, HTTP_STATUS.badRequest, `update with ${what}`);
        }
        return undefined;
      });
    },
  },
  {
    id: 'rest.template.field-types',
    title: 'Fields of the wrong type (and an unknown category) are refused with 400',
    clauses: ['2.5/template-types', '2.5/template-category', '7/400'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const bad: [string, Record<string, unknown>][] = [
          ['category INTEL', { category: 'INTEL' }],
          ['containerDiskInGb as a string', { containerDiskInGb: '50' }],
          ['volumeInGb 2.5', { volumeInGb: 2.5 }],
          ['env with a number value', { env: { A: 1 } }],
          ['dockerEntrypoint as a string', { dockerEntrypoint: 'bash' }],
          ['isPublic as a string', { isPublic: 'yes' }],
          ['name as a number', { name: 42 }],
        ];
        for (const [what, extra] of bad) {
          const res = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, json: { name: uniqueName('types'), imageName: IMAGE, ...extra } });
          const id = field(res.json, 'id');
          if (typeof id === 'string') made.push(id);
          expectStatus(res, HTTP_STATUS.badRequest, `create with ${what}`);
        }
        for (const category of ['AMD', 'CPU']) await create(ctx, { name: uniqueName('cat'), imageName: IMAGE, category }, made);
        return undefined;
      });
    },
  },
  {
    id: 'rest.template.record-echo',
    title: 'Create and update answer the stored record: every written field echoed, plus id, earned, isProvider, runtimeInMin',
    clauses: ['2.5/template-record', '4.2/template-create', '4.2/template-update'],
    interface: 'rest', kind: 'spec', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const body = {
          name: uniqueName('echo'), imageName: IMAGE, category: 'CPU', containerDiskInGb: 12, dockerEntrypoint: ['bash', '-c'],
          dockerStartCmd: ['python', 'serve.py'], env: { MODE: 'test', EMPTY: '' }, isPublic: false, isServerless: true,
          ports: ['8000/http'], readme: '# qbench', volumeInGb: 7, volumeMountPath: '/vol',
        };
        const { id, res } = await create(ctx, body, made);
        const rec = expectShape(res, TemplateRecord, 'the create record');
        const differs = (Object.keys(body) as (keyof typeof body)[]).filter((k) => JSON.stringify(rec[k]) !== JSON.stringify(body[k]));
        if (differs.length > 0) fail('every written field echoed', `differs: ${differs.map((k) => `${k}=${JSON.stringify(rec[k])}`).join(', ')}`, res);
        const up = await update(ctx, id, { imageName: 'qbench/conformance:v2', volumeInGb: 9, env: { MODE: 'prod' } });
        expect2xx(up, 'update');
        const after = expectShape(up, TemplateRecord, 'the update record');
        if (after.id !== id || after.imageName !== 'qbench/conformance:v2' || after.volumeInGb !== 9 || JSON.stringify(after.env) !== JSON.stringify({ MODE: 'prod' })) {
          fail('the update applied (imageName, volumeInGb, env) on the same id', describe(up), up);
        }
        if (after.name !== body.name || after.containerDiskInGb !== body.containerDiskInGb || after.category !== 'CPU') fail('fields not in the update unchanged', describe(up), up);
        return undefined;
      });
    },
  },
  {
    id: 'rest.template.is-runpod',
    title: 'The record carries isRunpod beside isProvider, and errors are {error} JSON',
    clauses: ['compat/is-runpod', 'compat/error-body'],
    interface: 'rest', kind: 'compat', tags: [],
    async run(ctx) {
      return withTemplates(ctx, async (made) => {
        const { res } = await create(ctx, { name: uniqueName('compat'), imageName: IMAGE }, made);
        if (typeof field(res.json, 'isRunpod') !== 'boolean') fail('isRunpod (boolean) in the record', describe(res), res);
        const bad = await send(ctx, { iface: 'rest', method: 'POST', path: BASE, json: {} });
        if (typeof field(bad.json, 'error') !== 'string') fail('an error body {error: string}', describe(bad), bad);
        return undefined;
      });
    },
  },
];
