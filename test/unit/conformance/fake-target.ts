// A tiny fake target for the runner's unit tests: a loopback HTTP server that answers from a
// route table and records the authorization header it saw.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTarget {
  readonly url: string;
  readonly seenAuth: string[];
  close(): Promise<void>;
}

export type Route = (req: IncomingMessage, body: string) => { status: number; json?: unknown };

export async function startFakeTarget(routes: Record<string, Route>): Promise<FakeTarget> {
  const seenAuth: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      seenAuth.push(req.headers.authorization ?? '');
      const path = (req.url ?? '').split('?')[0] ?? '';
      const route = routes[`${req.method} ${path}`];
      const out = route ? route(req, body) : { status: 404, json: { error: 'no route' } };
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(out.json === undefined ? '' : JSON.stringify(out.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seenAuth,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
