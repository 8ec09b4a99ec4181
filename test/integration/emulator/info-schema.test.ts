// The emulator's /_qbench/info document against the readers' contract (info-schema.ts): the
// document the emulator builds parses, and the fuzzer's and the load generator's readers get
// the time scale and the faults in force from it (a drift between them once made a fuzz run
// by URL against a faulted emulator fall back to real time without a word).
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { EmulatorInfoFacts } from '../../../src/emulator/info-schema.js';
import { infoDocument } from '../../../src/emulator/info-routes.js';
import { readTargetFacts } from '../../../src/fuzz/target.js';
import { fetchEmulatorInfo } from '../../../src/load/target.js';
import { isQbenchError } from '../../../src/errors.js';
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

describe('GET /_qbench/info and its readers', () => {
  it('the emulator document parses, clean and with faults', async () => {
    emu = await startEmulator({ apiKey: KEY, timeScale: 60, scaleRateWindows: true, faults: ['health-miscount', 'auth-off'] });
    const facts = EmulatorInfoFacts.parse(infoDocument(emu.core));
    expect(facts.timeScale).toBe(60);
    expect(facts.faults.map((f) => f.name)).toEqual(['health-miscount', 'auth-off']);
  });

  it('the fuzz reader takes scale, scaled windows and fault names from a faulted emulator', async () => {
    emu = await startEmulator({ apiKey: KEY, timeScale: 60, scaleRateWindows: true, faults: ['missing-input-accepted'] });
    const facts = await readTargetFacts(emu.url, KEY);
    expect(facts).toEqual({ timeScale: 60, rateWindowMs: RATE_WINDOW_MS / 60, faults: ['missing-input-accepted'] });
    const info = await fetchEmulatorInfo(emu.url, KEY);
    expect(info?.['timeScale']).toBe(60);
  });

  it('a document that claims to be the emulator but drifted is an error, not real time; a 404 is an opaque target', async () => {
    let body = JSON.stringify({ name: 'qbench-emulator', version: '0', timeScale: 60, scaleRateWindows: true, endpoints: ['demo'], faults: ['health-miscount'] });
    let status = 200;
    server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const err = await readTargetFacts(url, KEY).catch((e: unknown) => e);
    expect(isQbenchError(err, 'QB_ERR_CONFIG')).toBe(true);
    expect(String(err)).toMatch(/faults/);
    expect(await fetchEmulatorInfo(url, KEY)).toBeUndefined();
    status = 404;
    body = '{"error":"not found"}';
    expect(await readTargetFacts(url, KEY)).toBeUndefined();
  });
});
