// The max-throughput executor on both engines against a tiny local server: what it counts
// must equal what the server answered, the request cap and pipelining depth hold, a
// refused target is a network-error outcome (not a hang), and warm-up is reported.
// No wall-clock assertion: the shared 2-core machine decides the rates.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/load/engine.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { startTinyServer, tinyTarget, type TinyServer } from './tiny-server.js';

let server: TinyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const target = tinyTarget;

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.each(['qbench', 'autocannon'] as const)('max-throughput (engine %s)', (engine) => {
  it('counts every answer the server gave, stops at maxRequests, and records status codes', async () => {
    server = await startTinyServer({ acceptPerOp: 150 });
    const s = parseScenario({ name: 'max', executor: 'max-throughput', engine, connections: 4, durationMs: 10_000, maxRequests: 400, steps: [{ kind: 'health' }] });
    const r = await runScenario(s, { target: target(server.url) });
    const st = r.steps[0]!;
    const total = Object.values(st.counts).reduce((a, b) => a + b, 0);
    // autocannon may send a few past its cap while connections drain; ours stops exactly.
    if (engine === 'qbench') expect(total).toBe(400);
    else expect(total).toBeGreaterThanOrEqual(400);
    expect(server.counts.get('health')).toBe(total);
    expect(st.counts['2xx']).toBe(150);
    expect(st.counts['429']).toBe(total - 150);
    expect(st.statusCodes['429']).toBe(total - 150);
    expect(st.latency.percentiles.count).toBe(total);
    // Closed loop: corrected latency is the service time.
    expect(st.latency.percentiles.p50).toBe(st.serviceTime.percentiles.p50);
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('a refused target ends as network errors within the run time, not a hang', async () => {
    const port = await closedPort();
    const s = parseScenario({ name: 'down', executor: 'max-throughput', engine, connections: 2, durationMs: 300, requestTimeoutMs: 1000, steps: [{ kind: 'health' }] });
    const r = await runScenario(s, { target: target(`http://127.0.0.1:${port}`) });
    const st = r.steps[0];
    expect(st?.counts.network_error ?? 0).toBeGreaterThan(0);
    expect(st?.counts['2xx'] ?? 0).toBe(0);
  });
});

describe('max-throughput (engine qbench)', () => {
  it('keeps connections x pipelining requests in flight and reports its pre-connect', async () => {
    server = await startTinyServer({ delayMs: 20 });
    const s = parseScenario({ name: 'pipe', executor: 'max-throughput', connections: 2, pipelining: 3, durationMs: 400, steps: [{ kind: 'health' }] });
    const r = await runScenario(s, { target: target(server.url) });
    // node:http runs the handlers of pipelined requests side by side: more than one per
    // connection proves the pipelining, never more than 2 x 3 the cap.
    expect(server.maxInFlight).toBeGreaterThan(2);
    expect(server.maxInFlight).toBeLessThanOrEqual(6);
    expect(r.validity.warmup).toMatchObject({ connectionsOpened: 2, localIterations: 0 });
    const st = r.steps[0]!;
    expect(st.counts['2xx']).toBe(server.counts.get('health'));
    expect(st.counts['2xx']).toBeGreaterThan(0);
  });

  it('stops on the outer signal and reports what it got', async () => {
    server = await startTinyServer();
    const ac = new AbortController();
    const s = parseScenario({ name: 'abort', executor: 'max-throughput', connections: 2, durationMs: 60_000, steps: [{ kind: 'health' }] });
    const running = runScenario(s, { target: target(server.url), signal: ac.signal });
    const timer = setTimeout(() => ac.abort(new Error('test abort')), 300);
    const r = await running;
    clearTimeout(timer);
    expect(r.durationMs).toBeLessThan(30_000);
    expect(r.steps[0]!.counts['2xx']).toBeGreaterThan(0);
  });
});
