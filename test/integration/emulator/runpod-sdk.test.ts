// The official JavaScript SDK (`runpod-sdk`, unmodified) against the in-process emulator:
// run, status, runSync (runsync + status-sync), stream, cancel, health, purgeQueue.
// Real-time ScaledClock at 100x so the SDK's own loops see jobs finish quickly.
import runpodSdk from 'runpod-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { KEY } from './helpers.js';

let em: EmulatorHandle;
beforeAll(async () => {
  // The SDK logs each status-sync poll with console.log.
  vi.spyOn(console, 'log').mockImplementation(() => {});
  em = await startEmulator({ apiKey: KEY, timeScale: 100, workers: { min: 1, max: 2, coldStartMs: 0 } });
});
afterAll(async () => {
  await em.close();
  vi.restoreAllMocks();
});

const endpoint = () => {
  const ep = runpodSdk(KEY, { baseUrl: em.baseUrl }).endpoint('demo');
  if (!ep) throw new Error('no endpoint');
  return ep;
};

describe('runpod-sdk against the emulator', () => {
  it('run + status', async () => {
    const ep = endpoint();
    const r = (await ep.run({ input: { mock_return: 'from-sdk' } })) as { id: string; status: string };
    expect(r.status).toBe('IN_QUEUE');
    const s = await ep.status(r.id);
    expect(s).toMatchObject({ id: r.id, started: true, completed: true, succeeded: true, output: 'from-sdk' });
  });

  it('runSync finishes through /runsync and /status-sync', async () => {
    const ep = endpoint();
    // 200 emulated s of work: /runsync?wait=2000 (20 ms real) returns early, then status-sync polls.
    const r = await ep.runSync({ input: { mock_delay: 5, mock_return: 42 } }, 2000);
    expect(r).toMatchObject({ status: 'COMPLETED', output: 42, completed: true, succeeded: true });
    expect(r.id).toMatch(/^sync-/);
  });

  it('stream yields every chunk and stops at the terminal status', async () => {
    const ep = endpoint();
    const r = (await ep.run({ input: { mock_return: ['a', 'b', 'c', 'd'], mock_delay: 1, mock_chunk_delay: 2 } })) as { id: string };
    const got: unknown[] = [];
    for await (const chunk of ep.stream(r.id)) got.push(chunk);
    expect(got).toEqual([{ output: 'a' }, { output: 'b' }, { output: 'c' }, { output: 'd' }]);
  });

  it('cancel, health and purgeQueue', async () => {
    const ep = endpoint();
    const long = (await ep.run({ input: { mock_delay: 3600 } })) as { id: string };
    const c = await ep.cancel(long.id);
    expect(c).toEqual({ id: long.id, status: 'CANCELLED' });
    // Fill both workers, then queue two more for the purge.
    await ep.run({ input: { mock_delay: 3600 } });
    await ep.run({ input: { mock_delay: 3600 } });
    await ep.run({ input: { mock_delay: 3600 } });
    await ep.run({ input: { mock_delay: 3600 } });
    const h = (await ep.health()) as { jobs: { inQueue: number; inProgress: number }; workers: { running: number } };
    expect(h.jobs.inProgress).toBe(2);
    expect(h.jobs.inQueue).toBe(2);
    expect(await ep.purgeQueue()).toEqual({ removed: 2, status: 'completed' });
  });
});
