// The finished /runsync job a rate or concurrency check builds on: its id when it finished; a
// job gone when /runsync answered (404) or still waiting is a precondition not reached
// (inconclusive); any other answer fails the setup.
import { describe, expect, it } from 'vitest';
import { CheckFailure, CheckInconclusive, type CheckContext, type ProbeResponse } from '../../../src/conformance/index.js';
import { finishedSetupJob } from '../../../suites/conformance/lib/queue.js';

function answering(status: number, json: unknown, durationMs = 5): CheckContext {
  const res = { status, json, text: JSON.stringify(json), headers: {}, bodyBytes: 0, durationMs, exchange: {}, curl: 'curl ...', sentAtMs: 0, doneAtMs: durationMs } as unknown as ProbeResponse;
  return { http: { send: () => Promise.resolve(res) }, signal: new AbortController().signal, time: { sleepReal: () => Promise.resolve(), toRealMs: (ms: number) => ms } } as unknown as CheckContext;
}

describe('finishedSetupJob', () => {
  it('gives the id of a finished job', async () => {
    await expect(finishedSetupJob(answering(200, { id: 'sync-1', status: 'COMPLETED', output: 'rate' }), 'ep', 'rate')).resolves.toBe('sync-1');
  });

  it('a job gone when /runsync answered (404) is inconclusive, naming why', async () => {
    const e = await finishedSetupJob(answering(404, { error: 'job sync-2 not found: purged', id: 'sync-2' }), 'ep', 'rate').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CheckInconclusive);
    expect((e as CheckInconclusive).reason).toMatch(/gone when \/runsync answered/);
  });

  it('a job still IN_QUEUE when the wait ended is inconclusive', async () => {
    await expect(finishedSetupJob(answering(200, { id: 'sync-3', status: 'IN_QUEUE' }, 90_000), 'ep', 'rate')).rejects.toBeInstanceOf(CheckInconclusive);
  });

  it('a job answered IN_QUEUE long before the wait ended fails: the target did not wait', async () => {
    await expect(finishedSetupJob(answering(200, { id: 'sync-4', status: 'IN_QUEUE' }, 5), 'ep', 'rate')).rejects.toBeInstanceOf(CheckFailure);
  });

  it('any other refusal fails the setup', async () => {
    await expect(finishedSetupJob(answering(400, { error: 'bad input' }), 'ep', 'rate')).rejects.toBeInstanceOf(CheckFailure);
  });
});
