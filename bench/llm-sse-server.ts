// The scripted LLM server of bench/llm-client.bench.ts (a helper, run in its own process): every
// POST is answered with an OpenAI chat event stream of `max_tokens` one-token chunks, written for
// all open streams at once every GAP ms (one decode step of a continuously batched engine), then
// a usage chunk and [DONE]. Prints `ready <port>`; exits when its stdin closes.
import { createServer, type ServerResponse } from 'node:http';

const GAP_MS = Number(process.argv[2] ?? 20);
const streams = new Set<{ res: ServerResponse; left: number; total: number }>();
const chunk = `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: ' tok' }, finish_reason: null }] })}\n\n`;

setInterval(() => {
  for (const s of streams) {
    s.left -= 1;
    if (s.left > 0) {
      s.res.write(chunk);
      continue;
    }
    streams.delete(s);
    s.res.end(`${chunk}data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 16, completion_tokens: s.total } })}\n\ndata: [DONE]\n\n`);
  }
}, GAP_MS);

const server = createServer((req, res) => {
  const body: Buffer[] = [];
  req.on('data', (d: Buffer) => body.push(d));
  req.on('end', () => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    let total = 50;
    try {
      const v = (JSON.parse(Buffer.concat(body).toString('utf8')) as { max_tokens?: unknown }).max_tokens;
      if (typeof v === 'number' && v >= 1) total = v;
    } catch {
      // the default length
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.socket?.setNoDelay(true);
    streams.add({ res, left: total, total });
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`ready ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
