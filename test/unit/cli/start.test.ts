// `qbench start` option validation (the full job itself is what `npm start` runs; each of its
// parts has its own end-to-end tests in test/integration).
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env: {}, signal: new AbortController().signal },
    out: () => out,
    err: () => err,
  };
}

describe('qbench start', () => {
  it('refuses an unknown part, naming the flag and the allowed values', async () => {
    const c = capture();
    expect(await main(['start', '--parts', 'check,bogus'], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toMatch(/--parts: unknown part bogus; choose from check, load, fuzz/);
  });

  it('refuses a seed out of range', async () => {
    const c = capture();
    expect(await main(['start', '--seed', '-1'], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toMatch(/--seed must be 0\.\.2147483647/);
  });

  it('lists start in --help with its options', async () => {
    const c = capture();
    expect(await main(['start', '--help'], c.io)).toBe(EXIT.OK);
    expect(c.out()).toMatch(/--parts/);
    expect(c.out()).toMatch(/--out/);
    expect(c.out().replace(/\s+/g, ' ')).toMatch(/--strict An inconclusive check or scenario \(could not set up what it judges\) fails the run: for gating on a private endpoint/);
  });

  it('takes --metrics as load does, refusing a bad endpoint before anything runs', async () => {
    const c = capture();
    expect(await main(['start', '--metrics', 'graphite=http://127.0.0.1:1'], c.io)).toBe(EXIT.USAGE);
    expect(c.err()).toMatch(/--metrics "graphite=http:\/\/127\.0\.0\.1:1": write prometheus=<remote-write URL> or otlp=/);
    const h = capture();
    expect(await main(['start', '--help'], h.io)).toBe(EXIT.OK);
    expect(h.out().replace(/\s+/g, ' ')).toMatch(/--metrics Stream live metrics every second/);
  });

  it('lists --strict for qbench load with the same wording as qbench check', async () => {
    const c = capture();
    expect(await main(['load', '--help'], c.io)).toBe(EXIT.OK);
    expect(c.out().replace(/\s+/g, ' ')).toMatch(/--strict An inconclusive scenario \(could not set up what it judges\) fails the run: for gating on a private endpoint/);
  });
});
