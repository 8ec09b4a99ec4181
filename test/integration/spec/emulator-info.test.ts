// GET /_qbench/info against its one schema: for emulators in every shape the info document
// varies with (clean, faults with payload caps off, external workers alone or beside simulated
// ones, holds in force), the answer on the wire parses strictly, and the readers of check and
// load take it for an emulator. A field the emulator adds, drops or retypes fails here.
import { afterEach, describe, expect, it } from 'vitest';
import { FAULT_NAMES, startEmulator, type EmulatorHandle, type EmulatorConfigInput } from '../../../src/emulator/index.js';
import { EmulatorInfoDocument } from '../../../src/spec/index.js';
import { readTargetFacts } from '../../../src/target/index.js';
import { connectTarget } from '../../../src/conformance/index.js';

const KEY = 'info-schema-key';
/** The reserved routes need the key. */
const AUTH = { headers: { authorization: KEY } };
let em: EmulatorHandle | undefined;
afterEach(async () => {
  await em?.close();
  em = undefined;
});

const SHAPES: Record<string, Partial<EmulatorConfigInput>> = {
  clean: {},
  'every fault': { faults: FAULT_NAMES },
  'external workers only': { externalWorkers: true },
  'external and simulated workers': { externalWorkers: true, simulatedWorkers: true },
  'scaled rate windows, overrides': { timeScale: 60, scaleRateWindows: true, limits: { enabled: false, rates: { cancel: { requestsPerWindow: 7, concurrency: null } } } },
};

describe('/_qbench/info has one schema', () => {
  for (const [shape, cfg] of Object.entries(SHAPES)) {
    it(`${shape}: the wire answer parses strictly, and check and load read it as an emulator`, async () => {
      em = await startEmulator({ apiKey: KEY, port: 0, ...cfg });
      const res = await fetch(`${em.url}/_qbench/info`, AUTH);
      expect(res.status).toBe(200);
      const parsed = EmulatorInfoDocument.safeParse(await res.json());
      expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
      expect((await readTargetFacts(em.url, { apiKey: KEY, unreachable: 'error' })).info?.timeScale).toBe(em.clock.scale);
      const c = await connectTarget({ queueUrl: em.url, endpointId: 'demo', apiKey: KEY, apiKeyEnv: 'QBENCH_API_KEY', allowBillable: false });
      try {
        expect(c.target.kind).toBe('emulator');
      } finally {
        await c.close();
      }
    });
  }

  it('a hold in force is advertised in the schema too', async () => {
    em = await startEmulator({ apiKey: KEY, port: 0 });
    const set = await fetch(`${em.url}/_qbench/limits`, { method: 'POST', headers: { authorization: KEY, 'content-type': 'application/json' }, body: JSON.stringify({ hold: { realMs: { run: 50 } } }) });
    expect(set.status).toBe(200);
    const doc = EmulatorInfoDocument.parse(await (await fetch(`${em.url}/_qbench/info`, AUTH)).json());
    expect(doc.limits.hold.endpoints['demo']).toEqual({ run: 50 });
  });

  it('a document with a field the schema does not know is refused', async () => {
    em = await startEmulator({ apiKey: KEY, port: 0 });
    const doc = (await (await fetch(`${em.url}/_qbench/info`, AUTH)).json()) as Record<string, unknown>;
    expect(EmulatorInfoDocument.safeParse({ ...doc, surprise: 1 }).success).toBe(false);
    expect(EmulatorInfoDocument.safeParse({ ...doc, timeScale: '60' }).success).toBe(false);
  });
});
