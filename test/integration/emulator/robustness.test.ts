// Bad input never crashes the emulator: a fuzz run of thousands of random requests sees
// only documented statuses, and malformed HTTP, oversized headers, slow bodies and
// thousands of idle connections are answered or cut off while normal traffic goes on.
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { KEY, until } from './helpers.js';

/** Every status the emulator documents (README "Emulator"); 500 is an OpenAI job that failed (§7). */
const DOCUMENTED = new Set([200, 400, 401, 404, 405, 408, 413, 415, 429, 431, 500]);

let em: EmulatorHandle;
let agent: Agent;
beforeAll(async () => {
  // 1000x: runsync and status-sync waits (90 s default, 300 s at most) last 90-300 real ms.
  em = await startEmulator({
    apiKey: KEY,
    timeScale: 1000,
    endpoints: ['demo', 'b'],
    workers: { min: 1, max: 4, coldStartMs: 0 },
    stream: { longPollMs: 20 },
    http: { requestTimeoutMs: 400, headersTimeoutMs: 300 },
  });
  agent = new Agent({ connections: 32 });
});
afterAll(async () => {
  await agent.close();
  await em.close();
});

const segment = fc.oneof(
  fc.constantFrom('run', 'runsync', 'status', 'status-sync', 'stream', 'cancel', 'retry', 'purge-queue', 'health', 'requests', 'openai', 'v1', 'models', 'chat', 'completions', 'job-take', ''),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '..', '%2F', 'ü', 'sync-00000000-0000-0000-0000-000000000000'),
);
const path = fc.tuple(fc.constantFrom('/v2/demo', '/v2/b', '/v2/nope', '/v2', '/_qbench', '/v1/templates', '/graphql', '/'), fc.array(segment, { maxLength: 3 })).map(([p, s]) => [p, ...s].join('/').replace(/\/+/g, '/'));
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?wait=1000', '?wait=0', '?wait=abc', '?ttl=6000', '?ttl=-1', '?limit=5', '?status=FAILED', '?wait=300000&x=1'),
  fc.string({ maxLength: 12 }).map((s) => `?${encodeURIComponent(s)}=${encodeURIComponent(s)}`),
);
const mockInput = fc.record(
  {
    mock_return: fc.jsonValue({ maxDepth: 2 }),
    mock_delay: fc.oneof(fc.double({ min: -1, max: 20, noNaN: true }), fc.string()),
    mock_error: fc.boolean(),
    mock_crash: fc.boolean(),
    mock_refresh: fc.boolean(),
    mock_llm: fc.record({ output_tokens: fc.integer({ min: -1, max: 8 }), tokens_per_sec: fc.integer({ min: 1, max: 1000 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.record({ input: mockInput, policy: fc.record({ ttl: fc.integer(), executionTimeout: fc.integer(), lowPriority: fc.anything() }, { requiredKeys: [] }), webhook: fc.constantFrom('http://127.0.0.1:9/x', 'nope') }, { requiredKeys: ['input'] }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 64 }),
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
);
const auth = fc.constantFrom(`Bearer ${KEY}`, KEY, `bearer ${KEY}`, '', 'Bearer', 'Basic abc', KEY.toUpperCase());
const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/octet-stream', '');
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');

describe('fuzz: random requests', () => {
  it('2000 random requests get only documented statuses, JSON error bodies, and the process lives', async () => {
    const seen = new Map<number, number>();
    const ids: string[] = [];
    for (const input of [{}, { mock_error: true }, { mock_delay: 1000 }]) {
      const r = await request(`${em.url}/v2/demo/run`, { method: 'POST', headers: { authorization: KEY }, body: JSON.stringify({ input }), dispatcher: agent });
      ids.push(((await r.body.json()) as { id: string }).id);
    }
    // Mostly plausible requests (right key, real operations and ids), some wholly random.
    const plausible = fc.record({
      method: fc.constantFrom('GET', 'POST'),
      path: fc.tuple(fc.constantFrom('run', 'runsync', 'status', 'status-sync', 'stream', 'cancel', 'retry', 'purge-queue', 'health', 'requests', 'openai/v1/models'), fc.constantFrom('', ...ids)).map(([op, id]) => `/v2/demo/${op}${id ? `/${id}` : ''}`),
      query,
      body,
      auth: fc.constant(KEY),
      contentType: fc.constant('application/json'),
    });
    const samples = fc.sample(fc.oneof({ arbitrary: plausible, weight: 2 }, { arbitrary: fc.record({ method, path, query, body, auth, contentType }), weight: 1 }), { numRuns: 2000, seed: 20261122 });
    const parallel = 16;
    for (let i = 0; i < samples.length; i += parallel) {
      await Promise.all(
        samples.slice(i, i + parallel).map(async (s) => {
          const headers: Record<string, string> = {};
          if (s.auth) headers['authorization'] = s.auth;
          if (s.contentType) headers['content-type'] = s.contentType;
          const withBody = s.body !== undefined && s.method !== 'GET';
          const res = await request(em.url + s.path + s.query, {
            method: s.method as 'GET',
            headers,
            ...(withBody && s.body !== undefined ? { body: s.body } : {}),
            dispatcher: agent,
            headersTimeout: 5_000,
          });
          const text = await res.body.text();
          seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
          if (!DOCUMENTED.has(res.statusCode)) throw new Error(`undocumented status ${res.statusCode} for ${s.method} ${s.path}${s.query}: ${text}`);
          if (res.statusCode >= 400 && s.path.startsWith('/v2')) {
            expect(res.headers['content-type']).toBe('application/json');
            expect(typeof (JSON.parse(text) as { error: unknown }).error).toBe('string');
          }
        }),
      );
    }
    // The run reached real operations, not only auth failures.
    expect(seen.get(200) ?? 0).toBeGreaterThan(50);
    expect(seen.get(401) ?? 0).toBeGreaterThan(50);
    const h = await request(`${em.url}/v2/demo/health`, { headers: { authorization: KEY }, dispatcher: agent });
    expect(h.statusCode).toBe(200);
    const j = (await h.body.json()) as { jobs: Record<string, number> };
    expect(j.jobs['submitted']! + j.jobs['retried']!).toBe(
      j.jobs['inQueue']! + j.jobs['inProgress']! + j.jobs['completed']! + j.jobs['failed']! + j.jobs['cancelled']! + j.jobs['purged']! + j.jobs['expired']!,
    );
  });
});

function raw(bytes: string | Buffer, endAfterWrite = false): Promise<{ text: string; closed: boolean }> {
  const u = new URL(em.url);
  return new Promise((resolve) => {
    const s = connect(Number(u.port), u.hostname, () => {
      s.write(bytes);
      if (endAfterWrite) s.end();
    });
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('error', () => {});
    s.on('close', () => resolve({ text, closed: true }));
    s.setTimeout(5_000, () => s.destroy());
  });
}

describe('malformed HTTP', () => {
  it('a garbage request line gets 400 and a closed connection', async () => {
    const r = await raw('HELLO THERE\r\n\r\n');
    expect(r.text).toMatch(/^HTTP\/1\.1 400/);
  });

  it('headers over 16 KB get 431', async () => {
    const r = await raw(`GET /v2/demo/health HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(r.text).toMatch(/^HTTP\/1\.1 431/);
  });

  it('a body that stalls is cut off by the request timeout', async () => {
    const t0 = performance.now();
    const r = await raw(`POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ncontent-length: 100\r\n\r\n{"input":`);
    expect(r.closed).toBe(true);
    expect(r.text === '' || /^HTTP\/1\.1 408/.test(r.text)).toBe(true);
    // requestTimeoutMs is 400 here; the check interval adds at most 100 ms. Bound loosely
    // (2 cores shared with other suites): well under the 5 s socket timeout of raw().
    expect(performance.now() - t0).toBeLessThan(4_000);
  });

  it('a body shorter than its content-length, then closed, does not crash anything', async () => {
    await raw(`POST /v2/demo/runsync HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ncontent-length: 50\r\n\r\n{"in`, true);
    const h = await request(`${em.url}/v2/demo/health`, { headers: { authorization: KEY }, dispatcher: agent });
    expect(h.statusCode).toBe(200);
    await h.body.dump();
  });
});

describe('many idle connections', () => {
  it('3000 idle sockets neither crash the server nor stop it answering', async () => {
    const u = new URL(em.url);
    const socks: Socket[] = [];
    const before = process.memoryUsage().rss;
    try {
      for (let i = 0; i < 3000; i++) {
        const s = connect(Number(u.port), u.hostname);
        s.on('error', () => {});
        socks.push(s);
      }
      await until(() => socks.every((s) => !s.connecting), 'the sockets to connect', 10_000);
      const h = await request(`${em.url}/v2/demo/health`, { headers: { authorization: KEY }, dispatcher: agent });
      expect(h.statusCode).toBe(200);
      await h.body.dump();
      // Both ends live in this process: 3000 socket pairs must stay far below 200 MB.
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    } finally {
      for (const s of socks) s.destroy();
    }
    // The headers timeout (300 ms) closes idle connections that never sent a request.
  });
});
