// A tiny fake target for the runner's unit tests: a loopback HTTP server that answers from a
// route table and records the authorization header it saw.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTarget {
  readonly url: string;
  readonly seenAuth: string[];
  close(): Promise<void>;
}

/** An answer; `delayMs`: sent that many real ms late (a slow network or a stalled host). */
export type Route = (req: IncomingMessage, body: string) => { status: number; json?: unknown; delayMs?: number };

export async function startFakeTarget(routes: Record<string, Route>): Promise<FakeTarget> {
  const seenAuth: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      seenAuth.push(req.headers.authorization ?? '');
      const path = (req.url ?? '').split('?')[0] ?? '';
      const route = routes[`${req.method} ${path}`];
      const out: ReturnType<Route> = route ? route(req, body) : { status: 404, json: { error: 'no route' } };
      const answer = () => {
        res.writeHead(out.status, { 'content-type': 'application/json' });
        res.end(out.json === undefined ? '' : JSON.stringify(out.json));
      };
      if (out.delayMs === undefined) answer();
      else setTimeout(answer, out.delayMs);
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
