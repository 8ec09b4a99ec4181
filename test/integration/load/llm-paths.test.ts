// `qbench llm` by URL against the built `qbench emulate`: through a proxy that re-chunks every
// server-sent-events answer into writes of 1 to 9 bytes (events split across TCP writes, the
// parser fed partial lines and partial UTF-8), the figures are those measured without it; and the
// three paths (the OpenAI route, /run + /stream, /runsync) on one endpoint agree on tokens and text.
// About 10 s of wall time: the emulator's default engine at real time (TTFT 200 ms, 50 tokens/s).
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../global-setup.js';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { seededRng } from '../../../src/deployment/random.js';
import type { LlmRun, QbenchResult } from '../../../src/result/model.js';
import { killAll, until } from '../emulator/helpers.js';

const KEY = 'llm-paths-key-4471';
const procs: ReturnType<typeof spawn>[] = [];
let emulatorUrl: string;
let proxy: Server;
let proxyUrl: string;
let proxiedWrites = 0;
let proxiedEvents = 0;
let dir: string;

/** Forward every request; split an event stream's bytes into writes of 1-9 bytes, each sent at once (no byte is held back). */
function startProxy(upstream: string): Promise<Server> {
  const up = new URL(upstream);
  const rng = seededRng(11);
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      const out = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const sse = String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
        res.socket?.setNoDelay(true);
        answer.on('data', (d: Buffer) => {
          if (!sse) {
            res.write(d);
            return;
          }
          proxiedEvents += d.toString('utf8').split('\n\n').length - 1;
          for (let i = 0; i < d.length; ) {
            const n = 1 + Math.floor(rng.next() * 9);
            res.write(d.subarray(i, i + n));
            proxiedWrites += 1;
            i += n;
          }
        });
        answer.on('end', () => res.end());
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(body));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-llm-paths-'));
  // Two warm workers taking 4 jobs each: no cold start and no queueing at the loads below.
  const proc = spawn(process.execPath, [BUILT_BIN, 'emulate', '--port', '0', '--host', '127.0.0.1', '--api-key', KEY, '--workers-min', '2', '--workers-max', '2', '--jobs-per-worker', '4', '--cold-start-ms', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(proc);
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await until(() => /ready on \S+/.test(out), 'the ready line', 30_000);
  emulatorUrl = (/ready on (\S+)/.exec(out) ?? [])[1] as string;
  proxy = await startProxy(emulatorUrl);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 40_000);

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await killAll(procs);
  await rm(dir, { recursive: true, force: true });
});

async function llm(base: string, name: string, args: string[]): Promise<{ code: number; result: QbenchResult; err: string }> {
  const err: string[] = [];
  const io: CliIo = { stdout: () => undefined, stderr: (t) => err.push(t), isTty: false, env: { QBENCH_API_KEY: KEY }, signal: new AbortController().signal };
  const out = path.join(dir, name);
  const code = await main(['llm', '--target', `${base}/v2/demo`, '--out', out, '--duration', '30s', ...args], io);
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')) as QbenchResult;
  return { code, result, err: err.join('') };
}

const runs = (r: QbenchResult): LlmRun[] => r.llm?.runs ?? [];

describe('qbench llm by URL against the built emulator', () => {
  it('gives the same figures through a proxy that re-chunks the event stream', { timeout: 40_000 }, async () => {
    const args = ['--path', 'openai', '--vus', '2', '--max-requests', '6', '--output-tokens', '12', '--prompt-tokens', '32', '--slo', 'p99(ttft)<5s'];
    const direct = await llm(emulatorUrl, 'direct', args);
    const proxied = await llm(proxyUrl, 'proxied', args);
    expect(direct.code, direct.err).toBe(0);
    expect(proxied.code, proxied.err).toBe(0);
    // The proxy did split the events: more writes than events, most of them parts of one.
    expect(proxiedWrites).toBeGreaterThan(5 * proxiedEvents);
    const [a] = runs(direct.result);
    const [b] = runs(proxied.result);
    if (!a || !b) throw new Error('a run is missing');
    expect([a.requests.completed, b.requests.completed, a.requests.failed, b.requests.failed]).toEqual([6, 6, 0, 0]);
    // Counted figures are equal exactly: every chunk seen, every token counted, the same text.
    expect(b.requestRecords.map((r) => [r.outputTokens, r.chunks, r.tokenSource])).toEqual(a.requestRecords.map((r) => [r.outputTokens, r.chunks, r.tokenSource]));
    expect(a.requestRecords.every((r) => r.outputTokens === 12)).toBe(true);
    expect(b.sampleText).toBe(a.sampleText);
    expect(b.itl.percentiles.count).toBe(a.itl.percentiles.count);
    // Timed figures within the jitter of two runs of real timers: the proxy's loopback hop adds well
    // under a millisecond to every byte alike; the emulator's own timers on a busy 2-core host move
    // a chunk by a few ms (TTFT is one 200 ms wait, ITL 20 ms per token).
    expect(Math.abs(b.ttft.percentiles.p50 - a.ttft.percentiles.p50)).toBeLessThan(30);
    expect(Math.abs(b.itl.percentiles.p50 - a.itl.percentiles.p50)).toBeLessThan(8);
    expect(Math.abs(b.e2e.percentiles.p50 - a.e2e.percentiles.p50)).toBeLessThan(40);
    // A split event is never counted before its blank line: no proxied TTFT below the direct run's least.
    expect(b.ttft.percentiles.min).toBeGreaterThan(a.ttft.percentiles.min - 30);
  });

  it('the three paths agree on tokens and text, and the native ones split TTFT', { timeout: 40_000 }, async () => {
    const r = await llm(emulatorUrl, 'paths', ['--path', 'openai,stream,runsync', '--vus', '1', '--max-requests', '2', '--output-tokens', '10', '--prompt-tokens', '16']);
    expect(r.code, r.err).toBe(0);
    const [openai, stream, runsync] = runs(r.result);
    if (!openai || !stream || !runsync) throw new Error('a path is missing');
    expect([openai.path, stream.path, runsync.path]).toEqual(['openai', 'stream', 'runsync']);
    for (const run of [openai, stream, runsync]) {
      expect(run.requests.completed, run.path).toBe(2);
      expect(run.requestRecords.map((x) => x.outputTokens), run.path).toEqual([10, 10]);
    }
    expect(openai.sampleText).toBeDefined();
    expect(stream.sampleText).toBe(openai.sampleText);
    expect(runsync.sampleText).toBe(openai.sampleText);
    // The native paths read the final output's usage; the event stream may or may not carry it (counted from chunks then): the counts agree either way.
    expect([stream.tokenSource, runsync.tokenSource]).toEqual([{ usage: 2, chunks: 0, chunksDisagree: 0 }, { usage: 2, chunks: 0, chunksDisagree: 0 }]);
    // The split's parts add up to TTFT: the worker's part is what is left after the submit and delayTime.
    const split = stream.ttftSplit;
    expect(split?.workerFirstChunk.percentiles.p50).toBeGreaterThan(0);
    expect((split?.workerFirstChunk.percentiles.max ?? 0) + (split?.submit.percentiles.min ?? 0)).toBeLessThanOrEqual(stream.ttft.percentiles.max + 1);
    expect(runsync.itl.percentiles.count).toBe(0);
    expect(runsync.ttft.percentiles.p50).toBeCloseTo(runsync.e2e.percentiles.p50, 0);
  });
});
