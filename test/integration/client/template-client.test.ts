// The REST template client (src/client/template-client.ts) against a scripted loopback
// server: create, update (POST or PATCH), get, list, delete, inputs refused before sending,
// and the REST error body (§4.2, WIRE-COMPAT).
import { afterEach, describe, expect, it } from 'vitest';
import { TemplateClient } from '../../../src/client/template-client.js';
import { TEMPLATE_DEFAULTS } from '../../../src/spec/index.js';
import { sendJson, startLoopback, type Handler, type Loopback } from './loopback-server.js';

const KEY = 'tpl-key-93ab11';
let server: Loopback | undefined;
let client: TemplateClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler): Promise<{ s: Loopback; c: TemplateClient }> {
  server = await startLoopback(handler);
  client = new TemplateClient({ baseUrl: `${server.baseUrl}/api`, apiKey: KEY });
  return { s: server, c: client };
}

const record = (over: Record<string, unknown> = {}) => ({
  id: 't1',
  name: 'n',
  imageName: 'img:1',
  ...TEMPLATE_DEFAULTS,
  earned: 0,
  isProvider: false,
  isRunpod: false,
  runtimeInMin: 0,
  ...over,
});

describe('TemplateClient (§4.2, WIRE-COMPAT)', () => {
  it('create POSTs /v1/templates under the base path with Bearer auth', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, record()));
    const rec = await c.create({ name: 'n', imageName: 'img:1', ports: ['8888/http', '22/tcp'] });
    expect(rec.id).toBe('t1');
    const req = s.requests[0]!;
    expect([req.method, req.url.pathname, req.headers['authorization']]).toEqual(['POST', '/api/v1/templates', `Bearer ${KEY}`]);
    expect(JSON.parse(req.body)).toEqual({ name: 'n', imageName: 'img:1', ports: ['8888/http', '22/tcp'] });
  });

  it('update uses POST .../update by default and PATCH on request', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, record({ readme: 'x' })));
    await c.update('t 1', { readme: 'x' });
    await c.update('t 1', { readme: 'x' }, { via: 'patch' });
    expect(s.requests.map((r) => [r.method, r.url.pathname])).toEqual([
      ['POST', '/api/v1/templates/t%201/update'],
      ['PATCH', '/api/v1/templates/t%201'],
    ]);
  });

  it('refuses create-only fields on update and bad ports or mount paths before sending', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, record()));
    await expect(c.update('t1', { category: 'AMD' } as never)).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    await expect(c.update('t1', { isServerless: true } as never)).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    await expect(c.create({ name: 'n', imageName: 'i', ports: ['80/udp'] })).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    const err = await c.create({ name: 'n', imageName: 'i', volumeMountPath: 'workspace', containerDiskInGb: -1 }).catch((e: unknown) => e);
    // Every problem at once, each naming its field.
    expect((err as Error).message).toMatch(/volumeMountPath/);
    expect((err as Error).message).toMatch(/containerDiskInGb/);
    expect(s.requests).toHaveLength(0);
  });

  it('get, list and delete', async () => {
    const { s, c } = await setup((req, res) => {
      if (req.method === 'DELETE') {
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.url.pathname.endsWith('/templates')) return sendJson(res, 200, [record(), record({ id: 't2' })]);
      sendJson(res, 200, record());
    });
    expect((await c.get('t1')).id).toBe('t1');
    expect((await c.list()).map((t) => t.id)).toEqual(['t1', 't2']);
    await expect(c.delete('t1')).resolves.toBeUndefined();
    expect(s.requests.map((r) => [r.method, r.url.pathname])).toEqual([
      ['GET', '/api/v1/templates/t1'],
      ['GET', '/api/v1/templates'],
      ['DELETE', '/api/v1/templates/t1'],
    ]);
  });

  it('a record missing required fields is a schema mismatch naming them', async () => {
    const { c } = await setup((_req, res) => sendJson(res, 200, { id: 't1', name: 'n' }));
    const err = await c.get('t1').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'QB_ERR_SCHEMA_MISMATCH', reason: 'schema' });
    expect((err as { issues: { path: string[] }[] }).issues.map((i) => i.path[0])).toContain('imageName');
  });

  it('surfaces the REST error body', async () => {
    const { c } = await setup((_req, res) => sendJson(res, 400, { error: 'name already taken', code: 'DUPLICATE' }));
    await expect(c.create({ name: 'n', imageName: 'i' })).rejects.toMatchObject({ code: 'QB_ERR_HTTP', status: 400, serviceError: 'name already taken' });
  });
});
