// The emulator's /_qbench/info document as the commands resolve it by URL: load, fuzz and check
// take the time scale, the rate windows and the faults in force from it (a drift between
// readers once made a fuzz run by URL against a faulted emulator fall back to real time without
// a word), a document that calls itself the emulator's and does not parse stops each of them
// with exit 2 naming the field, and a 404 is an opaque target.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { resolveFuzzTarget } from '../../../src/fuzz/resolve-target.js';
import { resolveTarget } from '../../../src/load/target.js';
import { connectTarget } from '../../../src/conformance/index.js';
import { isQbenchError } from '../../../src/errors.js';
import { EXIT } from '../../../src/exit-codes.js';
import { RATE_WINDOW_MS } from '../../../src/spec/index.js';

const KEY = 'info-schema-test-key';
let emu: EmulatorHandle | undefined;
let server: Server | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

const connect = (url: string) => connectTarget({ queueUrl: url, endpointId: 'demo', apiKey: KEY, apiKeyEnv: 'QBENCH_API_KEY', allowBillable: false });

describe('GET /_qbench/info as load, fuzz and check resolve a URL target', () => {
  it('a faulted emulator by URL: scale, scaled windows and fault names for each command', async () => {
    emu = await startEmulator({ apiKey: KEY, timeScale: 60, scaleRateWindows: true, faults: ['missing-input-accepted'] });
    const fuzz = await resolveFuzzTarget({ target: `${emu.url}/v2/demo`, apiKey: KEY });
    expect(fuzz.target).toMatchObject({ kind: 'emulator', timeScale: 60, rateWindowMs: RATE_WINDOW_MS / 60, faults: ['missing-input-accepted'] });
    const load = await resolveTarget({ target: `${emu.url}/v2/demo`, apiKey: KEY });
    expect(load.target.timeScale).toBe(60);
    expect(load.target.info?.['timeScale']).toBe(60);
    const c = await connect(emu.url);
    try {
      expect(c.target).toMatchObject({ kind: 'emulator', timeScale: 60, faults: ['missing-input-accepted'] });
      expect(c.target.limits.rateWindowRealMs).toBe(RATE_WINDOW_MS / 60);
    } finally {
      await c.close();
    }
  });

  it('a drifted emulator document is exit 2 naming the field in every command; a 404 is an opaque target', async () => {
    let body = JSON.stringify({ name: 'qbench-emulator', version: '0', timeScale: 60, scaleRateWindows: true, endpoints: ['demo'], faults: ['health-miscount'] });
    let status = 200;
    server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const errors = await Promise.all([
      resolveFuzzTarget({ target: `${url}/v2/demo`, apiKey: KEY }).catch((e: unknown) => e),
      resolveTarget({ target: `${url}/v2/demo`, apiKey: KEY }).catch((e: unknown) => e),
      connect(url).catch((e: unknown) => e),
    ]);
    for (const err of errors) {
      expect(isQbenchError(err, 'QB_ERR_CONFIG')).toBe(true);
      expect((err as { exitCode: number }).exitCode).toBe(EXIT.USAGE);
      expect(String(err)).toMatch(/faults\.0: /);
    }
    status = 404;
    body = '{"error":"not found"}';
    expect((await resolveFuzzTarget({ target: `${url}/v2/demo`, apiKey: KEY })).target).toMatchObject({ kind: 'remote', timeScale: 1, rateWindowMs: RATE_WINDOW_MS });
    expect((await resolveTarget({ target: `${url}/v2/demo`, apiKey: KEY })).target).toMatchObject({ kind: 'remote', timeScale: 1, info: undefined });
    const c = await connect(url);
    try {
      expect(c.target).toMatchObject({ kind: 'remote', timeScale: 1 });
    } finally {
      await c.close();
    }
  });
});
