// `qbench check` end to end on the in-process emulator: exit codes (0 pass, 1 a spec failure,
// 2 bad usage), JSON (the QbenchResult model) and JUnit files, --expect turning a known failure
// into a pass, and usage errors that name the flag.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { QbenchResult } from '../../../src/result/model.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-check-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(env: NodeJS.ProcessEnv = {}): CliIo & { out: string; err: string } {
  const o = { out: '', err: '' };
  return Object.assign(o, {
    stdout: (t: string) => { o.out += t; },
    stderr: (t: string) => { o.err += t; },
    isTty: false,
    env,
    signal: new AbortController().signal,
  });
}

describe('qbench check', () => {
  it('passes a clean emulator and writes JSON and JUnit', async () => {
    const json = path.join(dir, 'r.json');
    const junit = path.join(dir, 'j.xml');
    const c = io();
    const code = await main(['check', '--target', 'emulator', '--only', 'queue.run.answer', '--only', 'rest.template.defaults,graphql.gpu-types', '--json', json, '--junit', junit], c);
    expect(c.err).toBe('');
    expect(code).toBe(0);
    const result = QbenchResult.parse(JSON.parse(await readFile(json, 'utf8')));
    expect(result.conformance?.checks.map((r) => [r.id, r.verdict.status])).toEqual([
      ['queue.run.answer', 'pass'], ['rest.template.defaults', 'pass'], ['graphql.gpu-types', 'pass'],
    ]);
    expect(result.conformance?.coverage.length).toBeGreaterThan(50);
    expect(result.meta.target.kind).toBe('emulator');
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('<testsuite');
    expect(xml).toContain('queue.run.answer');
  }, 30_000);

  it('exits 1 on a spec failure with the evidence, and 0 when --expect lists it', async () => {
    const c = io();
    const code = await main(['check', '--target', 'emulator', '--fault', 'auth-off', '--only', 'queue.auth.missing-or-wrong-key-401'], c);
    expect(code).toBe(1);
    expect(c.out).toContain('FAIL queue.auth.missing-or-wrong-key-401');
    expect(c.out).toContain('expected: ');
    expect(c.out).toMatch(/reproduce: curl .*\/v2\/qbench-c\d+\/run/);
    const exp = path.join(dir, 'expect.json');
    await writeFile(exp, JSON.stringify({ expectations: [{ id: 'queue.auth.missing-or-wrong-key-401', verdict: 'fail', reason: 'self-test fault auth-off' }] }));
    const c2 = io();
    expect(await main(['check', '--target', 'emulator', '--fault', 'auth-off', '--only', 'queue.auth.missing-or-wrong-key-401', '--expect', exp], c2)).toBe(0);
    expect(c2.out).toContain('1 expected failures');
  }, 30_000);

  it('refuses bad usage with exit 2, naming the flags', async () => {
    const c = io();
    expect(await main(['check', '--target', 'emulator', '--profile', 'huge', '--only', 'no.such.check', '--concurrency', '99'], c)).toBe(2);
    expect(c.err).toContain('--profile');
    expect(c.err).toContain('--concurrency must be 1..32');
    const c2 = io();
    expect(await main(['check', '--target', 'https://api.example.invalid'], c2)).toBe(2);
    expect(c2.err).toContain('--endpoint is required');
    const c3 = io();
    expect(await main(['check', '--target', 'emulator', '--fault', 'no-such-fault'], c3)).toBe(2);
    expect(c3.err).toContain('--fault has unknown fault "no-such-fault"');
    const c4 = io();
    expect(await main(['check', '--target', 'emulator', '--only', 'no.such.check'], c4)).toBe(2);
    expect(c4.err).toContain('no.such.check match no check id');
  });

  it('needs the key variable for a URL target and never prints the key', async () => {
    const c = io({});
    expect(await main(['check', '--target', 'http://127.0.0.1:1', '--endpoint', 'ep', '--api-key-env', 'QB_TEST_KEY'], c)).toBe(2);
    expect(c.err).toContain('QB_TEST_KEY is not set');
  });

  it('exits 5 when the target cannot be reached', async () => {
    const c = io({ QB_TEST_KEY: 'k-unreachable-1234' });
    expect(await main(['check', '--target', 'http://127.0.0.1:1', '--endpoint', 'ep', '--api-key-env', 'QB_TEST_KEY'], c)).toBe(5);
    expect(c.err).toContain('target unreachable');
    expect(c.err).not.toContain('k-unreachable-1234');
  });

  it('lists the checks', async () => {
    const c = io();
    expect(await main(['check', '--list'], c)).toBe(0);
    expect(c.out).toContain('queue.ttl.in-progress');
    expect(c.out).toContain('graphql.pod.stop-releases-gpu');
  });
});
