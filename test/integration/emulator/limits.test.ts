// §8 limits: every row of the rate table (429 exactly at the documented count, on a
// ManualClock-driven window so no request slides out mid-test), the concurrency column,
// the dynamic rule, and the §4.1 payload caps at the byte boundary (decimal MB).
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS, RATE_WINDOW_MS, RUN_PAYLOAD, RUNSYNC_PAYLOAD } from '../../../src/spec/index.js';
import type { RateLimitedOperation } from '../../../src/spec/index.js';
import { startProxy } from '../conformance/border-proxy.js';
import { holdRequest, KEY, startManual, until, type TestEmulator } from './helpers.js';

let t: TestEmulator;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await t.close();
});

/** One request per operation that answers at once (no worker time needed). */
async function prepare(op: RateLimitedOperation): Promise<[string, string, unknown?]> {
  switch (op) {
    case 'run':
      return ['POST', '/v2/demo/run', { input: {} }];
    case 'runsync':
      return ['POST', '/v2/demo/runsync', { input: {} }];
    case 'status':
    case 'stream': {
      const r = await t.call('POST', '/v2/demo/runsync', { input: {} });
      return ['GET', `/v2/demo/${op}/${r.body.id}`];
    }
    case 'cancel':
      return ['POST', '/v2/demo/cancel/no-such-job', ''];
    case 'purge-queue':
      return ['POST', '/v2/demo/purge-queue', ''];
    case 'openai':
      return ['POST', '/v2/demo/openai/v1/models', {}];
    case 'requests':
      return ['GET', '/v2/demo/requests?limit=1'];
  }
}

async function burst(n: number, method: string, path: string, body?: unknown): Promise<number[]> {
  const statuses: number[] = [];
  const parallel = 32;
  for (let i = 0; i < n; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, () => t.call(method, path, body)));
    for (const r of batch) statuses.push(r.status);
  }
  return statuses;
}

describe('§8 rate table: 429 starts exactly at the documented count', () => {
  for (const op of Object.keys(RATE_LIMITS) as RateLimitedOperation[]) {
    const rule = RATE_LIMITS[op];
    it(`${rule.method} ${rule.path}: ${rule.requestsPerWindow} per ${RATE_WINDOW_MS} ms`, async () => {
      t = await startManual({ workers: { min: 1, max: 1 }, limits: { requestsPerWorker: 0 } });
      const [method, path, body] = await prepare(op);
      const used = op === 'status' || op === 'stream' ? 0 : 0;
      const statuses = await burst(rule.requestsPerWindow - used, method, path, body);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      const over = await t.call(method, path, body);
      expect(over.status).toBe(429);
      expect(over.headers['content-type']).toBe('application/json');
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(over.body).toMatchObject({ error: expect.stringContaining('rate limit'), operation: op, limit: rule.requestsPerWindow });
      // The window slides: one window later everything is admitted again.
      await t.advance(RATE_WINDOW_MS);
      expect((await t.call(method, path, body)).status).not.toBe(429);
    });
  }

  it('the window is sliding, not fixed: admissions leave it one by one', async () => {
    t = await startManual({ limits: { rates: { cancel: { requestsPerWindow: 3 } } } });
    await t.call('POST', '/v2/demo/cancel/a');
    await t.advance(4000);
    await t.call('POST', '/v2/demo/cancel/a');
    await t.call('POST', '/v2/demo/cancel/a');
    expect((await t.call('POST', '/v2/demo/cancel/a')).status).toBe(429);
    await t.advance(RATE_WINDOW_MS - 4000);
    // Only the first admission left the window.
    expect((await t.call('POST', '/v2/demo/cancel/a')).status).toBe(404);
    expect((await t.call('POST', '/v2/demo/cancel/a')).status).toBe(429);
  });

  it('limits are per endpoint', async () => {
    t = await startManual({ endpoints: ['a', 'b'], limits: { rates: { 'purge-queue': { requestsPerWindow: 2 } } } });
    for (let i = 0; i < 2; i++) expect((await t.call('POST', '/v2/a/purge-queue')).status).toBe(200);
    expect((await t.call('POST', '/v2/a/purge-queue')).status).toBe(429);
    expect((await t.call('POST', '/v2/b/purge-queue')).status).toBe(200);
  });
});

describe('§8 concurrency column', () => {
  const held: Record<Exclude<RateLimitedOperation, 'purge-queue'>, (i: number) => Promise<void>> = {
    runsync: async () => void sockets.push(await holdRequest(t.em.url, 'POST', '/v2/demo/runsync')),
    run: async () => void sockets.push(await holdRequest(t.em.url, 'POST', '/v2/demo/run')),
    status: async () => void sockets.push(await holdRequest(t.em.url, 'POST', '/v2/demo/status/x')),
    stream: async () => void sockets.push(await holdRequest(t.em.url, 'POST', '/v2/demo/stream/x')),
    cancel: async () => void sockets.push(await holdRequest(t.em.url, 'POST', '/v2/demo/cancel/x')),
    openai: async () => void sockets.push(await holdRequest(t.em.url, 'POST', '/v2/demo/openai/v1/models')),
    requests: async () => void sockets.push(await holdRequest(t.em.url, 'GET', '/v2/demo/requests')),
  };
  for (const op of Object.keys(held) as (keyof typeof held)[]) {
    const cap = RATE_LIMITS[op].concurrency as number;
    it(`${RATE_LIMITS[op].path}: ${cap} in flight, the next one gets 429`, async () => {
      t = await startManual();
      await Promise.all(Array.from({ length: cap }, (_, i) => held[op](i)));
      await until(() => t.em.core.defaultEndpoint.limiter.counters.get(op)?.inFlight === cap, `${cap} ${op} requests in flight`);
      const [method, path, body] = await prepare(op);
      const r = await t.call(method, path, body);
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ reason: 'concurrency', limit: cap, operation: op });
      // One leaves: one more is admitted.
      sockets.pop()?.destroy();
      await until(() => t.em.core.defaultEndpoint.limiter.counters.get(op)?.inFlight === cap - 1, 'one request to leave');
      expect((await t.call(method, path, body)).status).not.toBe(429);
    });
  }

  it('/runsync requests waiting for their job count as in flight', async () => {
    t = await startManual({ limits: { rates: { runsync: { concurrency: 3 } } } });
    const waiting = Array.from({ length: 3 }, () => t.call('POST', '/v2/demo/runsync', { input: { mock_delay: 5 } }));
    await until(() => t.em.core.defaultEndpoint.limiter.counters.get('runsync')?.inFlight === 3, 'three runsync in flight');
    expect((await t.call('POST', '/v2/demo/runsync', { input: {} })).status).toBe(429);
    await t.advance(5000);
    await t.advance(5000);
    await t.advance(5000);
    for (const r of await Promise.all(waiting)) expect(r.body.status).toBe('COMPLETED');
  });
});

describe('§8 dynamic rule', () => {
  it('effective limit = max(base, running workers x requests_per_worker)', async () => {
    t = await startManual({ workers: { min: 0, max: 5 }, limits: { requestsPerWorker: 4, rates: { run: { requestsPerWindow: 5 } } } });
    // Three busy workers: the limit becomes max(5, 3 * 4) = 12.
    for (let i = 0; i < 3; i++) expect((await t.call('POST', '/v2/demo/run', { input: { mock_delay: 100 } })).status).toBe(200);
    expect((await t.call('GET', '/v2/demo/health')).body.workers.running).toBe(3);
    for (let i = 3; i < 12; i++) expect((await t.call('POST', '/v2/demo/run', { input: {}, policy: { lowPriority: true } })).status, `request ${i + 1}`).toBe(200);
    const r = await t.call('POST', '/v2/demo/run', { input: {} });
    expect(r.status).toBe(429);
    expect(r.body.limit).toBe(12);
  });

  it('with no running worker the base limit applies', async () => {
    t = await startManual({ workers: { min: 0, max: 5 }, limits: { requestsPerWorker: 1000, rates: { cancel: { requestsPerWindow: 2 } } } });
    await t.call('POST', '/v2/demo/cancel/x');
    await t.call('POST', '/v2/demo/cancel/x');
    expect((await t.call('POST', '/v2/demo/cancel/x')).body.limit).toBe(2);
  });

  it('the control route changes requests_per_worker and info reports it', async () => {
    t = await startManual();
    const r = await t.call('POST', '/_qbench/limits', { requestsPerWorker: 7 });
    expect(r.status).toBe(200);
    expect((await t.call('GET', '/_qbench/info')).body.limits.requestsPerWorker).toBe(7);
  });
});

function sizedBody(bytes: number): string {
  const head = '{"input":{"pad":"';
  const tail = '"}}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

describe('§4.1 payload caps (1 MB = 1,000,000 bytes)', () => {
  it('/run accepts exactly 10 MB and refuses one byte more with 413', async () => {
    t = await startManual();
    const ok = await t.call('POST', '/v2/demo/run', sizedBody(RUN_PAYLOAD.decimalBytes));
    expect(ok.status).toBe(200);
    const over = await t.call('POST', '/v2/demo/run', sizedBody(RUN_PAYLOAD.decimalBytes + 1));
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: expect.stringContaining('payload too large'), limitBytes: RUN_PAYLOAD.decimalBytes });
  });

  it('/runsync accepts exactly 20 MB and refuses one byte more with 413', async () => {
    t = await startManual();
    const ok = await t.call('POST', '/v2/demo/runsync', sizedBody(RUNSYNC_PAYLOAD.decimalBytes));
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('COMPLETED');
    const over = await t.call('POST', '/v2/demo/runsync', sizedBody(RUNSYNC_PAYLOAD.decimalBytes + 1));
    expect(over.status).toBe(413);
  });

  it('a chunked body with no length is cut off once past the cap, not buffered', async () => {
    t = await startManual();
    const u = new URL(t.em.url);
    const s = connect(Number(u.port), u.hostname);
    sockets.push(s);
    let answer = '';
    let closed = false;
    s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    s.on('close', () => (closed = true));
    s.on('error', () => {});
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write(`POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ntransfer-encoding: chunked\r\n\r\n`);
    const piece = Buffer.alloc(1 << 20, 0x61);
    const head = Buffer.from(`${piece.length.toString(16)}\r\n`);
    let sentBytes = 0;
    // Up to 1 GB; the server must stop us long before.
    for (let i = 0; i < 1024 && !closed; i++) {
      const more = s.write(Buffer.concat([head, piece, Buffer.from('\r\n')]));
      sentBytes += piece.length;
      if (!more) await new Promise<void>((r) => (closed ? r() : s.once('drain', () => r()) && s.once('close', () => r())));
    }
    await until(() => closed, 'the server to cut the connection');
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    // Cut within the cap plus the lingering-close allowance (two caps: a client a little past the
    // cap finishes sending and reads its 413) and socket buffers.
    expect(sentBytes).toBeLessThan(4 * RUN_PAYLOAD.decimalBytes);
  });
});

/**
 * Send `head` and then `bodyBytes` bytes as fast as the socket takes them, on a socket that
 * stays open for reading after its own end (as a proxy's upstream socket does): how many body
 * bytes went out before the server stopped taking them, the first socket error, and the answer.
 */
async function uploadWhole(port: number, head: string, bodyBytes: number): Promise<{ sent: number; error: string | undefined; answer: string }> {
  const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  sockets.push(s);
  let answer = '';
  let error: string | undefined;
  let closed = false;
  s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  s.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
  s.on('close', () => (closed = true));
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(head);
  const piece = Buffer.alloc(256 * 1024, 0x20);
  let sent = 0;
  while (sent < bodyBytes && !closed && error === undefined) {
    const n = Math.min(piece.length, bodyBytes - sent);
    const more = s.write(piece.subarray(0, n));
    sent += n;
    if (!more) await new Promise<void>((r) => (closed ? r() : s.once('drain', () => r()) && s.once('close', () => r())));
  }
  if (!closed) s.end();
  await until(() => closed, 'the connection to close after the answer');
  return { sent, error, answer };
}

describe('an answer before the body (413, wrong key) is a lingering close, not a reset', () => {
  it('a client sending a body a little past the cap sends it whole and reads its 413', async () => {
    t = await startManual();
    const size = RUN_PAYLOAD.decimalBytes + 2_000_000;
    const head = `POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`;
    const r = await uploadWhole(Number(new URL(t.em.url).port), head, size);
    expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(r.answer.toLowerCase()).toContain('connection: close');
    expect(r.error).toBeUndefined();
    expect(r.sent).toBe(size);
  });

  it('a wrong key with a large body: the client sends it whole and reads its 401', async () => {
    t = await startManual();
    const size = 5_000_000;
    const head = `POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: wrong-key\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`;
    const r = await uploadWhole(Number(new URL(t.em.url).port), head, size);
    expect(r.answer).toMatch(/^HTTP\/1\.1 401/);
    expect(r.error).toBeUndefined();
    expect(r.sent).toBe(size);
  });

  it('through a plain proxy that uploads the whole body first, the client gets the 413 and the 401, not 502', async () => {
    t = await startManual();
    const proxy = await startProxy({ upstream: t.em.url, delayMs: 5, jitterMs: 5 });
    try {
      const over = sizedBody(RUN_PAYLOAD.decimalBytes + 2_000_000);
      const post = (key: string) => fetch(`${proxy.url}/v2/demo/run`, { method: 'POST', headers: { authorization: key, 'content-type': 'application/json' }, body: over });
      const tooLarge = await post(KEY);
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toMatchObject({ limitBytes: RUN_PAYLOAD.decimalBytes });
      const wrongKey = await post('wrong-key');
      expect(wrongKey.status).toBe(401);
      await wrongKey.arrayBuffer();
    } finally {
      await proxy.close();
    }
  });

  it('past the allowance (two caps after the answer) the connection is still cut', async () => {
    t = await startManual();
    const size = RUN_PAYLOAD.decimalBytes * 4;
    const head = `POST /v2/demo/run HTTP/1.1\r\nhost: x\r\nauthorization: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`;
    const r = await uploadWhole(Number(new URL(t.em.url).port), head, size);
    expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(r.error).toBeDefined();
    expect(r.sent).toBeLessThan(size);
  });
});
