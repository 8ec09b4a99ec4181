// qbench at the border: `qbench emulate` in its own process (tsx, as the worker-process tests
// start theirs), reached only by URL through a pass-through proxy written here that adds
// latency (about 25 ms per exchange, jittered) and, for an opaque target, answers 404 for
// /_qbench/*. `qbench fuzz` by URL passes on the clean emulator and finds a switched-on fault,
// scaled (the proxy passes /_qbench/info through, so the run follows the emulator's clock and
// names the fault) and opaque (a real deployment's view: scale 1, no faults known). Against a
// port where nothing listens, `qbench load` ends with exit 5 within 10 s and `qbench fuzz`
// with exit 5, and a target that answers only the preflight fails every fuzz property: a dead
// target never exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { QbenchResult } from '../../../src/result/model.js';
import { closedPort } from '../load/tiny-server.js';

const KEY = 'border-test-key-7391';
const TIME_SCALE = 60;
/** One-way latency the proxy adds, real ms, plus up to JITTER_MS. */
const LATENCY_MS = 10;
const JITTER_MS = 5;

interface Emulate {
  readonly url: string;
  readonly proc: ChildProcess;
  readonly exited: Promise<void>;
}

/** `qbench emulate` in its own Node process; resolves once it printed its ready line. */
async function spawnEmulate(args: readonly string[]): Promise<Emulate> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'emulate', '--port', '0', '--api-key', KEY, '--endpoint', 'fuzz', '--endpoint', 'fuzz-model', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, QBENCH_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /ready on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then(() => reject(new Error(`qbench emulate exited before it was ready: ${out}`)));
  });
  return { url, proc, exited };
}

/** A pass-through HTTP proxy that delays each request and each answer; `opaque` hides /_qbench. */
async function startProxy(upstream: string, opaque: boolean): Promise<{ url: string; server: Server }> {
  const up = new URL(upstream);
  const delay = () => new Promise((r) => setTimeout(r, LATENCY_MS + Math.random() * JITTER_MS));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        await delay();
        if (opaque && (req.url ?? '').startsWith('/_qbench')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
          return;
        }
        const fwd = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (ans) => {
          const body: Buffer[] = [];
          ans.on('data', (c: Buffer) => body.push(c));
          ans.on('end', () => {
            void delay().then(() => res.writeHead(ans.statusCode ?? 502, ans.headers).end(Buffer.concat(body)));
          });
        });
        fwd.on('error', () => res.destroy());
        fwd.end(Buffer.concat(chunks));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function io() {
  let out = '';
  let err = '';
  const c: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env: { QBENCH_API_KEY: KEY }, signal: new AbortController().signal };
  return { io: c, text: () => out + err };
}

let dir = '';
const emulators: Emulate[] = [];
const proxies: Server[] = [];
let clean: { scaled: string; opaque: string };
let faulted: { scaled: string; opaque: string };

async function behindProxies(args: readonly string[]): Promise<{ scaled: string; opaque: string }> {
  const e = await spawnEmulate(args);
  emulators.push(e);
  const scaled = await startProxy(e.url, false);
  const opaque = await startProxy(e.url, true);
  proxies.push(scaled.server, opaque.server);
  return { scaled: scaled.url, opaque: opaque.url };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-border-'));
  [clean, faulted] = await Promise.all([
    behindProxies(['--time-scale', String(TIME_SCALE), '--scale-rate-windows']),
    behindProxies(['--time-scale', String(TIME_SCALE), '--scale-rate-windows', '--fault', 'missing-input-accepted']),
  ]);
}, 60_000);

afterAll(async () => {
  for (const p of proxies) {
    p.closeAllConnections();
    await new Promise<void>((r) => p.close(() => r()));
  }
  for (const e of emulators) {
    e.proc.kill('SIGTERM');
    await e.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

async function fuzz(target: string, extra: readonly string[]): Promise<{ code: number; result: QbenchResult | undefined; text: string }> {
  const out = await mkdtemp(path.join(dir, 'fuzz-'));
  const c = io();
  const code = await main(['fuzz', '--target', `${target}/v2/fuzz`, '--model-endpoint', 'fuzz-model', '--seed', '5', '--out', out, ...extra], c.io);
  const text = await readFile(path.join(out, 'result.json'), 'utf8').catch(() => undefined);
  return { code, result: text === undefined ? undefined : QbenchResult.parse(JSON.parse(text)), text: c.text() };
}


describe('qbench fuzz by URL', () => {
  it('scaled: the clean emulator passes, read at its time scale with no faults', { timeout: 60_000 }, async () => {
    const r = await fuzz(clean.scaled, ['--runs', '15', '--model-runs', '2', '--max-commands', '5', '--max-duration', '8s']);
    expect(r.code, r.text).toBe(EXIT.OK);
    expect(r.result?.meta.target).toMatchObject({ kind: 'emulator', timeScale: TIME_SCALE });
    expect(r.result?.meta.target.faults).toBeUndefined();
    expect(r.result?.fuzz?.properties.map((p) => p.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
  });

  it('scaled: a switched-on fault is found, and the emulator is read at its scale with the fault named', { timeout: 60_000 }, async () => {
    const r = await fuzz(faulted.scaled, ['--property', 'job-request-validation', '--runs', '100', '--max-duration', '10s']);
    expect(r.code, r.text).toBe(EXIT.TARGET_FAILED);
    expect(r.result?.meta.target).toMatchObject({ kind: 'emulator', timeScale: TIME_SCALE, faults: ['missing-input-accepted'] });
    expect(r.result?.fuzz?.properties[0]?.finding?.expected).toContain('refused with 400');
  });

  it('opaque (/_qbench hidden): clean passes and the fault is still found, at scale 1', { timeout: 60_000 }, async () => {
    const ok = await fuzz(clean.opaque, ['--property', 'job-request-validation', '--runs', '15', '--max-duration', '6s']);
    expect(ok.code, ok.text).toBe(EXIT.OK);
    expect(ok.result?.meta.target).toMatchObject({ kind: 'remote', timeScale: 1 });
    const bad = await fuzz(faulted.opaque, ['--property', 'job-request-validation', '--runs', '100', '--max-duration', '10s']);
    expect(bad.code, bad.text).toBe(EXIT.TARGET_FAILED);
    expect(bad.result?.meta.target.faults).toBeUndefined();
    expect(bad.result?.fuzz?.properties[0]?.status).toBe('fail');
  });
});

describe('a dead target never exits 0', () => {
  it('qbench load against a closed port: exit 5 within 10 s, naming the URL', { timeout: 30_000 }, async () => {
    const port = await closedPort();
    const file = path.join(dir, 'health.mjs');
    await writeFile(file, `export default ${JSON.stringify({ name: 'health', executor: 'constant-concurrency', vus: 4, durationMs: 3000, steps: [{ kind: 'health' }] })};\n`);
    const c = io();
    const t0 = performance.now();
    const code = await main(['load', file, '--target', `http://127.0.0.1:${port}/v2/fuzz`, '--out', path.join(dir, 'load-dead')], c.io);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(code, c.text()).toBe(EXIT.TARGET_UNREACHABLE);
    expect(c.text()).toContain(`target unreachable: GET http://127.0.0.1:${port}/v2/fuzz/health`);
  });

  it('qbench fuzz against a closed port: exit 5', { timeout: 30_000 }, async () => {
    const port = await closedPort();
    const r = await fuzz(`http://127.0.0.1:${port}`, ['--runs', '5', '--max-duration', '5s']);
    expect(r.code, r.text).toBe(EXIT.TARGET_UNREACHABLE);
    expect(r.text).toMatch(/target unreachable/);
  });

  it('qbench fuzz against a target that answers only the preflight: no property passes, exit 1', { timeout: 30_000 }, async () => {
    const server = createServer((req, res) => {
      if (req.url === '/v2/fuzz/health') res.writeHead(200, { 'content-type': 'application/json' }).end('{"jobs":{},"workers":{}}');
      else req.socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    proxies.push(server);
    const r = await fuzz(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, ['--runs', '8', '--model-runs', '2', '--max-commands', '4', '--max-duration', '6s']);
    expect(r.code, r.text).toBe(EXIT.TARGET_FAILED);
    const statuses = r.result?.fuzz?.properties.map((p) => p.status) ?? [];
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses).not.toContain('pass');
  });
});
