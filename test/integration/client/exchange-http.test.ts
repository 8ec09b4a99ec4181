// The request+record layer under the conformance probe and the fuzzer: bytes go out as given,
// the whole answer comes back with its wire size, and the response record is redacted and cut.
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../../../src/errors.js';
import { EXCHANGE_BODY_LIMIT_CHARS } from '../../../src/client/exchange-record.js';
import { recordResponse, sendExchange } from '../../../src/client/exchange-http.js';
import { startLoopback, type Loopback } from './loopback-server.js';

const KEY = 'exchange-http-secret-key-7890';
registerSecret(KEY);

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('sendExchange', () => {
  it('sends the body byte for byte and reads the whole answer with its wire size', async () => {
    const answer = `{"echo":"é","key":"${KEY}","pad":"${'z'.repeat(EXCHANGE_BODY_LIMIT_CHARS)}"}`;
    server = await startLoopback((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
      res.end(answer);
    });
    const malformed = '{"input": {"q": 1}';
    const a = await sendExchange({ url: `${server.baseUrl}/v2/ep/run?wait=1e3`, method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: malformed });
    expect(server.requests[0]?.body).toBe(malformed);
    expect(server.requests[0]?.url.search).toBe('?wait=1e3');
    expect(a.status).toBe(201);
    expect(a.text).toBe(answer);
    expect(a.bodyBytes).toBe(Buffer.byteLength(answer));
    expect(a.doneAtMs).toBeGreaterThanOrEqual(a.sentAtMs);
    const r = recordResponse(a);
    expect(r.status).toBe(201);
    expect(r.bodyBytes).toBe(a.bodyBytes);
    expect(r.headers['x-multi']).toBe('a, b');
    expect(r.body).not.toContain(KEY);
    expect(r.body).toMatch(/\.\.\. \[\d+ more characters\]$/);
    expect(recordResponse(a, 7).bodyBytes).toBe(7);
  });

  it('throws on a network error (nothing listens)', async () => {
    server = await startLoopback(() => {});
    const url = `${server.baseUrl}/x`;
    await server.close();
    server = undefined;
    await expect(sendExchange({ url, method: 'GET', headers: {} })).rejects.toThrow();
  });
});
