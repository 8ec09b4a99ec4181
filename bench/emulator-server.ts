// Child process of the emulator benches: serves either the emulator (limits off) or a bare
// node:http server answering fixed JSON, on 127.0.0.1 port 0, and prints one JSON line
// {url} once listening. Runs apart from the load tool so neither steals the other's loop.
import { createServer } from 'node:http';
import { startEmulator } from '../src/emulator/index.js';

const kind = process.argv[2] ?? 'emulator';
const KEY = 'bench-key-0000';

if (kind === 'bare') {
  const body = JSON.stringify({ id: '6f1c9a55-1111-4a2b-9c3d-5e6f7a8b9c0d-e1', status: 'COMPLETED', delayTime: 1, executionTime: 1, output: 'Hello World!' });
  const server = createServer((req, res) => {
    // Read the request body like a real endpoint would, then answer fixed JSON.
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 5_000;
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
  server.closeIdleConnections();
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}` })}\n`);
  });
} else {
  const em = await startEmulator({ apiKey: KEY, limits: { enabled: false }, workers: { min: 4, max: 4, coldStartMs: 0 } });
  process.once('SIGTERM', () => void em.close().then(() => process.exit(0)));
  process.stdout.write(`${JSON.stringify({ url: em.url, key: KEY })}\n`);
}
