// The load generator's own HTTP/1.1 client (src/load/h1-pool.ts, src/load/h1-parser.ts) and TargetHttp on top of it
// (src/load/http.ts), against real loopback servers: raw `net` servers answer byte-exact
// (split writes, chunked framing, interim answers, resets), `node:http` where framing is not
// the point. Every server and pool is closed after each test; no test waits on a clock to let
// things settle (writes are split by yielding the event loop twice, which on loopback in one
// process lets the client read each piece on its own).
import { EventEmitter } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseHeaderBlock, type H1Response } from '../../../src/load/h1-parser.js';
import { H1Pool, type H1PoolOptions, type H1Request } from '../../../src/load/h1-pool.js';
import { TargetHttp } from '../../../src/load/http.js';
import type { LoadTarget } from '../../../src/load/context.js';

// ---------------------------------------------------------------------------------------------
// Raw loopback server

interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** Which accepted connection (0-based) carried it. */
  readonly conn: number;
  readonly sock: net.Socket;
}

interface RawServer {
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  accepted: number;
  /** Connections open now / the most open at once. */
  open: number;
  maxOpen: number;
  readonly requests: RawRequest[];
  readonly sockets: net.Socket[];
  /** Resolves once `pred` holds (checked on every accept, request and close). */
  until(pred: () => boolean): Promise<void>;
  close(): Promise<void>;
}

const servers: { close(): Promise<void> }[] = [];
const pools: H1Pool[] = [];
const targets: TargetHttp[] = [];

async function rawServer(onRequest: (req: RawRequest, sock: net.Socket) => void): Promise<RawServer> {
  const changes = new EventEmitter();
  const state = { accepted: 0, open: 0, maxOpen: 0 };
  const requests: RawRequest[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((sock) => {
    const conn = state.accepted++;
    state.open++;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    sockets.push(sock);
    sock.setNoDelay(true);
    sock.on('error', () => undefined);
    sock.on('close', () => {
      state.open--;
      changes.emit('change');
    });
    let buf = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      // Bounded: each pass takes one whole request off the buffer or stops.
      for (let guard = 0; guard < 1000; guard++) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) break;
        const lines = buf.toString('latin1', 0, end).split('\r\n');
        const [method = '', path = ''] = lines[0]!.split(' ');
        const headers: Record<string, string> = {};
        for (const l of lines.slice(1)) {
          const i = l.indexOf(':');
          headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        const len = Number(headers['content-length'] ?? 0);
        if (buf.length < end + 4 + len) break;
        const req: RawRequest = { method, path, headers, body: Buffer.from(buf.subarray(end + 4, end + 4 + len)), conn, sock };
        buf = buf.subarray(end + 4 + len);
        requests.push(req);
        onRequest(req, sock);
        changes.emit('change');
      }
    });
    changes.emit('change');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const s: RawServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    get accepted() {
      return state.accepted;
    },
    get open() {
      return state.open;
    },
    get maxOpen() {
      return state.maxOpen;
    },
    requests,
    sockets,
    until: (pred) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pred()) return;
          changes.off('change', check);
          resolve();
        };
        changes.on('change', check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const k of sockets) k.destroy();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Two turns of the event loop: the client's poll phase reads what was written before. */
const yieldTwice = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** Write `pieces` one by one, letting the client read each before the next goes out. */
async function writePieces(sock: net.Socket, pieces: readonly (string | Buffer)[]): Promise<void> {
  for (const p of pieces) {
    if (sock.destroyed) return;
    sock.write(p);
    await yieldTwice();
  }
}

const bytesOf = (s: string) => [...Buffer.from(s, 'latin1')].map((b) => Buffer.from([b]));

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

// ---------------------------------------------------------------------------------------------
// Client side

/** Every socket the client opened (net.connect is wrapped), to await their close. */
let clientSockets: net.Socket[] = [];

beforeEach(() => {
  clientSockets = [];
  const real = net.connect.bind(net) as (...a: unknown[]) => net.Socket;
  vi.spyOn(net, 'connect').mockImplementation((...args: unknown[]) => {
    const s = real(...args);
    clientSockets.push(s);
    return s;
  });
});

afterEach(async () => {
  for (const p of pools.splice(0)) p.destroy();
  await Promise.all(targets.splice(0).map((t) => t.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  vi.restoreAllMocks();
});

/** Resolves once every client socket has emitted 'close' (no event is left to come). */
// (Not events.once: that rejects on an 'error' event, which a refused socket emits before 'close'.)
const closed = (s: net.Socket) => (s.closed ? Promise.resolve() : new Promise<void>((resolve) => s.once('close', () => resolve())));
const clientSocketsClosed = () => Promise.all(clientSockets.map(closed));

function newPool(url: string, opts: Partial<H1PoolOptions> = {}, nowMs?: () => number): H1Pool {
  const p = new H1Pool(url, { connections: 1, requestTimeoutMs: 5_000, ...opts }, nowMs);
  pools.push(p);
  return p;
}

interface Call {
  readonly done: Promise<void>;
  res: H1Response | undefined;
  code: string | undefined;
  message: string | undefined;
  responses: number;
  errors: number;
  sent: number;
}

const get = (path: string, method = 'GET'): H1Request => ({ head: `${method} ${path} HTTP/1.1\r\nhost: test\r\n\r\n`, isHead: method === 'HEAD' });

/** Dispatch and count every handler call; `done` resolves on the first onResponse/onError. */
function call(pool: H1Pool, req: H1Request | string, onSent?: () => void): Call {
  let settle!: () => void;
  const c: Call = {
    done: new Promise<void>((resolve) => (settle = resolve)),
    res: undefined,
    code: undefined,
    message: undefined,
    responses: 0,
    errors: 0,
    sent: 0,
  };
  pool.dispatch(typeof req === 'string' ? get(req) : req, {
    onSent: () => {
      c.sent++;
      onSent?.();
    },
    onResponse: (res) => {
      c.responses++;
      c.res = res;
      settle();
    },
    onError: (code, message) => {
      c.errors++;
      c.code = code;
      c.message = message;
      settle();
    },
  });
  return c;
}

const textOf = (res: H1Response | undefined): string => {
  const b = res?.body ?? null;
  return b === null ? '' : Buffer.isBuffer(b) ? b.toString('latin1') : Buffer.concat(b).toString('latin1');
};

const exactlyOnce = (...calls: Call[]) => {
  for (const c of calls) expect(c.responses + c.errors).toBe(1);
};

// ---------------------------------------------------------------------------------------------

describe('parseHeaderBlock', () => {
  it('lower-cases names, trims values, turns repeated headers into arrays and skips lines without a name', () => {
    const block = Buffer.from('Content-Type:  application/json \r\nSet-Cookie: a=1\r\nX-Empty:\r\nset-cookie:b=2\r\nSET-COOKIE: c=3\t\r\nno colon here\r\n: nameless\r\nX-Colon: a:b', 'latin1');
    expect(parseHeaderBlock(block)).toEqual({
      'content-type': 'application/json',
      'set-cookie': ['a=1', 'b=2', 'c=3'],
      'x-empty': '',
      'x-colon': 'a:b',
    });
    expect(parseHeaderBlock(Buffer.alloc(0))).toEqual({});
  });
});

describe('H1Pool framing', { timeout: 15_000 }, () => {
  it('content-length answers on one keep-alive connection: status, header block, body, bytes', async () => {
    const srv = await rawServer((req, sock) => sock.write(ok(`hello ${req.path}`, 'X-Thing:  spaced \r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n')));
    const pool = newPool(srv.url);
    for (let i = 0; i < 3; i++) {
      const c = call(pool, `/p${i}`);
      await c.done;
      expect(c.res?.status).toBe(200);
      expect(textOf(c.res)).toBe(`hello /p${i}`);
      expect(c.res?.bytes).toBe(`hello /p${i}`.length);
      expect(parseHeaderBlock(c.res!.headerBlock)).toEqual({ 'content-length': String(`hello /p${i}`.length), 'x-thing': 'spaced', 'set-cookie': ['a=1', 'b=2'] });
      expect(c.sent).toBe(1);
    }
    expect(srv.accepted).toBe(1);
    expect(srv.requests.map((r) => r.path)).toEqual(['/p0', '/p1', '/p2']);
  });

  it('an answer written byte by byte (head and body) is reassembled, then the next one on the same connection parses', async () => {
    const body = 'abcdefghijklmnop';
    const answer = `HTTP/1.1 201 Created\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    const srv = await rawServer((req, sock) => {
      if (req.path === '/bytes') void writePieces(sock, bytesOf(answer));
      else void writePieces(sock, ['HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\n', 'ab', 'cd', 'ef']);
    });
    const pool = newPool(srv.url);
    let dataEvents = 0;
    const a = call(pool, '/bytes');
    await srv.until(() => srv.accepted === 1);
    clientSockets[0]!.on('data', () => dataEvents++);
    await a.done;
    expect(a.res?.status).toBe(201);
    expect(textOf(a.res)).toBe(body);
    expect(a.res?.bytes).toBe(body.length);
    expect(parseHeaderBlock(a.res!.headerBlock)['content-type']).toBe('text/plain');
    // The pieces really arrived apart (the body came as several buffers).
    expect(dataEvents).toBeGreaterThan(answer.length / 2);
    expect(Array.isArray(a.res?.body)).toBe(true);
    const b = call(pool, '/pieces');
    await b.done;
    expect(textOf(b.res)).toBe('abcdef');
    expect(srv.accepted).toBe(1);
  });

  it('a corked answer (head and body in many writes, one segment) and two answers in one write', async () => {
    const pending: net.Socket[] = [];
    const srv = await rawServer((req, sock) => {
      if (req.path === '/cork') {
        sock.cork();
        sock.write('HTTP/1.1 200 OK\r\n');
        sock.write('content-length: 11\r\n');
        sock.write('\r\nhello');
        sock.write(' world');
        sock.uncork();
        return;
      }
      pending.push(sock);
      if (pending.length === 2) sock.write(ok('first') + ok('second!'));
    });
    const pool = newPool(srv.url, { pipelining: 2 });
    const a = call(pool, '/cork');
    await a.done;
    expect(textOf(a.res)).toBe('hello world');
    const b = call(pool, '/1');
    const c = call(pool, '/2');
    await Promise.all([b.done, c.done]);
    expect(textOf(b.res)).toBe('first');
    expect(textOf(c.res)).toBe('second!');
    expect(srv.accepted).toBe(1);
  });

  const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nx-a: 1\r\n\r\n5;x=y\r\nhello\r\n1\r\n \r\nA;name="v"\r\n0123456789\r\n0\r\nx-trailer: t\r\nx-other: u\r\n\r\n';
  const CHUNKED_BODY = 'hello 0123456789';

  it('chunked: several chunks, chunk extensions and trailers, in one write and byte by byte', async () => {
    const srv = await rawServer((req, sock) => {
      if (req.path === '/one') sock.write(CHUNKED);
      else void writePieces(sock, bytesOf(CHUNKED));
    });
    const pool = newPool(srv.url);
    const a = call(pool, '/one');
    await a.done;
    expect(textOf(a.res)).toBe(CHUNKED_BODY);
    expect(a.res?.bytes).toBe(CHUNKED_BODY.length);
    // The header block is the head's; trailers are consumed, not added to it.
    expect(parseHeaderBlock(a.res!.headerBlock)).toEqual({ 'transfer-encoding': 'chunked', 'x-a': '1' });
    const b = call(pool, '/bytes');
    await b.done;
    expect(textOf(b.res)).toBe(CHUNKED_BODY);
    expect(srv.accepted).toBe(1);
  });

  it.each([
    ['chunked', CHUNKED, CHUNKED_BODY],
    ['content-length', ok('split me anywhere', 'x-b: 2\r\n'), 'split me anywhere'],
    ['interim then content-length', `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${ok('after 1xx')}`, 'after 1xx'],
    ['HTTP/1.0 keep-alive', 'HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 4\r\n\r\n1.0!', '1.0!'],
  ])('%s: an answer split in two at every point parses the same (one connection throughout)', async (_name, answer, expected) => {
    const srv = await rawServer((req, sock) => {
      const at = Number(req.path.slice(1));
      void writePieces(sock, [answer.slice(0, at), answer.slice(at)]);
    });
    const pool = newPool(srv.url);
    for (let at = 1; at < answer.length; at++) {
      const c = call(pool, `/${at}`);
      await c.done;
      expect({ at, code: c.code, text: textOf(c.res) }).toEqual({ at, code: undefined, text: expected });
    }
    expect(srv.accepted).toBe(1);
  });

  it('close-delimited body (no length): complete when the server ends the socket; the next request opens a new connection', async () => {
    const srv = await rawServer((_req, sock) => {
      void writePieces(sock, ['HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n', 'until ', 'the end']).then(() => sock.end());
    });
    const pool = newPool(srv.url);
    const a = call(pool, '/a');
    await a.done;
    expect(a.res?.status).toBe(200);
    expect(textOf(a.res)).toBe('until the end');
    const b = call(pool, '/b');
    await b.done;
    expect(textOf(b.res)).toBe('until the end');
    expect(srv.accepted).toBe(2);
    await clientSocketsClosed();
    exactlyOnce(a, b);
  });

  it('HTTP/1.0: closes after a content-length answer, reads until close without one, keeps alive when asked', async () => {
    const srv = await rawServer((req, sock) => {
      if (req.path === '/len') sock.write('HTTP/1.0 200 OK\r\ncontent-length: 3\r\n\r\nabc');
      else if (req.path === '/close') sock.end('HTTP/1.0 200 OK\r\n\r\nto the end');
      else sock.write('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 2\r\n\r\nka');
    });
    const pool = newPool(srv.url);
    const a = call(pool, '/len');
    await a.done;
    expect(textOf(a.res)).toBe('abc');
    // The client closes an HTTP/1.0 connection itself after the answer.
    await srv.until(() => srv.accepted === 1 && srv.open === 0);
    const b = call(pool, '/close');
    await b.done;
    expect(textOf(b.res)).toBe('to the end');
    expect(srv.accepted).toBe(2);
    const c = call(pool, '/ka');
    await c.done;
    const d = call(pool, '/ka');
    await d.done;
    expect([textOf(c.res), textOf(d.res)]).toEqual(['ka', 'ka']);
    expect(srv.accepted).toBe(3);
  });

  it('100 Continue and 103 Early Hints are skipped; the final answer and its headers are kept', async () => {
    const srv = await rawServer((_req, sock) => {
      void writePieces(sock, ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n', ok('final', 'x-final: yes\r\n')]);
    });
    const pool = newPool(srv.url);
    const a = call(pool, '/x');
    await a.done;
    expect(a.res?.status).toBe(200);
    expect(textOf(a.res)).toBe('final');
    expect(parseHeaderBlock(a.res!.headerBlock)).toEqual({ 'content-length': '5', 'x-final': 'yes' });
    // All in one write too.
    const srv2 = await rawServer((_req, sock) => sock.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </b>\r\n\r\n${ok('again')}`));
    const b = call(newPool(srv2.url), '/y');
    await b.done;
    expect([b.res?.status, textOf(b.res)]).toEqual([200, 'again']);
  });

  it.each([
    ['204', 'GET', 'HTTP/1.1 204 No Content\r\ncontent-length: 7\r\n\r\n', 204],
    ['304', 'GET', 'HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\netag: "x"\r\n\r\n', 304],
    ['HEAD', 'HEAD', 'HTTP/1.1 200 OK\r\ncontent-length: 12\r\ncontent-type: text/plain\r\n\r\n', 200],
  ])('%s: no body whatever content-length says (the next answer, in the same write, parses)', async (_name, method, first, status) => {
    const pending: net.Socket[] = [];
    const srv = await rawServer((_req, sock) => {
      pending.push(sock);
      if (pending.length === 2) sock.write(first + ok('next answer'));
    });
    const pool = newPool(srv.url, { pipelining: 2 });
    const a = call(pool, get('/first', method));
    const b = call(pool, '/second');
    await Promise.all([a.done, b.done]);
    expect(a.res?.status).toBe(status);
    expect(a.res?.body).toBeNull();
    expect(a.res?.bytes).toBe(0);
    expect(b.res?.status).toBe(200);
    expect(textOf(b.res)).toBe('next answer');
    expect(srv.requests.map((r) => r.method)).toEqual([method, 'GET']);
  });

  it('Connection: close: the answer is delivered, the client closes that connection and the next request opens a new one', async () => {
    const srv = await rawServer((req, sock) => sock.write(ok(`bye ${req.path}`, 'Connection: close\r\n')));
    const pool = newPool(srv.url, { connections: 1 });
    const a = call(pool, '/a');
    await a.done;
    expect(textOf(a.res)).toBe('bye /a');
    // The server never closed it: the client did.
    await srv.until(() => srv.open === 0);
    const b = call(pool, '/b');
    await b.done;
    expect(textOf(b.res)).toBe('bye /b');
    expect(srv.accepted).toBe(2);
    expect(srv.requests.map((r) => r.conn)).toEqual([0, 1]);
  });

  it('Connection: close with a request pipelined behind it: the answer is delivered, the pipelined one fails ECONNRESET once', async () => {
    const pending: net.Socket[] = [];
    const srv = await rawServer((_req, sock) => {
      pending.push(sock);
      if (pending.length === 2) sock.write(ok('last one', 'connection: close\r\n'));
    });
    const pool = newPool(srv.url, { connections: 1, pipelining: 2 });
    const a = call(pool, '/a');
    const b = call(pool, '/b');
    await Promise.all([a.done, b.done]);
    expect(textOf(a.res)).toBe('last one');
    expect(b.code).toBe('ECONNRESET');
    expect(b.message).toMatch(/Connection: close/);
    await clientSocketsClosed();
    exactlyOnce(a, b);
  });

  it('pipelining 4: at most 4 requests outstanding on the one connection, answers matched to requests in order', async () => {
    const N = 10;
    let outstanding: RawRequest[] = [];
    let maxOutstanding = 0;
    let received = 0;
    const srv = await rawServer((req, sock) => {
      received++;
      outstanding.push(req);
      maxOutstanding = Math.max(maxOutstanding, outstanding.length);
      if (outstanding.length === 4 || received === N) {
        // All the answers in one write.
        sock.write(outstanding.map((r) => ok(`answer for ${r.path}`)).join(''));
        outstanding = [];
      }
    });
    const pool = newPool(srv.url, { connections: 1, pipelining: 4 });
    const sentOrder: number[] = [];
    const calls = Array.from({ length: N }, (_, i) => call(pool, `/r${i}`, () => sentOrder.push(i)));
    await Promise.all(calls.map((c) => c.done));
    calls.forEach((c, i) => expect(textOf(c.res)).toBe(`answer for /r${i}`));
    expect(maxOutstanding).toBe(4);
    expect(sentOrder).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(srv.accepted).toBe(1);
    exactlyOnce(...calls);
  });

  it('more requests than connections: FIFO, all answered, never more than `connections` sockets at the server', async () => {
    const srv = await rawServer((req, sock) => {
      setImmediate(() => sock.write(ok(req.path)));
    });
    const pool = newPool(srv.url, { connections: 3 });
    const N = 30;
    const sentOrder: number[] = [];
    const calls = Array.from({ length: N }, (_, i) => call(pool, `/q${i}`, () => sentOrder.push(i)));
    await Promise.all(calls.map((c) => c.done));
    calls.forEach((c, i) => expect(textOf(c.res)).toBe(`/q${i}`));
    expect(sentOrder).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(srv.accepted).toBe(3);
    expect(srv.maxOpen).toBeLessThanOrEqual(3);
    expect(pool.size).toBe(3);
    // Every connection was used (the pool did not starve any).
    expect(new Set(srv.requests.map((r) => r.conn)).size).toBe(3);
  });
});

describe('H1Pool failures', { timeout: 15_000 }, () => {
  it('request timeout: a request with no answer fails TIMEOUT within a bounded time; a waiting one goes out on a new connection', async () => {
    const srv = await rawServer((req, sock) => {
      if (req.path === '/fast') sock.write(ok('fast'));
    });
    const pool = newPool(srv.url, { connections: 1, requestTimeoutMs: 200 });
    const t0 = performance.now();
    let slowAt = 0;
    const slow = call(pool, '/slow');
    const fast = call(pool, '/fast');
    void slow.done.then(() => (slowAt = performance.now() - t0));
    await Promise.all([slow.done, fast.done]);
    expect(slow.code).toBe('TIMEOUT');
    expect(slow.message).toMatch(/200 ms/);
    expect(slowAt).toBeGreaterThanOrEqual(200);
    // The sweep runs every timeout/4: well inside a second.
    expect(slowAt).toBeLessThan(1_000);
    expect(fast.res?.status).toBe(200);
    expect(srv.requests.map((r) => [r.path, r.conn])).toEqual([
      ['/slow', 0],
      ['/fast', 1],
    ]);
    // The timed-out connection was closed (its stream is lost); the second stays open.
    await srv.until(() => srv.open === 1);
    expect(clientSockets[0]!.destroyed).toBe(true);
    await closed(clientSockets[0]!);
    exactlyOnce(slow, fast);
  });

  it('ECONNREFUSED fails the request and every waiting one, each once', async () => {
    const port = await closedPort();
    const pool = newPool(`http://127.0.0.1:${port}`, { connections: 2 });
    const calls = [call(pool, '/a'), call(pool, '/b'), call(pool, '/c')];
    await Promise.all(calls.map((c) => c.done));
    expect(calls.map((c) => c.code)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
    expect(calls.map((c) => c.sent)).toEqual([0, 0, 0]);
    await clientSocketsClosed();
    exactlyOnce(...calls);
    expect(pool.size).toBe(0);
  });

  it.each([
    ['RST mid content-length body', (s: net.Socket) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial', () => s.resetAndDestroy())],
    ['FIN mid content-length body', (s: net.Socket) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial')],
    ['FIN mid chunked body', (s: net.Socket) => s.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel')],
    ['FIN mid head', (s: net.Socket) => s.end('HTTP/1.1 200 OK\r\ncontent-len')],
  ])('%s: onError ECONNRESET, no onResponse', async (_name, misbehave) => {
    const srv = await rawServer((_req, sock) => misbehave(sock));
    const pool = newPool(srv.url);
    const a = call(pool, '/a');
    await a.done;
    expect(a.code).toBe('ECONNRESET');
    expect(a.responses).toBe(0);
    await clientSocketsClosed();
    exactlyOnce(a);
  });

  it.each([
    ['not a status line', 'garbage\r\n\r\n'],
    ['another protocol', 'FTP/1.1 200 OK\r\n\r\n'],
    ['a status that is not 3 digits', 'HTTP/1.1 2x0 OK\r\ncontent-length: 0\r\n\r\n'],
    ['a negative content-length', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n'],
    ['a content-length that is not a number', 'HTTP/1.1 200 OK\r\ncontent-length: 12abc\r\n\r\n'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'],
    ['chunk data not followed by CRLF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n'],
    ['a protocol upgrade', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n'],
    ['a four-digit status (was read as 200)', 'HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n'],
    ['a misspelt protocol name', 'HTTX/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'],
    ['an HTTP/2 status line', 'HTTP/2.0 200 OK\r\ncontent-length: 0\r\n\r\n'],
    ['a head larger than 64 KiB', `HTTP/1.1 200 OK\r\nx-big: ${'x'.repeat(70 * 1024)}`],
    ['a chunk-size line longer than 4 KiB', `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;${'e'.repeat(5000)}`],
  ])('%s -> onError HPE_INVALID and the connection is closed', async (_name, answer) => {
    const srv = await rawServer((_req, sock) => sock.write(answer));
    const pool = newPool(srv.url);
    const a = call(pool, '/a');
    await a.done;
    expect(a.code).toBe('HPE_INVALID');
    expect(a.message).toMatch(/^invalid HTTP response/);
    expect(a.responses).toBe(0);
    await srv.until(() => srv.open === 0);
    await clientSocketsClosed();
    exactlyOnce(a);
    expect(pool.size).toBe(0);
  });

  it('a status line without a reason phrase is fine', async () => {
    const srv = await rawServer((req, sock) => sock.write(req.path === '/a' ? 'HTTP/1.1 204\r\n\r\n' : 'HTTP/1.1 200 \r\ncontent-length: 2\r\n\r\nok'));
    const pool = newPool(srv.url);
    const a = call(pool, '/a');
    await a.done;
    const b = call(pool, '/b');
    await b.done;
    expect([a.res?.status, b.res?.status, textOf(b.res)]).toEqual([204, 200, 'ok']);
    expect(srv.accepted).toBe(1);
  });

  it('an idle keep-alive connection the server closes is dropped quietly; the next request opens a new one', async () => {
    const srv = await rawServer((req, sock) => {
      sock.write(ok(req.path));
      if (req.path === '/first') sock.end();
    });
    const pool = newPool(srv.url);
    const a = call(pool, '/first');
    await a.done;
    expect(textOf(a.res)).toBe('/first');
    await closed(clientSockets[0]!);
    expect(pool.size).toBe(0);
    const b = call(pool, '/second');
    await b.done;
    expect(textOf(b.res)).toBe('/second');
    expect(srv.accepted).toBe(2);
    exactlyOnce(a, b);
  });

  it('an answer with no request waiting for it is HPE_INVALID for a later request on that connection', async () => {
    const srv = await rawServer((_req, sock) => sock.write(ok('one') + ok('unasked')));
    const pool = newPool(srv.url);
    const a = call(pool, '/a');
    await a.done;
    // The extra answer arrived with nothing waiting: the connection is dropped, not reused.
    expect(textOf(a.res)).toBe('one');
    await srv.until(() => srv.open === 0);
    const b = call(pool, '/b');
    await b.done;
    expect(textOf(b.res)).toBe('one');
    expect(srv.accepted).toBe(2);
  });

  it('abortAll fails written and waiting requests with the given code, each handler once; the pool is usable after', async () => {
    const srv = await rawServer((req, sock) => {
      if (req.path === '/ok') sock.write(ok('fine'));
    });
    const pool = newPool(srv.url, { connections: 1 });
    const written = call(pool, '/hang');
    const waiting = [call(pool, '/w1'), call(pool, '/w2')];
    await srv.until(() => srv.requests.length === 1);
    expect(written.sent).toBe(1);
    pool.abortAll('CANCELLED', 'stopped by the test');
    expect([written, ...waiting].map((c) => c.code)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    expect(written.message).toBe('stopped by the test');
    await clientSocketsClosed();
    await srv.until(() => srv.open === 0);
    exactlyOnce(written, ...waiting);
    expect(waiting.map((c) => c.sent)).toEqual([0, 0]);
    const after = call(pool, '/ok');
    await after.done;
    expect(textOf(after.res)).toBe('fine');
    expect(srv.accepted).toBe(2);
    exactlyOnce(written, ...waiting, after);
  });

  it('destroy fails written and waiting requests with ABORT_ERR, each once, and refuses later dispatches', async () => {
    const srv = await rawServer(() => undefined);
    const pool = newPool(srv.url, { connections: 1, pipelining: 2 });
    const written = [call(pool, '/h1'), call(pool, '/h2')];
    const waiting = call(pool, '/w');
    await srv.until(() => srv.requests.length === 2);
    pool.destroy();
    expect([...written, waiting].map((c) => c.code)).toEqual(['ABORT_ERR', 'ABORT_ERR', 'ABORT_ERR']);
    const late = call(pool, '/late');
    // Refused synchronously, nothing opened.
    expect(late.code).toBe('ABORT_ERR');
    await clientSocketsClosed();
    expect(clientSockets).toHaveLength(1);
    exactlyOnce(...written, waiting, late);
    expect(pool.size).toBe(0);
  });

  it('destroy() called from inside onResponse fails the rest once and stops parsing', async () => {
    const pending: net.Socket[] = [];
    const srv = await rawServer((_req, sock) => {
      pending.push(sock);
      if (pending.length === 3) sock.write(ok('1') + ok('2') + ok('3'));
    });
    const pool = newPool(srv.url, { connections: 1, pipelining: 3 });
    let first!: () => void;
    const firstDone = new Promise<void>((resolve) => (first = resolve));
    let firstCalls = 0;
    pool.dispatch(get('/1'), {
      onResponse: () => {
        firstCalls++;
        pool.destroy();
        first();
      },
      onError: () => firstCalls++,
    });
    const rest = [call(pool, '/2'), call(pool, '/3')];
    await Promise.all([firstDone, ...rest.map((c) => c.done)]);
    expect(rest.map((c) => c.code)).toEqual(['ABORT_ERR', 'ABORT_ERR']);
    await clientSocketsClosed();
    expect(firstCalls).toBe(1);
    exactlyOnce(...rest);
  });

  it('a handler that dispatches from inside onResponse/onError is served (re-entrancy)', async () => {
    const srv = await rawServer((req, sock) => sock.write(ok(req.path)));
    const pool = newPool(srv.url, { connections: 1 });
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      const next = (i: number) =>
        pool.dispatch(get(`/n${i}`), {
          onResponse: (res) => {
            seen.push(textOf(res));
            if (i < 5) next(i + 1);
            else resolve();
          },
          onError: (code) => {
            seen.push(code);
            resolve();
          },
        });
      next(0);
    });
    expect(seen).toEqual(['/n0', '/n1', '/n2', '/n3', '/n4', '/n5']);
    expect(srv.accepted).toBe(1);
  });
});

describe('H1Pool connections', { timeout: 15_000 }, () => {
  it('warm(n) opens n connections (capped at `connections`) and resolves with the number connected', async () => {
    const srv = await rawServer((req, sock) => sock.write(ok(req.path)));
    const pool = newPool(srv.url, { connections: 4 });
    expect(await pool.warm(3)).toBe(3);
    expect(pool.size).toBe(3);
    await srv.until(() => srv.accepted === 3);
    expect(await pool.warm(10)).toBe(4);
    await srv.until(() => srv.accepted === 4);
    // Warm connections are used as they are: no new one for a request.
    const a = call(pool, '/a');
    await a.done;
    expect(textOf(a.res)).toBe('/a');
    expect(srv.accepted).toBe(4);
    expect(await pool.warm(2)).toBe(4);

    // A destroyed pool opens nothing (it used to open sockets and a sweep timer nobody closed).
    pool.destroy();
    await srv.until(() => srv.open === 0);
    expect(await pool.warm(2)).toBe(0);
    expect(pool.size).toBe(0);
    expect(clientSockets).toHaveLength(4);

    const refused = newPool(`http://127.0.0.1:${await closedPort()}`, { connections: 3 });
    expect(await refused.warm(2)).toBe(0);
    expect(refused.size).toBe(0);
  });

  it('an idle connection older than idleTimeoutMs is closed and replaced, a fresher one reused (injected clock)', async () => {
    const srv = await rawServer((req, sock) => sock.write(ok(req.path)));
    let now = 1_000;
    const pool = newPool(srv.url, { connections: 1, idleTimeoutMs: 1_000 }, () => now);
    await call(pool, '/a').done;
    now += 900;
    await call(pool, '/b').done;
    expect(srv.accepted).toBe(1);
    now += 1_500;
    const c = call(pool, '/c');
    await c.done;
    expect(textOf(c.res)).toBe('/c');
    expect(srv.requests.map((r) => r.conn)).toEqual([0, 0, 1]);
    await srv.until(() => srv.open === 1);
  });

  it("the server's Keep-Alive timeout hint shortens the idle limit to 1 s below it", async () => {
    const srv = await rawServer((req, sock) => sock.write(ok(req.path, 'Keep-Alive: timeout=2\r\n')));
    let now = 1_000;
    const pool = newPool(srv.url, { connections: 1 }, () => now);
    await call(pool, '/a').done;
    // 1.5 s idle is within the default 4 s but past the hinted 2 s - 1 s.
    now += 1_500;
    await call(pool, '/b').done;
    expect(srv.requests.map((r) => r.conn)).toEqual([0, 1]);
  });
});

// ---------------------------------------------------------------------------------------------

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

async function httpServer(): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      if (req.url?.startsWith('/v2/ep-1/hold')) return; // never answered
      if (req.url?.startsWith('/v2/ep-1/text')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('not json');
        return;
      }
      res.setHeader('x-multi', ['a', 'b']);
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, got: body.length > 0 ? body.toString('utf8') : null }));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { url: `http://127.0.0.1:${port}`, seen, connections: () => connections };
}

function newTarget(queueUrl: string, connections = 2): TargetHttp {
  const target: LoadTarget = { kind: 'remote', queueUrl, endpointId: 'ep-1', apiKey: 'sekrit', timeScale: 1 };
  const t = new TargetHttp(target, { connections, requestTimeoutMs: 5_000 });
  targets.push(t);
  return t;
}

describe('TargetHttp', { timeout: 15_000 }, () => {
  it('send(): status, headers, bodyText and json() read lazily from the raw answer; common headers and the endpoint path sent', async () => {
    const srv = await httpServer();
    const t = newTarget(srv.url);
    const a = await t.send({ method: 'GET', path: '/health', query: { a: 'x y', n: 2 } });
    expect(a.status).toBe(200);
    expect(a.errorCode).toBeUndefined();
    // Headers and body are getters over the raw answer, not fields filled in up front.
    expect(Object.getOwnPropertyDescriptor(a, 'headers')).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(a, 'bodyText')).toBeUndefined();
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.headers['x-multi']).toEqual(['a', 'b']);
    expect(a.headers).toBe(a.headers);
    const expected = { method: 'GET', url: '/v2/ep-1/health?a=x+y&n=2', got: null };
    expect(a.bodyText).toBe(JSON.stringify(expected));
    expect(a.bytes).toBe(Buffer.byteLength(a.bodyText));
    expect(a.json()).toEqual(expected);
    expect(a.json()).toBe(a.json());
    expect(JSON.parse(JSON.stringify(a))).toMatchObject({ status: 200, bodyText: a.bodyText, bytes: a.bytes });
    const s = srv.seen[0]!;
    expect(s.url).toBe('/v2/ep-1/health?a=x+y&n=2');
    expect(s.headers.host).toBe(new URL(srv.url).host);
    expect(s.headers.accept).toBe('application/json');
    expect(s.headers.authorization).toBe('Bearer sekrit');
    expect(s.headers['content-length']).toBeUndefined();

    const txt = await t.send({ method: 'GET', path: '/text' });
    expect(txt.bodyText).toBe('not json');
    expect(txt.json()).toBeUndefined();
    const origin = await t.send({ method: 'GET', path: '/v2/ep-1/text', scope: 'origin' });
    expect(origin.bodyText).toBe('not json');
  });

  it('POST: a JSON body sets content-type and a byte-exact content-length; string, Buffer and empty bodies; host/content-length overrides dropped', async () => {
    const srv = await httpServer();
    const t = newTarget(srv.url);
    const input = { input: { prompt: 'héllo wörld ✓' } };
    const a = await t.send({ method: 'POST', path: '/run', body: input });
    expect(a.status).toBe(201);
    const s = srv.seen[0]!;
    expect(s.method).toBe('POST');
    expect(s.url).toBe('/v2/ep-1/run');
    expect(s.headers['content-type']).toBe('application/json');
    expect(s.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(input))));
    expect(JSON.parse(s.body.toString('utf8'))).toEqual(input);
    expect((a.json() as { got: string }).got).toBe(JSON.stringify(input));

    await t.send({ method: 'PUT', path: '/s', body: 'raw text', headers: { 'Content-Type': 'text/plain', Host: 'evil', 'Content-Length': '999', 'X-Extra': 'v' } });
    const s2 = srv.seen[1]!;
    expect(s2.headers['content-type']).toBe('text/plain');
    expect(s2.rawHeaders.filter((h) => h.toLowerCase() === 'content-type')).toHaveLength(1);
    expect(s2.headers.host).toBe(new URL(srv.url).host);
    expect(s2.headers['content-length']).toBe('8');
    expect(s2.headers['x-extra']).toBe('v');
    expect(s2.body.toString()).toBe('raw text');

    const bin = Buffer.from([0, 1, 2, 255, 13, 10, 13, 10]);
    await t.send({ method: 'POST', path: '/b', body: bin });
    expect(srv.seen[2]!.body).toEqual(bin);
    expect(srv.seen[2]!.headers['content-length']).toBe('8');

    await t.send({ method: 'POST', path: '/empty' });
    expect(srv.seen[3]!.headers['content-length']).toBe('0');
    expect(srv.seen[3]!.headers['content-type']).toBe('application/json');
    expect(srv.seen.map((x) => x.method)).toEqual(['POST', 'PUT', 'POST', 'POST']);
  });

  it('a path with a space or a header with CRLF is refused (ERR_INVALID_PATH / ERR_INVALID_HEADER) and nothing is sent', async () => {
    const srv = await httpServer();
    const t = newTarget(srv.url);
    const bad = await Promise.all([
      t.send({ method: 'GET', path: '/a b' }),
      t.send({ method: 'GET', path: '/a\r\nx-evil: 1' }),
      t.send({ method: 'GET', path: '/ok', headers: { 'x-a': 'v\r\nx-evil: 1' } }),
      t.send({ method: 'GET', path: '/ok', headers: { 'x-a\r\nx-evil': 'v' } }),
      t.send({ method: 'GET', path: '/ok', headers: { 'x-a: y': 'v' } }),
    ]);
    expect(bad.map((a) => a.errorCode)).toEqual(['ERR_INVALID_PATH', 'ERR_INVALID_PATH', 'ERR_INVALID_HEADER', 'ERR_INVALID_HEADER', 'ERR_INVALID_HEADER']);
    expect(bad.map((a) => a.status)).toEqual([null, null, null, null, null]);
    expect(bad[0].bodyText).toBe('');
    expect(srv.connections()).toBe(0);
    // The pool still works, and only the good request reached the server.
    const good = await t.send({ method: 'GET', path: '/fine' });
    expect(good.status).toBe(200);
    expect(srv.seen.map((s) => s.url)).toEqual(['/v2/ep-1/fine']);
  });

  it('an already-aborted signal answers ABORT_ERR without sending; aborting later fails what is in flight', async () => {
    const srv = await httpServer();
    const t = newTarget(srv.url);
    const ac = new AbortController();
    ac.abort();
    const a = await t.send({ method: 'GET', path: '/health' }, ac.signal);
    expect(a.errorCode).toBe('ABORT_ERR');
    expect(a.status).toBeNull();
    expect(srv.connections()).toBe(0);

    const live = new AbortController();
    let sentMs = 0;
    const held = t.send({ method: 'GET', path: '/hold' }, live.signal, (ms) => (sentMs = ms));
    // Bounded: the server records the request as soon as it arrives.
    for (let i = 0; i < 1000 && srv.seen.length === 0; i++) await yieldTwice();
    expect(srv.seen.map((s) => s.url)).toEqual(['/v2/ep-1/hold']);
    expect(sentMs).toBeGreaterThan(0);
    live.abort();
    const h = await held;
    expect(h.errorCode).toBe('ABORT_ERR');
    expect(h.status).toBeNull();
  });

  it('a refused connection is an answer with errorCode ECONNREFUSED, not a throw', async () => {
    const t = newTarget(`http://127.0.0.1:${await closedPort()}`);
    const a = await t.send({ method: 'GET', path: '/health' });
    expect(a.status).toBeNull();
    expect(a.errorCode).toBe('ECONNREFUSED');
    expect(a.json()).toBeUndefined();
  });
});
