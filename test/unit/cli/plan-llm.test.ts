// `qbench plan --llm` through main() in-process: the flag grammar refuses missing and mixed flags
// naming each flag and what it takes; a small plan on a twin with an engine exits 0 with the
// fewest warm workers meeting the token SLOs (one fewer misses, and the report says why), writes
// the llmPlan section in every format, and exits 1 saying what is needed when nothing meets them.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { parseResult } from '../../../src/result/read-result.js';

function captureIo(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env: {}, signal: new AbortController().signal };
  return { io, out: () => out, err: () => err };
}

/** One stream decodes 50 tok/s alone, each extra stream slows a step by 25%; prefill 2000 tok/s + 20 ms; a token a chunk. */
const ENGINE = { decodeTokensPerSec: 50, decodeContention: 0.25, prefillTokensPerSec: 2_000, prefillBaseMs: 20, maxModelLen: 4_096, streamBatch: { max: 1 } };

let dir = '';
let twin = '';
let noEngine = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-plan-llm-'));
  twin = path.join(dir, 'emulator.json');
  noEngine = path.join(dir, 'plain.json');
  await writeFile(twin, JSON.stringify({ endpoints: ['llm'], deployments: { llm: { gpuTypeId: 'L4', engine: ENGINE } } }));
  await writeFile(noEngine, JSON.stringify({ endpoints: ['plain'], deployments: { plain: { gpuTypeId: 'L4' } } }));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** 3 requests/s of 200 + 20 tokens (60 output tok/s offered) for 60 s, workers 1..4, concurrency 2 and 4; `over` replaces a flag's value. */
function small(over: Record<string, string> = {}): string[] {
  const flags: Record<string, string> = { rate: '3', 'prompt-tokens': '200', 'output-tokens': '20', duration: '60s', 'workers-min': '1..4', 'jobs-per-worker': '2,4', seed: '7', ...over };
  return ['--llm', ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v])];
}
const SMALL = small();

async function plan(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await main(['plan', ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

describe('qbench plan --llm: the flag grammar', () => {
  it('names every missing flag of an LLM plan with what it takes', async () => {
    const r = await plan(['--twin', twin, '--llm', '--slo', 'p99(ttft)<2s']);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toMatch(/--rate: with --llm, the requests per second \(above 0, at most 10000\)/);
    expect(r.err).toMatch(/--prompt-tokens: with --llm, the prompt tokens of every request \(1 to 1000000\)/);
    expect(r.err).toMatch(/--output-tokens: with --llm, the output tokens of every request \(1 to 1000000\)/);
  });

  it('refuses the queue plan flags with --llm, each by name', async () => {
    const r = await plan(['--twin', twin, ...SMALL, '--slo', 'p99(ttft)<2s', '--workers-max', '1..3', '--seeds', '2', '--traffic', 'x.json', '--slo', 'p90(delay)<2s']);
    expect(r.code).toBe(EXIT.USAGE);
    for (const flag of ['--workers-max', '--seeds', '--traffic']) expect(r.err).toContain(`${flag}: not with --llm`);
    expect(r.err).toMatch(/--slo "p90\(delay\)<2s" judges the queue's jobs, not tokens: with --llm: p<N>\(ttft\|itl\|tpot\|e2e\)<duration/);
  });

  it('refuses the LLM flags and token SLOs without --llm', async () => {
    const r = await plan(['--twin', twin, '--rate', '1', '--duration', '5m', '--prompt-tokens', '100', '--slo', 'p99(ttft)<2s']);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.err).toContain('--prompt-tokens plans an LLM endpoint: add --llm');
    expect(r.err).toContain('--slo "p99(ttft)<2s" judges tokens: add --llm');
    // An e2e percentile the queue plan does not measure is refused as the queue plan refuses it.
    const p75 = await plan(['--twin', twin, '--rate', '1', '--duration', '5m', '--slo', 'p75(e2e)<8s']);
    expect(p75.code).toBe(EXIT.USAGE);
    expect(p75.err).toMatch(/--slo "p75\(e2e\)<8s": p75 is not measured by a simulation; use p50, p90, p95, p99; accepted: p<N>\(e2e\)<duration/);
  });

  it('refuses a malformed SLO, a token count out of range, no worker and a twin without an engine', async () => {
    const bad = await plan(['--twin', twin, ...SMALL, '--slo', 'p99(foo)<2s']);
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.err).toMatch(/--slo.*"p99\(foo\)<2s" is not an SLO; accepted: .*with --llm: p<N>\(ttft\|itl\|tpot\|e2e\)<duration/);
    const range = await plan(['--twin', twin, ...small({ 'output-tokens': '0' }), '--slo', 'p99(ttft)<2s']);
    expect(range.code).toBe(EXIT.USAGE);
    expect(range.err).toMatch(/--output-tokens.*1.*1000000/);
    const long = await plan(['--twin', twin, ...small({ 'prompt-tokens': '4000', 'output-tokens': '200' }), '--slo', 'p99(ttft)<2s']);
    expect(long.code).toBe(EXIT.USAGE);
    expect(long.err).toContain("--prompt-tokens + --output-tokens: 4200 tokens, above the engine's maxModelLen of 4096");
    const zero = await plan(['--twin', twin, ...small({ 'workers-min': '0..2' }), '--slo', 'p99(ttft)<2s']);
    expect(zero.code).toBe(EXIT.USAGE);
    expect(zero.err).toContain('--workers-min: with --llm, the warm workers tried, each 1 or more');
    const plain = await plan(['--twin', noEngine, ...SMALL, '--slo', 'p99(ttft)<2s']);
    expect(plain.code).toBe(EXIT.USAGE);
    expect(plain.err).toContain('has no engine (deployments.plain.engine)');
    const pct = await plan(['--twin', twin, ...SMALL, '--slo', 'p97(ttft)<2s']);
    expect(pct.code).toBe(EXIT.USAGE);
    expect(pct.err).toMatch(/unknown percentile "p97"/);
  });
});

describe('qbench plan --llm: a small plan', () => {
  it('exits 0 with the fewest warm workers meeting the SLOs, why one fewer misses, and every report', async () => {
    const out = path.join(dir, 'met');
    const r = await plan(['--twin', twin, ...SMALL, '--slo', 'p99(ttft)<1s', '--slo', 'p95(itl)<=40ms', '--out', out]);
    expect(r.code, r.err).toBe(EXIT.OK);
    expect(r.out).toContain('Fewest workers meeting every SLO:');
    const result = parseResult(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    const p = result.llmPlan!;
    expect(result.plan).toBeUndefined();
    expect(result.overall).toMatchObject({ status: 'pass', exitCode: 0 });
    expect(p.chosen).not.toBeNull();
    const c = p.points[p.chosen!]!;
    expect(c.meets).toEqual([true, true]);
    expect(c.sloFigures[0]).toBeLessThan(1_000);
    expect(c.sloFigures[1]).toBeLessThanOrEqual(40);
    // L4's active price, 0.00013 $/s a worker: cost per hour and per million output tokens served.
    expect(c.costPerHourUsd).toBeCloseTo(c.workers * 0.00013 * 3_600, 9);
    expect(c.costPerMillionOutputTokensUsd).toBeCloseTo((c.costPerHourUsd / (c.outputTokensPerSec * 3_600)) * 1e6, 9);
    // One worker fewer at the chosen concurrency was simulated, misses, and is listed with why.
    expect(c.workers).toBeGreaterThan(1);
    const fewer = p.points.findIndex((x) => x.jobsPerWorker === c.jobsPerWorker && x.workers === c.workers - 1);
    expect(p.points[fewer]?.meets.every(Boolean)).toBe(false);
    expect(p.nearMisses.find((m) => m.point === fewer)?.misses.join('; ')).toMatch(/p99\(ttft\)<1s at|p95\(itl\)<=40ms at/);
    expect(p.traffic).toEqual({ ratePerSec: 3, durationS: 60, warmupS: 6, promptTokens: 200, outputTokens: 20, path: 'chat' });
    const junit = await readFile(path.join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testcase name="p99(ttft)&lt;1s" classname="qbench.llmplan.slo"');
    expect(junit).not.toContain('<failure');
    expect(await readFile(path.join(out, 'summary.md'), 'utf8')).toMatch(/### LLM plan[\s\S]*per million output tokens/);
    expect(await readFile(path.join(out, 'report.html'), 'utf8')).toMatch(/id="llm-plan"[\s\S]*id="llm-plan-answer"/);
  });

  it('exits 1 saying what is needed when no setting meets the SLOs, or none within the budget', async () => {
    const r = await plan(['--twin', twin, ...small({ 'workers-min': '1' }), '--slo', 'p99(ttft)<1s', '--out', path.join(dir, 'over')]);
    expect(r.code).toBe(EXIT.TARGET_FAILED);
    // 60 tok/s offered; one worker of concurrency 4 decodes at most 4 x 50 / 1.75 = 114 tok/s, so it is simulated and queues.
    expect(r.out).toMatch(/no setting of 2 meets p99\(ttft\)<1s/);
    expect(r.out).toMatch(/p99\(ttft\)<1s: .* even with 1 worker of concurrency 2/);
    const junit = await readFile(path.join(dir, 'over', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase name="p99\(ttft\)&lt;1s"[^>]*>\s*<failure/);
    const budget = await plan(['--twin', twin, ...SMALL, '--slo', 'p99(ttft)<1s', '--budget', '0.5', '--out', path.join(dir, 'budget')]);
    expect(budget.code).toBe(EXIT.TARGET_FAILED);
    expect(budget.out).toMatch(/above the budget of \$0\.50\/h: raise --budget/);
  });
});
