// qbench check and qbench fuzz journal each finished check or property with its verdict and
// evidence; a journal cut as a kill would leave it (the last line torn in the middle) rebuilds
// with verdicts for what finished and the rest listed as not run. A finished run's journal
// ends with its verdict, and the rebuilt result equals the one it wrote. ~10 s.
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { QbenchResult } from '../../../src/result/model.js';
import { readRunSource } from '../../../src/journal/source.js';

const CHECKS = ['queue.run.answer', 'queue.health.answer', 'queue.status.unknown-job-404', 'queue.auth.raw-and-bearer'];
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-units-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(): CliIo & { text: () => string } {
  const out: string[] = [];
  return { stdout: (t) => out.push(t), stderr: (t) => out.push(t), isTty: false, env: {}, signal: new AbortController().signal, text: () => out.join('') };
}

/** Keep the journal up to (not including) the line of `type` number `n` (0-based), and half of that line: a kill mid-write. */
async function cutBefore(file: string, type: string, n: number): Promise<void> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const idx = lines.map((l, i) => [l, i] as const).filter(([l]) => l.includes(`"type":"${type}"`))[n]?.[1];
  if (idx === undefined) throw new Error(`no ${type} line ${n}`);
  const torn = (lines[idx] ?? '').slice(0, Math.floor((lines[idx] ?? '').length / 2));
  await writeFile(file, `${lines.slice(0, idx).join('\n')}\n${torn}`);
}

describe('the journal of check and fuzz', () => {
  it('rebuilds a check run cut after two checks: their verdicts, the rest not run', async () => {
    const out = path.join(dir, 'check');
    const cli = io();
    expect(await main(['check', '--target', 'emulator', '--concurrency', '1', ...CHECKS.flatMap((c) => ['--only', c]), '--out', out], cli), cli.text()).toBe(0);
    const written = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    const journal = path.join(out, 'journal.ndjson');
    // The whole journal (result.json gone) gives back the run's own verdicts and overall.
    await unlink(path.join(out, 'result.json'));
    const whole = (await readRunSource(out)).result;
    expect(whole.incomplete).toBeUndefined();
    expect(whole.overall).toEqual(written.overall);
    expect(whole.conformance?.checks).toEqual(written.conformance?.checks);
    expect(whole.conformance?.coverage).toEqual(written.conformance?.coverage);

    await cutBefore(journal, 'check', 2);
    const r = await main(['report', out], cli);
    expect(r).toBe(0);
    const rebuilt = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    const finished = written.conformance?.checks.slice(0, 2) ?? [];
    expect(rebuilt.conformance?.checks).toEqual(finished);
    expect(rebuilt.conformance?.summary.pass).toBe(finished.filter((c) => c.verdict.status === 'pass').length);
    expect(rebuilt.incomplete?.notRun).toEqual(CHECKS.filter((id) => !finished.some((c) => c.id === id)));
    expect(rebuilt.overall.status).toBe('error');
    expect(rebuilt.overall.exitCode).toBe(130);
    expect(rebuilt.overall.reasons[0]).toMatch(/^incomplete run rebuilt from its journal: the process ended at \S+ \(its last journal line\); the last [\d.]+ s were not recorded$/);
    expect(rebuilt.overall.reasons).toContain(`not run: ${rebuilt.incomplete?.notRun.join(', ')}`);
    for (const f of ['report.html', 'junit.xml', 'summary.md', 'summary.txt']) expect(await readFile(path.join(out, f), 'utf8')).toMatch(/the last [\d.]+ s were not recorded/);
  });

  it('rebuilds a fuzz run cut after its first property', async () => {
    const out = path.join(dir, 'fuzz');
    const cli = io();
    const code = await main(['fuzz', '--target', 'emulator', '--runs', '5', '--model-runs', '2', '--max-duration', '20s', '--property', 'job-request-validation', '--property', 'status-ttl-query', '--seed', '7', '--out', out], cli);
    expect(code, cli.text()).toBe(0);
    const written = QbenchResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    await cutBefore(path.join(out, 'journal.ndjson'), 'property', 1);
    await unlink(path.join(out, 'result.json'));
    const rebuilt = (await readRunSource(out)).result;
    expect(rebuilt.fuzz?.properties).toEqual(written.fuzz?.properties.slice(0, 1));
    expect(rebuilt.fuzz?.seed).toBe(7);
    expect(rebuilt.incomplete?.notRun).toEqual(['status-ttl-query']);
  });
});
