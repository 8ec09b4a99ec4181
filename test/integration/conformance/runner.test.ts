// The runner against a fake target: verdict mapping (pass, fail with evidence and curl, skip,
// error), secrets never in the result, billable and profile gating, expectations (matched,
// unexpected pass), and the bound on checks in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Probe, runChecks, fail, skip, inconclusive, buildResult, parseExpectations, specLimits, type CheckDefinition, type Suite, type Target,
} from '../../../src/conformance/index.js';
import { QbenchResult } from '../../../src/result/model.js';
import { startFakeTarget, type FakeTarget } from './fake-target.js';

const KEY = 'sk-test-SECRET-0123456789';
/** Answers within the contract (src/client/answer-contract.ts), so the checks' own verdicts stand. */
const HEALTH = { jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } };
let fake: FakeTarget;

beforeAll(async () => {
  fake = await startFakeTarget({
    'GET /v2/ep/health': (req) => (req.headers.authorization === KEY ? { status: 200, json: HEALTH } : { status: 401, json: { error: 'no' } }),
    'POST /v2/ep/run': () => ({ status: 200, json: { id: 'x', status: 'IN_QUEUE' } }),
  });
});
afterAll(async () => {
  await fake.close();
});

function target(over: Partial<Target> = {}): Target {
  return {
    kind: 'remote', queueUrl: fake.url, endpointId: 'ep', apiKeyEnv: 'MY_KEY', timeScale: 1, limits: specLimits(),
    spareEndpoints: [], callbackHost: null, allowBillable: false, faults: [], ...over,
  };
}
const probe = () => new Probe({ queueUrl: fake.url, apiKey: KEY, apiKeyEnv: 'MY_KEY' });

const base = { interface: 'queue', kind: 'spec', tags: [] } as const;
const checks: CheckDefinition[] = [
  { ...base, id: 't.pass', title: 'pass', clauses: ['c/one'], async run(ctx) {
    const r = await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/health' });
    return r.status === 200 ? { observed: 'ok' } : fail('200', String(r.status), r);
  } },
  { ...base, id: 't.fail', title: 'fail', clauses: ['c/one'], async run(ctx) {
    const r = await ctx.http.send({ iface: 'queue', method: 'POST', path: '/v2/ep/run', json: { input: { a: 1 }, s3Config: { accessSecret: 'hush-hush' } } });
    const id = (r.json as { id: string }).id;
    // A later request (a /health read) is not the violation: the reproduction stays the /run.
    await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/health' });
    return id.length > 8 ? undefined : fail('a UUID id', `id ${id}`, r);
  } },
  { ...base, id: 't.skip', title: 'skip', clauses: ['c/two'], run: () => skip('not here') },
  { ...base, id: 't.error', title: 'error', clauses: ['c/two'], run: () => Promise.reject(new Error(`boom ${KEY}`)) },
  { ...base, id: 't.billable', title: 'billable', clauses: ['c/two'], tags: ['billable'], run: () => Promise.resolve(undefined) },
  { ...base, id: 't.slow', title: 'slow', clauses: ['c/two'], emulatedWaitMs: 30 * 60_000, run: () => Promise.resolve(undefined) },
  { ...base, id: 't.compat', title: 'compat', clauses: ['c/two'], kind: 'compat', async run(ctx) {
    // Several exchanges as evidence: the violating one is the last, and its curl is the reproduction.
    const run = await ctx.http.send({ iface: 'queue', method: 'POST', path: '/v2/ep/run', json: { input: { a: 2 } } });
    const h = await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/health' });
    await ctx.http.send({ iface: 'queue', method: 'POST', path: '/v2/ep/run', json: { input: { cleanup: true } } });
    return fail('x', 'y', [run, h]);
  } },
];
const suite: Suite = {
  clauses: [
    { id: 'c/one', section: '§1', quote: 'rule one', observable: true },
    { id: 'c/two', section: '§2', quote: 'rule two', observable: true },
  ],
  checks,
};

describe('conformance runner', () => {
  it('maps outcomes to verdicts, with evidence, a curl line and no secret', async () => {
    const results = await runChecks(suite, target(), probe(), { profile: 'quick' });
    const by = Object.fromEntries(results.map((r) => [r.id, r]));
    expect(by['t.pass']!.verdict).toEqual({ status: 'pass', observed: 'ok' });
    const f = by['t.fail']!.verdict;
    expect(f.status).toBe('fail');
    if (f.status !== 'fail') throw new Error('unreachable');
    expect(f.expected).toBe('a UUID id');
    expect(f.observed).toBe('id x');
    expect(f.exchanges).toHaveLength(1);
    expect(f.exchanges[0]!.response?.status).toBe(200);
    expect(f.curl).toContain(`'${fake.url}/v2/ep/run'`);
    expect(f.curl).toContain('"$MY_KEY"');
    const c = by['t.compat']!.verdict;
    if (c.status !== 'fail') throw new Error(`t.compat: ${c.status}`);
    expect(c.exchanges.map((x) => `${x.request.method} ${new URL(x.request.url).pathname}`)).toEqual(['POST /v2/ep/run', 'GET /v2/ep/health']);
    expect(c.curl).toContain(`'${fake.url}/v2/ep/health'`);
    expect(by['t.skip']!.verdict).toEqual({ status: 'skip', reason: 'not here' });
    expect(by['t.error']!.verdict.status).toBe('error');
    expect(by['t.billable']!.verdict).toMatchObject({ status: 'skip' });
    expect(by['t.slow']!.verdict).toMatchObject({ status: 'skip' });
    expect(by['t.slow']!.tags).toContain('slow');
    expect(by['t.pass']!.clause).toEqual({ section: '§1', quote: 'rule one' });
    const text = JSON.stringify(results);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('hush-hush');
    // The key did travel on the wire, in the documented raw form.
    expect(fake.seenAuth).toContain(KEY);
  });

  it('runs billable checks when allowed and slow ones in the full profile', async () => {
    const results = await runChecks(suite, target({ allowBillable: true }), probe(), { profile: 'full', only: ['t.billable', 't.slow'] });
    expect(results.map((r) => [r.id, r.verdict.status])).toEqual([['t.billable', 'pass'], ['t.slow', 'pass']]);
  });

  it('applies expectations: a matched failure passes the run, a compat failure never fails it', async () => {
    const exp = parseExpectations({ expectations: [{ id: 't.fail', verdict: 'fail', reason: 'known bug 12' }, { id: 't.error', verdict: 'error', reason: 'flaky' }] }, 'inline');
    const results = await runChecks(suite, target(), probe(), { profile: 'quick', expectations: exp });
    const r = buildResult({ suite, results, profile: 'quick', command: ['qbench', 'check'], startedAt: new Date(), endedAt: new Date(), target: { kind: 'remote', queueUrl: fake.url, endpointId: 'ep', timeScale: 1 } });
    expect(QbenchResult.safeParse(r).success).toBe(true);
    expect(r.conformance?.summary.expectedFailures).toBe(2);
    expect(r.overall.exitCode).toBe(0);
    const without = buildResult({ suite, results: await runChecks(suite, target(), probe(), { profile: 'quick' }), profile: 'quick', command: [], startedAt: new Date(), endedAt: new Date(), target: { kind: 'remote', queueUrl: fake.url, endpointId: 'ep', timeScale: 1 } });
    expect(without.overall.exitCode).toBe(1);
    expect(without.overall.reasons.join('\n')).toContain('t.fail');
    expect(without.overall.reasons.join('\n')).not.toContain('t.compat');
  });

  it('reports an unexpected pass', async () => {
    const exp = parseExpectations({ expectations: [{ id: 't.pass', verdict: 'fail', reason: 'was broken' }] }, 'inline');
    const results = await runChecks(suite, target(), probe(), { profile: 'quick', only: ['t.pass'], expectations: exp });
    expect(results[0]!.expectation).toEqual({ expected: 'fail', reason: 'was broken', matched: false });
    const r = buildResult({ suite, results, profile: 'quick', command: [], startedAt: new Date(), endedAt: new Date(), target: { kind: 'remote', queueUrl: fake.url, endpointId: 'ep', timeScale: 1 } });
    expect(r.conformance?.summary.unexpectedPasses).toBe(1);
  });

  it('retries an inconclusive check once with a fresh endpoint, then reports it inconclusive; a pass on the retry is a pass', async () => {
    const seen: (string | null)[] = [];
    let flaky = 0;
    let waited = 0;
    const s: Suite = {
      clauses: suite.clauses,
      checks: [
        { ...base, id: 't.never', title: 'never sets up', clauses: ['c/one'], async run(ctx) {
          seen.push(ctx.dedicatedEndpoint('main'));
          const r = await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/health' });
          return inconclusive(`the job was still IN_QUEUE (attempt ${seen.length})`, r);
        } },
        { ...base, id: 't.second', title: 'sets up the second time', clauses: ['c/one'], run: () => (++flaky === 1 ? inconclusive('window in use') : Promise.resolve({ observed: 'ok' })) },
        // A check that already waited as long as a retry would: run once.
        { ...base, id: 't.waited', title: 'waited already', clauses: ['c/one'], run: () => { waited += 1; return inconclusive('still busy after waiting', undefined, { retryable: false }); } },
      ],
    };
    const results = await runChecks(s, target({ spareEndpoints: ['s1', 's2'] }), probe(), { profile: 'quick', concurrency: 1 });
    const never = results.find((r) => r.id === 't.never')!;
    expect(never.verdict).toMatchObject({ status: 'inconclusive', reason: 'the job was still IN_QUEUE (attempt 2) (first attempt: the job was still IN_QUEUE (attempt 1))' });
    expect(never.verdict.status === 'inconclusive' && never.verdict.exchanges[0]?.request.url).toMatch(/\/v2\/ep\/health$/);
    expect(seen).toEqual(['s1', 's2']);
    expect(results.find((r) => r.id === 't.second')!.verdict).toEqual({ status: 'pass', observed: 'ok' });
    expect(results.find((r) => r.id === 't.waited')!.verdict).toMatchObject({ status: 'inconclusive', reason: 'still busy after waiting' });
    expect(waited).toBe(1);
    const result = buildResult({ suite: s, results, profile: 'quick', command: ['qbench'], startedAt: new Date(), endedAt: new Date(), target: { kind: 'remote', queueUrl: fake.url, endpointId: 'ep', timeScale: 1 } });
    expect(QbenchResult.safeParse(result).success).toBe(true);
    expect(result.conformance!.summary).toMatchObject({ pass: 1, inconclusive: 2 });
    expect(result.overall.exitCode).toBe(0);
  });

  it('keeps at most `concurrency` checks in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const many: CheckDefinition[] = Array.from({ length: 12 }, (_, i) => ({
      ...base, id: `p.${i}`, title: 'p', clauses: ['c/one'] as [string],
      async run(ctx) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await ctx.time.sleepReal(5);
        inFlight -= 1;
        return undefined;
      },
    }));
    await runChecks({ clauses: suite.clauses, checks: many }, target(), probe(), { profile: 'quick', concurrency: 3 });
    expect(peak).toBe(3);
  });
});
