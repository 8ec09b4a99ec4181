// The verdict on one §8 rate burst (suites/conformance/lib/rate-judge.ts): the effective limit of
// the dynamic rule is known with no worker running (the base) or with requests_per_worker
// advertised; while workers run on a target that does not advertise it, admitting more than the
// base is never a failure (judge again in a quiet window, else inconclusive), and a 429 onset is an
// observation. A failure's evidence ends with the request that should have drawn the 429.
import { describe, expect, it } from 'vitest';
import { CheckFailure, CheckInconclusive, CheckSkip, violatingExchange, type ProbeResponse } from '../../../src/conformance/index.js';
import { judgeRateBurst, type RateBurst } from '../../../suites/conformance/lib/rate-judge.js';

let clock = 0;
/** A synthetic answer sent at the next ms, answered 5 ms later. */
function answer(status: number, url = 'http://127.0.0.1/v2/ep/purge-queue', json: unknown = status === 429 ? { error: 'too many' } : {}): ProbeResponse {
  const sentAtMs = ++clock;
  return {
    status, headers: {}, text: JSON.stringify(json), json, bodyBytes: 0, durationMs: 5, curl: `curl -X POST '${url}' #${sentAtMs}`, sentAtMs, doneAtMs: sentAtMs + 5,
    exchange: { request: { method: 'POST', url, headers: {}, bodyBytes: 0 }, ...(status === 0 ? { error: 'reset' } : { response: { status, headers: {}, body: '', bodyBytes: 0, durationMs: 5 } }) },
  };
}
const health = (running: number | null) => answer(running === null ? 500 : 200, 'http://127.0.0.1/v2/ep/health', running === null ? { error: 'down' } : { jobs: {}, workers: { idle: 1, running } });
const statuses = (ok: number, refused = 0) => [...Array.from({ length: ok }, () => answer(200)), ...Array.from({ length: refused }, () => answer(429))];

function burst(over: Partial<RateBurst> & Pick<RateBurst, 'answers'>): RateBurst {
  return { base: 2, requestsPerWorker: null, dedicated: true, windowRealMs: 10_000, planned: over.answers.length, health: [health(0), health(0)], elapsedRealMs: 300, last: true, ...over };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a verdict to be thrown');
}

describe('judgeRateBurst', () => {
  it('no worker running: the base is the limit; more admitted fails, naming the first admission past it', () => {
    const answers = statuses(5);
    const e = thrown(() => judgeRateBurst(burst({ answers })));
    expect(e).toBeInstanceOf(CheckFailure);
    const f = e as CheckFailure;
    expect(f.expected).toContain('at most 2 admitted');
    expect(f.expected).toContain('no worker running');
    expect(violatingExchange(f.evidence)).toBe(answers[2]);
    expect(violatingExchange(f.evidence).curl).toContain('purge-queue');
  });

  it('no worker running: a 429 right after the base passes with the effective limit known', () => {
    const v = judgeRateBurst(burst({ answers: statuses(2, 3) }));
    expect(v).toMatchObject({ kind: 'pass', effective: { value: 2, source: 'spec' } });
  });

  it('workers running, requests_per_worker not advertised: no 429 is judged again in a quiet window, then inconclusive naming the running count', () => {
    const answers = statuses(5);
    const running = [health(0), health(5), health(5)];
    expect(judgeRateBurst(burst({ answers, health: running, last: false }))).toMatchObject({ kind: 'again', quiet: true });
    const e = thrown(() => judgeRateBurst(burst({ answers, health: running })));
    expect(e).toBeInstanceOf(CheckInconclusive);
    expect((e as CheckInconclusive).reason).toMatch(/no 429 in 5 requests while 5 running workers/);
    expect((e as CheckInconclusive).reason).toContain('does not advertise requests_per_worker');
  });

  it('workers running, requests_per_worker not advertised: a 429 onset passes as an observation, with no effective limit claimed', () => {
    const v = judgeRateBurst(burst({ base: 10, answers: statuses(12, 3), health: [health(3), health(3)] }));
    expect(v.kind).toBe('pass');
    if (v.kind !== 'pass') throw new Error('unreachable');
    expect(v.effective).toBeNull();
    expect(v.requestsPerWorkerObserved).toBe(4);
    expect(v.observed).toContain('requests_per_worker observed 4 (admitted / running');
  });

  it('an unreadable /health during the burst leaves the limit unknown: no failure', () => {
    expect(judgeRateBurst(burst({ answers: statuses(5), health: [health(0), health(null), health(0)], last: false }))).toMatchObject({ kind: 'again', quiet: true });
  });

  it('requests_per_worker advertised: the effective limit is known and judged', () => {
    const answers = statuses(5, 1);
    const e = thrown(() => judgeRateBurst(burst({ requestsPerWorker: 1, answers, health: [health(3), health(3)] })));
    expect(e).toBeInstanceOf(CheckFailure);
    expect((e as CheckFailure).expected).toContain('at most 3 admitted');
    expect(violatingExchange((e as CheckFailure).evidence)).toBe(answers[3]);
    expect(judgeRateBurst(burst({ requestsPerWorker: 1, answers: statuses(3, 2), health: [health(3), health(3)] }))).toMatchObject({ kind: 'pass', effective: { value: 3, source: 'advertised' } });
  });

  it('requests_per_worker advertised but the effective limit above what was sent: judged again, never failed', () => {
    const running = [health(1), health(1)];
    expect(judgeRateBurst(burst({ requestsPerWorker: 100, answers: statuses(5), health: running, last: false }))).toMatchObject({ kind: 'again', quiet: true });
    expect(thrown(() => judgeRateBurst(burst({ requestsPerWorker: 100, answers: statuses(5), health: running })))).toBeInstanceOf(CheckInconclusive);
  });

  it('fewer admitted than the base: judged again, then inconclusive on a shared endpoint and failed (on the first 429) on an own one', () => {
    const answers = statuses(1, 4);
    expect(judgeRateBurst(burst({ answers, last: false }))).toMatchObject({ kind: 'again', quiet: false });
    expect(thrown(() => judgeRateBurst(burst({ answers, dedicated: false })))).toBeInstanceOf(CheckInconclusive);
    const e = thrown(() => judgeRateBurst(burst({ answers })));
    expect(e).toBeInstanceOf(CheckFailure);
    expect(violatingExchange((e as CheckFailure).evidence)).toBe(answers[1]);
  });

  it('a shared endpoint allows 2% over the limit', () => {
    expect(judgeRateBurst(burst({ base: 100, dedicated: false, answers: statuses(102, 5) }))).toMatchObject({ kind: 'pass' });
    expect(thrown(() => judgeRateBurst(burst({ base: 100, dedicated: false, answers: statuses(103, 5) })))).toBeInstanceOf(CheckFailure);
  });

  it('a burst too slow for one window, or stopped before it was all sent, is not judged', () => {
    expect(thrown(() => judgeRateBurst(burst({ answers: statuses(5), elapsedRealMs: 9_500 })))).toBeInstanceOf(CheckSkip);
    const e = thrown(() => judgeRateBurst(burst({ answers: statuses(5), planned: 12 })));
    expect(e).toBeInstanceOf(CheckSkip);
    expect((e as CheckSkip).reason).toMatch(/5 of 12 requests sent\), too close to the 10000 ms window to judge the count/);
  });

  it('a request the path lost is counted, not judged: the window passes on the answers that came', () => {
    const answers = [...statuses(2), answer(0), ...statuses(0, 2)];
    const v = judgeRateBurst(burst({ answers }));
    expect(v).toMatchObject({ kind: 'pass' });
    expect(v.kind === 'pass' && v.observed).toMatch(/the network path lost 1/);
  });

  it('a surplus among the answers that came still fails when some were lost', () => {
    const answers = [...statuses(4), answer(0)];
    const e = thrown(() => judgeRateBurst(burst({ answers })));
    expect(e).toBeInstanceOf(CheckFailure);
    expect(violatingExchange((e as CheckFailure).evidence)).toBe(answers[2]);
  });

  it('too few admitted is inconclusive when the lost requests may have been admitted, a failure when not', () => {
    const lostOne = [...statuses(1), answer(0), ...statuses(0, 3)];
    expect(thrown(() => judgeRateBurst(burst({ answers: lostOne, base: 2 })))).toBeInstanceOf(CheckInconclusive);
    const tooFew = [...statuses(1), answer(0), ...statuses(0, 3)];
    expect(thrown(() => judgeRateBurst(burst({ answers: tooFew, base: 3 })))).toBeInstanceOf(CheckFailure);
  });
});
