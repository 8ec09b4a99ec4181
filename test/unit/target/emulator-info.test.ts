// The one reader of GET /_qbench/info, with an injected fetcher (no sockets): what each answer
// means (the document parses: an emulator; a 404 or another service's answer: not an emulator;
// a document that calls itself the emulator's and does not parse: exit 2 naming the field; no
// answer: unreachable) and the facts a command takes from it.
import { describe, expect, it } from 'vitest';
import { ManualClock, infoDocument, parseEmulatorConfig } from '../../../src/emulator/index.js';
import { EmulatorCore } from '../../../src/emulator/core.js';
import { isQbenchError } from '../../../src/errors.js';
import { EXIT } from '../../../src/exit-codes.js';
import { RATE_WINDOW_MS } from '../../../src/spec/index.js';
import { REMOTE_FACTS, readEmulatorInfo, readTargetFacts, type InfoFetcher } from '../../../src/target/index.js';

const KEY = 'unit-info-key-1234';
const core = new EmulatorCore(parseEmulatorConfig({ apiKey: KEY, endpoints: ['a', 'b'], faults: ['auth-off', 'ttl-ignored'] }), new ManualClock());
/** A document the emulator builds, at the scale a scaled emulator advertises. */
const DOC = { ...infoDocument(core), timeScale: 60, scaleRateWindows: true };

interface Seen {
  url: string;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
}
function answering(status: number, text: string, seen: Seen[] = []): InfoFetcher {
  return (url, headers, timeoutMs) => {
    seen.push({ url, headers, timeoutMs });
    return Promise.resolve({ status, text });
  };
}
const refusing: InfoFetcher = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));

describe('readEmulatorInfo decides what the answer means', () => {
  it('a document that parses is an emulator; the URL keeps the prefix and the key goes as Bearer', async () => {
    const seen: Seen[] = [];
    const r = await readEmulatorInfo('http://h:1/gw/', { apiKey: KEY, fetcher: answering(200, JSON.stringify(DOC), seen) });
    expect(r.kind).toBe('emulator');
    expect(r.kind === 'emulator' && r.info.endpoints).toEqual(['a', 'b']);
    expect(seen).toEqual([{ url: 'http://h:1/gw/_qbench/info', headers: { accept: 'application/json', authorization: `Bearer ${KEY}` }, timeoutMs: 5000 }]);
  });

  it('sends no authorization without a key, and the caller\'s timeout', async () => {
    const seen: Seen[] = [];
    await readEmulatorInfo('http://h:1', { timeoutMs: 10_000, fetcher: answering(404, '', seen) });
    expect(seen[0]?.headers).toEqual({ accept: 'application/json' });
    expect(seen[0]?.timeoutMs).toBe(10_000);
  });

  it('a 404, a 401, a body that is not JSON, or JSON that is not the emulator\'s: not an emulator', async () => {
    expect(await readEmulatorInfo('http://h:1', { fetcher: answering(404, '{"error":"not found"}') })).toEqual({ kind: 'not-emulator', status: 404 });
    expect(await readEmulatorInfo('http://h:1', { fetcher: answering(401, JSON.stringify(DOC)) })).toEqual({ kind: 'not-emulator', status: 401 });
    expect(await readEmulatorInfo('http://h:1', { fetcher: answering(200, '<html>gateway</html>') })).toEqual({ kind: 'not-emulator', status: 200 });
    expect(await readEmulatorInfo('http://h:1', { fetcher: answering(200, JSON.stringify({ ...DOC, name: 'someone-else' })) })).toEqual({ kind: 'not-emulator', status: 200 });
    expect(await readEmulatorInfo('http://h:1', { fetcher: answering(200, '[1,2]') })).toEqual({ kind: 'not-emulator', status: 200 });
  });

  it('the emulator\'s document that does not parse is an exit 2 error naming each field, without the key', async () => {
    const bad = { ...DOC, timeScale: 'fast', limits: { ...DOC.limits, streamChunkBytes: -1 }, extra: true };
    const err = await readEmulatorInfo('http://h:1', { apiKey: KEY, fetcher: answering(200, JSON.stringify(bad)) }).catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_CONFIG')).toBe(true);
    expect((err as { exitCode: number }).exitCode).toBe(EXIT.USAGE);
    const msg = (err as Error).message;
    expect(msg).toContain('GET http://h:1/_qbench/info');
    expect(msg).toMatch(/timeScale: /);
    expect(msg).toMatch(/limits\.streamChunkBytes: /);
    expect(msg).toMatch(/extra/);
    expect(msg).not.toContain(KEY);
  });

  it('no answer is unreachable, with the error', async () => {
    expect(await readEmulatorInfo('http://h:1', { fetcher: refusing })).toEqual({ kind: 'unreachable', url: 'http://h:1/_qbench/info', error: 'connect ECONNREFUSED 127.0.0.1:9' });
  });
});

describe('readTargetFacts', () => {
  it('an emulator: its scale, its scaled rate window, its fault names and the document', async () => {
    const f = await readTargetFacts('http://h:1', { unreachable: 'error', fetcher: answering(200, JSON.stringify(DOC)) });
    expect(f).toMatchObject({ kind: 'emulator', timeScale: 60, rateWindowRealMs: RATE_WINDOW_MS / 60, faults: ['auth-off', 'ttl-ignored'] });
    expect(f.info?.endpoints).toEqual(['a', 'b']);
    const unscaled = await readTargetFacts('http://h:1', { unreachable: 'error', fetcher: answering(200, JSON.stringify({ ...DOC, scaleRateWindows: false })) });
    expect(unscaled.rateWindowRealMs).toBe(RATE_WINDOW_MS);
  });

  it('not an emulator: real time, the spec\'s window, no faults', async () => {
    expect(await readTargetFacts('http://h:1', { unreachable: 'error', fetcher: answering(404, '') })).toEqual({ kind: 'remote', timeScale: 1, rateWindowRealMs: RATE_WINDOW_MS, faults: [] });
  });

  it('unreachable: an error naming the URL, or a real target\'s facts, as the command chooses', async () => {
    const err = await readTargetFacts('http://h:1', { unreachable: 'error', fetcher: refusing }).catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_UNREACHABLE')).toBe(true);
    expect((err as { exitCode: number }).exitCode).toBe(EXIT.TARGET_UNREACHABLE);
    expect((err as Error).message).toBe('target unreachable: http://h:1 (connect ECONNREFUSED 127.0.0.1:9)');
    expect(await readTargetFacts('http://h:1', { unreachable: 'remote', fetcher: refusing })).toBe(REMOTE_FACTS);
  });
});
