// The self-test table at the border: for every fault switch of the emulator's catalogue, the
// built CLI's `qbench emulate --fault <f>` in a process of its own, behind a pass-through proxy
// adding 25 ms (+0..10 ms jitter) each way, and the quick-profile checks citing the fault's
// clause run against the proxy's URL (queue, REST and GraphQL). Every fault must still be caught
// by a failing check citing its clause. Each fault's run stops at its first catch (firstCatch:
// the checks whose first clause is the fault's go first); `qbench check --self-test` runs the
// full table, every citing check to its verdict, in-process.
import { afterAll, describe, expect, it } from 'vitest';
import { connectTarget, runSelfTest } from '../../../src/conformance/index.js';
import { FAULT_NAMES, type FaultName } from '../../../src/emulator/faults.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';
import { startEmulate, stopEmulate } from './border-emulate.js';
import { startProxy } from './border-proxy.js';

const KEY = 'qbench-border-faults-key';
const MAIN = 'demo';
/** Spare endpoints on each emulator: checks that count take one of their own, as in-process. */
const SPARES = Array.from({ length: 16 }, (_, i) => `spare-${i + 1}`);
/** Started processes and proxies, stopped by afterAll should a run be cut short. */
const open = new Set<() => Promise<void>>();

afterAll(async () => {
  for (const close of [...open]) await close();
});

async function startByUrl(faults: readonly FaultName[]) {
  const emu = await startEmulate(KEY, ['--time-scale', '60', ...[MAIN, ...SPARES].flatMap((e) => ['--endpoint', e]), ...faults.flatMap((f) => ['--fault', f])]);
  const proxy = await startProxy({ upstream: emu.url, delayMs: 25, jitterMs: 10 }).catch(async (e: unknown) => {
    await stopEmulate(emu);
    throw e;
  });
  const stop = async () => {
    open.delete(stop);
    await proxy.close();
    await stopEmulate(emu);
  };
  open.add(stop);
  try {
    const c = await connectTarget({
      queueUrl: proxy.url,
      restUrl: proxy.url,
      graphqlUrl: `${proxy.url}/graphql`,
      endpointId: MAIN,
      apiKey: KEY,
      apiKeyEnv: 'QBENCH_BORDER_KEY',
      allowBillable: true,
    });
    return {
      ...c,
      close: async () => {
        await c.close();
        await stop();
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** About two minutes on a loaded 2-core host (rate windows and retention dominate). */
const RUN_BUDGET_MS = 400_000;

describe('every emulator fault is caught by URL, behind a proxy', () => {
  it('has at least one failing check citing the broken clause, for each fault', { timeout: RUN_BUDGET_MS }, async () => {
    const report = await runSelfTest(conformanceSuite, { skipClean: true, parallel: 6, firstCatch: true, startTarget: startByUrl });
    expect(report.rows.map((r) => r.fault)).toEqual(FAULT_NAMES);
    const missed = report.rows.filter((r) => r.caughtBy.length === 0).map((r) => `${r.fault} (also failed: ${r.alsoFailed.join(', ') || 'none'})`);
    expect(missed).toEqual([]);
    for (const r of report.rows) expect(r.ran, r.fault).toBeGreaterThan(0);
  });
});
