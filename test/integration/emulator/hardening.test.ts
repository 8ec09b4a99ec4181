// No request, worker output or timer can end the emulator or make it answer outside its
// documented statuses and bodies: documents nested past the depth limit are refused with
// 400 naming the path and the limit; an exception while answering becomes a 500 `{error}`
// counted in /_qbench/info; one answer per request; `connection: close` when the emulator
// closes; JSON bodies for 400 (no Host) and 417 (Expect); the key and the declared length
// are checked before a REST or GraphQL body is read; /_qbench/info needs the key.
import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { mockWorkerHandler } from '../../../src/emulator/queue/handlers/mock-worker.js';
import type { Handler } from '../../../src/emulator/queue/handlers/types.js';
import { MAX_JSON_DEPTH, depthViolation, documentNestingExceeds } from '../../../src/emulator/json-limits.js';
import { headerAuthorizes } from '../../../src/emulator/auth.js';
import { flush, KEY } from './helpers.js';

/** `{"a":{"a":...}}` with `levels` objects, innermost holding `leaf`. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** The text of `nested(levels)`, built as text: JSON.stringify itself overflows the stack on deep values. */
function nestedText(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** A job body whose whole document nests `depth` levels (the body object is level 1, input level 2). */
function jobBodyOfDepth(depth: number): string {
  return JSON.stringify({ input: nested(depth - 1) });
}

// A handler whose output JSON.stringify cannot write (a BigInt): the stand-in for any stored
// value that fails to serialize (before the depth limit: an output nested thousands deep).
const handler: Handler = async (input, ctx) => (input['unserializable'] === true ? { kind: 'output', output: { n: 1n }, refresh: false } : mockWorkerHandler(input, ctx));

let em: EmulatorHandle;
let clock: ManualClock;
let agent: Agent;
const logLines: string[] = [];
beforeAll(async () => {
  clock = new ManualClock(1_000_000);
  em = await startEmulator(
    { apiKey: KEY, endpoints: ['demo'], workers: { min: 1, max: 2, coldStartMs: 0 }, http: { requestTimeoutMs: 300, headersTimeoutMs: 250 } },
    { clock, handler, log: (l) => logLines.push(l) },
  );
  agent = new Agent({ connections: 8 });
});
afterAll(async () => {
  await agent.close();
  await em.close();
});

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  const res = await request(em.url + path, { method: method as 'GET', headers: { authorization: KEY, 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body }), dispatcher: agent });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

async function internalErrors(): Promise<{ total: number; request: number; timer: number; webhook: number }> {
  return (JSON.parse((await call('GET', '/_qbench/info')).text) as { internalErrors: { total: number; request: number; timer: number; webhook: number } }).internalErrors;
}

/** Send raw bytes; collect everything the server writes until it closes the connection. */
function rawExchange(bytes: string): Promise<string> {
  const u = new URL(em.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => s.write(bytes));
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('error', () => {});
    s.on('close', () => resolve(text));
    s.setTimeout(5_000, () => {
      s.destroy();
      reject(new Error(`no close within 5 s; got: ${text.slice(0, 200)}`));
    });
  });
}

const answers = (text: string) => text.match(/HTTP\/1\.1 \d{3} /g) ?? [];

describe('the JSON depth limit', () => {
  it('measures depth iteratively, names the path, and reads GraphQL nesting outside strings and comments', () => {
    expect(depthViolation(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(depthViolation(nested(MAX_JSON_DEPTH + 1))).toBe(Array(MAX_JSON_DEPTH).fill('a').join('.'));
    expect(depthViolation({ x: [1, [2, nested(100_000)]] }, 5)).toBe('x[1][1].a.a');
    expect(depthViolation([[[]]], 2)).toBe('[0][0]');
    expect(depthViolation([], 0)).toBe('(body)');
    expect(documentNestingExceeds(`{ ${'a { '.repeat(70)} }`)).toBe(true);
    expect(documentNestingExceeds(`{ a(s: "${'{'.repeat(100)}") # ${'{'.repeat(100)}\n }`)).toBe(false);
    expect(documentNestingExceeds(`{ a(s: """${'{'.repeat(100)}""") }`)).toBe(false);
  });

  it('/run accepts a body nested exactly to the limit and refuses one level more with 400 naming the path and the limit', async () => {
    expect((await call('POST', '/v2/demo/run', jobBodyOfDepth(MAX_JSON_DEPTH))).status).toBe(200);
    const deeper = await call('POST', '/v2/demo/run', jobBodyOfDepth(MAX_JSON_DEPTH + 1));
    expect(deeper.status).toBe(400);
    expect(JSON.parse(deeper.text).error).toMatch(new RegExp(`^input(\\.a)+: JSON nested more than ${MAX_JSON_DEPTH} levels`));
  });

  it('a job output nested 100,000 deep is refused on /run, /runsync and the openai route, and the process lives', async () => {
    const deep = `{"input":{"mock_return":${nestedText(100_000)}}}`;
    for (const path of ['/v2/demo/run', '/v2/demo/runsync', '/v2/demo/openai/v1/chat/completions']) {
      const r = await call('POST', path, deep);
      expect(r.status, path).toBe(400);
      expect(JSON.parse(r.text).error, path).toContain(`more than ${MAX_JSON_DEPTH} levels`);
    }
    expect((await call('GET', '/v2/demo/health')).status).toBe(200);
  });

  it('a worker output past the limit (job-done, job-stream) is refused with 400', async () => {
    const ext = await startEmulator({ apiKey: KEY, endpoints: ['w'], externalWorkers: true });
    try {
      const post = async (path: string, body: string) => {
        const r = await request(ext.url + path, { method: 'POST', headers: { authorization: KEY }, body, dispatcher: agent });
        return { status: r.statusCode, text: await r.body.text() };
      };
      const run = JSON.parse((await post('/v2/w/run', '{"input":{}}')).text) as { id: string };
      const took = await request(`${ext.url}/v2/w/job-take/ext-1`, { headers: { authorization: KEY }, dispatcher: agent });
      expect(((await took.body.json()) as { id: string }).id).toBe(run.id);
      for (const op of ['job-stream', 'job-done']) {
        const r = await post(`/v2/w/${op}/ext-1/${run.id}`, `{"output":${nestedText(10_000)}}`);
        expect(r.status, op).toBe(400);
        expect(JSON.parse(r.text).error, op).toMatch(/^output(\.a)+: JSON nested more than/);
      }
      expect((await post(`/v2/w/job-done/ext-1/${run.id}`, '{"output":{"ok":true}}')).status).toBe(200);
      // A worker id that does not percent-decode is taken as sent, not an internal error.
      const ping = await request(`${ext.url}/v2/w/ping/%zz`, { headers: { authorization: KEY }, dispatcher: agent });
      expect(ping.statusCode).toBe(200);
      expect(await ping.body.json()).toEqual({ ok: true, workerId: '%zz' });
    } finally {
      await ext.close();
    }
  });

  it('a REST template body past the limit gets 400 naming the path', async () => {
    const r = await call('POST', '/v1/templates', `{"name":"t","imageName":"x","env":${nestedText(5_000)}}`, { authorization: `Bearer ${KEY}` });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ code: 'BODY_TOO_DEEP' });
    expect(JSON.parse(r.text).error).toMatch(/^env(\.a)+: JSON nested more than/);
  });

  it('GraphQL: variables past the limit get 400, a 3,000-level document gets the GraphQL error answer (HTTP 200 with errors), not 500', async () => {
    const vars = await call('POST', '/graphql', `{"query":"{ gpuTypes { id } }","variables":{"x":${nestedText(5_000)}}}`, { authorization: `Bearer ${KEY}` });
    expect(vars.status).toBe(400);
    expect(JSON.parse(vars.text).errors[0].message).toMatch(/^variables\.x(\.a)+: JSON nested more than/);
    const query = `{ ${'gpuTypes { '.repeat(3_000)}id${' }'.repeat(3_000)} }`;
    const doc = await call('POST', '/graphql', JSON.stringify({ query }), { authorization: `Bearer ${KEY}` });
    expect(doc.status).toBe(200);
    expect(JSON.parse(doc.text).errors[0]).toMatchObject({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
    expect(JSON.parse(doc.text).errors[0].message).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });
});

describe('an exception while answering', () => {
  it('is a 500 {error} on GET and POST /status, /runsync and /requests, counted in /_qbench/info; the process keeps serving', async () => {
    const before = await internalErrors();
    const run = JSON.parse((await call('POST', '/v2/demo/run', JSON.stringify({ input: { unserializable: true } }))).text) as { id: string };
    await flush();
    for (const [method, path, body] of [
      ['GET', `/v2/demo/status/${run.id}`, undefined],
      // A body makes the handler run from the body promise: before, a throw there was an unhandled rejection.
      ['POST', `/v2/demo/status/${run.id}`, '{}'],
      ['GET', '/v2/demo/requests', undefined],
      ['POST', '/v2/demo/runsync', JSON.stringify({ input: { unserializable: true } })],
    ] as const) {
      const r = await call(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(500);
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.text).error).toMatch(/^internal emulator error/);
      expect(r.text).not.toContain(KEY);
    }
    const after = await internalErrors();
    expect(after.request - before.request).toBe(4);
    expect(after.total - before.total).toBe(4);
    expect(logLines.join('')).toMatch(/internal error \(request GET \/v2\/demo\/status\//);
    expect(logLines.join('')).not.toContain(KEY);
    expect((await call('GET', '/v2/demo/health')).status).toBe(200);
    expect((await call('POST', '/v2/demo/purge-queue')).status).toBe(200);
  });

  it('in a webhook (a record that cannot be serialized) or a timer is counted, and the clock goes on', async () => {
    const before = await internalErrors();
    await call('POST', '/v2/demo/run', JSON.stringify({ input: { unserializable: true }, webhook: 'http://127.0.0.1:9/hook' }));
    await flush();
    let later = false;
    clock.setTimer(5, () => {
      throw new Error('a timer that throws');
    });
    clock.setTimer(6, () => (later = true));
    clock.advance(10);
    await flush();
    expect(later).toBe(true);
    const after = await internalErrors();
    expect(after.webhook - before.webhook).toBe(1);
    expect(after.timer - before.timer).toBe(1);
    expect((await call('GET', '/v2/demo/health')).status).toBe(200);
  });
});

describe('one answer per request, connection: close when closing, JSON for every status', () => {
  it('a slow body after an early answer gets that one answer, never a second (408) on the same request', async () => {
    // Unknown endpoint: 404 at once, while the declared body never comes; the request timeout then fires.
    const text = await rawExchange(`POST /v2/nope/run HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"in`);
    expect(answers(text)).toEqual(['HTTP/1.1 404 ']);
  });

  it('a wrong key with a body pending: one 401 with connection: close', async () => {
    const text = await rawExchange(`POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: wrong\r\ncontent-length: 100\r\n\r\n{"in`);
    expect(answers(text)).toEqual(['HTTP/1.1 401 ']);
    expect(text.toLowerCase()).toContain('connection: close');
  });

  it('413 says connection: close, so a keep-alive client does not lose its next request', async () => {
    const text = await rawExchange(`POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ncontent-length: 999999999\r\n\r\n`);
    expect(answers(text)).toEqual(['HTTP/1.1 413 ']);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error).toMatch(/payload too large/);
  });

  it('Expect: foo gets 417 with a JSON body', async () => {
    const text = await rawExchange(`GET /v2/demo/health HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\nexpect: foo\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 417 /);
    expect(text.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error).toMatch(/expectation "foo"/);
  });

  it('HTTP/1.1 without Host gets 400 with a JSON body; HTTP/1.0 without Host is served', async () => {
    const text = await rawExchange(`GET /v2/demo/health HTTP/1.1\r\nauthorization: ${KEY}\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error).toMatch(/Host/);
    const old = await rawExchange(`GET /v2/demo/health HTTP/1.0\r\nauthorization: ${KEY}\r\n\r\n`);
    expect(old).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('REST and GraphQL check the key and the declared length before reading a body', () => {
  for (const [name, path, auth] of [
    ['REST', '/v1/templates', 'Bearer wrong'],
    ['GraphQL', '/graphql', 'Bearer wrong'],
  ] as const) {
    it(`${name}: a wrong key is answered 401 before the body, and the connection closes without reading it`, async () => {
      const text = await rawExchange(`POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${auth}\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"a":`);
      expect(answers(text)).toEqual(['HTTP/1.1 401 ']);
      expect(text.toLowerCase()).toContain('connection: close');
    });

    it(`${name}: a declared length past 1,000,000 bytes is answered 413 before the body is sent`, async () => {
      const text = await rawExchange(`POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000001\r\n\r\n`);
      expect(answers(text)).toEqual(['HTTP/1.1 413 ']);
      expect(text.toLowerCase()).toContain('connection: close');
    });
  }
});

describe('API key', () => {
  it('one comparison for every form: raw, Bearer (any case, extra spaces); nothing else', () => {
    expect(headerAuthorizes(KEY, KEY)).toBe(true);
    expect(headerAuthorizes(`Bearer ${KEY}`, KEY)).toBe(true);
    expect(headerAuthorizes(`bEaReR   ${KEY}`, KEY)).toBe(true);
    for (const h of [undefined, '', 'Bearer', `${KEY}x`, KEY.slice(1), `Basic ${KEY}`, KEY.toUpperCase()]) expect(headerAuthorizes(h, KEY)).toBe(false);
    expect(headerAuthorizes('', '')).toBe(false);
  });

  it('/_qbench/info needs it', async () => {
    const r = await call('GET', '/_qbench/info', undefined, { authorization: '' });
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('demo');
  });
});
