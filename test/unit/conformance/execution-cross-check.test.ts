// The cross-check of a job never seen IN_PROGRESS (suites/conformance/lib/queue.ts awaitState):
// polls that answered IN_QUEUE after the job, by its final record's executionTime, must already
// have been running contradict that record and fail the check, the contradicting poll last in the
// evidence; polls the record allows leave the check inconclusive, as before.
import { describe, expect, it } from 'vitest';
import { CheckFailure, CheckInconclusive, violatingExchange, type CheckContext, type ProbeResponse } from '../../../src/conformance/index.js';
import { awaitState } from '../../../suites/conformance/lib/queue.js';

/** A context whose /status polls answer `states` in turn, one every 100 ms of a fake clock (5 ms each). */
function polling(states: readonly string[], executionTimeMs: number): CheckContext {
  const log: ProbeResponse[] = [];
  let i = 0;
  const send = () => {
    const sentAtMs = i * 100;
    const status = states[Math.min(i, states.length - 1)]!;
    i += 1;
    const json = { id: 'j', status, ...(status === 'COMPLETED' ? { delayTime: 0, executionTime: executionTimeMs } : {}) };
    const res = {
      status: 200, json, text: JSON.stringify(json), headers: {}, bodyBytes: 0, durationMs: 5, curl: `curl #${sentAtMs}`, sentAtMs, doneAtMs: sentAtMs + 5,
      exchange: { request: { method: 'GET', url: 'http://127.0.0.1/v2/ep/status/j', headers: {}, bodyBytes: 0 } },
    } as unknown as ProbeResponse;
    log.push(res);
    return Promise.resolve(res);
  };
  return { http: { send, log }, signal: new AbortController().signal, time: { sleepReal: () => Promise.resolve(), toRealMs: (ms: number) => ms } } as unknown as CheckContext;
}

const QUEUED_THEN_DONE = [...Array.from({ length: 10 }, () => 'IN_QUEUE'), 'COMPLETED'];

async function outcome(ctx: CheckContext): Promise<unknown> {
  return awaitState(ctx, 'ep', 'j', ['IN_PROGRESS'], 60_000, 'a long job starts').then(() => 'reached', (e: unknown) => e);
}

describe('awaitState: a job never seen running', () => {
  it('fails when IN_QUEUE answers came after the job must have started, the latest of them the violating exchange', async () => {
    // Final answer at 1005 ms with executionTime 800: started by 205 ms; with a 10% and one-poll (500 ms) margin, polls sent from 785 ms contradict it.
    const e = await outcome(polling(QUEUED_THEN_DONE, 800));
    expect(e).toBeInstanceOf(CheckFailure);
    const v = violatingExchange((e as CheckFailure).evidence);
    expect(v.sentAtMs).toBe(900);
    expect((e as CheckFailure).observed).toMatch(/IN_QUEUE.*executionTime/);
  });

  it('stays inconclusive when the record allows every poll (a short run between two polls)', async () => {
    const e = await outcome(polling(QUEUED_THEN_DONE, 100));
    expect(e).toBeInstanceOf(CheckInconclusive);
    expect((e as CheckInconclusive).reason).toMatch(/no poll caught it IN_PROGRESS/);
  });
});
