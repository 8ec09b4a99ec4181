// §5 keys must never reach an error message, its JSON, its stack or its cause, whichever
// client raised it and whatever the server echoed back.
import { afterEach, describe, expect, it } from 'vitest';
import { PodClient } from '../../../src/client/pod-client.js';
import { QueueClient } from '../../../src/client/queue-client.js';
import { TemplateClient } from '../../../src/client/template-client.js';
import { EXECUTION_TIMEOUT_MS } from '../../../src/spec/index.js';
import { sendJson, startLoopback, type Loopback } from './loopback-server.js';

// Distinct keys per client, none a substring of the test's other text.
const QUEUE_KEY = 'zq-secret-0b9e4c71d2';
const REST_KEY = 'zr-secret-55aa01f3c9';
const GQL_KEY = 'zg-secret-7f7f3e2b10';
const ALL_KEYS = [QUEUE_KEY, REST_KEY, GQL_KEY];

let server: Loopback | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await server?.close();
  server = undefined;
});

function expectClean(err: unknown, code: string): void {
  expect(err).toMatchObject({ code });
  const e = err as Error;
  const texts = [e.message, JSON.stringify(e), String(e.stack), JSON.stringify(e.cause ?? null), String(e)];
  for (const text of texts) for (const key of ALL_KEYS) expect(text).not.toContain(key);
}

describe('API keys are redacted from every client error', () => {
  it('queue client: HTTP error, schema mismatch, 429 exhaustion, timeout, invalid request, abort', async () => {
    server = await startLoopback((req, res) => {
      const echo = { error: `bad key ${String(req.headers['authorization'])}`, seen: req.headers['authorization'] };
      const p = req.url.pathname;
      if (p.includes('/status/http')) return sendJson(res, 401, echo);
      if (p.includes('/status/schema')) return sendJson(res, 200, { id: QUEUE_KEY, status: `weird ${QUEUE_KEY}` });
      if (p.includes('/status/limit')) return sendJson(res, 429, echo);
      if (p.includes('/status/hang')) return;
      sendJson(res, 200, echo);
    });
    for (const authForm of ['raw', 'bearer'] as const) {
      const c = new QueueClient({ baseUrl: server.baseUrl, endpointId: 'ep', apiKey: QUEUE_KEY, authForm, backoff: { maxAttempts: 2 }, backoffRuntime: { sleep: () => Promise.resolve() } });
      closers.push(() => c.close());
      expectClean(await c.status('http').catch((e: unknown) => e), 'QB_ERR_HTTP');
      expectClean(await c.status('schema').catch((e: unknown) => e), 'QB_ERR_SCHEMA_MISMATCH');
      expectClean(await c.status('limit').catch((e: unknown) => e), 'QB_ERR_RATE_LIMITED');
      expectClean(await c.status('hang', { timeoutMs: 30 }).catch((e: unknown) => e), 'QB_ERR_TIMEOUT');
      expectClean(await c.run({ input: { key: QUEUE_KEY }, policy: { executionTimeout: EXECUTION_TIMEOUT_MS.max + 1 } }).catch((e: unknown) => e), 'QB_ERR_INVALID_REQUEST');
      const ac = new AbortController();
      ac.abort(new Error(`stopped, key was ${QUEUE_KEY}`));
      expectClean(await c.health({ signal: ac.signal }).catch((e: unknown) => e), 'QB_ERR_ABORTED');
    }
  });

  it('template client: the Bearer token echoed in an error body', async () => {
    server = await startLoopback((req, res) => sendJson(res, 403, { error: `token ${String(req.headers['authorization'])} lacks scope` }));
    const c = new TemplateClient({ baseUrl: server.baseUrl, apiKey: REST_KEY });
    closers.push(() => c.close());
    const err = await c.get('t').catch((e: unknown) => e);
    expectClean(err, 'QB_ERR_HTTP');
    expect((err as { rawBody: string }).rawBody).toContain('[REDACTED]');
  });

  it('pod client: api_key on the address, in GraphQL errors, and for an unreachable target', async () => {
    server = await startLoopback((req, res) => sendJson(res, 200, { errors: [{ message: `key ${req.url.searchParams.get('api_key') ?? ''} refused` }], data: null }));
    const c = new PodClient({ baseUrl: `${server.baseUrl}/graphql`, apiKey: GQL_KEY });
    closers.push(() => c.close());
    const err = await c.stop('p').catch((e: unknown) => e);
    expectClean(err, 'QB_ERR_GRAPHQL');
    expect((err as { url: string }).url).toContain('api_key=[REDACTED]');
    const url = server.baseUrl;
    await server.close();
    server = undefined;
    const gone = new PodClient({ baseUrl: `${url}/graphql`, apiKey: GQL_KEY });
    closers.push(() => gone.close());
    expectClean(await gone.myPods().catch((e: unknown) => e), 'QB_ERR_UNREACHABLE');
  });
});
