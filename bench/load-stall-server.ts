// Child process of bench/load.bench.ts: a JSON server on 127.0.0.1 that freezes for
// `stallMs` every `periodMs` (answers that arrive during a freeze wait for its end), for the
// coordinated-omission check. Prints one JSON line {url} once listening.
import { createServer, type ServerResponse } from 'node:http';

const stallMs = Number(process.argv[2] ?? 1000);
const periodMs = Number(process.argv[3] ?? 5000);
const t0 = performance.now();
const body = '{"jobs":{},"workers":{}}';
const held: ServerResponse[] = [];

function answer(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

// Freeze windows: [k*period + (period - stall), (k+1)*period).
function frozenUntil(now: number): number | undefined {
  const phase = (now - t0) % periodMs;
  return phase >= periodMs - stallMs ? now + (periodMs - phase) : undefined;
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const until = frozenUntil(performance.now());
    if (until === undefined) answer(res);
    else {
      held.push(res);
      setTimeout(() => {
        for (const r of held.splice(0)) answer(r);
      }, until - performance.now());
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
