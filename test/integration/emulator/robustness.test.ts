// Bad input never crashes the emulator: a fuzz run of thousands of random requests sees
// only documented statuses; random and malformed requests in sequence over keep-alive
// connections get exactly one answer each, with a JSON body for every error and
// `connection: close` whenever the emulator closes; malformed HTTP, oversized headers, slow
// bodies and thousands of idle connections are answered or cut off while normal traffic goes on.
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { KEY, until } from './helpers.js';

/** Every status the emulator documents (docs/reference/emulator.md); 500 is an OpenAI job that failed (§7) or an internal error. */
const DOCUMENTED = new Set([200, 400, 401, 404, 405, 408, 413, 415, 417, 429, 431, 500]);

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

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * One keep-alive connection driven a request at a time. It parses every answer the server
 * writes (content-length and chunked framing, 1xx interim answers skipped) and records them
 * all, so an answer that nobody asked for shows up as one too many.
 */
class KeepAliveConn {
  readonly answers: RawAnswer[] = [];
  readonly closed: Promise<void>;
  isClosed = false;
  private buf = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private readonly socket: Socket;

  constructor(url: string) {
    const u = new URL(url);
    this.socket = connect(Number(u.port), u.hostname);
    this.socket.on('error', () => {});
    this.socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
    });
    this.closed = new Promise((resolve) => this.socket.on('close', () => {
      this.isClosed = true;
      this.wake?.();
      resolve();
    }));
  }

  /** Send `bytes`; resolve when one more answer arrived or the connection closed (bounded). */
  async send(bytes: string, maxMs = 5_000): Promise<RawAnswer | undefined> {
    const want = this.answers.length + 1;
    this.socket.write(bytes);
    const deadline = performance.now() + maxMs;
    while (this.answers.length < want && !this.isClosed) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.max(0, deadline - performance.now()));
      });
      if (performance.now() >= deadline) throw new Error(`no answer within ${maxMs} ms to ${JSON.stringify(bytes.slice(0, 120))}`);
    }
    return this.answers[want - 1];
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(): void {
    for (;;) {
      const headEnd = this.buf.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = this.buf.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head[0] ?? '')?.[1] ?? NaN);
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      let rest = this.buf.subarray(headEnd + 4);
      let body: string;
      if (status >= 100 && status < 200) {
        this.buf = rest;
        continue;
      }
      if (headers.get('transfer-encoding') === 'chunked') {
        const parts: Buffer[] = [];
        for (;;) {
          const lineEnd = rest.indexOf('\r\n');
          if (lineEnd < 0) return;
          const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
          if (rest.length < lineEnd + 2 + size + 2) return;
          parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
          rest = rest.subarray(lineEnd + 2 + size + 2);
          if (size === 0) break;
        }
        body = Buffer.concat(parts).toString('utf8');
      } else {
        const len = Number(headers.get('content-length') ?? '0');
        if (rest.length < len) return;
        body = rest.subarray(0, len).toString('utf8');
        rest = rest.subarray(len);
      }
      this.buf = rest;
      this.answers.push({ status, headers, body });
      this.wake?.();
    }
  }
}

/** What makes an answer a documented one: a listed status, and for an error a JSON body that says what went wrong. */
function undocumented(a: RawAnswer): string | undefined {
  if (!DOCUMENTED.has(a.status)) return `status ${a.status}`;
  if (a.status < 400) return undefined;
  if (!(a.headers.get('content-type') ?? '').startsWith('application/json')) return `${a.status} with content-type ${a.headers.get('content-type') ?? '(none)'}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.body);
  } catch {
    return `${a.status} with a non-JSON body ${JSON.stringify(a.body.slice(0, 80))}`;
  }
  const p = parsed as { error?: unknown; errors?: unknown };
  return typeof p.error === 'string' || Array.isArray(p.errors) ? undefined : `${a.status} body without error: ${a.body.slice(0, 80)}`;
}

describe('keep-alive sequences of random and malformed requests', () => {
  it('every request gets exactly one documented answer, errors in JSON, connection: close whenever the emulator closes', { timeout: 40_000 }, async () => {
    const head = (method: string, path: string, headers: string[], bodyBytes?: string, declared?: number) =>
      `${method} ${path} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}${bodyBytes !== undefined || declared !== undefined ? `content-length: ${declared ?? Buffer.byteLength(bodyBytes ?? '')}\r\n` : ''}\r\n${bodyBytes ?? ''}`;
    const host = 'host: 127.0.0.1';
    const deep = (n: number) => `{"input":${'['.repeat(n)}${']'.repeat(n)}}`;
    const kinds: [string, (key: string) => string][] = [
      ['health', (k) => head('GET', '/v2/demo/health', [host, `authorization: ${k}`])],
      ['run', (k) => head('POST', '/v2/demo/run', [host, `authorization: ${k}`, 'content-type: application/json'], '{"input":{"mock_return":[1,2]}}')],
      ['runsync', (k) => head('POST', '/v2/demo/runsync?wait=1000', [host, `authorization: ${k}`], '{"input":{}}')],
      ['status unknown', (k) => head('POST', '/v2/demo/status/nope', [host, `authorization: ${k}`], '{}')],
      ['requests', (k) => head('GET', '/v2/demo/requests?limit=3', [host, `authorization: ${k}`])],
      ['info', (k) => head('GET', '/_qbench/info', [host, `authorization: ${k}`])],
      ['deep json', (k) => head('POST', '/v2/demo/run', [host, `authorization: ${k}`], deep(5_000))],
      ['malformed json', (k) => head('POST', '/v2/demo/runsync', [host, `authorization: ${k}`], '{"input":')],
      ['wrong key with body', () => head('POST', '/v2/demo/run', [host, 'authorization: nope'], '{"input":{}}')],
      ['413 declared', (k) => head('POST', '/v2/demo/run', [host, `authorization: ${k}`], '', 50_000_000)],
      ['REST create', (k) => head('POST', '/v1/templates', [host, `authorization: Bearer ${k}`], '{"name":7}')],
      ['REST deep', (k) => head('PATCH', '/v1/templates/x', [host, `authorization: Bearer ${k}`], deep(3_000))],
      ['REST 413 declared', (k) => head('POST', '/v1/templates', [host, `authorization: Bearer ${k}`], '', 2_000_000)],
      ['GraphQL', (k) => head('POST', `/graphql?api_key=${k}`, [host, 'content-type: application/json'], '{"query":"{ gpuTypes { id } }"}')],
      ['GraphQL deep', (k) => head('POST', `/graphql?api_key=${k}`, [host], JSON.stringify({ query: `{${'gpuTypes{'.repeat(2_000)}id${'}'.repeat(2_000)}}` }))],
      ['unknown route', (k) => head('DELETE', '/nowhere/%zz', [host, `authorization: ${k}`])],
      ['many headers', (k) => head('GET', '/v2/demo/health', [host, `authorization: ${k}`, ...Array.from({ length: 90 }, (_, i) => `x-h${i}: ${'v'.repeat(i)}`)])],
      ['headers too large', (k) => head('GET', '/v2/demo/health', [host, `authorization: ${k}`, `x-big: ${'b'.repeat(20_000)}`])],
      ['duplicate content-length', (k) => `POST /v2/demo/run HTTP/1.1\r\n${host}\r\nauthorization: ${k}\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}`],
      ['content-length and chunked', (k) => `POST /v2/demo/run HTTP/1.1\r\n${host}\r\nauthorization: ${k}\r\ncontent-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`],
      ['bad chunk', (k) => `POST /v2/demo/run HTTP/1.1\r\n${host}\r\nauthorization: ${k}\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
      ['bad header name', (k) => `GET /v2/demo/health HTTP/1.1\r\n${host}\r\nauthorization: ${k}\r\nbad header: x\r\n\r\n`],
      ['expect foo', (k) => head('GET', '/v2/demo/health', [host, `authorization: ${k}`, 'expect: foo'])],
      ['no host', (k) => head('GET', '/v2/demo/health', [`authorization: ${k}`])],
      ['garbage line', () => 'GARBAGE\r\n\r\n'],
    ];
    const picks = fc.sample(fc.tuple(fc.integer({ min: 0, max: kinds.length - 1 }), fc.boolean()), { numRuns: 600, seed: 20261124 });
    const seen = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < picks.length) {
        const conn = new KeepAliveConn(em.url);
        const sent: string[] = [];
        try {
          // One connection serves requests until the emulator closes it (or 40 went through).
          while (next < picks.length && sent.length < 40) {
            const [i, rightKey] = picks[next++] as [number, boolean];
            const [name, make] = kinds[i] as [string, (key: string) => string];
            sent.push(name);
            const a = await conn.send(make(rightKey ? KEY : 'wrong-key'));
            if (a === undefined) throw new Error(`${name}: the connection closed without an answer`);
            const bad = undocumented(a);
            if (bad !== undefined) throw new Error(`${name}: undocumented answer (${bad})`);
            seen.set(`${name} ${a.status}`, (seen.get(`${name} ${a.status}`) ?? 0) + 1);
            if (a.headers.get('connection') === 'close') {
              await conn.closed;
              break;
            }
            if (conn.isClosed) throw new Error(`${name}: ${a.status} kept the connection alive, then it was closed`);
          }
          // Close from our side and collect anything the server still writes: a second answer would show here.
          const closing = !conn.isClosed;
          if (closing) await conn.send(head('GET', '/v2/demo/health', [host, `authorization: ${KEY}`, 'connection: close']));
          await conn.closed;
          expect(conn.answers.length, `answers on a connection that carried ${sent.join(', ')}`).toBe(sent.length + (closing ? 1 : 0));
        } finally {
          conn.destroy();
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    // The run reached the interesting answers, not only one kind.
    const statuses = new Set([...seen.keys()].map((k) => Number(k.split(' ').at(-1))));
    for (const st of [200, 400, 401, 404, 413, 417, 431]) expect(statuses.has(st), `a ${st} in ${[...seen.keys()].join(', ')}`).toBe(true);
    const h = await request(`${em.url}/v2/demo/health`, { headers: { authorization: KEY }, dispatcher: agent });
    expect(h.statusCode).toBe(200);
    await h.body.dump();
  });

  it('a slow body after an early answer (wrong key, unknown endpoint) gets that one answer and nothing more', async () => {
    for (const [path, key] of [['/v2/demo/run', 'nope'], ['/v2/nope/run', KEY], ['/v1/templates', 'nope'], ['/graphql', 'nope']] as const) {
      const conn = new KeepAliveConn(em.url);
      try {
        const a = await conn.send(`POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${key}\r\ncontent-length: 100\r\n\r\n{"in`);
        expect(a && undocumented(a), path).toBeUndefined();
        // The request timeout (400 ms) ends the stalled request; nothing more may be written on it.
        await conn.closed;
        expect(conn.answers.map((x) => x.status), path).toHaveLength(1);
      } finally {
        conn.destroy();
      }
    }
  });
});
