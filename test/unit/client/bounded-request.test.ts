// retryResets, the one rule of the side requests (info, counters, preflight) for a connection
// the path resets: asked again on a fresh one, anything else given up at once.
import { describe, expect, it } from 'vitest';
import { isReset, retryResets } from '../../../src/client/bounded-request.js';

const withCode = (code: string): Error => Object.assign(new Error(`socket: ${code}`), { code });

describe('isReset', () => {
  it('reads the code of the error or of its causes', () => {
    expect(isReset(withCode('ECONNRESET'))).toBe(true);
    expect(isReset(new Error('fetch failed', { cause: withCode('UND_ERR_SOCKET') }))).toBe(true);
    expect(isReset(withCode('ECONNREFUSED'))).toBe(false);
    expect(isReset('ECONNRESET')).toBe(false);
  });
});

describe('retryResets', () => {
  it('asks again after a reset and answers the first answer', async () => {
    let calls = 0;
    const answer = await retryResets(() => (++calls < 3 ? Promise.reject(withCode('ECONNRESET')) : Promise.resolve('ok')), { attempts: 4, pauseMs: 1 });
    expect(answer).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up at once on anything but a reset', async () => {
    let calls = 0;
    await expect(retryResets(() => (calls++, Promise.reject(withCode('ECONNREFUSED'))), { attempts: 4, pauseMs: 1 })).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(1);
  });

  it('rejects with the last reset once the attempts are spent', async () => {
    let calls = 0;
    await expect(retryResets(() => (calls++, Promise.reject(withCode('EPIPE'))), { attempts: 2, pauseMs: 1 })).rejects.toThrow('EPIPE');
    expect(calls).toBe(2);
  });

  it('takes no pause that would end past the limit, and gives each attempt what is left', async () => {
    const given: number[] = [];
    await expect(retryResets((ms) => (given.push(ms), Promise.reject(withCode('ECONNRESET'))), { attempts: 4, pauseMs: 1000, timeoutMs: 500 })).rejects.toThrow('ECONNRESET');
    expect(given).toHaveLength(1);
    expect(given[0]).toBeLessThanOrEqual(500);
  });

  it('makes no attempt once its signal is aborted', async () => {
    const ac = new AbortController();
    let calls = 0;
    const attempt = (): Promise<never> => {
      calls++;
      ac.abort();
      return Promise.reject(withCode('ECONNRESET'));
    };
    await expect(retryResets(attempt, { attempts: 4, pauseMs: 1, signal: ac.signal })).rejects.toThrow('ECONNRESET');
    expect(calls).toBe(1);
  });
});
