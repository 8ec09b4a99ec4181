// The concurrency checks' verdict on a held burst (suites/conformance/queue/concurrency.ts):
// exactly `cap` admitted passes; a surplus fails only when the timing proves every admitted
// request was in flight together (else inconclusive); too few admitted beside 429s fails.
import { describe, expect, it } from 'vitest';
import { CheckFailure, type ProbeResponse } from '../../../src/conformance/index.js';
import { heldBurst, judgeHeldBurst } from '../../../suites/conformance/queue/concurrency.js';

/** A synthetic answer: status, real send and answer times (ms). */
function answer(status: number, sentAtMs: number, doneAtMs: number): ProbeResponse {
  return {
    status, headers: {}, text: '', json: status === 429 ? { error: 'too many' } : {}, bodyBytes: 0, durationMs: doneAtMs - sentAtMs, curl: 'curl', sentAtMs, doneAtMs,
    exchange: { request: { method: 'GET', url: 'http://127.0.0.1/x', headers: {}, bodyBytes: 0 }, ...(status === 0 ? { error: 'reset' } : { response: { status, headers: {}, body: '', bodyBytes: 0, durationMs: doneAtMs - sentAtMs } }) },
  };
}

/** `admitted` answers held `holdMs` (sends spread over `spreadMs`) and `refused` immediate 429s. */
function burst(admitted: number, refused: number, holdMs: number, spreadMs: number): ProbeResponse[] {
  const out: ProbeResponse[] = [];
  for (let i = 0; i < admitted; i++) {
    const sent = (spreadMs * i) / Math.max(1, admitted - 1);
    out.push(answer(200, sent, sent + holdMs + 5));
  }
  for (let i = 0; i < refused; i++) out.push(answer(429, spreadMs, spreadMs + 3));
  return out;
}

function failureOf(fn: () => unknown): CheckFailure {
  try {
    fn();
  } catch (e) {
    if (e instanceof CheckFailure) return e;
    throw e;
  }
  throw new Error('expected a CheckFailure');
}

describe('judgeHeldBurst', () => {
  it('passes exactly cap admitted and the rest refused', () => {
    const v = judgeHeldBurst(heldBurst(burst(20, 4, 2000, 100)), 20, 2000, 0);
    expect(v.kind).toBe('pass');
  });

  it('fails a surplus of admissions that were all in flight together', () => {
    const f = failureOf(() => judgeHeldBurst(heldBurst(burst(24, 0, 2000, 300)), 20, 2000, 0));
    expect(f.observed).toContain('24 of 24 admitted');
  });

  it('calls a surplus inconclusive when the sends spread past the hold (slots may have been freed)', () => {
    const v = judgeHeldBurst(heldBurst(burst(24, 0, 2000, 2500)), 20, 2000, 0);
    expect(v.kind).toBe('inconclusive');
  });

  it('fails 429s that came before cap were in flight on an endpoint of its own; on a shared one, past the tolerance, other clients may hold the slots: inconclusive', () => {
    const f = failureOf(() => judgeHeldBurst(heldBurst(burst(15, 9, 2000, 100)), 20, 2000, 0));
    expect(f.expected).toContain('429 only once 20 requests are in flight');
    expect(judgeHeldBurst(heldBurst(burst(392, 88, 2000, 100)), 400, 2000, 8).kind).toBe('pass');
    const shared = judgeHeldBurst(heldBurst(burst(391, 89, 2000, 100)), 400, 2000, 8);
    expect(shared).toMatchObject({ kind: 'inconclusive' });
    expect(shared.kind === 'inconclusive' && shared.why).toMatch(/only 391 of this check's requests admitted on a shared endpoint/);
  });

  it('judges the answers that came when the path lost some: cap admitted passes and says how many were lost', () => {
    const answers = [...burst(20, 3, 2000, 100), answer(0, 0, 10)];
    const v = judgeHeldBurst(heldBurst(answers), 20, 2000, 0);
    expect(v).toMatchObject({ kind: 'pass' });
    expect(v.kind === 'pass' && v.observed).toContain('the path lost 1 of 24 (reset)');
  });

  it('still fails a surplus held together when some requests were lost', () => {
    const answers = [...burst(22, 1, 2000, 100), answer(0, 0, 10)];
    expect(failureOf(() => judgeHeldBurst(heldBurst(answers), 20, 2000, 0)).observed).toMatch(/22 of 24 admitted.*the path lost 1 of 24/);
  });

  it('is inconclusive, not failed, when the lost requests may have held the missing slots', () => {
    const answers = [...burst(18, 4, 2000, 100), answer(0, 0, 10), answer(0, 0, 10)];
    const v = judgeHeldBurst(heldBurst(answers), 20, 2000, 0);
    expect(v).toMatchObject({ kind: 'inconclusive' });
    expect(v.kind === 'inconclusive' && v.why).toMatch(/path lost 2 of 24/);
  });

  it('fails too few admitted even counting every lost request as admitted', () => {
    const answers = [...burst(15, 8, 2000, 100), answer(0, 0, 10)];
    expect(failureOf(() => judgeHeldBurst(heldBurst(answers), 20, 2000, 0)).expected).toMatch(/429 only once 20 requests are in flight/);
  });
});
