// `qbench --help` is printed without yargs (src/cli/top-help.ts); this compares it with what
// yargs prints for the same commands, at the widths a terminal gives and the width of a pipe.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import { skipHelpRender, topParser } from '../../../src/cli/main.js';
import { helpWidth, renderTopHelp } from '../../../src/cli/top-help.js';

async function yargsHelp(width: number): Promise<string> {
  let parser = await topParser(['--help'], width);
  for (const c of COMMANDS) parser = parser.command(c.command, c.describe);
  return parser.help().getHelp();
}

describe('qbench --help without yargs', () => {
  it.each([80, 96, 100, 110, 137])('prints what yargs prints at width %i', async (width) => {
    const fast = renderTopHelp('qbench', COMMANDS, width);
    expect(fast).toBeDefined();
    expect(fast).toBe(await yargsHelp(width));
  });

  it('leaves to yargs a width where a column would wrap a command or break a word', () => {
    expect(renderTopHelp('qbench', COMMANDS, 60)).toBeUndefined();
    expect(renderTopHelp('qbench', COMMANDS, 74)).toBeUndefined();
  });

  it('uses the terminal width up to 110, and 100 for a pipe', () => {
    expect([helpWidth(undefined), helpWidth(0), helpWidth(80), helpWidth(200)]).toEqual([100, 100, 80, 110]);
  });
});

describe('a command run without rendering its help', () => {
  const cachedHelp = (p: unknown): boolean =>
    (p as { getInternalMethods(): { getUsageInstance(): { hasCachedHelpMessage(): boolean } } }).getInternalMethods().getUsageInstance().hasCachedHelpMessage();

  it.each([false, true])('skipHelpRender %s: yargs renders the help as the handler starts only without it', async (skip) => {
    let ran = false;
    const parser = (await topParser(['go', '--n', '1'], 100)).command('go', 'a command', (y) => y.option('n', { type: 'number', describe: 'a number' }), () => {
      ran = true;
    });
    if (skip) skipHelpRender(parser);
    await parser.parseAsync();
    expect(ran).toBe(true);
    expect(cachedHelp(parser)).toBe(!skip);
  });
});
