// The contract violations no fault table named before, by URL on an opaque target at time scale 1
// (the built `qbench emulate` behind a latency proxy that hides /_qbench, so qbench knows nothing
// but the spec): each one makes `qbench check` exit 1, with the violating exchange as evidence.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, startEmulate, stopEmulate, type EmulateProcess } from './border-emulate.js';
import { startProxy, type Proxy } from './border-proxy.js';

const exec = promisify(execFile);
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

interface Verdict { readonly status: string; readonly expected?: string; readonly observed?: string; readonly curl?: string; readonly exchanges?: readonly { response?: { body?: string } }[] }
interface CheckJson { readonly conformance: { readonly checks: readonly { id: string; verdict: Verdict }[] } }

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
      const dir = await mkdtemp(path.join(tmpdir(), 'qbench-opaque-'));
      try {
        const argv = [BIN, 'check', '--target', proxy.url, '--endpoint', 'demo', '--graphql-url', `${proxy.url}/graphql`, '--api-key-env', KEY_ENV, '--profile', 'quick', '--only', c.only.join(','), '--out', dir];
        const r = await exec(process.execPath, argv, { cwd: ROOT, env: { ...process.env, [KEY_ENV]: KEY }, maxBuffer: 16 * 1024 * 1024 }).then(
          () => ({ code: 0 }),
          (e: { code?: number }) => ({ code: e.code ?? -1 }),
        );
        const result = JSON.parse(await readFile(path.join(dir, 'result.json'), 'utf8')) as CheckJson;
        const failed = result.conformance.checks.filter((x) => x.verdict.status === 'fail');
        expect(r.code, JSON.stringify(result.conformance.checks.map((x) => [x.id, x.verdict.status]))).toBe(1);
        expect(failed.length).toBeGreaterThan(0);
        const shown = failed.map((x) => `${x.verdict.observed ?? ''} ${(x.verdict.exchanges ?? []).map((e) => e.response?.body ?? '').join(' ')}`).join('\n');
        expect(shown).toMatch(c.evidence);
        for (const x of failed) expect(x.verdict.curl).toMatch(/^curl /);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
