// The LLM client's ceiling: how many concurrent SSE streams, and events per second, one qbench
// process reads (incremental SSE parser, token timer, per-request records) while its sends stay
// within 10 ms of their schedule (send lateness p99), beside a reference client in the same run:
// undici with the body split on blank lines and each event's JSON parsed, no timing kept. Both
// open-loop at the same schedule against the same server (bench/llm-sse-server.ts, its own
// process, pinned to core 1 when taskset exists; the clients on core 0): streams of 50 one-token
// events 20 ms apart (1 s each), so a rate of N requests/s holds about N streams open.
// Run: npx tsx bench/llm-client.bench.ts [seconds per level, default 5] [levels, default 100,200,400,800,1600]
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { schedule } from '../src/load/arrivals.js';
import { textOf } from '../src/load/llm/request.js';
import { runLlmLoad } from '../src/load/llm/run-llm.js';
import { SseTokenReader } from '../src/load/llm/stream-reader.js';
import { parseLengthDist, Workload } from '../src/load/llm/workload.js';
import { histogramFromMs, percentilesOf } from '../src/result/histogram.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 5);
const levels = (process.argv[3] ?? '100,200,400,800,1600').split(',').map(Number);
const TOKENS = 50;
const GAP_MS = 20;
const STREAM_MS = TOKENS * GAP_MS;
const LATENESS_BAR_MS = 10;
const haveTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
if (haveTaskset) spawnSync('taskset', ['-cp', '0', String(process.pid)]);

async function startServer(): Promise<{ url: string; stop: () => void }> {
  const cmd = [process.execPath, '--import', 'tsx', path.join(here, 'llm-sse-server.ts'), String(GAP_MS)];
  const argv = haveTaskset ? ['taskset', '-c', '1', ...cmd] : cmd;
  const p = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => {
    createInterface({ input: p.stdout }).on('line', (l) => {
      if (l.startsWith('ready ')) resolve(l.slice(6));
    });
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => p.stdin.end() };
}

interface LevelResult {
  readonly client: string;
  readonly streams: number;
  readonly eventsPerSec: number;
  readonly latenessP99Ms: number;
  readonly completed: number;
}

async function qbenchLevel(url: string, rate: number): Promise<LevelResult> {
  const { runs } = await runLlmLoad({
    queueUrl: url, endpointId: 'demo', timeScale: 1, paths: ['openai'], api: 'chat', stream: true, ignoreEos: false, mode: 'constant', ratePerSec: rate,
    sweepSteps: 1, durationMs: seconds * 1000, maxInFlight: 100_000, slos: [], seed: 1, coldDelayMs: 1000,
    workload: () => new Workload({ seed: 1, promptTokens: parseLengthDist('p', '16'), outputTokens: parseLengthDist('o', String(TOKENS)) }),
  });
  const r = runs[0]!;
  return { client: 'qbench', streams: rate * (STREAM_MS / 1000), eventsPerSec: r.throughput.outputTokensPerSec, latenessP99Ms: r.validity.sendLateness.p99, completed: r.requests.completed };
}

/** The reference: the same schedule, undici, blank-line splitting and JSON.parse per event. */
async function referenceLevel(url: string, rate: number): Promise<LevelResult> {
  const pool = new Pool(url, { connections: 100_000 });
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'the cat sat' }], max_tokens: TOKENS, stream: true });
  const lateness: number[] = [];
  const inFlight: Promise<void>[] = [];
  let events = 0;
  let completed = 0;
  const t0 = performance.now() + 5;
  for (const s of schedule({ segments: [{ durationMs: seconds * 1000, fromRatePerSec: rate, toRatePerSec: rate }], arrivals: 'uniform', seed: 1, shardIndex: 0, shardCount: 1 })) {
    const at = t0 + s.offsetMs;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lateness.push(Math.max(0, performance.now() - at));
    inFlight.push(
      (async () => {
        const res = await pool.request({ method: 'POST', path: '/v2/demo/openai/v1/chat/completions', headers: { 'content-type': 'application/json' }, body });
        let rest = '';
        for await (const d of res.body as AsyncIterable<Buffer>) {
          const parts = (rest + d.toString('utf8')).split('\n\n');
          rest = parts.pop() ?? '';
          for (const p of parts) if (p.startsWith('data: ') && p !== 'data: [DONE]') JSON.parse(p.slice(6));
          events += parts.length;
        }
        completed += 1;
      })(),
    );
  }
  await Promise.all(inFlight);
  const wall = performance.now() - t0;
  await pool.close();
  // Events counted as qbench counts tokens: the one-token chunks (not the usage chunk or [DONE]).
  return { client: 'reference', streams: rate * (STREAM_MS / 1000), eventsPerSec: Math.round(((completed * TOKENS) / (wall / 1000)) * 10) / 10, latenessP99Ms: percentilesOf(histogramFromMs(lateness)).p99, completed: events >= completed * TOKENS ? completed : -1 };
}

/**
 * The parsing cost alone, no network: 100,000 chat events in reads of 1,400 bytes (a TCP
 * segment), through qbench's reader (SSE parser, token timer, text kept) and through the
 * reference's split-and-parse, alternating, best of three.
 */
function parseRate(): { qbench: number; reference: number } {
  const event = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: ' tok' }, finish_reason: null }] })}\n\n`;
  const perStream = 100;
  const body = Buffer.from(event.repeat(perStream) + 'data: [DONE]\n\n');
  const reads: Buffer[] = [];
  for (let i = 0; i < body.length; i += 1400) reads.push(body.subarray(i, i + 1400));
  const streams = 1000;
  const time = (fn: () => void): number => {
    const t = performance.now();
    fn();
    return (streams * perStream) / ((performance.now() - t) / 1000);
  };
  const ours = () => {
    for (let s = 0; s < streams; s++) {
      let text = '';
      const r = new SseTokenReader(0, (c) => {
        text += textOf(c);
      });
      reads.forEach((b, i) => r.push(i, b));
      if (r.end(reads.length).metrics.chunkTokens !== perStream || text.length !== perStream * 4) throw new Error('qbench reader miscounted');
    }
  };
  const theirs = () => {
    for (let s = 0; s < streams; s++) {
      let rest = '';
      let n = 0;
      for (const b of reads) {
        const parts = (rest + b.toString('utf8')).split('\n\n');
        rest = parts.pop() ?? '';
        for (const p of parts) if (p !== 'data: [DONE]') JSON.parse(p.slice(6));
        n += parts.length;
      }
      if (n !== perStream + 1) throw new Error('reference miscounted');
    }
  };
  let q = 0;
  let r = 0;
  for (let i = 0; i < 3; i++) {
    q = Math.max(q, time(ours));
    r = Math.max(r, time(theirs));
  }
  return { qbench: q, reference: r };
}

const parsed = parseRate();
console.log(`parsing alone: qbench ${Math.round(parsed.qbench)} events/s, reference ${Math.round(parsed.reference)} events/s (${(parsed.qbench / parsed.reference).toFixed(2)}x)\n`);

const server = await startServer();
const rows: LevelResult[] = [];
try {
  // One unrecorded second per client first: its JIT, its first sockets.
  await qbenchLevel(server.url, 10);
  await referenceLevel(server.url, 10);
  for (const [i, streams] of levels.entries()) {
    const rate = streams / (STREAM_MS / 1000);
    // Which client goes first alternates, so neither always follows the other's connections closing.
    for (const level of i % 2 === 0 ? [qbenchLevel, referenceLevel] : [referenceLevel, qbenchLevel]) {
      const r = await level(server.url, rate);
      rows.push(r);
      console.log(`${r.client.padEnd(9)} ${String(r.streams).padStart(5)} streams  ${r.eventsPerSec.toFixed(0).padStart(7)} events/s  send lateness p99 ${r.latenessP99Ms.toFixed(2).padStart(7)} ms  ${r.completed} streams read`);
    }
  }
} finally {
  server.stop();
}
const ceiling = (client: string) => rows.filter((r) => r.client === client && r.latenessP99Ms < LATENESS_BAR_MS).reduce<LevelResult | undefined>((a, r) => (a === undefined || r.streams > a.streams ? r : a), undefined);
const q = ceiling('qbench');
const ref = ceiling('reference');
console.log(`\nceiling with send lateness p99 < ${LATENESS_BAR_MS} ms: qbench ${q ? `${q.streams} streams, ${q.eventsPerSec.toFixed(0)} events/s` : 'below the first level'}; reference ${ref ? `${ref.streams} streams, ${ref.eventsPerSec.toFixed(0)} events/s` : 'below the first level'}${q && ref ? `; ratio ${(q.eventsPerSec / ref.eventsPerSec).toFixed(2)}x` : ''}`);
