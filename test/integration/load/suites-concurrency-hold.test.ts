// The concurrency-cap scenario for the operations a server answers at once (/run, /status,
// /cancel, /openai/*, /requests): held open with the emulator's advertised hold, each admits
// exactly its cap; the no-concurrency-cap fault flips the verdict; a target that cannot hold
// them is refused with a message naming the parameter. Caps are lowered (expect=advertised)
// so each burst is small; /cancel runs at its documented §8 cap of 20.
import { describe, expect, it } from 'vitest';
import { runLoad } from '../../../src/load/run-load.js';
import { finding, runSuite, withEmulator } from './suite-harness.js';

const LOWERED = { limits: { rates: { run: { concurrency: 12 }, status: { concurrency: 12 }, openai: { concurrency: 12 } } } };

describe('concurrency-cap scenario with the emulator hold', () => {
  it('admits exactly the advertised cap of held /run, /status, /openai and /requests', async () => {
    const { scenarios } = await runSuite('concurrency-cap.ts', LOWERED, { op: 'run,status,openai,requests', expect: 'advertised' });
    expect(scenarios.map((s) => s.name)).toEqual(['concurrency-cap-run', 'concurrency-cap-status', 'concurrency-cap-openai', 'concurrency-cap-requests']);
    for (const s of scenarios) {
      expect(finding(s, /admitted while/)?.passed, `${s.name}: ${finding(s, /admitted while/)?.observed}`).toBe(true);
      expect(finding(s, /really held open/)?.passed, `${s.name}: ${finding(s, /really held open/)?.observed}`).toBe(true);
    }
  });

  it('passes /cancel at the documented §8 cap and fails it under the no-concurrency-cap fault', async () => {
    const ok = await runSuite('concurrency-cap.ts', {}, { op: 'cancel' });
    expect(ok.scenarios[0]!.verdict.status, ok.scenarios[0]!.verdict.summary).toBe('pass');
    expect(finding(ok.scenarios[0], /admitted while/)?.observed).toMatch(/^20 held together/);
    const bad = await runSuite('concurrency-cap.ts', { faults: ['no-concurrency-cap'] }, { op: 'cancel' });
    expect(bad.scenarios[0]!.verdict.status).toBe('fail');
  });

  it('refuses operations it cannot hold on a target without the hold, naming --param op', async () => {
    await withEmulator({}, async (target) => {
      const bare = { ...target, info: undefined };
      await expect(runLoad({ files: ['suites/load/concurrency-cap.ts'], target: bare, params: { op: 'status' } })).rejects.toThrow(/--param op: status .*limits\.hold/);
    });
  });
});
