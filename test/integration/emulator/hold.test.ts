// The opt-in request hold (POST /_qbench/limits `hold`): an admitted request of a held
// operation keeps its §8 concurrency slot for the hold, then is served; the slot is released
// after the answer or when the client leaves; off by default, per endpoint, cleared by 0 and reset;
// the 'no-concurrency-cap' fault still admits everything. ManualClock: holds end only when a test advances time.
import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../../src/spec/index.js';
import type { RateLimitedOperation } from '../../../src/spec/index.js';
import { HOLD_MAX_REAL_MS } from '../../../src/emulator/queue/rate-limiter.js';
import { connect, type Socket } from 'node:net';
import { KEY, startManual, until, type TestEmulator } from './helpers.js';

let t: TestEmulator | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const CAPPED = (Object.keys(RATE_LIMITS) as RateLimitedOperation[]).filter((op) => RATE_LIMITS[op].concurrency !== null);

/** A request of `op` on endpoint `ep` that needs no worker time (status/stream of a finished job). */
async function requestOf(em: TestEmulator, op: RateLimitedOperation, ep: string): Promise<[string, string, unknown?]> {
  switch (op) {
    case 'run':
    case 'runsync':
      return ['POST', `/v2/${ep}/${op}`, { input: {} }];
    case 'status':
    case 'stream': {
      const r = await em.call('POST', `/v2/${ep}/runsync`, { input: {} });
      expect(r.body.status).toBe('COMPLETED');
      return ['GET', `/v2/${ep}/${op}/${r.body.id}`];
    }
    case 'cancel':
      return ['POST', `/v2/${ep}/cancel/no-such-job`, ''];
    case 'purge-queue':
      return ['POST', `/v2/${ep}/purge-queue`, ''];
    case 'openai':
      return ['POST', `/v2/${ep}/openai/v1/models`, {}];
    case 'requests':
      return ['GET', `/v2/${ep}/requests?limit=1`];
  }
}

async function inFlight(em: TestEmulator, ep: string, op: RateLimitedOperation): Promise<number> {
  const c = await em.call('GET', '/_qbench/counters');
  return (c.body.endpoints[ep].requests[op]?.inFlight as number | undefined) ?? 0;
}

/** A whole GET request on a raw socket, so the test can leave while the answer is held. */
function completeRequest(url: string, path: string): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => {
      s.write(`GET ${path} HTTP/1.1\r\nhost: ${u.host}\r\nauthorization: ${KEY}\r\n\r\n`);
      resolve(s);
    });
    s.on('error', reject);
  });
}

function setHold(em: TestEmulator, realMs: Partial<Record<RateLimitedOperation, number>>, endpoint?: string) {
  return em.call('POST', '/_qbench/limits', { hold: { ...(endpoint !== undefined ? { endpoint } : {}), realMs } });
}

describe('opt-in hold: any capped operation can be held open at its cap', () => {
  for (const op of CAPPED) {
    it(`${RATE_LIMITS[op].method} ${RATE_LIMITS[op].path}: cap admitted and held, cap+1 gets 429, the slots come back after the hold`, async () => {
      const cap = 3;
      t = await startManual({ endpoints: ['demo'], limits: { rates: { [op]: { concurrency: cap } } } });
      const em = t;
      const [method, path, body] = await requestOf(em, op, 'demo');
      expect((await setHold(em, { [op]: 1_000 }, 'demo')).status).toBe(200);
      const held = Array.from({ length: cap }, () => em.call(method, path, body));
      await until(async () => (await inFlight(em, 'demo', op)) === cap, `${cap} ${op} requests in flight`);
      const over = await em.call(method, path, body);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ operation: op, reason: 'concurrency', limit: cap });
      // Nothing answered before the hold is over.
      await em.advance(999);
      expect(await inFlight(em, 'demo', op)).toBe(cap);
      await em.advance(1);
      const answers = await Promise.all(held);
      for (const a of answers) expect(a.status).not.toBe(429);
      expect(await inFlight(em, 'demo', op)).toBe(0);
      // Cleared: served at once again, and a new request is admitted.
      expect((await setHold(em, { [op]: 0 }, 'demo')).status).toBe(200);
      const again = await em.call(method, path, body);
      expect(again.status).not.toBe(429);
    });
  }
});

describe('opt-in hold: control route, scope and cleanup', () => {
  it('is off by default and advertised in /_qbench/info, per endpoint', async () => {
    t = await startManual({ endpoints: ['a', 'b'] });
    const info0 = await t.call('GET', '/_qbench/info');
    expect(info0.body.limits.hold).toMatchObject({ operations: Object.keys(RATE_LIMITS), maxRealMs: HOLD_MAX_REAL_MS, endpoints: {} });
    const r = await setHold(t, { status: 500, cancel: 700 }, 'a');
    expect(r.status).toBe(200);
    expect(r.body.limits.hold.endpoints).toEqual({ a: { status: 500, cancel: 700 } });
    // b is not held: its cancel answers without time moving.
    const b = await t.call('POST', '/v2/b/cancel/nope', '');
    expect(b.status).toBe(404);
    // Clearing one operation keeps the other.
    await setHold(t, { status: 0 }, 'a');
    expect((await t.call('GET', '/_qbench/info')).body.limits.hold.endpoints).toEqual({ a: { cancel: 700 } });
    // No endpoint: every endpoint.
    await setHold(t, { run: 100 });
    expect(Object.keys((await t.call('GET', '/_qbench/info')).body.limits.hold.endpoints).sort()).toEqual(['a', 'b']);
    // Reset clears every hold.
    await t.call('POST', '/_qbench/reset');
    expect((await t.call('GET', '/_qbench/info')).body.limits.hold.endpoints).toEqual({});
    const c = await t.call('POST', '/v2/a/cancel/nope', '');
    expect(c.status).toBe(404);
  });

  it('refuses bad hold bodies naming the field', async () => {
    t = await startManual({ endpoints: ['a'] });
    const badOp = await t.call('POST', '/_qbench/limits', { hold: { realMs: { health: 100 } } });
    expect(badOp.status).toBe(400);
    expect(JSON.stringify(badOp.body.issues)).toContain('hold.realMs');
    const tooLong = await t.call('POST', '/_qbench/limits', { hold: { realMs: { status: HOLD_MAX_REAL_MS + 1 } } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues[0].path).toBe('hold.realMs.status');
    const negative = await t.call('POST', '/_qbench/limits', { hold: { realMs: { status: -1 } } });
    expect(negative.status).toBe(400);
    const unknownEp = await t.call('POST', '/_qbench/limits', { hold: { endpoint: 'zz', realMs: { status: 10 } } });
    expect(unknownEp.status).toBe(404);
    expect(unknownEp.body.issues[0].path).toBe('hold.endpoint');
    expect((await t.call('GET', '/_qbench/info')).body.limits.hold.endpoints).toEqual({});
  });

  it('a client that leaves during the hold frees its slot and its timer', async () => {
    t = await startManual({ endpoints: ['a'], limits: { rates: { requests: { concurrency: 1 } } } });
    const em = t;
    await setHold(em, { requests: 5_000 }, 'a');
    const timersBefore = (await em.call('GET', '/_qbench/counters')).body.pendingTimers as number;
    const sock = await completeRequest(em.em.url, '/v2/a/requests');
    await until(async () => (await inFlight(em, 'a', 'requests')) === 1, 'the raw request in flight');
    await until(async () => (await em.call('GET', '/_qbench/counters')).body.pendingTimers === timersBefore + 1, 'the hold timer armed');
    expect((await em.call('GET', '/v2/a/requests')).status).toBe(429);
    sock.destroy();
    await until(async () => (await inFlight(em, 'a', 'requests')) === 0, 'the slot released');
    await until(async () => (await em.call('GET', '/_qbench/counters')).body.pendingTimers === timersBefore, 'the hold timer cancelled');
    await setHold(em, { requests: 0 }, 'a');
    expect((await em.call('GET', '/v2/a/requests')).status).toBe(200);
  });
});

describe("opt-in hold under the 'no-concurrency-cap' fault", () => {
  it('admits every held request past the cap of each capped operation', async () => {
    t = await startManual({ endpoints: ['a'], faults: ['no-concurrency-cap'], limits: { rates: Object.fromEntries(CAPPED.map((op) => [op, { concurrency: 2 }])) } });
    const em = t;
    for (const op of CAPPED) {
      const [method, path, body] = await requestOf(em, op, 'a');
      await setHold(em, { [op]: 1_000 }, 'a');
      const held = Array.from({ length: 3 }, () => em.call(method, path, body));
      await until(async () => (await inFlight(em, 'a', op)) === 3, `3 ${op} requests in flight past a cap of 2`);
      await em.advance(1_000);
      for (const a of await Promise.all(held)) expect(a.status, op).not.toBe(429);
      await setHold(em, { [op]: 0 }, 'a');
    }
  });
});
