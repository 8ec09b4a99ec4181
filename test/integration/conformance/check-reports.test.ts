// `qbench check` writes every report format into one directory, as `qbench load` does:
// result.json (the result model with its conformance section), report.html, junit.xml,
// summary.md and summary.txt.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { REPORT_FILES } from '../../../src/report/write-all.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('qbench check --out', () => {
  it('writes every report format of the run into the directory', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qbench-check-out-'));
    const out = join(dir, 'run');
    let stdout = '';
    const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stdout += t), isTty: false, env: {}, signal: new AbortController().signal };
    const code = await main(['check', '--target', 'emulator', '--only', 'queue.run.answer', '--out', out], io);
    expect(code, stdout).toBe(0);
    expect(stdout).toContain(`reports: ${out}`);
    const result = JSON.parse(readFileSync(join(out, REPORT_FILES.json), 'utf8')) as { conformance?: { summary: { pass: number } } };
    expect(result.conformance?.summary.pass).toBe(1);
    expect(readFileSync(join(out, REPORT_FILES.junit), 'utf8')).toContain('queue.run.answer');
    expect(readFileSync(join(out, REPORT_FILES.markdown), 'utf8')).toMatch(/queue\.run\.answer|PASS/i);
    expect(readFileSync(join(out, REPORT_FILES.html), 'utf8')).toContain('<html');
    expect(readFileSync(join(out, REPORT_FILES.console), 'utf8').length).toBeGreaterThan(0);
  });
});
