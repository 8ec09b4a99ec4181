// CLI smoke test: main() in-process with a captured io, no child process.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { VERSION } from '../../../src/version.js';

function captureIo(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    isTty: false,
    env: {},
    signal: new AbortController().signal,
  };
  return { io, out: () => out, err: () => err };
}

describe('qbench CLI', () => {
  it('--help lists every command and exits 0', async () => {
    const c = captureIo();
    expect(await main(['--help'], c.io)).toBe(EXIT.OK);
    expect(COMMANDS.length).toBeGreaterThan(0);
    for (const cmd of COMMANDS) {
      const name = cmd.command.split(' ')[0]!;
      expect(c.out()).toContain(`qbench ${name}`);
      // yargs wraps long descriptions: the first words stay on the command's line.
      expect(c.out()).toContain(cmd.describe.split(' ').slice(0, 3).join(' '));
    }
    expect(c.err()).toBe('');
  });

  it('--version prints the package version', async () => {
    const c = captureIo();
    expect(await main(['--version'], c.io)).toBe(EXIT.OK);
    expect(c.out().trim()).toBe(VERSION);
  });

  it('an unknown command exits 2 with a message naming it', async () => {
    const c = captureIo();
    expect(await main(['frobnicate'], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toMatch(/frobnicate/);
    expect(c.err()).toContain('qbench --help');
  });

  it('no command at all exits 2', async () => {
    const c = captureIo();
    expect(await main([], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toContain('Name a command');
  });

  it('an unknown flag exits 2', async () => {
    const c = captureIo();
    expect(await main(['start', '--bogus-flag'], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toMatch(/bogus-flag/);
  });

  it('QBENCH_PARSE_ONLY=1 checks the command line (flags, target grammar) and runs nothing', async () => {
    const parseOnly = (): ReturnType<typeof captureIo> => {
      const c = captureIo();
      c.io.env = { QBENCH_PARSE_ONLY: '1' };
      return c;
    };
    const ok = parseOnly();
    // The scenario file does not exist and the host does not resolve: nothing is read or sent.
    expect(await main(['load', 'no-such-scenario.ts', '--target', 'https://host.invalid/v2/ep-1', '--rate', '5'], ok.io)).toBe(EXIT.OK);
    expect(ok.err()).toContain('qbench load: the command line is valid');
    const badTarget = parseOnly();
    expect(await main(['fuzz', '--target', 'ftp://host/v2/ep'], badTarget.io)).toBe(EXIT.USAGE);
    expect(badTarget.err()).toMatch(/--target "ftp:\/\/host\/v2\/ep": only http and https/);
    const unknown = parseOnly();
    expect(await main(['check', '--target', 'emulator', '--bogus'], unknown.io)).toBe(EXIT.USAGE);
    expect(unknown.err()).toMatch(/Unknown argument: bogus/);
  });
});
