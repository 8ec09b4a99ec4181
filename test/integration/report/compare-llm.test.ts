// The built `qbench compare` on two results the built `qbench llm` wrote against the built
// `qbench emulate` with its engine on: one endpoint's engine takes 100 ms more to read a prompt, so
// its TTFT is about three times the other's (a 50 ms prefill against 150 ms), a regression over --max-regression ttft_p50=10% (exit 1);
// the other way round it is an improvement (exit 0); a margin naming no metric is a usage error
// (exit 2). About 10 s of wall time: two closed-loop runs of 10 requests one at a time (no schedule to fall
// behind on a busy host), five CLI starts.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../global-setup.js';
import { runBuiltCli } from '../built-cli.js';
import { EXIT } from '../../../src/exit-codes.js';
import { QbenchComparison } from '../../../src/result/compare-model.js';
import { killAll, until } from '../emulator/helpers.js';

const KEY = 'compare-llm-key-8812';
const procs: ReturnType<typeof spawn>[] = [];
let dir: string;
let url: string;

const qbench = async (args: string[]) => {
  const r = await runBuiltCli(args, { env: { ...process.env, QBENCH_API_KEY: KEY }, timeoutMs: 20_000, procs });
  return { code: r.code, out: r.stdout, err: r.stderr };
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-compare-llm-'));
  // One warm worker per endpoint, real time; the engines differ only in the fixed cost of a prefill step.
  const engine = { decodeTokensPerSec: 200, prefillTokensPerSec: 100_000 };
  const config = path.join(dir, 'emulator.json');
  await writeFile(
    config,
    JSON.stringify({
      endpoints: ['fast', 'slow'],
      deployments: {
        fast: { workersMin: 1, workersMax: 1, engine: { ...engine, prefillBaseMs: 50 } },
        slow: { workersMin: 1, workersMax: 1, engine: { ...engine, prefillBaseMs: 150 } },
      },
    }),
  );
  const proc = spawn(process.execPath, [BUILT_BIN, 'emulate', '--port', '0', '--host', '127.0.0.1', '--api-key', KEY, '--cold-start-ms', '0', '--emulator-config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(proc);
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await until(() => /ready on \S+/.test(out), 'the ready line', 30_000);
  url = (/ready on (\S+)/.exec(out) ?? [])[1] as string;
}, 40_000);

afterAll(async () => {
  await killAll(procs);
  await rm(dir, { recursive: true, force: true });
});

describe('qbench compare of two qbench llm results (built CLI)', () => {
  it('calls a TTFT about three times as long a regression over ttft_p50=10%, and the reverse an improvement', { timeout: 60_000 }, async () => {
    const llm = (ep: string) =>
      qbench(['llm', '--target', `${url}/v2/${ep}`, '--path', 'openai', '--vus', '1', '--duration', '10s', '--max-requests', '20', '--prompt-tokens', '32', '--output-tokens', '8', '--out', path.join(dir, ep)]);
    const fast = await llm('fast');
    expect(fast.code, fast.err).toBe(EXIT.OK);
    const slow = await llm('slow');
    expect(slow.code, slow.err).toBe(EXIT.OK);
    const [base, cand] = [path.join(dir, 'fast', 'result.json'), path.join(dir, 'slow', 'result.json')];

    const worse = await qbench(['compare', base, cand, '--max-regression', 'ttft_p50=10%', '--out', path.join(dir, 'cmp')]);
    expect(worse.code, worse.err).toBe(EXIT.TARGET_FAILED);
    expect(worse.out).toMatch(/llm openai concurrency 1 +ttft_p50 +[\d,.]+ ms +[\d,.]+ ms +\+[\d.]+% .* 10% +REGRESSION/);
    expect(worse.out).toMatch(/Verdict: FAIL \(exit 1\)\n {2}- llm openai concurrency 1 ttft_p50: .* is over the allowed 10%/);
    const c = QbenchComparison.parse(JSON.parse(await readFile(path.join(dir, 'cmp', 'comparison.json'), 'utf8')));
    const level = c.llm?.find((l) => l.path === 'openai' && l.level === 'concurrency 1');
    expect(level).toMatchObject({ presence: 'both', baselineCount: 20, candidateCount: 20 });
    const ttft = level?.metrics.find((m) => m.metric === 'ttft_p50');
    // 100 ms more of a TTFT of about 55 ms (prefill 50 ms and a 32-token read): well over +50%, a margin
    // the timers of a busy host (tens of ms late at worst) do not close
    expect(ttft?.changePct).toBeGreaterThan(50);
    expect(ttft?.ci?.lowPct).toBeGreaterThan(10);
    expect(level?.metrics.map((m) => m.metric)).toEqual([
      ...['ttft', 'itl', 'tpot', 'e2e'].flatMap((m) => [`${m}_p50`, `${m}_p90`, `${m}_p99`]),
      'tokens_per_sec',
      'goodput',
      'error_rate',
    ]);
    for (const f of ['comparison.md', 'comparison.html', 'comparison-junit.xml']) expect(await readFile(path.join(dir, 'cmp', f), 'utf8')).toContain('llm openai concurrency 1');

    const better = await qbench(['compare', cand, base, '--max-regression', 'ttft_p50=10%']);
    expect(better.code, better.err).toBe(EXIT.OK);
    expect(better.out).toMatch(/llm openai concurrency 1 +ttft_p50 .* better/);
    expect(better.out).toContain('no significant regression over the margins in 1 LLM level');

    const bad = await qbench(['compare', base, cand, '--max-regression', 'ttft_p95=10%']);
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.err).toMatch(/--max-regression: "ttft_p95=10%": unknown metric "ttft_p95"; allowed: .*ttft_p99/);
  });
});
