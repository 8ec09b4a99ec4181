// The runner's one rule over every check: an answer that broke the contract fails the check
// that read it, whatever the check concluded (pass, inconclusive, skip, error), with that
// exchange as the evidence; a failure a check found itself stands; a failure whose evidence is
// no answer at all (a reset, a refused connect, a stall) is a fault of the path: inconclusive.
import { describe, expect, it } from 'vitest';
import { fail, inconclusive, runChecks, skip, type CheckDefinition, type Probe, type ProbeResponse, type Suite, type Target } from '../../../src/conformance/index.js';
import { answerBreach } from '../../../src/client/answer-contract.js';
import { specLimits } from '../../../src/conformance/target.js';
import type { Verdict } from '../../../src/result/model.js';

function answer(path: string, status: number, body: unknown, error?: string): ProbeResponse {
  const text = body === undefined ? '' : JSON.stringify(body);
  const breach = status === 0 ? null : answerBreach({ iface: 'queue', method: 'GET', path }, { status, text, json: body });
  return {
    status, headers: {}, text, json: body, bodyBytes: text.length, durationMs: 5, curl: `curl ${path}`, sentAtMs: 0, doneAtMs: 5,
    exchange: { request: { method: 'GET', url: `http://127.0.0.1${path}`, headers: {}, bodyBytes: 0 }, ...(status === 0 ? { error: error ?? 'reset' } : { response: { status, headers: {}, body: text, bodyBytes: text.length, durationMs: 5 } }) },
    ...(breach !== null ? { breach } : {}),
  };
}

/** A probe that answers each path from a table, logging like the real one (breaches included). */
function fakeProbe(answers: Readonly<Record<string, ProbeResponse>>): Probe {
  const make = (): Probe => {
    const log: ProbeResponse[] = [];
    const breaches: ProbeResponse[] = [];
    return {
      log, breaches,
      fork: make,
      hasInterface: () => true,
      send: (req: { path: string }) => {
        const a = answers[req.path];
        if (a === undefined) throw new Error(`no canned answer for ${req.path}`);
        log.push(a);
        if (a.breach !== undefined) breaches.push(a);
        return Promise.resolve(a);
      },
    } as unknown as Probe;
  };
  return make();
}

const target = { kind: 'remote', endpointId: 'ep', timeScale: 1, limits: specLimits(), spareEndpoints: [], faults: [], callbackHost: null, allowBillable: false, queueUrl: 'http://127.0.0.1:1', apiKeyEnv: 'K' } as unknown as Target;

const RUNNING = answer('/v2/ep/status/j', 200, { id: 'j', status: 'RUNNING' });
const QUEUED = answer('/v2/ep/status/q', 200, { id: 'q', status: 'IN_QUEUE' });
const LOST = answer('/v2/ep/status/l', 0, undefined, 'SocketError: other side closed');
const probe = fakeProbe({ [RUNNING.exchange.request.url.slice(16)]: RUNNING, [QUEUED.exchange.request.url.slice(16)]: QUEUED, [LOST.exchange.request.url.slice(16)]: LOST });

async function verdictOf(run: CheckDefinition['run']): Promise<Verdict> {
  const suite: Suite = { clauses: [{ id: 'c/x', section: '§3.1', quote: 'rule', observable: true }], checks: [{ id: 't.x', title: 'x', clauses: ['c/x'], interface: 'queue', kind: 'spec', tags: [], run }] };
  const [r] = await runChecks(suite, target, probe, { profile: 'quick' });
  return r!.verdict;
}

describe('the contract under every check', () => {
  it.each([
    ['passes', () => Promise.resolve(undefined)],
    ['ends inconclusive ("busy")', () => inconclusive('did not reach IN_PROGRESS: the endpoint may be busy')],
    ['skips', () => skip('not on this target')],
    ['breaks', () => Promise.reject(new Error('boom'))],
  ] as const)('a check that read a breaking answer and %s fails, on that exchange', async (_what, end) => {
    const v = await verdictOf(async (ctx) => {
      await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/status/q' });
      await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/status/j' });
      return end();
    });
    expect(v.status).toBe('fail');
    if (v.status !== 'fail') return;
    expect(v.expected).toMatch(/^§4\.1: \/status answers a job record/);
    expect(v.observed).toContain('RUNNING');
    expect(v.exchanges).toEqual([RUNNING.exchange]);
    expect(v.curl).toBe(RUNNING.curl);
  });

  it('a check that read only allowed answers keeps its verdict', async () => {
    const v = await verdictOf(async (ctx) => {
      await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/status/q' });
      return inconclusive('busy', undefined, { retryable: false });
    });
    expect(v).toMatchObject({ status: 'inconclusive', reason: 'busy' });
  });

  it('a failure the check found itself stands, with its own evidence', async () => {
    const v = await verdictOf(async (ctx) => {
      await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/status/j' });
      const q = await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/status/q' });
      return fail('COMPLETED', 'IN_QUEUE', q);
    });
    expect(v).toMatchObject({ status: 'fail', expected: 'COMPLETED', exchanges: [QUEUED.exchange] });
  });

  it('a failure on no answer (the path reset it) is inconclusive naming the fault, never a failure', async () => {
    const v = await verdictOf(async (ctx) => {
      const l = await ctx.http.send({ iface: 'queue', method: 'GET', path: '/v2/ep/status/l' });
      return fail('an answer', 'none', l);
    });
    expect(v.status).toBe('inconclusive');
    expect(v.status === 'inconclusive' && v.reason).toMatch(/no answer of the target to judge: SocketError: other side closed \(a fault of the network path/);
  });
});
