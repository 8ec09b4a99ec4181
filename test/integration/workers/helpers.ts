// Shared helpers of the worker-process tests: reference worker PROCESSES
// (`qbench worker` in their own Node process) attached to an in-process emulator, a small
// JSON client, a bounded wait, and a recording proxy that shows which protocol calls a
// worker made. Every process started here is SIGKILLed by killWorkers() (afterEach).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorHandle } from '../../../src/emulator/index.js';

export const KEY = 'worker-test-key-5678';

export interface WorkerProcess {
  readonly id: string;
  readonly proc: ChildProcess;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stdout and stderr so far. */
  output(): string;
}

const live = new Set<WorkerProcess>();

export interface SpawnOptions {
  /** Emulator base URL; undefined: the worker reads the RUNPOD_WEBHOOK_* environment only. */
  readonly url: string | undefined;
  readonly workerId: string;
  readonly handler: string;
  readonly endpoint?: string;
  readonly concurrency?: number;
  readonly env?: Record<string, string>;
  /** false: the process gets `env` and nothing else (not this process's environment). */
  readonly inheritEnv?: boolean;
  readonly args?: readonly string[];
}

/** Start `qbench worker` as its own Node process (tsx loader, as `npx tsx src/cli/bin.ts` would). */
export function spawnWorker(o: SpawnOptions): WorkerProcess {
  const target = o.url === undefined ? [] : ['--url', o.url, '--endpoint', o.endpoint ?? 'demo', '--worker-id', o.workerId];
  const args = ['--import', 'tsx', 'src/cli/bin.ts', 'worker', '--handler', o.handler, ...target, '--concurrency', String(o.concurrency ?? 1), ...(o.args ?? [])];
  const proc = spawn(process.execPath, args, {
    cwd: process.cwd(),
    env: { ...(o.inheritEnv === false ? {} : process.env), ...(o.url === undefined ? {} : { RUNPOD_AI_API_KEY: KEY }), ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const w: WorkerProcess = { id: o.workerId, proc, exited, output: () => out };
  live.add(w);
  void exited.then(() => live.delete(w));
  return w;
}

/** SIGKILL every worker process still running and wait for each to exit. */
export async function killWorkers(): Promise<void> {
  const all = [...live];
  for (const w of all) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
  await Promise.all(all.map((w) => w.exited));
}

/** Poll `pred` every 20 ms until it holds; fail after `maxMs` real ms naming `what`. */
export async function until(pred: () => boolean | Promise<boolean>, what: string, maxMs = 20_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (await pred()) return;
    if (Date.now() - t0 > maxMs) throw new Error(`timed out after ${maxMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True once `workerId` is in the endpoint's pool (it made its first protocol call). */
export function attached(em: EmulatorHandle, workerId: string, endpoint = 'demo'): boolean {
  return em.core.endpoints.get(endpoint)?.pool.workers.has(workerId) === true;
}

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

export function client(em: EmulatorHandle): (method: string, path: string, body?: unknown) => Promise<JsonAnswer> {
  return async (method, path, body) => {
    const r = await fetch(`${em.url}${path}`, { method, headers: { authorization: KEY, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
}

export interface RecordingProxy {
  readonly url: string;
  /** `METHOD path?query -> status` of every call forwarded, in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

/** A pass-through HTTP proxy to `target` that records each call and its answer status. */
export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const t = new URL(target);
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      calls.push(`${req.method} ${req.url} -> ${upRes.statusCode}`);
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
