// §6 webhooks: the status record is POSTed when a job ends; a non-200 answer or a refused
// connection is retried 2 more times, 10 s apart on the emulator clock (ManualClock here,
// so spacing is checked exactly); deliveries never hold up the queue.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WEBHOOK } from '../../../src/spec/index.js';
import { startManual, until, type TestEmulator } from './helpers.js';

let t: TestEmulator;
let receiver: Server | undefined;
afterEach(async () => {
  await t.close();
  if (receiver) await new Promise((r) => receiver?.close(r));
  receiver = undefined;
});

interface Hit {
  body: unknown;
  atMs: number;
}

/** A receiver that answers the given statuses in turn (200 after the list runs out). */
async function startReceiver(statuses: number[], clock: () => number): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      hits.push({ body: JSON.parse(body), atMs: clock() });
      res.writeHead(statuses[hits.length - 1] ?? 200).end();
    });
  });
  await new Promise<void>((r) => receiver?.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, hits };
}

describe('§6 webhooks', () => {
  it('POSTs the /status record once when a job completes and the receiver answers 200', async () => {
    t = await startManual();
    const rx = await startReceiver([], () => t.clock.now());
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_return: 'out' }, webhook: rx.url })).body.id;
    await until(() => rx.hits.length === 1, 'the webhook call');
    const status = (await t.call('GET', `/v2/demo/status/${id}`)).body;
    expect(rx.hits[0]?.body).toEqual(status);
    await t.advance(3 * WEBHOOK.retryDelayMs);
    expect(rx.hits).toHaveLength(1);
  });

  it('a non-200 answer is retried 2 more times, 10 s apart, then given up', async () => {
    t = await startManual();
    const rx = await startReceiver([500, 503, 404], () => t.clock.now());
    await t.call('POST', '/v2/demo/run', { input: { mock_error: true }, webhook: rx.url });
    await until(() => rx.hits.length === 1, 'the first attempt');
    await until(() => t.em.core.webhooks.counters.failedAttempts === 1, 'the first failure to be counted');
    await t.advance(WEBHOOK.retryDelayMs - 1);
    expect(rx.hits).toHaveLength(1);
    await t.advance(1);
    await until(() => rx.hits.length === 2, 'the second attempt');
    await until(() => t.em.core.webhooks.counters.failedAttempts === 2, 'the second failure');
    await t.advance(WEBHOOK.retryDelayMs);
    await until(() => rx.hits.length === 3, 'the third attempt');
    await until(() => t.em.core.webhooks.counters.abandoned === 1, 'the delivery to be abandoned');
    await t.advance(10 * WEBHOOK.retryDelayMs);
    expect(rx.hits).toHaveLength(1 + WEBHOOK.extraAttempts);
    expect(rx.hits.map((h) => h.atMs - (rx.hits[0]?.atMs ?? 0))).toEqual([0, WEBHOOK.retryDelayMs, 2 * WEBHOOK.retryDelayMs]);
    expect((rx.hits[0]?.body as { status: string }).status).toBe('FAILED');
  });

  it('stops retrying at the first 200', async () => {
    t = await startManual();
    const rx = await startReceiver([500], () => t.clock.now());
    await t.call('POST', '/v2/demo/run', { input: {}, webhook: rx.url });
    await until(() => t.em.core.webhooks.counters.failedAttempts === 1, 'the first failure');
    await t.advance(WEBHOOK.retryDelayMs);
    await until(() => t.em.core.webhooks.counters.delivered === 1, 'the delivery');
    await t.advance(5 * WEBHOOK.retryDelayMs);
    expect(rx.hits).toHaveLength(2);
  });

  it('a refused connection counts as a failure and is retried', async () => {
    t = await startManual();
    const rx = await startReceiver([], () => t.clock.now());
    const url = rx.url;
    await new Promise((r) => receiver?.close(r));
    receiver = undefined;
    await t.call('POST', '/v2/demo/run', { input: {}, webhook: url });
    for (let i = 1; i <= 1 + WEBHOOK.extraAttempts; i++) {
      await until(() => t.em.core.webhooks.counters.failedAttempts === i, `failed attempt ${i}`);
      await t.advance(WEBHOOK.retryDelayMs);
    }
    expect(t.em.core.webhooks.counters).toMatchObject({ attempts: 3, abandoned: 1, delivered: 0 });
  });

  it('a receiver that never answers does not hold up the queue', async () => {
    t = await startManual({ workers: { min: 1, max: 1 } });
    const hung = createServer(() => {
      // never answers
    });
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/`;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await t.call('POST', '/v2/demo/run', { input: {}, webhook: url })).body.id);
      for (const id of ids) expect((await t.call('GET', `/v2/demo/status/${id}`)).body.status).toBe('COMPLETED');
      await until(() => t.em.core.webhooks.counters.inFlight === 20, 'deliveries in flight');
    } finally {
      hung.closeAllConnections();
      await new Promise((r) => hung.close(r));
    }
  });
});
