// Load scenarios that cannot set up what they judge end inconclusive, not failed: requests
// that were not held open (concurrency-cap), workers that never ran (worker-scaled-limit, a
// cold start that never finishes), a job purged by another client before it completed
// (retention), a probe answered by a gateway (payload-caps), no worker for the streams
// (gpu-throughput). Each is set up on the in-process emulator (or a gateway written here); a
// violation seen on its own terms still fails.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { LoadTarget } from '../../../src/load/context.js';
import { runLoad } from '../../../src/load/run-load.js';
import { API_KEY, finding, runSuite, withEmulator, withOpaque } from './suite-harness.js';

const SCALED = { timeScale: 20, scaleRateWindows: true } as const;
/** Workers that never finish starting: a cold start of an emulated hour. */
const NO_WORKER = { workers: { min: 0, max: 5, coldStartMs: 3_600_000 } } as const;
const RELAXED: [string, unknown][] = [['validity', { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 }]];

describe('concurrency-cap: requests that were not held open', () => {
  it('a /stream long-poll that answers at once leaves the cap unmeasured: inconclusive', async () => {
    const r = await runSuite('concurrency-cap.ts', { timeScale: 10, stream: { longPollMs: 5 }, limits: { rates: { stream: { concurrency: 6 } } } }, { op: 'stream', expect: 'advertised' });
    const s = r.scenarios[0]!;
    expect(s.verdict.status).toBe('inconclusive');
    const held = finding(s, /really held open/)!;
    expect(held).toMatchObject({ precondition: true, passed: false });
    expect(held.observed).toMatch(/^shortest \d+ ms \(answered before the burst was in flight together/);
    expect(s.verdict.summary).toMatch(/^could not set up: requests were really held open: shortest/);
    expect(r.result.overall.exitCode).toBe(0);
  });
});

describe('worker-scaled-limit: workers that never ran', () => {
  it('a cold start that never finishes: the busy phase is not judged, inconclusive', async () => {
    await withEmulator({ ...SCALED, ...NO_WORKER, limits: { requestsPerWorker: 20, rates: { status: { requestsPerWindow: 30 } } } }, (emu) =>
      // Opaque: the scenario cannot start warm workers through /_qbench/workers; it makes the
      // target autoscale with long jobs, as on a real deployment.
      withOpaque(emu, async (target) => {
        const result = await runLoad({ files: ['suites/load/worker-scaled-limit.ts'], target, params: { expect: 'advertised', workers: '3' }, overrides: { set: RELAXED } });
        const s = result.load!.scenarios[0]!;
        expect(s.verdict.status).toBe('inconclusive');
        const busy = finding(s, /workers really busy/)!;
        expect(busy).toMatchObject({ precondition: true, passed: false });
        expect(busy.observed).toMatch(/^0 running: 0 x 20 does not lift the limit above the base/);
        expect(s.verdict.summary).toMatch(/^could not set up: workers really busy in the busy phase: 0 running/);
      }, { scaleRateWindows: true, limits: { requestsPerWorker: 20, rates: { status: { requestsPerWindow: 30 } } } }),
    );
  });
});

describe('retention: a job that never reached COMPLETED', () => {
  it('purged by another client while it waited for a worker: inconclusive, not a retention failure', async () => {
    await withEmulator({ timeScale: 1200, ...NO_WORKER }, async (target: LoadTarget) => {
      const run = runLoad({ files: ['suites/load/retention.ts'], target, params: { op: 'run' } });
      const headers = { authorization: `Bearer ${API_KEY}` };
      const base = `${target.queueUrl}/v2/${target.endpointId}`;
      // Another client purges the queue once the scenario's job is in it.
      const deadline = Date.now() + 20_000;
      for (;;) {
        const h = (await (await fetch(`${base}/health`, { headers })).json()) as { jobs: { inQueue: number } };
        if (h.jobs.inQueue > 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const purge = await fetch(`${base}/purge-queue`, { method: 'POST', headers });
      expect(purge.status).toBe(200);
      const result = await run;
      const s = result.load!.scenarios[0]!;
      expect(s.verdict.status).toBe('inconclusive');
      expect(finding(s, /seen COMPLETED/)).toMatchObject({ precondition: true, passed: false, observed: 'the job was gone (404) before it was seen COMPLETED (expired or purged while it waited)' });
      expect(result.overall.exitCode).toBe(0);
    });
  });
});

/** A target whose own answer to a body above `capBytes` is `pastCap`, as a gateway (502) or the target (413). */
async function withPayloadTarget<T>(capBytes: number, pastCap: number, fn: (target: LoadTarget) => Promise<T>): Promise<T> {
  let seq = 0;
  const server: Server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      const status = bytes > capBytes ? pastCap : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? JSON.stringify({ id: `job-${++seq}`, status: 'IN_QUEUE' }) : JSON.stringify({ error: status === 502 ? 'bad gateway' : 'payload too large' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    return await fn({ kind: 'remote', queueUrl: `http://127.0.0.1:${port}`, endpointId: 'ep', timeScale: 1 });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('payload-caps: a probe answered by a gateway', () => {
  it('502 past 30,000 bytes is not the target\'s answer: inconclusive; the target\'s own 413 there fails against §4.1', async () => {
    await withPayloadTarget(30_000, 502, async (target) => {
      const result = await runLoad({ files: ['suites/load/payload-caps.ts'], target, params: { op: 'run' } });
      const s = result.load!.scenarios[0]!;
      expect(s.verdict.status).toBe('inconclusive');
      expect(finding(s, /target's own answer/)).toMatchObject({ precondition: true, passed: false });
      expect(finding(s, /target's own answer/)?.observed).toMatch(/bytes: a gateway answered 502 3 times$/);
      expect(result.overall.exitCode).toBe(0);
    });
    await withPayloadTarget(30_000, 413, async (target) => {
      const result = await runLoad({ files: ['suites/load/payload-caps.ts'], target, params: { op: 'run' } });
      const s = result.load!.scenarios[0]!;
      expect(s.verdict.status).toBe('fail');
      expect(finding(s, /largest \/run body/)?.observed).toMatch(/^30,000 bytes/);
      expect(finding(s, /target's own answer/)?.passed).toBe(true);
    });
  });
});

describe('gpu-throughput: no worker for the streams', () => {
  it('a cold start that never finishes: no stream got a token, inconclusive', async () => {
    // Jobs are given up 300 ms without a first token, well inside the graceful stop: none is aborted mid-request.
    const params = { levels: '1,2', phaseMs: '400', tokens: '8', tps: '200', ttftMs: '20', setupWaitMs: '500', firstTokenMs: '300' };
    const r = await runSuite('gpu-throughput.ts', NO_WORKER, params, { set: [['gracefulStopMs', 5000]] });
    const s = r.scenarios[0]!;
    expect(s.verdict.status).toBe('inconclusive');
    expect(finding(s, /a worker took every accepted job/)).toMatchObject({ precondition: true, passed: false });
    expect(finding(s, /a worker took every accepted job/)?.observed).toMatch(/^\d+ of \d+ accepted jobs never got a first token \(\/health at the end: [1-9]\d* workers starting\)/);
    expect(finding(s, /1\.5 MB output job finished in time/)).toMatchObject({ passed: false, observed: expect.stringMatching(/did not finish within 500 ms/) as unknown });
    expect(r.result.overall.exitCode).toBe(0);
  });
});
