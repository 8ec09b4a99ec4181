// The report, compare and merge commands end to end through main(): files written, exit codes,
// and flag errors that name the flag.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/command.js';
import { main } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { readResult } from '../../../src/result/read-result.js';
import { sampleResult } from '../result/sample-result.js';

let dir = '';
const files = { base: '', same: '', slow: '', failing: '' };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-report-cli-'));
  const write = async (name: string, value: unknown) => {
    const f = path.join(dir, name);
    await writeFile(f, JSON.stringify(value));
    return f;
  };
  files.base = await write('base.json', sampleResult({ seed: 1, samples: 3_000, shard: 'a' }));
  files.same = await write('same.json', sampleResult({ seed: 2, samples: 3_000, shard: 'b', startedAt: '2026-11-22T10:00:01.000Z' }));
  files.slow = await write('slow.json', sampleResult({ seed: 3, samples: 3_000, tailFactor: 1.3 }));
  files.failing = await write('failing.json', sampleResult({ seed: 4, samples: 200, withConformanceFailure: true }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env: {}, signal: new AbortController().signal };
  const code = await main(args, io);
  return { code, out, err };
}

describe('qbench report', () => {
  it('prints the console summary, and writes one format to a file', async () => {
    const printed = await run(['report', files.failing]);
    expect(printed.code).toBe(EXIT.OK);
    expect(printed.out).toMatch(/Verdict: FAIL \(exit 1\)/);
    const html = path.join(dir, 'r.html');
    expect((await run(['report', files.base, '--html', html])).code).toBe(EXIT.OK);
    expect(await readFile(html, 'utf8')).toMatch(/^<!doctype html>/);
    const md = await run(['report', files.failing, '--md']);
    expect(md.out).toMatch(/^## ❌ qbench: FAIL \(exit 1\)/);
  });

  it('re-gates with --exit-code, writes every format into a directory, refuses two formats', async () => {
    expect((await run(['report', files.failing, '--exit-code'])).code).toBe(EXIT.TARGET_FAILED);
    const outDir = path.join(dir, 'all');
    const r = await run(['report', files.base, outDir]);
    expect(r.code).toBe(EXIT.OK);
    for (const f of ['result.json', 'report.html', 'junit.xml', 'summary.md', 'summary.txt']) await expect(readFile(path.join(outDir, f), 'utf8')).resolves.toBeTruthy();
    expect(await readResult(path.join(outDir, 'result.json'))).toEqual(await readResult(files.base));
    const two = await run(['report', files.base, '--html', '--md']);
    expect(two.code).toBe(EXIT.USAGE);
    expect(two.err).toMatch(/name one format, got --html --md/);
  });

  it('explains a missing file', async () => {
    const r = await run(['report', path.join(dir, 'nope.json')]);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toMatch(/nope\.json: cannot read the result file \(no such file\)/);
  });
});

describe('qbench compare', () => {
  it('exits 1 on an injected p99 regression and 0 on a run of the same configuration', async () => {
    const bad = await run(['compare', files.base, files.slow, '--max-regression', 'p99=10%', '--iterations', '500']);
    expect(bad.code).toBe(EXIT.TARGET_FAILED);
    expect(bad.out).toMatch(/REGRESSION/);
    const ok = await run(['compare', files.base, files.same, '--max-regression', 'p99=10%', '--iterations', '500', '--out', path.join(dir, 'cmp')]);
    expect(ok.code).toBe(EXIT.OK);
    expect(ok.out).toMatch(/Verdict: PASS/);
    await expect(readFile(path.join(dir, 'cmp', 'comparison-junit.xml'), 'utf8')).resolves.toMatch(/<testsuites>/);
  });

  it('names bad flags', async () => {
    const r = await run(['compare', files.base, files.same, '--max-regression', 'p98=10%']);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toMatch(/--max-regression: "p98=10%": unknown metric/);
    const it2 = await run(['compare', files.base, files.same, '--iterations', '10']);
    expect(it2.code).toBe(EXIT.USAGE);
    expect(it2.err).toMatch(/--iterations must be a whole number from 100 to 100000/);
  });
});

describe('qbench merge', () => {
  it('merges shards into one result and exits with the merged verdict', async () => {
    const out = path.join(dir, 'merged.json');
    const r = await run(['merge', files.base, files.same, '-o', out]);
    expect(r.code).toBe(EXIT.OK);
    const merged = await readResult(out);
    expect(merged.load!.scenarios[0]!.shards).toBe(2);
    expect(merged.load!.scenarios[0]!.steps[0]!.latency.percentiles.count).toBe(6_000);
    expect(r.out).toMatch(/merged 2 results into/);
  });

  it('requires -o and two inputs', async () => {
    const noOut = await run(['merge', files.base, files.same]);
    expect(noOut.code).toBe(EXIT.USAGE);
    expect(noOut.err).toMatch(/--out is required: where to write the merged result/);
    const one = await run(['merge', files.base, '-o', path.join(dir, 'x.json')]);
    expect(one.code).toBe(EXIT.USAGE);
    expect(one.err).toMatch(/at least two result files/);
  });
});
