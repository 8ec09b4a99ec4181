// The emulator's configuration schema (src/emulator/config.ts): defaults from the spec, a
// frozen result, and every problem of a bad configuration named at once.
import { describe, expect, it } from 'vitest';
import { parseEmulatorConfig } from '../../../src/emulator/config.js';
import { isQbenchError } from '../../../src/errors.js';
import { RUN_PAYLOAD, DEFAULT_REQUESTS_PER_WORKER } from '../../../src/spec/index.js';

describe('emulator config', () => {
  it('applies defaults from the spec and freezes the result', () => {
    const c = parseEmulatorConfig({ apiKey: 'abcd' });
    expect(c.endpoints).toEqual(['demo']);
    expect(c.limits.runPayloadBytes).toBe(RUN_PAYLOAD.decimalBytes);
    expect(c.limits.requestsPerWorker).toBe(DEFAULT_REQUESTS_PER_WORKER);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.workers)).toBe(true);
  });

  it('reports every problem at once, naming each field', () => {
    try {
      parseEmulatorConfig({ apiKey: 'x', timeScale: -1, workers: { min: 5, max: 2 }, faults: ['nope'], port: 70000, extra: 1 });
      expect.unreachable();
    } catch (e) {
      expect(isQbenchError(e, 'QB_ERR_CONFIG')).toBe(true);
      const m = (e as Error).message;
      for (const field of ['apiKey', 'timeScale', 'faults', 'port', 'extra']) expect(m).toContain(field);
    }
    expect(() => parseEmulatorConfig({ apiKey: 'abcd', workers: { min: 5, max: 2 } })).toThrow(/min/);
    expect(() => parseEmulatorConfig({ apiKey: 'abcd', endpoints: ['a', 'a'] })).toThrow(/repeats/);
    expect(() => parseEmulatorConfig({ apiKey: 'abcd', endpoints: ['bad/id'] })).toThrow(/must be an endpoint id/);
  });
});
