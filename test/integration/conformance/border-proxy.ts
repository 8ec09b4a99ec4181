// A pass-through HTTP proxy for tests at the border: qbench sees only a URL with network
// latency in front of the target (a delay each way, with jitter), and optionally an opaque
// target (every /_qbench/* path answers 404, as a real deployment would).
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProxyOptions {
  /** Upstream base URL (http://127.0.0.1:port). */
  readonly upstream: string;
  /** Mean delay each way, real ms. */
  readonly delayMs: number;
  /** Uniform jitter added to each delay, real ms (0..jitterMs). */
  readonly jitterMs: number;
  /** Answer 404 for /_qbench/* (an opaque target). */
  readonly opaque?: boolean;
}

export interface Proxy {
  readonly url: string;
  /** Requests forwarded so far. */
  readonly forwarded: () => number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startProxy(o: ProxyOptions): Promise<Proxy> {
  const up = new URL(o.upstream);
  const delay = () => sleep(o.delayMs + Math.random() * o.jitterMs);
  let forwarded = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      await delay();
      if (o.opaque === true && (req.url ?? '').startsWith('/_qbench')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      forwarded += 1;
      const headers = { ...req.headers, host: up.host };
      const upReq = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers, agent: false }, (upRes) => {
        void (async () => {
          const answer = await readBody(upRes);
          await delay();
          const out = { ...upRes.headers };
          delete out['transfer-encoding'];
          out['content-length'] = String(answer.length);
          res.writeHead(upRes.statusCode ?? 502, out);
          res.end(answer);
        })().catch(() => res.destroy());
      });
      // An upstream that refuses a large body resets the socket mid-write: answered below, not thrown.
      upReq.on('socket', (socket) => socket.on('error', () => undefined));
      upReq.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":"upstream unreachable"}');
      });
      res.on('close', () => {
        if (!res.writableEnded) upReq.destroy();
      });
      upReq.end(body);
    })().catch(() => res.destroy());
  });
  // A client that goes away mid-answer (an aborted burst request) resets its socket: not a proxy error.
  server.on('connection', (socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
