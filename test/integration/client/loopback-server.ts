// A tiny node:http server on 127.0.0.1, port 0, for client tests: each test scripts the
// answers and reads back the requests it received. Tests close it in afterEach.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** Client-side port of the socket: equal across requests when keep-alive reused it. */
  readonly remotePort: number | undefined;
}

export type Handler = (req: SeenRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface Loopback {
  readonly baseUrl: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(parts).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res, requests.length - 1)).catch((e: unknown) => {
        res.writeHead(599);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
