// The contract violations no fault table named before, by URL on an opaque target at time scale 1
// (the built `qbench emulate` behind a latency proxy that hides /_qbench, so qbench knows nothing
// but the spec): each one makes `qbench check` exit 1, with the violating exchange as evidence.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulate, stopEmulate, type EmulateProcess } from './border-emulate.js';
import { runCheckCli } from './check-cli.js';
import { startProxy, type Proxy } from './border-proxy.js';

const KEY = 'qbench-opaque-faults-key';
const KEY_ENV = 'QBENCH_OPAQUE_FAULTS_KEY';

let emu: EmulateProcess | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await stopEmulate(emu);
  proxy = undefined;
  emu = undefined;
});

/** Fault, the checks run (a quick subset that reads the broken answer), and a word its evidence shows. */
const CASES = [
  { fault: 'status-word-running', only: ['queue.cancel.running', 'queue.status.record'], evidence: /"status":"RUNNING"/ },
  { fault: 'status-lowercase', only: ['queue.status.record', 'queue.run.answer'], evidence: /"status":"(in_queue|in_progress|completed)"/ },
  { fault: 'stream-outlives-job', only: ['queue.stream.chunks', 'queue.stream.object-form-and-end'], evidence: /IN_PROGRESS/ },
  { fault: 'graphql-field-omitted', only: ['graphql.gpu-types'], evidence: /was selected but is missing/ },
] as const;

describe('new contract violations by URL on an opaque target at time scale 1', () => {
  for (const c of CASES) {
    it(`${c.fault}: qbench check exits 1 on the violating exchange`, { timeout: 120_000 }, async () => {
      emu = await startEmulate(KEY, ['--endpoint', 'demo', '--fault', c.fault]);
      proxy = await startProxy({ upstream: emu.url, delayMs: 15, jitterMs: 10, opaque: true });
      const r = await runCheckCli({ url: proxy.url, endpoint: 'demo', apiKey: KEY, keyEnv: KEY_ENV, args: ['--graphql-url', `${proxy.url}/graphql`, '--only', c.only.join(',')] });
      const failed = r.checks.filter((x) => x.verdict.status === 'fail');
      expect(r.code, JSON.stringify(r.checks.map((x) => [x.id, x.verdict.status]))).toBe(1);
      expect(failed.length).toBeGreaterThan(0);
      const shown = failed.map((x) => `${x.verdict.observed ?? ''} ${(x.verdict.exchanges ?? []).map((e) => e.response?.body ?? '').join(' ')}`).join('\n');
      expect(shown).toMatch(c.evidence);
      for (const x of failed) expect(x.verdict.curl).toMatch(/^curl /);
    });
  }
});
