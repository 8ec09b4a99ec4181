// `qbench fuzz` end to end through main(): a short run on the embedded emulator passes and
// writes every report format; a fault is reported with its shrunk case, curl line and replay
// command (exit 1); bad flags exit 2 naming the flag.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { QbenchResult } from '../../../src/result/model.js';

function captureIo(env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env, signal: new AbortController().signal };
  return { io, out: () => out, err: () => err };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function outDir() {
  const d = await mkdtemp(path.join(tmpdir(), 'qbench-fuzz-'));
  dirs.push(d);
  return d;
}

describe('qbench fuzz', () => {
  it('passes on the clean emulator and writes the fuzz section into every report', async () => {
    const out = await outDir();
    const c = captureIo();
    const code = await main(['fuzz', '--seed', '3', '--runs', '10', '--model-runs', '2', '--max-commands', '4', '--max-duration', '20s', '--out', out], c.io);
    expect(code, c.out() + c.err()).toBe(EXIT.OK);
    expect(c.out()).toContain('seed 3');
    expect(c.out()).toMatch(/PASS\s+job-state-machine/);
    const result = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    expect(result.fuzz?.seed).toBe(3);
    expect(result.fuzz?.properties.every((p) => p.status === 'pass')).toBe(true);
    expect(result.overall.exitCode).toBe(EXIT.OK);
    expect(await readFile(path.join(out, 'junit.xml'), 'utf8')).toContain('job-request-validation');
  });

  it('prints a shrunk case, a curl line with the key as a variable, and the replay command; exit 1', async () => {
    const out = await outDir();
    const c = captureIo();
    const code = await main(['fuzz', '--seed', '9', '--fault', 'missing-input-accepted', '--property', 'job-request-validation', '--runs', '100', '--out', out], c.io);
    expect(code, c.out() + c.err()).toBe(EXIT.TARGET_FAILED);
    const text = c.out();
    expect(text).toMatch(/FAIL\s+job-request-validation/);
    expect(text).toContain('shrunk case:');
    expect(text).toContain(`-H 'authorization: Bearer '"$QBENCH_API_KEY"`);
    expect(text).toMatch(/replay:\s+qbench fuzz --target emulator --fault missing-input-accepted --property job-request-validation --seed 9 --path [\d:]+/);
    const result = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    expect(result.meta.target.faults).toEqual(['missing-input-accepted']);
    expect(result.fuzz?.properties[0]?.finding?.expected).toContain('refused with 400');
  });

  it('names the --api-key-env variable in the curl line, never the key', async () => {
    const c = captureIo({ STAGING_FUZZ_KEY: 'k-staging-0123456789' });
    const code = await main(
      ['fuzz', '--api-key-env', 'STAGING_FUZZ_KEY', '--seed', '9', '--fault', 'missing-input-accepted', '--property', 'job-request-validation', '--runs', '100', '--out', await outDir()],
      c.io,
    );
    expect(code, c.out() + c.err()).toBe(EXIT.TARGET_FAILED);
    expect(c.out()).toContain(`-H 'authorization: Bearer '"$STAGING_FUZZ_KEY"`);
    expect(c.out()).not.toContain('QBENCH_API_KEY');
    expect(c.out()).not.toContain('k-staging-0123456789');
  });

  it.each([
    [['--runs', '0'], '--runs'],
    [['--property', 'nope'], '--property'],
    [['--path', '1:2'], '--path'],
    [['--max-duration', 'soon'], '--max-duration'],
    [['--rate-fraction', '2'], '--rate-fraction'],
    [['--fault', 'no-such-fault'], '--fault'],
  ])('refuses %j naming %s (exit 2)', async (flags, name) => {
    const c = captureIo();
    expect(await main(['fuzz', ...flags], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toContain(name);
  });

  it('a URL target needs a key, and emulator-only flags are refused there', async () => {
    const c = captureIo();
    expect(await main(['fuzz', '--target', 'http://127.0.0.1:9/v2/demo'], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toContain('QBENCH_API_KEY');
    const d = captureIo({ QBENCH_API_KEY: 'k-123456' });
    expect(await main(['fuzz', '--target', 'http://127.0.0.1:9/v2/demo', '--fault', 'auth-off'], d.io)).toBe(EXIT.USAGE);
    expect(d.err()).toContain('--fault');
  });

  it('an unreachable URL target exits 5', async () => {
    const c = captureIo({ QBENCH_API_KEY: 'k-123456' });
    // Port 9 (discard) on loopback: nothing listens there in the test environment.
    expect(await main(['fuzz', '--target', 'http://127.0.0.1:9/v2/demo', '--max-duration', '5s'], c.io)).toBe(EXIT.TARGET_UNREACHABLE);
  });
});
