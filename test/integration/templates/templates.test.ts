// §2.5, §4.2, §5, §7 and WIRE-COMPAT REST: every template operation, every validation rule
// with the value on each side of its boundary, auth, and the REST fault switches.
/* eslint-disable @typescript-eslint/no-unsafe-call -- JSON answers are untyped; the tests assert their shape */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMPLATE_DEFAULTS, TemplateRecord } from '../../../src/spec/index.js';
import { MAX_DOCUMENT_BODY_BYTES } from '../../../src/emulator/rest/index.js';
import { mountSubServices, TEST_API_KEY, type Mounted } from './mount.js';
import { rest } from './rest-client.js';

let m: Mounted;
let seq = 0;
const uniqueName = (prefix = 'tpl') => `${prefix}-${++seq}`;
const create = (body: Record<string, unknown>) => rest(m.url, 'POST', '/v1/templates', body);
const minimal = () => ({ name: uniqueName(), imageName: 'alpine:3.20' });

describe('REST templates', () => {
  beforeEach(async () => {
    m = await mountSubServices();
  });
  afterEach(async () => {
    await m.close();
  });

  describe('§5 auth', () => {
    it('answers 401 JSON without a key, with a wrong key and with the raw (non-Bearer) key', async () => {
      for (const authorization of [null, 'Bearer wrong-key', TEST_API_KEY, `Basic ${TEST_API_KEY}`, 'Bearer']) {
        const r = await rest(m.url, 'GET', '/v1/templates', undefined, { authorization });
        expect(r.status, String(authorization)).toBe(401);
        expect(r.contentType).toMatch(/^application\/json/);
        expect(r.body.error).toMatch(/^authorization: /);
        expect(JSON.stringify(r.body)).not.toContain(TEST_API_KEY);
      }
    });
    it('accepts Bearer with any case of the scheme', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const r = await rest(m.url, 'GET', '/v1/templates', undefined, { authorization: `${scheme} ${TEST_API_KEY}` });
        expect(r.status).toBe(200);
      }
    });
    it('checks auth before anything else, also on unknown template ids and bad bodies', async () => {
      expect((await rest(m.url, 'GET', '/v1/templates/nope', undefined, { authorization: null })).status).toBe(401);
      expect((await rest(m.url, 'POST', '/v1/templates', undefined, { authorization: null, rawBody: '{' })).status).toBe(401);
    });
  });

  describe('create (§2.5 create column, §4.2)', () => {
    it('applies every documented default and adds id, earned, isProvider, isRunpod, runtimeInMin', async () => {
      const body = minimal();
      const r = await create(body);
      expect(r.status).toBe(200);
      expect(r.contentType).toMatch(/^application\/json/);
      const rec = TemplateRecord.parse(r.body);
      expect(rec).toMatchObject({
        name: body.name,
        imageName: body.imageName,
        category: TEMPLATE_DEFAULTS.category,
        containerDiskInGb: TEMPLATE_DEFAULTS.containerDiskInGb,
        dockerEntrypoint: [],
        dockerStartCmd: [],
        isPublic: false,
        isServerless: false,
        readme: '',
        volumeInGb: TEMPLATE_DEFAULTS.volumeInGb,
        volumeMountPath: TEMPLATE_DEFAULTS.volumeMountPath,
        env: {},
        ports: [],
        earned: 0,
        isProvider: false,
        isRunpod: false,
        runtimeInMin: 0,
      });
      expect(rec.id).toMatch(/^[a-z0-9]{10}$/);
      expect(r.body).not.toHaveProperty('containerRegistryAuthId');
    });

    it('echoes every writable field it was given', async () => {
      const body = {
        name: uniqueName('full'),
        imageName: 'ghcr.io/acme/worker:1.2.3',
        category: 'AMD',
        containerDiskInGb: 7,
        containerRegistryAuthId: 'cra-123',
        dockerEntrypoint: ['/bin/sh', '-c'],
        dockerStartCmd: ['python', 'handler.py'],
        env: { HF_HOME: '/workspace/hf', EMPTY: '' },
        isPublic: true,
        isServerless: true,
        ports: ['8888/http', '22/tcp'],
        readme: '# Hello',
        volumeInGb: 0,
        volumeMountPath: '/data',
      };
      const r = await create(body);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject(body);
      const got = await rest(m.url, 'GET', `/v1/templates/${r.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(r.body);
    });

    it('requires name and imageName, naming both at once', async () => {
      const r = await create({});
      expect(r.status).toBe(400);
      expect(r.body.error).toContain('name: is required');
      expect(r.body.error).toContain('imageName: is required');
      expect(r.body.problems).toHaveLength(2);
    });

    // Each rule with the value just outside and just inside its boundary.
    const cases: { field: string; bad: unknown; good: unknown; rule: RegExp }[] = [
      { field: 'name', bad: '', good: 'x', rule: /must not be empty/ },
      { field: 'name', bad: 42, good: 'n42', rule: /must be a string/ },
      { field: 'imageName', bad: '', good: 'a', rule: /must not be empty/ },
      { field: 'containerDiskInGb', bad: -1, good: 0, rule: /must not be negative/ },
      { field: 'containerDiskInGb', bad: 1.5, good: 2, rule: /whole number/ },
      { field: 'containerDiskInGb', bad: '5', good: 5, rule: /must be a number/ },
      { field: 'volumeInGb', bad: -1, good: 0, rule: /must not be negative/ },
      { field: 'volumeInGb', bad: 0.5, good: 1, rule: /whole number/ },
      { field: 'ports', bad: ['0/http'], good: ['1/http'], rule: /port 1-65535/ },
      { field: 'ports', bad: ['65536/tcp'], good: ['65535/tcp'], rule: /port 1-65535/ },
      { field: 'ports', bad: ['8080/udp'], good: ['8080/tcp'], rule: /protocol http or tcp/ },
      { field: 'ports', bad: ['8080'], good: ['8080/http'], rule: /<port_number>\/<protocol>/ },
      { field: 'ports', bad: '8080/http', good: ['8080/http', '22/tcp'], rule: /array/ },
      { field: 'volumeMountPath', bad: 'workspace', good: '/', rule: /absolute path/ },
      { field: 'volumeMountPath', bad: '', good: '/w', rule: /absolute path/ },
      { field: 'env', bad: { A: 1 }, good: { A: '1' }, rule: /string/ },
      { field: 'env', bad: ['A=1'], good: {}, rule: /object/ },
      { field: 'category', bad: 'INTEL', good: 'CPU', rule: /one of NVIDIA, AMD, CPU/ },
      { field: 'isServerless', bad: 'true', good: true, rule: /boolean/ },
      { field: 'isPublic', bad: 1, good: false, rule: /boolean/ },
      { field: 'dockerEntrypoint', bad: [1], good: ['a'], rule: /./ },
      { field: 'dockerStartCmd', bad: 'python x.py', good: ['python', 'x.py'], rule: /array/ },
      { field: 'readme', bad: null, good: '', rule: /string/ },
      { field: 'containerRegistryAuthId', bad: 7, good: 'c7', rule: /string/ },
    ];
    it.each(cases)('$field: refuses $bad, accepts $good', async ({ field, bad, good, rule }) => {
      const refused = await create({ ...minimal(), [field]: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.problems.length).toBe(1);
      const problem = refused.body.problems[0];
      expect(problem.field.startsWith(field)).toBe(true);
      expect(problem.rule).toMatch(rule);
      expect(refused.body.error).toBe(`${problem.field}: ${problem.rule}`);
      const accepted = await create({ ...minimal(), [field]: good });
      expect(accepted.status).toBe(200);
      expect(accepted.body[field]).toEqual(good);
    });

    it('names every problem of one body at once', async () => {
      const r = await create({ name: '', imageName: 'x', ports: ['1/http', '70000/http'], env: { A: 'a', B: 2 }, volumeMountPath: 'rel', colour: 'red' });
      expect(r.status).toBe(400);
      const fields = r.body.problems.map((p: { field: string }) => p.field).sort();
      expect(fields).toEqual(['colour', 'env.B', 'name', 'ports[1]', 'volumeMountPath']);
      expect(r.body.error.split('; ')).toHaveLength(5);
    });

    it('refuses a duplicate name with a clear 400, and frees the name on delete', async () => {
      const name = uniqueName('dup');
      const first = await create({ name, imageName: 'a' });
      expect(first.status).toBe(200);
      const second = await create({ name, imageName: 'b' });
      expect(second.status).toBe(400);
      expect(second.body.code).toBe('DUPLICATE_NAME');
      expect(second.body.error).toMatch(/^name: must be unique/);
      expect((await rest(m.url, 'DELETE', `/v1/templates/${first.body.id}`)).status).toBe(204);
      expect((await create({ name, imageName: 'c' })).status).toBe(200);
    });

    it('answers 400 for a body that is not a JSON object, 413 past the size cap', async () => {
      for (const rawBody of ['{', '[]', '"x"', 'null', '']) {
        const r = await rest(m.url, 'POST', '/v1/templates', undefined, { rawBody });
        expect(r.status, rawBody).toBe(400);
        expect(r.body.error).toMatch(/^body: /);
      }
      const big = await rest(m.url, 'POST', '/v1/templates', undefined, { rawBody: JSON.stringify({ ...minimal(), readme: 'x'.repeat(MAX_DOCUMENT_BODY_BYTES) }) });
      expect(big.status).toBe(413);
      expect(big.body.error).toMatch(/^body: larger than/);
    });
  });

  describe('update (§4.2 POST .../update and WIRE-COMPAT PATCH)', () => {
    it.each([
      ['POST', (id: string) => `/v1/templates/${id}/update`],
      ['PATCH', (id: string) => `/v1/templates/${id}`],
    ] as const)('%s changes only the fields given and keeps the id', async (method, pathOf) => {
      const created = await create({ ...minimal(), env: { A: '1' }, ports: ['80/http'] });
      const r = await rest(m.url, method, pathOf(created.body.id), { imageName: 'alpine:3.21', volumeInGb: 30 });
      expect(r.status).toBe(200);
      TemplateRecord.parse(r.body);
      expect(r.body).toEqual({ ...created.body, imageName: 'alpine:3.21', volumeInGb: 30 });
      expect((await rest(m.url, 'GET', `/v1/templates/${created.body.id}`)).body).toEqual(r.body);
    });

    it('refuses the create-only fields category and isServerless', async () => {
      const created = await create(minimal());
      const r = await rest(m.url, 'PATCH', `/v1/templates/${created.body.id}`, { category: 'CPU', isServerless: true });
      expect(r.status).toBe(400);
      expect(r.body.problems.map((p: { field: string }) => p.field).sort()).toEqual(['category', 'isServerless']);
      expect(r.body.error).toContain('not accepted on update');
      expect((await rest(m.url, 'GET', `/v1/templates/${created.body.id}`)).body.category).toBe('NVIDIA');
    });

    it('applies the same field rules as create, boundary values included', async () => {
      const created = await create(minimal());
      const path = `/v1/templates/${created.body.id}`;
      expect((await rest(m.url, 'PATCH', path, { containerDiskInGb: -1 })).status).toBe(400);
      expect((await rest(m.url, 'PATCH', path, { containerDiskInGb: 0 })).status).toBe(200);
      expect((await rest(m.url, 'PATCH', path, { ports: ['65536/tcp'] })).status).toBe(400);
      expect((await rest(m.url, 'PATCH', path, { ports: ['65535/tcp'] })).status).toBe(200);
      expect((await rest(m.url, 'PATCH', path, { name: '' })).body.error).toBe('name: must not be empty');
      expect((await rest(m.url, 'PATCH', path, { volumeMountPath: 'x' })).body.error).toBe('volumeMountPath: must be an absolute path');
    });

    it('refuses a rename onto another template, allows keeping its own name', async () => {
      const a = await create(minimal());
      const b = await create(minimal());
      const clash = await rest(m.url, 'POST', `/v1/templates/${b.body.id}/update`, { name: a.body.name });
      expect(clash.status).toBe(400);
      expect(clash.body.code).toBe('DUPLICATE_NAME');
      expect(clash.body.error).toContain(a.body.name);
      const same = await rest(m.url, 'POST', `/v1/templates/${b.body.id}/update`, { name: b.body.name });
      expect(same.status).toBe(200);
    });

    it('answers 404 for an unknown template id, on update, get and delete', async () => {
      for (const [method, path, body] of [
        ['POST', '/v1/templates/doesnotexist/update', { name: 'x' }],
        ['PATCH', '/v1/templates/doesnotexist', { name: 'x' }],
        ['GET', '/v1/templates/doesnotexist', undefined],
        ['DELETE', '/v1/templates/doesnotexist', undefined],
      ] as const) {
        const r = await rest(m.url, method, path, body);
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.error).toBe('templateId: no template with id "doesnotexist"');
      }
    });
  });

  describe('get, list, delete', () => {
    it('lists the user templates; includeRunpodTemplates=true adds the official ones', async () => {
      const a = await create(minimal());
      const b = await create(minimal());
      const mine = await rest(m.url, 'GET', '/v1/templates');
      expect(mine.status).toBe(200);
      expect(mine.body.map((t: { id: string }) => t.id)).toEqual([a.body.id, b.body.id]);
      const all = await rest(m.url, 'GET', '/v1/templates?includeRunpodTemplates=true');
      const official = all.body.filter((t: { isProvider: boolean }) => t.isProvider);
      expect(official.length).toBeGreaterThan(0);
      for (const t of official) {
        TemplateRecord.parse(t);
        expect(t.isRunpod).toBe(true);
        expect(t.runtimeInMin).toBeGreaterThan(0);
      }
      const bad = await rest(m.url, 'GET', '/v1/templates?includeRunpodTemplates=yes');
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('includeRunpodTemplates: must be true or false');
    });

    it('official templates can be read but not changed or deleted (401: lacking permission, §7)', async () => {
      const all = await rest(m.url, 'GET', '/v1/templates?includeRunpodTemplates=true');
      const official = all.body.find((t: { isProvider: boolean }) => t.isProvider);
      expect((await rest(m.url, 'GET', `/v1/templates/${official.id}`)).status).toBe(200);
      const upd = await rest(m.url, 'PATCH', `/v1/templates/${official.id}`, { readme: 'mine now' });
      expect(upd.status).toBe(401);
      expect(upd.body.code).toBe('READ_ONLY_TEMPLATE');
      expect((await rest(m.url, 'DELETE', `/v1/templates/${official.id}`)).status).toBe(401);
      // Permission is judged before the body.
      expect((await rest(m.url, 'PATCH', `/v1/templates/${official.id}`, { category: 'CPU' })).status).toBe(401);
    });

    it('delete answers 204 with no body, then the template is gone', async () => {
      const a = await create(minimal());
      const del = await rest(m.url, 'DELETE', `/v1/templates/${a.body.id}`);
      expect(del.status).toBe(204);
      expect(del.body).toBeNull();
      expect((await rest(m.url, 'GET', `/v1/templates/${a.body.id}`)).status).toBe(404);
      expect((await rest(m.url, 'DELETE', `/v1/templates/${a.body.id}`)).status).toBe(404);
    });

    it('answers 405 with Allow for a wrong method and 404 for an unknown sub-path', async () => {
      const r = await rest(m.url, 'PUT', '/v1/templates/abc');
      expect(r.status).toBe(405);
      expect(r.allow).toBe('GET, PATCH, DELETE');
      expect((await rest(m.url, 'GET', '/v1/templates/abc/update')).status).toBe(405);
      const unknown = await rest(m.url, 'GET', '/v1/templates/abc/def');
      expect(unknown.status).toBe(404);
      expect(unknown.contentType).toMatch(/^application\/json/);
    });
  });

  describe('rolling release hooks (§4.2)', () => {
    it('binds an endpoint to a serverless template and starts a release on each update of it', async () => {
      const t = await create({ ...minimal(), isServerless: true });
      const bind = await rest(m.url, 'PATCH', '/v1/endpoints/ep-1', { templateId: t.body.id });
      expect(bind.status).toBe(200);
      expect(bind.body).toEqual({ id: 'ep-1', templateId: t.body.id, templateVersion: 1 });
      expect(m.bindings).toEqual([{ endpointId: 'ep-1', templateId: t.body.id, version: 1 }]);

      await rest(m.url, 'PATCH', `/v1/templates/${t.body.id}`, { imageName: 'worker:2' });
      await rest(m.url, 'POST', `/v1/templates/${t.body.id}/update`, { imageName: 'worker:3' });
      expect(m.releases).toEqual([{ templateId: t.body.id, version: 2 }, { templateId: t.body.id, version: 3 }]);
      const info = m.info() as { templates: { id: string; version: number; endpoints: string[] }[]; releases: { state: string; version: number }[] };
      expect(info.templates.find((x) => x.id === t.body.id)).toMatchObject({ version: 3, endpoints: ['ep-1'] });
      expect(info.releases).toEqual([expect.objectContaining({ state: 'done', version: 3 })]);
      // A template in use cannot be deleted.
      const del = await rest(m.url, 'DELETE', `/v1/templates/${t.body.id}`);
      expect(del.status).toBe(400);
      expect(del.body.code).toBe('TEMPLATE_IN_USE');
    });

    it('does not release pod templates, and refuses to bind one', async () => {
      const t = await create(minimal());
      await rest(m.url, 'PATCH', `/v1/templates/${t.body.id}`, { imageName: 'x:2' });
      expect(m.releases).toEqual([]);
      const bind = await rest(m.url, 'POST', '/v1/endpoints/ep-1/update', { templateId: t.body.id });
      expect(bind.status).toBe(400);
      expect(bind.body.error).toMatch(/^templateId: .*pod template/);
    });

    it('validates the binding: unknown endpoint 404, unknown template 400, other fields 400', async () => {
      const t = await create({ ...minimal(), isServerless: true });
      expect((await rest(m.url, 'PATCH', '/v1/endpoints/nope', { templateId: t.body.id })).status).toBe(404);
      const unknownTpl = await rest(m.url, 'PATCH', '/v1/endpoints/ep-1', { templateId: 'zzz' });
      expect(unknownTpl.status).toBe(400);
      expect(unknownTpl.body.error).toBe('templateId: no template with id "zzz"');
      const extra = await rest(m.url, 'PATCH', '/v1/endpoints/ep-1', { templateId: t.body.id, workersMax: 3 });
      expect(extra.status).toBe(400);
      expect(extra.body.problems[0].field).toBe('workersMax');
      expect((await rest(m.url, 'PATCH', '/v1/endpoints/ep-1', {})).body.error).toBe('templateId: is required');
      expect(m.bindings).toEqual([]);
    });

    it('records a release that fails or is still rolling', async () => {
      await m.close();
      m = await mountSubServices({ release: 'reject' });
      const t = await create({ ...minimal(), isServerless: true });
      await rest(m.url, 'PATCH', `/v1/templates/${t.body.id}`, { readme: 'v2' });
      await expect.poll(() => (m.info() as { releases: { state: string }[] }).releases[0]?.state).toBe('failed');
      await m.close();
      m = await mountSubServices({ release: 'hang' });
      const h = await create({ ...minimal(), isServerless: true });
      await rest(m.url, 'PATCH', `/v1/templates/${h.body.id}`, { readme: 'v2' });
      expect((m.info() as { releases: { state: string }[] }).releases[0]?.state).toBe('rolling');
    });
  });

  describe('fault switches (each breaks exactly its one rule)', () => {
    it('template-update-accepts-category: an update applies category; isServerless is still refused', async () => {
      await m.close();
      m = await mountSubServices({ faults: ['template-update-accepts-category'] });
      const t = await create(minimal());
      const r = await rest(m.url, 'PATCH', `/v1/templates/${t.body.id}`, { category: 'CPU' });
      expect(r.status).toBe(200);
      expect(r.body.category).toBe('CPU');
      expect((await rest(m.url, 'PATCH', `/v1/templates/${t.body.id}`, { isServerless: true })).status).toBe(400);
      expect((await create({ name: t.body.name, imageName: 'a' })).status).toBe(400);
    });

    it('template-name-not-unique: duplicates are accepted, everything else still validated', async () => {
      await m.close();
      m = await mountSubServices({ faults: ['template-name-not-unique'] });
      const name = uniqueName('same');
      expect((await create({ name, imageName: 'a' })).status).toBe(200);
      expect((await create({ name, imageName: 'b' })).status).toBe(200);
      expect((await create({ name, imageName: '' })).status).toBe(400);
    });

    it('template-defaults-missing: the record holds only what was sent', async () => {
      await m.close();
      m = await mountSubServices({ faults: ['template-defaults-missing'] });
      const r = await create(minimal());
      expect(r.status).toBe(200);
      expect(r.body).not.toHaveProperty('containerDiskInGb');
      expect(r.body).not.toHaveProperty('volumeMountPath');
      expect(r.body.id).toBeTypeOf('string');
    });

    it('rest-auth-off: no key needed, validation unchanged', async () => {
      await m.close();
      m = await mountSubServices({ faults: ['rest-auth-off'] });
      expect((await rest(m.url, 'GET', '/v1/templates', undefined, { authorization: null })).status).toBe(200);
      expect((await rest(m.url, 'POST', '/v1/templates', {}, { authorization: null })).status).toBe(400);
    });
  });
});
