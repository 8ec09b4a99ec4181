// Every 400, 401, 404 (and the 405/415 neighbours) of the queue endpoint: right status,
// JSON body with an `error` string naming the field or the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY, startManual, type TestEmulator } from './helpers.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startManual({ endpoints: ['demo', 'other'] });
});
afterAll(async () => {
  await t.close();
});

function isJsonError(r: { headers: Record<string, unknown>; body: unknown }): void {
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.body).toMatchObject({ error: expect.any(String) });
}

describe('400: malformed requests name the field', () => {
  const cases: [string, string, unknown, RegExp][] = [
    ['malformed JSON', '/run', '{"input": {', /malformed JSON/],
    ['empty body', '/run', '', /empty/],
    ['body is an array', '/run', '[1,2]', /JSON object/],
    ['missing input', '/run', { webhook: 'http://127.0.0.1:1/x' }, /input/],
    ['input not an object', '/runsync', { input: 'text' }, /input/],
    ['input null', '/run', { input: null }, /input/],
    ['policy.executionTimeout below 5 s', '/run', { input: {}, policy: { executionTimeout: 4999 } }, /policy\.executionTimeout/],
    ['policy.executionTimeout above 7 days', '/run', { input: {}, policy: { executionTimeout: 7 * 86_400_000 + 1 } }, /policy\.executionTimeout/],
    ['policy.executionTimeout not integer', '/run', { input: {}, policy: { executionTimeout: 5000.5 } }, /policy\.executionTimeout/],
    ['policy.ttl below 10 s', '/run', { input: {}, policy: { ttl: 9999 } }, /policy\.ttl/],
    ['policy.ttl above 7 days', '/runsync', { input: {}, policy: { ttl: 7 * 86_400_000 + 1 } }, /policy\.ttl/],
    ['policy.lowPriority not boolean', '/run', { input: {}, policy: { lowPriority: 'yes' } }, /lowPriority/],
    ['webhook not a URL', '/run', { input: {}, webhook: 'not a url' }, /webhook/],
    ['webhook not http', '/run', { input: {}, webhook: 'ftp://127.0.0.1/x' }, /webhook/],
    ['s3Config field not a string', '/run', { input: {}, s3Config: { bucketName: 3 } }, /s3Config\.bucketName/],
  ];
  for (const [name, path, body, re] of cases) {
    it(name, async () => {
      const r = await t.call('POST', `/v2/demo${path}`, body);
      expect(r.status).toBe(400);
      isJsonError(r);
      expect(r.body.error).toMatch(re);
    });
  }

  it('reports every problem at once', async () => {
    const r = await t.call('POST', '/v2/demo/run', { input: 1, policy: { ttl: 1, executionTimeout: 1 } });
    expect((r.body.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(['input', 'policy.executionTimeout', 'policy.ttl']);
  });

  for (const wait of ['999', '300001', '-5', '1e4', 'abc', '5000.5', '']) {
    it(`/runsync?wait=${wait} is out of range or not an integer`, async () => {
      const r = await t.call('POST', `/v2/demo/runsync?wait=${wait}`, { input: {} });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/wait/);
    });
  }

  it('wait bounds are inclusive', async () => {
    expect((await t.call('POST', '/v2/demo/runsync?wait=1000', { input: {} })).status).toBe(200);
    expect((await t.call('POST', '/v2/demo/runsync?wait=300000', { input: {} })).status).toBe(200);
  });

  it('/status-sync?wait= is validated like /runsync', async () => {
    const id = (await t.call('POST', '/v2/demo/run', { input: {} })).body.id;
    expect((await t.call('GET', `/v2/demo/status-sync/${id}?wait=0`)).status).toBe(400);
  });

  for (const ttl of ['0', '-1', 'x', '604800001', '1.5']) {
    it(`/status?ttl=${ttl} is refused`, async () => {
      const id = (await t.call('POST', '/v2/demo/run', { input: {} })).body.id;
      const r = await t.call('GET', `/v2/demo/status/${id}?ttl=${ttl}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/ttl/);
    });
  }

  it('/requests?limit= and ?status= are validated', async () => {
    expect((await t.call('GET', '/v2/demo/requests?limit=0')).status).toBe(400);
    expect((await t.call('GET', '/v2/demo/requests?status=DONE')).status).toBe(400);
  });

  it('retry and cancel from a state that does not allow them', async () => {
    const id = (await t.call('POST', '/v2/demo/run', { input: {} })).body.id;
    expect((await t.call('POST', `/v2/demo/retry/${id}`)).status).toBe(400);
    expect((await t.call('POST', `/v2/demo/cancel/${id}`)).status).toBe(400);
  });

  it('415 for a body type that is not JSON', async () => {
    const r = await t.call('POST', '/v2/demo/run', '{"input":{}}', { 'content-type': 'multipart/form-data; boundary=x' });
    expect(r.status).toBe(415);
    isJsonError(r);
  });

  it('accepts JSON sent as text/plain or form-urlencoded (curl -d)', async () => {
    expect((await t.call('POST', '/v2/demo/run', '{"input":{}}', { 'content-type': 'text/plain' })).status).toBe(200);
    expect((await t.call('POST', '/v2/demo/run', '{"input":{}}', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200);
  });
});

describe('401: the API key', () => {
  for (const [name, headers] of [
    ['missing', { authorization: '' }],
    ['wrong', { authorization: 'nope-nope' }],
    ['wrong bearer', { authorization: 'Bearer nope-nope' }],
    ['key with a prefix', { authorization: `x${KEY}` }],
  ] as const) {
    it(`${name} key: 401 on every operation`, async () => {
      for (const [m, p] of [['POST', '/run'], ['POST', '/runsync'], ['GET', '/status/x'], ['GET', '/stream/x'], ['POST', '/cancel/x'], ['POST', '/retry/x'], ['POST', '/purge-queue'], ['GET', '/health'], ['GET', '/requests'], ['POST', '/openai/v1/models']]) {
        const r = await t.call(m as string, `/v2/demo${p}`, m === 'POST' ? { input: {} } : undefined, { ...headers });
        expect(r.status, `${m} ${p}`).toBe(401);
        isJsonError(r);
        expect(JSON.stringify(r.body)).not.toContain(KEY);
      }
    });
  }

  it('raw key and Bearer key (any case) are both accepted', async () => {
    expect((await t.call('GET', '/v2/demo/health', undefined, { authorization: KEY })).status).toBe(200);
    expect((await t.call('GET', '/v2/demo/health', undefined, { authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect((await t.call('GET', '/v2/demo/health', undefined, { authorization: `bearer ${KEY}` })).status).toBe(200);
  });

  it('every /_qbench route needs the key, the info route too', async () => {
    expect((await t.call('GET', '/_qbench/counters', undefined, { authorization: 'x' })).status).toBe(401);
    expect((await t.call('POST', '/_qbench/reset', undefined, { authorization: 'x' })).status).toBe(401);
    const info = await t.call('GET', '/_qbench/info', undefined, { authorization: 'x' });
    expect(info.status).toBe(401);
    expect(info.body.error).toMatch(/API key/);
    expect(JSON.stringify(info.body)).not.toContain('demo');
    expect((await t.call('GET', '/_qbench/info', undefined, { authorization: '' })).status).toBe(401);
    expect((await t.call('GET', '/_qbench/info', undefined, { authorization: KEY })).status).toBe(200);
    expect((await t.call('GET', '/_qbench/info')).status).toBe(200);
  });
});

describe('404: unknown endpoint, job or route', () => {
  it('unknown endpoint id', async () => {
    const r = await t.call('GET', '/v2/nope/health');
    expect(r.status).toBe(404);
    expect(r.body.error).toContain('nope');
    expect((await t.call('GET', '/v2/other/health')).status).toBe(200);
  });

  for (const [m, op] of [['GET', 'status'], ['POST', 'status'], ['GET', 'status-sync'], ['GET', 'stream'], ['POST', 'cancel'], ['POST', 'retry']]) {
    it(`${m} /${op} of an unknown job`, async () => {
      const r = await t.call(m as string, `/v2/demo/${op}/00000000-0000-0000-0000-000000000000`);
      expect(r.status).toBe(404);
      isJsonError(r);
    });
  }

  it('a job of another endpoint is unknown here', async () => {
    const id = (await t.call('POST', '/v2/demo/run', { input: {} })).body.id;
    expect((await t.call('GET', `/v2/other/status/${id}`)).status).toBe(404);
  });

  it('unknown operation, missing job id, unknown top-level path', async () => {
    expect((await t.call('GET', '/v2/demo/nothing')).status).toBe(404);
    expect((await t.call('GET', '/v2/demo/status')).status).toBe(404);
    expect((await t.call('GET', '/v2/demo/status/a/b')).status).toBe(404);
    expect((await t.call('GET', '/v3/demo/health')).status).toBe(404);
    expect((await t.call('GET', '/_qbench/nothing')).status).toBe(404);
  });

  it('405 with Allow for a wrong method', async () => {
    const r = await t.call('GET', '/v2/demo/run');
    expect(r.status).toBe(405);
    expect(r.headers['allow']).toBe('POST');
    isJsonError(r);
  });
});
