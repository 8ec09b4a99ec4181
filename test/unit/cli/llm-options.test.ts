// `qbench llm` refuses bad flags with exit 2 and names each flag and what it allows, before any
// target is started.
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/command.js';
import { EXIT } from '../../../src/exit-codes.js';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: CliIo = { stdout: () => undefined, stderr: (t) => err.push(t), isTty: false, env: {}, signal: new AbortController().signal };
  const code = await main(['llm', '--target', 'emulator', ...args], io);
  return { code, err: err.join('') };
}

describe('qbench llm flags', () => {
  it.each([
    [['--rate', '1', '--slo', 'bogus', '--slo', 'p42(ttft)<1s'], /--slo SLO "bogus" is not of the form[\s\S]*--slo SLO "p42\(ttft\)<1s": unknown percentile "p42"/],
    [['--rate', '1', '--prompt-tokens', 'uniform:9-3'], /--prompt-tokens "uniform:9-3": MAX must be at least MIN/],
    [['--rate', '1', '--output-tokens', 'lognormal:3'], /--output-tokens "lognormal:3" is not a length distribution: N \(fixed\), uniform:MIN-MAX/],
    [['--mode', 'poisson'], /--mode poisson needs --rate/],
    [['--rate', '1', '--path', 'openai,foo'], /--path must be openai, stream, runsync/],
    [['--vus', '2', '--rate', '1'], /--vus sets the concurrency and sweep modes/],
    [[], /the load: --rate <requests\/s>.*--vus <in flight>.*--mode sweep/],
    [['--mode', 'sweep', '--sweep-steps', '0'], /--sweep-steps must be a whole number from 1 to 20/],
  ])('%j is refused', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toMatch(message);
  });
});
