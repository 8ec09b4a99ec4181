// A tiny queue-endpoint stand-in on 127.0.0.1 for engine tests: answers /run, /runsync,
// /status, /stream, /health like the spec, counts requests per operation, and can stall,
// answer 429 past a per-operation budget, or drop chosen requests without an answer.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { LoadTarget } from '../../../src/load/context.js';

/** A remote target at a tiny server's URL. */
export const tinyTarget = (url: string): LoadTarget => ({ kind: 'remote', queueUrl: url, endpointId: 'ep', timeScale: 1 });
/**
 * Validity limits for tests that check counting and logic, not timing: the shared 2-core
 * machine can stall the generator, which must not turn such a test's run INVALID.
 */
export const RELAXED_VALIDITY = { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 };

export interface TinyServer {
  readonly url: string;
  readonly counts: Map<string, number>;
  /** Requests currently being answered. */
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

export interface TinyOptions {
  /** Answer 429 once an operation has accepted this many requests. */
  readonly acceptPerOp?: number;
  /** Delay every answer by this many ms. */
  readonly delayMs?: number;
  /** Polls of /status before a job reads COMPLETED. */
  readonly pollsToComplete?: number;
  /** Close the connection without an answer when this holds (operation, its n-th request). */
  readonly drop?: (op: string, n: number) => boolean;
}

export async function startTinyServer(o: TinyOptions = {}): Promise<TinyServer> {
  const counts = new Map<string, number>();
  const polls = new Map<string, number>();
  let seq = 0;
  const state = { inFlight: 0, maxInFlight: 0 };
  const server: Server = createServer((req, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    req.resume();
    req.on('end', () => {
      const op = /\/v2\/[^/]+\/([a-z-]+)/.exec(req.url ?? '')?.[1] ?? 'other';
      const n = (counts.get(op) ?? 0) + 1;
      counts.set(op, n);
      const reply = (status: number, body: unknown) => {
        const send = () => {
          state.inFlight--;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (o.delayMs) setTimeout(send, o.delayMs);
        else send();
      };
      if (o.drop?.(op, n)) {
        state.inFlight--;
        req.socket.destroy();
        return;
      }
      if (o.acceptPerOp !== undefined && n > o.acceptPerOp) return reply(429, { error: 'rate limited' });
      const id = /\/(?:status|stream|cancel)\/([^/?]+)/.exec(req.url ?? '')?.[1];
      switch (op) {
        case 'run':
          return reply(200, { id: `job-${++seq}`, status: 'IN_QUEUE' });
        case 'runsync':
          return reply(200, { id: `sync-${++seq}`, status: 'COMPLETED', output: 'ok' });
        case 'status': {
          const p = (polls.get(id ?? '') ?? 0) + 1;
          polls.set(id ?? '', p);
          return reply(200, { id, status: p >= (o.pollsToComplete ?? 1) ? 'COMPLETED' : 'IN_PROGRESS' });
        }
        case 'stream':
          return reply(200, { status: 'COMPLETED', stream: [{ output: { text: ['hi'] } }] });
        case 'health':
          return reply(200, { jobs: {}, workers: {} });
        default:
          return reply(404, { error: 'unknown' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    get inFlight() {
      return state.inFlight;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
