// The runner keeps a spare endpoint for each check that purges (tag `destructive`): another check
// asking first falls back to the shared endpoint, so a purge never removes jobs of checks beside it.
import { describe, expect, it } from 'vitest';
import { runChecks, type CheckDefinition, type Probe, type Suite, type Target } from '../../../src/conformance/index.js';
import { specLimits } from '../../../src/conformance/target.js';

const probe = { log: [], breaches: [], hasInterface: () => true, fork: () => ({ log: [], breaches: [], hasInterface: () => true }) } as unknown as Probe;

function target(spares: readonly string[]): Target {
  return { kind: 'remote', endpointId: 'shared', timeScale: 1, limits: specLimits(), spareEndpoints: spares, faults: [], callbackHost: null, allowBillable: false, queueUrl: 'http://127.0.0.1:1', apiKeyEnv: 'K' } as unknown as Target;
}

function suiteOf(got: Map<string, string | null>): Suite {
  const take = (id: string): CheckDefinition['run'] => (ctx) => {
    got.set(id, ctx.dedicatedEndpoint('main'));
    return Promise.resolve(undefined);
  };
  return {
    clauses: [{ id: 'c/x', section: '§3.1', quote: 'rule', observable: true }],
    checks: [
      { id: 't.reader', title: 'reader', clauses: ['c/x'], interface: 'queue', kind: 'spec', tags: [], run: take('t.reader') },
      { id: 't.purger', title: 'purger', clauses: ['c/x'], interface: 'queue', kind: 'spec', tags: ['destructive'], run: take('t.purger') },
    ],
  };
}

describe('spare endpoints and purging checks', () => {
  it('one spare: the purging check gets it, the other falls back to the shared endpoint', async () => {
    const got = new Map<string, string | null>();
    await runChecks(suiteOf(got), target(['spare-1']), probe, { profile: 'quick', concurrency: 1 });
    expect(got.get('t.reader')).toBeNull();
    expect(got.get('t.purger')).toBe('spare-1');
  });

  it('enough spares: each check gets one of its own', async () => {
    const got = new Map<string, string | null>();
    await runChecks(suiteOf(got), target(['spare-1', 'spare-2']), probe, { profile: 'quick', concurrency: 1 });
    expect(new Set([got.get('t.reader'), got.get('t.purger')])).toEqual(new Set(['spare-1', 'spare-2']));
  });
});
