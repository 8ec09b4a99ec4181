// `qbench emulate` end to end through the CLI's main(): prints the base URL and a ready
// line, serves, shuts down on the abort signal (SIGINT/SIGTERM in the bin); bad flags exit 2.
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { EXIT } from '../../../src/exit-codes.js';
import { KEY, until } from './helpers.js';

function io(signal: AbortSignal): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t), isTty: false, env: {}, signal }, out, err };
}

describe('qbench emulate', () => {
  it('serves until aborted, with endpoints, time scale and faults from flags', async () => {
    const ac = new AbortController();
    const c = io(ac.signal);
    const done = main(['emulate', '--port', '0', '--api-key', KEY, '--endpoint', 'a', '--endpoint', 'b', '--time-scale', '60', '--fault', 'health-miscount', '--workers-max', '2'], c.io);
    await until(() => c.out.some((l) => l.startsWith('ready on ')), 'the ready line');
    const url = (/ready on (\S+)/.exec(c.out.join('')) ?? [])[1] as string;
    const info = (await (await fetch(`${url}/_qbench/info`, { headers: { authorization: KEY } })).json()) as { timeScale: number; endpoints: string[]; faults: { name: string }[]; workers: { max: number } };
    expect(info).toMatchObject({ timeScale: 60, endpoints: ['a', 'b'], workers: { max: 2 } });
    expect(info.faults.map((f) => f.name)).toEqual(['health-miscount']);
    expect((await fetch(`${url}/v2/b/health`, { headers: { authorization: KEY } })).status).toBe(200);
    expect((await fetch(`${url}/v2/demo/health`, { headers: { authorization: KEY } })).status).toBe(404);
    expect(c.out.join('')).toContain(`${url}/v2/a`);
    ac.abort();
    expect(await done).toBe(EXIT.OK);
    await expect(fetch(`${url}/_qbench/info`)).rejects.toThrow();
  });

  it('an unknown fault is a usage error listing the valid ones', async () => {
    const c = io(new AbortController().signal);
    expect(await main(['emulate', '--api-key', KEY, '--fault', 'nope'], c.io)).toBe(EXIT.USAGE);
    expect(c.err.join('')).toMatch(/unknown fault "nope".*retry-from-completed/s);
  });

  it('out-of-range values name the setting; a missing key is a usage error', async () => {
    const c = io(new AbortController().signal);
    expect(await main(['emulate', '--api-key', KEY, '--time-scale', '0', '--workers-min', '9', '--workers-max', '2'], c.io)).toBe(EXIT.USAGE);
    expect(c.err.join('')).toMatch(/timeScale/);
    const d = io(new AbortController().signal);
    expect(await main(['emulate', '--port', '0'], d.io)).toBe(EXIT.USAGE);
    expect(d.err.join('')).toMatch(/--api-key/);
  });
});
