// Curl lines and recorded exchanges: the key is referenced as "$VAR", never written; auth goes
// where §5 puts it per interface; large bodies get a shell recipe of the exact size (run by sh).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Probe, renderCurl, paddedBodyRecipe, WRONG_API_KEY } from '../../../src/conformance/index.js';
import { startFakeTarget, type FakeTarget } from './fake-target.js';

const KEY = 'pk-probe-KEY-abcdef123456';
let fake: FakeTarget;
beforeAll(async () => {
  fake = await startFakeTarget({ 'POST /graphql': () => ({ status: 200, json: { data: {} } }), 'GET /v1/templates': () => ({ status: 200, json: [] }) });
});
afterAll(async () => {
  await fake.close();
});

describe('probe and curl', () => {
  it('puts the key in the GraphQL query string and redacts it in the exchange and curl', async () => {
    const p = new Probe({ queueUrl: fake.url, graphqlUrl: `${fake.url}/graphql`, restUrl: fake.url, apiKey: KEY, apiKeyEnv: 'RUNPOD_API_KEY' });
    const g = await p.send({ iface: 'graphql', method: 'POST', path: '', json: { query: '{ a }' } });
    expect(g.status).toBe(200);
    expect(g.exchange.request.url).toBe(`${fake.url}/graphql?api_key=[REDACTED]`);
    expect(g.curl).toContain(`'${fake.url}/graphql?api_key='"$RUNPOD_API_KEY"`);
    const r = await p.send({ iface: 'rest', method: 'GET', path: '/v1/templates' });
    expect(r.exchange.request.headers['Authorization']).toBe('Bearer [REDACTED]');
    expect(r.curl).toContain(`-H 'Authorization: Bearer '"$RUNPOD_API_KEY"`);
    expect(fake.seenAuth).toContain(`Bearer ${KEY}`);
    const wrong = await p.send({ iface: 'rest', method: 'GET', path: '/v1/templates', auth: 'wrong' });
    expect(wrong.curl).toContain(`Bearer ${WRONG_API_KEY}`);
    expect(JSON.stringify([g, r, wrong].map((x) => [x.exchange, x.curl]))).not.toContain(KEY);
  });

  it('records a network failure as an exchange with an error', async () => {
    const p = new Probe({ queueUrl: 'http://127.0.0.1:1', apiKey: KEY, apiKeyEnv: 'K' });
    const r = await p.send({ iface: 'queue', method: 'GET', path: '/v2/x/health', timeoutMs: 2000 });
    expect(r.status).toBe(0);
    expect(r.exchange.error).toMatch(/ECONNREFUSED|connect/i);
  });

  it('renders a body recipe that produces exactly the padded body', () => {
    const recipe = paddedBodyRecipe('{"input":{"pad":"', 10, '"}}');
    const out = execFileSync('sh', ['-c', recipe]).toString();
    expect(out).toBe('{"input":{"pad":"xxxxxxxxxx"}}');
    const line = renderCurl({ method: 'POST', url: 'http://h/v2/e/run', headers: { 'content-type': 'application/json' }, auth: { kind: 'header', name: 'authorization', prefix: '', secret: true }, apiKeyEnv: 'K', bodyBytes: 30, bodyRecipe: recipe });
    expect(line.startsWith(`${recipe} | curl`)).toBe(true);
    expect(line).toContain('--data-binary @-');
  });
});
