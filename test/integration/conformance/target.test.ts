// Target facts from an emulator's /_qbench/info: the advertised rate table (overrides applied
// over §8), rate windows in real time unless scaled, fault names, and the spec's numbers for a
// real target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorInfo, limitsFromInfo, specLimits, timeModel } from '../../../src/conformance/index.js';
import { emulatorFacts } from '../../../src/target/index.js';
import { infoDocument, startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../../../src/spec/index.js';

describe('target facts', () => {
  let em: EmulatorHandle;
  let info: EmulatorInfo;
  beforeAll(async () => {
    em = await startEmulator({
      apiKey: 'target-facts-key',
      port: 0,
      timeScale: 60,
      endpoints: ['a', 'b'],
      faults: ['auth-off', 'ttl-ignored'],
      limits: { requestsPerWorker: 100, runPayloadBytes: 10_000_000, rates: { cancel: { requestsPerWindow: 7, concurrency: 3 }, run: { requestsPerWindow: 1000, concurrency: null } } },
    });
    info = EmulatorInfo.parse(infoDocument(em.core));
  });
  afterAll(() => em.close());

  it('applies advertised overrides over the spec table', () => {
    const l = limitsFromInfo(info);
    expect(l.rates.cancel).toEqual({ requestsPerWindow: 7, concurrency: 3 });
    expect(l.rates.run).toEqual({ requestsPerWindow: 1000, concurrency: null });
    expect(l.rates.status).toEqual({ requestsPerWindow: RATE_LIMITS.status.requestsPerWindow, concurrency: RATE_LIMITS.status.concurrency });
    expect(l.rateWindowRealMs).toBe(RATE_WINDOW_MS);
    expect(l.requestsPerWorker).toBe(100);
    expect(l.advertisedRunPayloadBytes).toBe(10_000_000);
  });

  it('scales the rate window when the emulator says its windows run on the scaled clock', () => {
    expect(limitsFromInfo({ ...info, scaleRateWindows: true }).rateWindowRealMs).toBe(RATE_WINDOW_MS / 60);
  });

  it('reads the fault names', () => {
    expect(emulatorFacts(info).faults).toEqual(['auth-off', 'ttl-ignored']);
  });

  it('uses the spec numbers for a real target', () => {
    const l = specLimits();
    expect(l.requestsPerWorker).toBeNull();
    expect(l.rates['purge-queue']).toEqual({ requestsPerWindow: 2, concurrency: null });
  });

  it('converts emulated time with the scale', () => {
    const t = timeModel(60);
    expect(t.toRealMs(60_000)).toBe(1_000);
    expect(t.toEmulatedMs(500)).toBe(30_000);
    expect(() => timeModel(0)).toThrow(RangeError);
  });
});
