// Every fault switch with part 'queue': switched on, the emulator breaks exactly the rule
// the catalogue names (the clean behaviour of each rule is tested in the other files).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FAULTS, FAULT_NAMES, type FaultName } from '../../../src/emulator/faults.js';
import type { EmulatorConfigInput } from '../../../src/emulator/config.js';
import { RATE_LIMITS, RETENTION_MS, RUN_PAYLOAD, SYNC_ID_PATTERN, WEBHOOK, SECOND_MS, MINUTE_MS } from '../../../src/spec/index.js';
import { holdRequest, startManual, until, type TestEmulator } from './helpers.js';

let current: TestEmulator | undefined;
/** The emulator of the running case. */
const em = (): TestEmulator => {
  if (!current) throw new Error('no emulator');
  return current;
};
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await current?.close();
  current = undefined;
  if (server) await new Promise((r) => server?.close(r));
  server = undefined;
});

const run = async (input: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> =>
  (await em().call('POST', '/v2/demo/run', { input, ...extra })).body.id as string;

async function failingReceiver(): Promise<{ url: string; hits: number[] }> {
  const hits: number[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(em().clock.now());
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, hits };
}

const cases: Record<string, { config?: Partial<EmulatorConfigInput>; check: () => Promise<void> }> = {
  'retry-from-completed': {
    check: async () => {
      const id = await run({});
      expect((await em().call('POST', `/v2/demo/retry/${id}`)).body).toEqual({ id, status: 'IN_QUEUE' });
    },
  },
  'rate-limit-late': {
    check: async () => {
      const n = RATE_LIMITS.cancel.requestsPerWindow;
      for (let i = 0; i < n; i++) expect((await em().call('POST', '/v2/demo/cancel/x')).status).toBe(404);
      expect((await em().call('POST', '/v2/demo/cancel/x')).status).toBe(404);
      for (let i = n + 1; i < n + n / 10; i++) expect((await em().call('POST', '/v2/demo/cancel/x')).status).toBe(404);
      expect((await em().call('POST', '/v2/demo/cancel/x')).status).toBe(429);
    },
  },
  'no-concurrency-cap': {
    check: async () => {
      const cap = RATE_LIMITS.cancel.concurrency as number;
      for (let i = 0; i < cap; i++) sockets.push(await holdRequest(em().em.url, 'POST', '/v2/demo/cancel/x'));
      await until(() => em().em.core.defaultEndpoint.limiter.counters.get('cancel')?.inFlight === cap, 'held cancels');
      expect((await em().call('POST', '/v2/demo/cancel/x')).status).toBe(404);
    },
  },
  'retention-halved': {
    check: async () => {
      const id = await run({});
      await em().advance(RETENTION_MS.run / 2);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).status).toBe(404);
    },
  },
  'ttl-ignored': {
    config: { workers: { min: 0, max: 1 } },
    check: async () => {
      const id = await run({}, { policy: { ttl: 10 * SECOND_MS, lowPriority: true } });
      await em().advance(60 * SECOND_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('IN_QUEUE');
    },
  },
  'execution-timeout-ignored': {
    check: async () => {
      const id = await run({ mock_delay: 10 }, { policy: { executionTimeout: 5 * SECOND_MS } });
      await em().advance(10 * SECOND_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('COMPLETED');
    },
  },
  'purge-removes-running': {
    config: { workers: { min: 1, max: 1 } },
    check: async () => {
      const running = await run({ mock_delay: 10 });
      await run({});
      expect((await em().call('POST', '/v2/demo/purge-queue')).body).toEqual({ removed: 2, status: 'completed' });
      expect((await em().call('GET', `/v2/demo/status/${running}`)).body.status).toBe('CANCELLED');
    },
  },
  'health-miscount': {
    check: async () => {
      expect((await em().call('GET', '/v2/demo/health')).body.jobs.inQueue).toBe(1);
    },
  },
  'stream-chunk-oversize': {
    check: async () => {
      const id = await run({ mock_return: 'x'.repeat(2_500_000) });
      const r = (await em().call('GET', `/v2/demo/stream/${id}`)).body;
      expect(r.stream).toHaveLength(1);
      expect(JSON.stringify(r.stream[0]).length).toBeGreaterThan(2_500_000);
    },
  },
  'wrong-sync-id-prefix': {
    check: async () => {
      const r = await em().call('POST', '/v2/demo/runsync', { input: {} });
      expect(r.body.id).not.toMatch(SYNC_ID_PATTERN);
      expect(r.body.id).not.toMatch(/^sync-/);
    },
  },
  'payload-cap-off': {
    check: async () => {
      const body = `{"input":{"p":"${'x'.repeat(RUN_PAYLOAD.decimalBytes)}"}}`;
      expect((await em().call('POST', '/v2/demo/run', body)).status).toBe(200);
    },
  },
  'auth-off': {
    check: async () => {
      expect((await em().call('GET', '/v2/demo/health', undefined, { authorization: '' })).status).toBe(200);
      expect((await em().call('POST', '/v2/demo/run', { input: {} }, { authorization: 'wrong' })).status).toBe(200);
    },
  },
  'webhook-not-retried': {
    check: async () => {
      const rx = await failingReceiver();
      await run({}, { webhook: rx.url });
      await until(() => em().em.core.webhooks.counters.abandoned === 1, 'the delivery to be given up');
      await em().advance(5 * WEBHOOK.retryDelayMs);
      expect(rx.hits).toHaveLength(1);
    },
  },
  'webhook-retry-fast': {
    check: async () => {
      const rx = await failingReceiver();
      await run({}, { webhook: rx.url });
      await until(() => em().em.core.webhooks.counters.failedAttempts === 1, 'the first failure');
      await em().advance(SECOND_MS);
      await until(() => rx.hits.length === 2, 'a retry one second later');
      expect((rx.hits[1] ?? 0) - (rx.hits[0] ?? 0)).toBe(SECOND_MS);
    },
  },
  'cancel-does-not-stop-running': {
    check: async () => {
      const id = await run({ mock_delay: 5 });
      expect((await em().call('POST', `/v2/demo/cancel/${id}`)).body).toEqual({ id, status: 'CANCELLED' });
      await em().advance(5 * SECOND_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('COMPLETED');
    },
  },
  'wait-bounds-unchecked': {
    check: async () => {
      expect((await em().call('POST', '/v2/demo/runsync?wait=999', { input: {} })).status).toBe(200);
      expect((await em().call('POST', '/v2/demo/runsync?wait=300001', { input: {} })).status).toBe(200);
    },
  },
  'policy-bounds-unchecked': {
    check: async () => {
      expect((await em().call('POST', '/v2/demo/run', { input: {}, policy: { ttl: 1, executionTimeout: 1 } })).status).toBe(200);
    },
  },
  'missing-input-accepted': {
    check: async () => {
      expect((await em().call('POST', '/v2/demo/run', {})).status).toBe(200);
    },
  },
  'purge-wrong-status-word': {
    check: async () => {
      expect((await em().call('POST', '/v2/demo/purge-queue')).body).toEqual({ removed: 0, status: 'COMPLETED' });
    },
  },
  'retry-keeps-output': {
    config: { workers: { min: 1, max: 1 } },
    check: async () => {
      await run({ mock_delay: 100 });
      const id = await run({ mock_error: true, mock_progress: ['half'], mock_delay: 2 });
      await em().advance(100 * SECOND_MS);
      for (let i = 0; i < 3; i++) await em().advance(SECOND_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('FAILED');
      await run({ mock_delay: 100 });
      await em().call('POST', `/v2/demo/retry/${id}`);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body).toMatchObject({ status: 'IN_QUEUE', output: 'half' });
    },
  },
  'retry-new-id': {
    check: async () => {
      const id = await run({ mock_error: true });
      const r = (await em().call('POST', `/v2/demo/retry/${id}`)).body;
      expect(r.status).toBe('IN_QUEUE');
      expect(r.id).not.toBe(id);
    },
  },
  'unknown-endpoint-ok': {
    check: async () => {
      expect((await em().call('GET', '/v2/no-such-endpoint/health')).status).toBe(200);
    },
  },
  'unknown-job-ok': {
    check: async () => {
      expect((await em().call('GET', '/v2/demo/status/nope')).body).toEqual({ id: 'nope', status: 'IN_QUEUE' });
    },
  },
  'status-ttl-ignored': {
    check: async () => {
      const id = await run({});
      await em().call('GET', `/v2/demo/status/${id}?ttl=6000`);
      await em().advance(7 * SECOND_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).status).toBe(200);
    },
  },
  'runsync-long-retention': {
    check: async () => {
      const id = (await em().call('POST', '/v2/demo/runsync', { input: {} })).body.id;
      await em().advance(RETENTION_MS.runsyncMax + MINUTE_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).status).toBe(200);
      await em().advance(RETENTION_MS.run);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).status).toBe(404);
    },
  },
  'run-answer-wrong-status': {
    check: async () => {
      expect((await em().call('POST', '/v2/demo/run', { input: {} })).body.status).toBe('QUEUED');
    },
  },
  'timing-fields-missing': {
    check: async () => {
      const id = await run({});
      const s = (await em().call('GET', `/v2/demo/status/${id}`)).body;
      expect(s.status).toBe('COMPLETED');
      expect(s).not.toHaveProperty('delayTime');
      expect(s).not.toHaveProperty('executionTime');
    },
  },
  'status-word-running': {
    check: async () => {
      const id = await run({ mock_delay: 5 });
      // Emulated time on until a worker has taken the job (a cold start included): at most 4 s of its 5.
      let status = (await em().call('GET', `/v2/demo/status/${id}`)).body.status;
      for (let i = 0; i < 40 && status === 'IN_QUEUE'; i++) {
        await em().advance(100);
        status = (await em().call('GET', `/v2/demo/status/${id}`)).body.status;
      }
      expect(status).toBe('RUNNING');
      await em().advance(10 * SECOND_MS);
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('COMPLETED');
    },
  },
  'status-lowercase': {
    check: async () => {
      const id = await run({});
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('completed');
    },
  },
  'stream-outlives-job': {
    check: async () => {
      const id = await run({ mock_return: ['a', 'b'] });
      expect((await em().call('GET', `/v2/demo/status/${id}`)).body.status).toBe('COMPLETED');
      expect((await em().call('GET', `/v2/demo/stream/${id}`)).body).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'a' }, { output: 'b' }] });
      expect((await em().call('GET', `/v2/demo/stream/${id}`)).body).toEqual({ status: 'IN_PROGRESS', stream: [] });
    },
  },
  'retry-from-cancelled': {
    check: async () => {
      const id = await run({ mock_delay: 5 });
      await em().call('POST', `/v2/demo/cancel/${id}`);
      expect((await em().call('POST', `/v2/demo/retry/${id}`)).body).toEqual({ id, status: 'IN_QUEUE' });
    },
  },
};

describe('queue fault switches', () => {
  it('every queue fault of the catalogue has a case here', () => {
    const queueFaults = FAULT_NAMES.filter((f) => FAULTS[f].part === 'queue');
    expect(Object.keys(cases).sort()).toEqual([...queueFaults].sort());
  });

  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${FAULTS[name as FaultName].description}`, async () => {
      current = await startManual({ ...c.config, faults: [name] });
      const info = (await em().call('GET', '/_qbench/info')).body;
      expect((info.faults as { name: string }[]).map((f) => f.name)).toEqual([name]);
      await c.check();
    });
  }
});
