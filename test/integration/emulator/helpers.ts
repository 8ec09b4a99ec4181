// Shared helpers of the emulator integration tests: an in-process emulator on port 0 with a
// ManualClock (time moves only when a test says so, so lifecycle boundaries are exact), a
// small JSON client, raw sockets that hold a request in flight, and a bounded wait.
import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { Agent, request } from 'undici';
import { ManualClock } from '../../../src/emulator/clock.js';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import type { EmulatorConfigInput } from '../../../src/emulator/config.js';

export const KEY = 'test-key-1234';

export interface TestEmulator {
  em: EmulatorHandle;
  clock: ManualClock;
  // Answers are free-form JSON checked field by field in each test.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }>;
  close: () => Promise<void>;
  /** Advance emulated time, then let the promise continuations that timers started run. */
  advance: (ms: number) => Promise<void>;
}

/** Let pending microtasks and immediates run (handler continuations after a timer fired). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

/** Start an emulator on a ManualClock; workers warm at once unless the config says otherwise. */
export async function startManual(config: Partial<EmulatorConfigInput> = {}, startMs = 1_000_000): Promise<TestEmulator> {
  const clock = new ManualClock(startMs);
  const em = await startEmulator(
    { apiKey: KEY, scaleRateWindows: true, ...config, workers: { coldStartMs: 0, ...config.workers } },
    { clock },
  );
  const agent = new Agent({ connections: 64 });
  const call: TestEmulator['call'] = async (method, path, body, headers = {}) => {
    const res = await request(em.url + path, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
      dispatcher: agent,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body: parsed, headers: res.headers };
  };
  return {
    em,
    clock,
    call,
    advance: async (ms: number) => {
      clock.advance(ms);
      await flush();
    },
    close: async () => {
      await agent.close();
      await em.close();
    },
  };
}

/** Poll `pred` every 2 ms until true; fails after `maxMs` real ms (a bound, never a settle sleep). */
export async function until(pred: () => boolean | Promise<boolean>, what: string, maxMs = 5_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (await pred()) return;
    if (Date.now() - t0 > maxMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Open a raw connection and send a request's head with a declared body that never comes: it stays in flight. */
export function holdRequest(url: string, method: string, path: string, extraHeaders = ''): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => {
      s.write(`${method} ${path} HTTP/1.1\r\nhost: ${u.host}\r\nauthorization: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 10\r\n${extraHeaders}\r\n`);
      resolve(s);
    });
    s.on('error', reject);
  });
}


/** Kill (SIGKILL) every process of `procs` still running, emptying the list; resolves once all have exited. */
export async function killAll(procs: ChildProcess[]): Promise<void> {
  await Promise.all(
    procs.splice(0).map((p) =>
      p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      }),
    ),
  );
}
