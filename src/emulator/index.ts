// The queue-endpoint emulator, in-process: `startEmulator(config)` validates the config,
// listens (port 0 allowed) and resolves to `{ url, close() }`. Same server as
// `qbench emulate`. See docs/reference/emulator.md for routes, choices and the info/control routes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { registerSecret } from '../errors.js';
import { ScaledClock, type Clock } from './clock.js';
import { parseEmulatorConfig, type EmulatorConfig, type EmulatorConfigInput } from './config.js';
import { EmulatorCore, type CoreOptions } from './core.js';
import { EmulatorHttp } from './server.js';
import { sendError } from './json-io.js';
import { WorkerProtocolRoutes } from './http/worker-protocol.js';

export interface StartOptions extends CoreOptions {
  /** Inject a clock (a ManualClock in unit tests); default ScaledClock(config.timeScale). */
  clock?: Clock;
}

export interface EmulatorHandle {
  /** http://host:port (no trailing slash). */
  readonly url: string;
  /** `${url}/v2`: the base URL the SDKs take. */
  readonly baseUrl: string;
  readonly port: number;
  readonly config: EmulatorConfig;
  readonly clock: Clock;
  /** The state behind the server, for in-process tests and benches. */
  readonly core: EmulatorCore;
  /** The node:http server, for in-process benches that hand it in-memory connections. */
  readonly server: Server;
  close(): Promise<void>;
}

export async function startEmulator(input: EmulatorConfigInput | EmulatorConfig, opts: StartOptions = {}): Promise<EmulatorHandle> {
  const config = parseEmulatorConfig(input);
  registerSecret(config.apiKey);
  const clock = opts.clock ?? new ScaledClock(config.timeScale);
  const core = new EmulatorCore(config, clock, opts);
  const http = new EmulatorHttp(core);
  if (config.externalWorkers) http.workerProtocol = new WorkerProtocolRoutes(core);
  // The request each connection is serving now: a client error (timeout, malformed bytes)
  // after its answer went out must not write a second answer on the same request.
  const current = new WeakMap<Socket, ServerResponse>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    current.set(req.socket, res);
    http.listener(req, res);
  };
  const server: Server = createServer(
    {
      // A request without Host gets the emulator's own JSON 400 (server.ts), not node's empty one.
      requireHostHeader: false,
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: config.http.headersTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      maxHeaderSize: config.http.maxHeaderBytes,
      // How often slow requests are checked against the timeouts above (Node's default is 30 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.http.requestTimeoutMs / 4))),
    },
    listener,
  );
  // `Expect` other than 100-continue: 417 with a JSON body (node's default has none).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    sendError(res, 417, `expectation "${String(req.headers.expect ?? '')}" is not supported; only "100-continue" is`, undefined, { connection: 'close' });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  // A malformed request line or oversized header gets an answer, never a crash.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const res = current.get(socket);
    const answered = res !== undefined && res.headersSent && !res.req.complete;
    if (!socket.writable || answered) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ error: status === 431 ? 'request headers too large' : status === 408 ? 'request took too long to arrive' : 'malformed HTTP request' });
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl: `${url}/v2`,
    port,
    config,
    clock,
    core,
    server,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await core.close();
        for (const s of sockets) s.destroy();
        await closed;
      })();
      return closing;
    },
  };
}

export { parseEmulatorConfig, EmulatorConfigSchema } from './config.js';
export type { EmulatorConfig, EmulatorConfigInput } from './config.js';
export { ScaledClock, ManualClock } from './clock.js';
export type { Clock } from './clock.js';
export { FAULTS, FAULT_NAMES, isFaultName } from './faults.js';
export type { FaultName, FaultSet } from './faults.js';
export { infoDocument, countersDocument } from './info-routes.js';
export type { EmulatorCore } from './core.js';
export type { Handler, HandlerContext, HandlerOutcome } from './queue/index.js';
