// Clients that go away mid-request leave nothing behind: long-polls (/stream), waiting
// /runsync and /status-sync calls and slow bodies release their waiters, timers and
// concurrency slots.
import { afterEach, describe, expect, it } from 'vitest';
import { holdRequest, KEY, startManual, until, type TestEmulator } from './helpers.js';

let t: TestEmulator;
afterEach(async () => {
  await t.close();
});

describe('abandoned requests', () => {
  it('leave no waiter, timer or in-flight count behind', async () => {
    t = await startManual({ workers: { min: 1, max: 1 }, stream: { longPollMs: 600_000 } });
    const ep = t.em.core.defaultEndpoint;
    const id = (await t.call('POST', '/v2/demo/run', { input: { mock_delay: 1000 } })).body.id as string;
    const baselineTimers = t.clock.pendingTimers();
    const acs: AbortController[] = [];
    const calls: Promise<unknown>[] = [];
    const call = (method: string, path: string, body?: string) => {
      const ac = new AbortController();
      acs.push(ac);
      calls.push(fetch(`${t.em.url}${path}`, { method, headers: { authorization: KEY }, signal: ac.signal, ...(body === undefined ? {} : { body }) }).catch(() => undefined));
    };
    for (let i = 0; i < 100; i++) {
      call('GET', `/v2/demo/stream/${id}`);
      call('GET', `/v2/demo/status-sync/${id}?wait=300000`);
      call('POST', '/v2/demo/runsync?wait=300000', '{"input":{"mock_delay":1000}}');
    }
    const sockets = await Promise.all(Array.from({ length: 50 }, () => holdRequest(t.em.url, 'POST', '/v2/demo/run')));
    const op = (name: string) => ep.limiter.counters.get(name as 'run')?.inFlight ?? 0;
    await until(() => op('stream') === 100 && op('status') === 100 && op('runsync') === 100 && op('run') === 50, 'every request to be in flight');
    expect(ep.get(id)?.waiters?.size).toBe(200);
    for (const ac of acs) ac.abort();
    for (const s of sockets) s.destroy();
    await Promise.all(calls);
    await until(() => op('stream') + op('status') + op('runsync') + op('run') === 0, 'every slot to be released');
    expect(ep.get(id)?.waiters?.size ?? 0).toBe(0);
    // The runsync jobs stay (they were submitted) with their own expiry timers; nothing else.
    const runsyncJobs = ep.jobs.size - 1;
    expect(runsyncJobs).toBe(100);
    expect(t.clock.pendingTimers()).toBe(baselineTimers + runsyncJobs);
    for (const j of ep.jobs.values()) expect(j.waiters?.size ?? 0).toBe(0);
  });
});
