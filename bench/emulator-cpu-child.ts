// Child process of bench/emulator-cpu.ts: a bare node:http server answering fixed JSON, or the
// emulator (limits off), fed POST /run through 64 in-memory connections. Prints one line when
// ready; then, for each line `seconds` on stdin, serves requests for that long (wall clock) and
// prints CPU µs per request.
import { createServer, type Server } from 'node:http';
import { Duplex } from 'node:stream';
import { createInterface } from 'node:readline';
import { startEmulator } from '../src/emulator/index.js';

const KEY = 'bench-key-0000';
const CONNECTIONS = 64;
const body = JSON.stringify({ input: { prompt: 'hello', mock_return: 'Hello World!' } });
const request = Buffer.from(`POST /v2/demo/run HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);

/** An in-memory connection: what the client writes is pushed in; each answer the server writes is counted. */
class MemoryConnection extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 40_000;
  onAnswer: () => void = () => {};
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  destroySoon(): void {
    this.destroy();
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.count(chunk);
    done();
  }
  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    for (const c of chunks) this.count(c.chunk);
    done();
  }
  private count(chunk: Buffer): void {
    // Each answer starts with its status line; anything but 200 ends the bench.
    for (let i = chunk.indexOf('HTTP/1.1 '); i >= 0; i = chunk.indexOf('HTTP/1.1 ', i + 1)) {
      const status = chunk.toString('latin1', i + 9, i + 12);
      if (status !== '200') throw new Error(`answer ${status}: ${chunk.toString('latin1', i, i + 200)}`);
      this.onAnswer();
    }
  }
}

async function serverOf(kind: string): Promise<Server> {
  if (kind === 'bare') {
    const answer = JSON.stringify({ id: '6f1c9a55-1111-4a2b-9c3d-5e6f7a8b9c0d-e1', status: 'IN_QUEUE' });
    return createServer((req, res) => {
      // Read the request body like a real endpoint would, then answer fixed JSON.
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
        res.end(answer);
      });
    });
  }
  const em = await startEmulator({ apiKey: KEY, limits: { enabled: false }, workers: { min: 4, max: 4, coldStartMs: 0 } });
  return em.server;
}

/** Serve requests for `seconds`, each connection sending its next one when its answer came; CPU µs per request. */
function round(server: Server, seconds: number): Promise<number> {
  const start = process.cpuUsage();
  const deadline = performance.now() + seconds * 1_000;
  let inFlight = 0;
  let answered = 0;
  return new Promise((resolve) => {
    for (let c = 0; c < CONNECTIONS; c++) {
      const conn = new MemoryConnection();
      server.emit('connection', conn);
      conn.onAnswer = () => {
        answered += 1;
        inFlight -= 1;
        if (performance.now() < deadline) {
          inFlight += 1;
          conn.push(request);
          return;
        }
        conn.push(null);
        if (inFlight === 0) {
          const used = process.cpuUsage(start);
          resolve((used.user + used.system) / answered);
        }
      };
      inFlight += 1;
      conn.push(request);
    }
  });
}

const server = await serverOf(process.argv[2] ?? 'emulator');
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${await round(server, Number(line))}\n`);
}
