// The suite's own loopback webhook receiver (§6): answers each call with the next status of
// a script (e.g. 500, 500, 200), records arrival times and bodies, and closes with the check.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookCall {
  /** performance.now() at arrival. */
  readonly atMs: number;
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly answered: number;
}

export interface Receiver {
  readonly url: string;
  readonly calls: readonly WebhookCall[];
  /** Resolves when `n` calls have arrived, or after `timeoutRealMs` (then with what arrived). */
  waitForCalls(n: number, timeoutRealMs: number, signal?: AbortSignal): Promise<readonly WebhookCall[]>;
  close(): Promise<void>;
}

/** Largest webhook body the receiver keeps. */
const MAX_BODY_BYTES = 1_000_000;

export async function startReceiver(host: string, script: readonly number[], fallbackStatus = 200): Promise<Receiver> {
  const calls: WebhookCall[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      const answered = script[calls.length] ?? fallbackStatus;
      calls.push({ atMs: performance.now(), method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ received: calls.length }));
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host === 'localhost' ? '127.0.0.1' : host.includes(':') ? '::' : '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/qbench-webhook`,
    calls,
    waitForCalls: (n, timeoutRealMs, signal) =>
      new Promise((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
          signal?.removeEventListener('abort', finish);
          resolve([...calls]);
        };
        const check = () => {
          if (calls.length >= n) finish();
        };
        const timer = setTimeout(finish, timeoutRealMs);
        signal?.addEventListener('abort', finish, { once: true });
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
