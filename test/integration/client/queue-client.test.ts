// The typed queue client (src/client/queue-client.ts) against a scripted loopback server:
// paths, bodies and auth (§4.1, §5), connection reuse, /stream in both forms, the 429 policy,
// timeouts, aborts and the error codes of every failure.
import { afterEach, describe, expect, it } from 'vitest';
import { QueueClient } from '../../../src/client/queue-client.js';
import type { AttemptRecord } from '../../../src/client/backoff.js';
import { isQbenchError } from '../../../src/errors.js';
import { RUNSYNC_WAIT_MS, EXECUTION_TIMEOUT_MS } from '../../../src/spec/index.js';
import { sendJson, startLoopback, type Handler, type Loopback } from './loopback-server.js';

const KEY = 'qb-test-key-7d41f0c2';
let server: Loopback | undefined;
let client: QueueClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, extra: Partial<ConstructorParameters<typeof QueueClient>[0]> = {}): Promise<{ s: Loopback; c: QueueClient }> {
  server = await startLoopback(handler);
  client = new QueueClient({ baseUrl: server.baseUrl, endpointId: 'ep-1', apiKey: KEY, ...extra });
  return { s: server, c: client };
}

const noSleep = { sleep: () => Promise.resolve() };

describe('QueueClient paths, bodies and auth (§4.1, §5)', () => {
  it('sends Bearer by default and the raw key when asked', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { id: 'a', status: 'IN_QUEUE' }));
    await c.run({ input: { x: 1 } });
    const raw = new QueueClient({ baseUrl: s.baseUrl, endpointId: 'ep-1', apiKey: KEY, authForm: 'raw' });
    try {
      await raw.run({ input: { x: 2 } });
    } finally {
      await raw.close();
    }
    expect(s.requests.map((r) => r.headers['authorization'])).toEqual([`Bearer ${KEY}`, KEY]);
  });

  it('run posts JSON to /v2/{endpoint}/run and parses {id, status}', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { id: 'job-1', status: 'IN_QUEUE' }));
    const answer = await c.run({ input: { prompt: 'hi' }, policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } });
    expect(answer).toEqual({ id: 'job-1', status: 'IN_QUEUE' });
    const req = s.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url.pathname).toBe('/v2/ep-1/run');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['accept']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ input: { prompt: 'hi' }, policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } });
  });

  it('keeps connections alive across requests (pooled sockets are reused)', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { id: 'k', status: 'IN_QUEUE' }));
    for (let i = 0; i < 6; i++) await c.run({ input: {} });
    // undici may open a second socket while the first finishes its answer; never one per request.
    expect(new Set(s.requests.map((r) => r.remotePort)).size).toBeLessThan(s.requests.length / 2);
    const single = new QueueClient({ baseUrl: s.baseUrl, endpointId: 'ep-1', apiKey: KEY, connections: 1 });
    try {
      for (let i = 0; i < 4; i++) await single.run({ input: {} });
    } finally {
      await single.close();
    }
    expect(new Set(s.requests.slice(6).map((r) => r.remotePort)).size).toBe(1);
  });

  it('runSync passes wait and returns an unfinished record as is (WIRE-COMPAT)', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { id: 'sync-1', status: 'IN_PROGRESS' }));
    const rec = await c.runSync({ input: {} }, { waitMs: RUNSYNC_WAIT_MS.min });
    expect(rec.status).toBe('IN_PROGRESS');
    expect(s.requests[0]!.url.pathname).toBe('/v2/ep-1/runsync');
    expect(s.requests[0]!.url.searchParams.get('wait')).toBe(String(RUNSYNC_WAIT_MS.min));
  });

  it('runSyncToCompletion polls /status until the job is terminal', async () => {
    const { s, c } = await setup((req, res, i) => {
      if (req.url.pathname.endsWith('/runsync')) return sendJson(res, 200, { id: 'sync-2', status: 'IN_QUEUE' });
      sendJson(res, 200, i < 3 ? { id: 'sync-2', status: 'IN_PROGRESS' } : { id: 'sync-2', status: 'COMPLETED', output: 'done', delayTime: 1, executionTime: 2 });
    });
    const rec = await c.runSyncToCompletion({ input: {} }, { pollIntervalMs: 1 });
    expect(rec).toMatchObject({ status: 'COMPLETED', output: 'done' });
    expect(s.requests.map((r) => r.url.pathname)).toEqual(['/v2/ep-1/runsync', '/v2/ep-1/status/sync-2', '/v2/ep-1/status/sync-2', '/v2/ep-1/status/sync-2']);
  });

  it('waitForJob via status-sync long-polls GET /status-sync/{id}?wait=', async () => {
    const { s, c } = await setup((_req, res, i) => sendJson(res, 200, { id: 'j', status: i === 0 ? 'IN_PROGRESS' : 'FAILED', ...(i > 0 ? { error: 'boom' } : {}) }));
    const rec = await c.waitForJob('j', { via: 'status-sync', statusSyncWaitMs: RUNSYNC_WAIT_MS.min });
    expect(rec).toMatchObject({ status: 'FAILED', error: 'boom' });
    expect(s.requests.map((r) => [r.method, r.url.pathname, r.url.searchParams.get('wait')])).toEqual([
      ['GET', '/v2/ep-1/status-sync/j', String(RUNSYNC_WAIT_MS.min)],
      ['GET', '/v2/ep-1/status-sync/j', String(RUNSYNC_WAIT_MS.min)],
    ]);
  });

  it('waitForJob gives up with QB_ERR_TIMEOUT after maxDurationMs', async () => {
    const { c } = await setup((_req, res) => sendJson(res, 200, { id: 'j', status: 'IN_QUEUE' }));
    const err = await c.waitForJob('j', { pollIntervalMs: 5, maxDurationMs: 30 }).catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_TIMEOUT')).toBe(true);
  });

  it('status passes ttl, encodes the id and parses workerId and error', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 200, { id: 'a/b', status: 'FAILED', workerId: 'w1', error: 'oops', delayTime: 3, executionTime: 4 }));
    const rec = await c.status('a/b', { ttlMs: 6000 });
    expect(rec).toMatchObject({ workerId: 'w1', error: 'oops' });
    expect(s.requests[0]!.url.pathname).toBe('/v2/ep-1/status/a%2Fb');
    expect(s.requests[0]!.url.searchParams.get('ttl')).toBe('6000');
  });

  it('cancel, retry and purge-queue POST {} and parse their answers; health parses', async () => {
    const { s, c } = await setup((req, res) => {
      const p = req.url.pathname;
      if (p.includes('/cancel/')) return sendJson(res, 200, { id: 'c', status: 'CANCELLED' });
      if (p.includes('/retry/')) return sendJson(res, 200, { id: 'r', status: 'IN_QUEUE' });
      if (p.endsWith('/purge-queue')) return sendJson(res, 200, { removed: 3, status: 'completed' });
      sendJson(res, 200, { jobs: { completed: 1, failed: 0, inProgress: 2, inQueue: 3, retried: 0 }, workers: { idle: 1, running: 2, throttled: 0 } });
    });
    expect(await c.cancel('c')).toEqual({ id: 'c', status: 'CANCELLED' });
    expect(await c.retry('r')).toEqual({ id: 'r', status: 'IN_QUEUE' });
    expect(await c.purgeQueue()).toEqual({ removed: 3, status: 'completed' });
    expect((await c.health()).workers).toEqual({ idle: 1, running: 2, throttled: 0 });
    expect(s.requests.slice(0, 3).map((r) => [r.method, r.body])).toEqual([['POST', '{}'], ['POST', '{}'], ['POST', '{}']]);
    expect(s.requests[3]!.method).toBe('GET');
  });
});

describe('QueueClient construction', () => {
  it('names the bad option (QB_ERR_CONFIG) and never echoes the key', () => {
    const cases: [Partial<ConstructorParameters<typeof QueueClient>[0]>, RegExp][] = [
      [{ apiKey: '' }, /apiKey/],
      [{ apiKey: '   ' }, /apiKey/],
      [{ endpointId: '' }, /endpointId/],
      [{ baseUrl: 'not a url' }, /baseUrl/],
      [{ baseUrl: 'ftp://127.0.0.1' }, /baseUrl/],
      [{ timeoutMs: 0 }, /timeoutMs/],
      [{ backoff: { maxAttempts: 0 } }, /maxAttempts/],
    ];
    for (const [over, re] of cases) {
      let err: unknown;
      try {
        new QueueClient({ baseUrl: 'http://127.0.0.1:1', endpointId: 'ep', apiKey: KEY, ...over });
      } catch (e) {
        err = e;
      }
      expect(isQbenchError(err, 'QB_ERR_CONFIG'), JSON.stringify(over)).toBe(true);
      expect((err as Error).message).toMatch(re);
      expect((err as Error).message).not.toContain(KEY);
    }
  });
});

describe('QueueClient.stream', () => {
  it('yields every chunk of the object form and stops on terminal status with an empty batch', async () => {
    const batches = [
      { status: 'IN_PROGRESS', stream: [{ output: { text: ['a'] } }, { output: { text: ['b'] }, metrics: { stream_index: 1 } }] },
      { status: 'IN_PROGRESS', stream: [] },
      { status: 'COMPLETED', stream: [{ output: { text: ['c'] } }] },
      { status: 'COMPLETED', stream: [] },
      { status: 'COMPLETED', stream: [{ output: 'never read' }] },
    ];
    const { s, c } = await setup((_req, res, i) => sendJson(res, 200, batches[i]));
    const seen: unknown[] = [];
    const it = c.stream('s1', { pollIntervalMs: 1 });
    let end;
    for (;;) {
      const r = await it.next();
      if (r.done) {
        end = r.value;
        break;
      }
      seen.push(r.value.output);
    }
    expect(seen).toEqual([{ text: ['a'] }, { text: ['b'] }, { text: ['c'] }]);
    expect(end).toEqual({ status: 'COMPLETED', polls: 4, chunks: 3, shape: 'object' });
    expect(s.requests.every((r) => r.url.pathname === '/v2/ep-1/stream/s1')).toBe(true);
  });

  it('accepts the bare-array form and asks /status when a batch is empty', async () => {
    const { s, c } = await setup((req, res) => {
      const streamCalls = s.requests.filter((r) => r.url.pathname.includes('/stream/')).length;
      if (req.url.pathname.includes('/status/')) return sendJson(res, 200, { id: 's2', status: streamCalls >= 3 ? 'COMPLETED' : 'IN_PROGRESS' });
      sendJson(res, 200, streamCalls === 1 ? [{ output: 1 }] : []);
    });
    const out: unknown[] = [];
    for await (const chunk of c.stream('s2', { pollIntervalMs: 1 })) out.push(chunk.output);
    expect(out).toEqual([1]);
    expect(s.requests.map((r) => r.url.pathname.split('/')[3])).toEqual(['stream', 'stream', 'status', 'stream', 'status']);
  });

  it('is bounded by maxDurationMs and by the signal', async () => {
    const { c } = await setup((_req, res) => sendJson(res, 200, { status: 'IN_QUEUE', stream: [] }));
    const timedOut = await (async () => {
      for await (const _ of c.stream('s3', { pollIntervalMs: 5, maxDurationMs: 30 })) void _;
    })().catch((e: unknown) => e);
    expect(isQbenchError(timedOut, 'QB_ERR_TIMEOUT')).toBe(true);
    const ac = new AbortController();
    const aborted = (async () => {
      for await (const _ of c.stream('s3', { pollIntervalMs: 5, signal: ac.signal })) void _;
    })().catch((e: unknown) => e);
    ac.abort(new Error('stop'));
    expect(isQbenchError(await aborted, 'QB_ERR_ABORTED')).toBe(true);
  });
});

describe('QueueClient 429 policy, timeouts and errors', () => {
  it('retries 429 with Retry-After honoured and records every attempt', async () => {
    const waits: number[] = [];
    const { s, c } = await setup(
      (_req, res, i) => {
        if (i === 0) return sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '2' });
        if (i === 1) return sendJson(res, 429, { error: 'slow down' });
        sendJson(res, 200, { id: 'ok', status: 'IN_QUEUE' });
      },
      { backoff: { baseMs: 100, capMs: 1000, maxAttempts: 5 }, backoffRuntime: { sleep: (ms) => (waits.push(ms), Promise.resolve()), random: () => 0.5 } },
    );
    const attempts: AttemptRecord[] = [];
    const answer = await c.run({ input: {} }, { onAttempt: (a) => attempts.push(a) });
    expect(answer.id).toBe('ok');
    expect(s.requests).toHaveLength(3);
    // Retry-After: 2 s wins over the jitter; the second wait is full jitter 0.5 * min(1000, 100 * 2^1).
    expect(waits).toEqual([2000, 100]);
    expect(attempts.map((a) => [a.attempt, a.status, a.waitedMs])).toEqual([[1, 429, 0], [2, 429, 2000], [3, 200, 100]]);
    expect(attempts[0]!.retryAfterMs).toBe(2000);
    expect(attempts.every((a) => a.durationMs >= 0 && a.startedAtMs > 0)).toBe(true);
  });

  it('gives up after maxAttempts with QB_ERR_RATE_LIMITED and the attempts', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 429, { error: 'no' }), { backoff: { maxAttempts: 3 }, backoffRuntime: noSleep });
    const err = await c.health().catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_RATE_LIMITED')).toBe(true);
    expect((err as { attempts: AttemptRecord[] }).attempts.map((a) => a.status)).toEqual([429, 429, 429]);
    expect(s.requests).toHaveLength(3);
  });

  it('times out a request that never answers (QB_ERR_TIMEOUT), per request', async () => {
    const { c } = await setup(() => {
      /* never answer; afterEach closes the socket */
    });
    const err = await c.health({ timeoutMs: 50 }).catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_TIMEOUT')).toBe(true);
    expect((err as { attempts: AttemptRecord[] }).attempts).toHaveLength(1);
    expect((err as { attempts: AttemptRecord[] }).attempts[0]).toMatchObject({ status: null, errorCode: 'QB_ERR_TIMEOUT' });
  });

  it('aborts on the caller signal (QB_ERR_ABORTED)', async () => {
    const { c } = await setup(() => {});
    const ac = new AbortController();
    const p = c.health({ signal: ac.signal }).catch((e: unknown) => e);
    ac.abort();
    expect(isQbenchError(await p, 'QB_ERR_ABORTED')).toBe(true);
  });

  it('a schema mismatch keeps the raw body, the status and the zod issues', async () => {
    const body = '{"id":"x","status":"DONE","extra":1}';
    const { c } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const err = await c.status('x').catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_SCHEMA_MISMATCH')).toBe(true);
    expect(err).toMatchObject({ reason: 'schema', status: 200, rawBody: body });
    expect((err as { issues: { path: unknown[] }[] }).issues.map((i) => i.path)).toEqual([['status']]);
  });

  it('refuses a 200 without application/json, and a body that is not JSON', async () => {
    const { c } = await setup((_req, res, i) => {
      res.writeHead(200, { 'content-type': i === 0 ? 'text/plain' : 'application/json; charset=utf-8' });
      res.end(i === 0 ? '{"id":"x","status":"COMPLETED"}' : 'not json');
    });
    await expect(c.status('x')).rejects.toMatchObject({ code: 'QB_ERR_SCHEMA_MISMATCH', reason: 'content-type', contentType: 'text/plain' });
    await expect(c.status('x')).rejects.toMatchObject({ code: 'QB_ERR_SCHEMA_MISMATCH', reason: 'json', rawBody: 'not json' });
  });

  it('turns a 404 into QB_ERR_HTTP with the service error text', async () => {
    const { c } = await setup((_req, res) => sendJson(res, 404, { error: 'job not found' }));
    await expect(c.status('gone')).rejects.toMatchObject({ code: 'QB_ERR_HTTP', status: 404, serviceError: 'job not found' });
  });

  it('refuses out-of-range requests before sending, unless validation is off', async () => {
    const { s, c } = await setup((_req, res) => sendJson(res, 400, { error: 'bad' }));
    const tooShort = EXECUTION_TIMEOUT_MS.min - 1;
    await expect(c.run({ input: {}, policy: { executionTimeout: tooShort } })).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    await expect(c.runSync({ input: {} }, { waitMs: RUNSYNC_WAIT_MS.max + 1 })).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    await expect(c.status('')).rejects.toMatchObject({ code: 'QB_ERR_INVALID_REQUEST' });
    expect(s.requests).toHaveLength(0);
    const loose = new QueueClient({ baseUrl: s.baseUrl, endpointId: 'ep-1', apiKey: KEY, validateRequests: false });
    try {
      await expect(loose.run({ input: {}, policy: { executionTimeout: tooShort } })).rejects.toMatchObject({ code: 'QB_ERR_HTTP', status: 400 });
    } finally {
      await loose.close();
    }
    expect(s.requests).toHaveLength(1);
  });

  it('reports a closed port as QB_ERR_UNREACHABLE', async () => {
    const tmp = await startLoopback(() => {});
    const url = tmp.baseUrl;
    await tmp.close();
    client = new QueueClient({ baseUrl: url, endpointId: 'ep', apiKey: KEY });
    await expect(client.health()).rejects.toMatchObject({ code: 'QB_ERR_UNREACHABLE' });
  });
});
