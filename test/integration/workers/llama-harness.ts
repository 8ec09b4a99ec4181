// An endpoint served by a real inference engine: `qbench emulate --external-workers` with one
// `qbench worker --llama tiny` process attached (llama.cpp on the CPU, the tiny model written by
// the worker into a temporary directory), both on loopback; then `qbench llm` and `qbench
// calibrate --llm` in this process against it, and the twin's closed-loop prediction. Used by
// test/integration/workers/llama-engine.test.ts and bench/real-engine.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main, type CliIo } from '../../../src/cli/main.js';
import type { EmulatorConfig } from '../../../src/emulator/config.js';
import { EXIT } from '../../../src/exit-codes.js';
import { loadTwin } from '../../../src/sim/twin.js';
import type { LlmRun, QbenchResult } from '../../../src/result/model.js';
import { simulateLlmClosedLoop } from '../../../src/sim/llm-simulate.js';
import { parseLengthDist } from '../../../src/load/llm/workload.js';
import { LLAMA_BATCH_TOKENS } from '../../../src/worker/llama-engine/llama-handler.js';

export const ENGINE_ENDPOINT = 'llm';

export interface RealEngine {
  /** http://127.0.0.1:port/v2/llm */
  readonly target: string;
  /** Jobs the worker runs at once (--concurrency). */
  readonly concurrency: number;
  readonly key: string;
  /** Where the worker wrote the tiny model (removed when the worker stops). */
  readonly modelPath: string;
  /** Everything the worker printed. */
  workerOutput(): string;
  /** Stop the worker (SIGTERM: it frees the engine and removes its model) and the emulator. */
  close(): Promise<void>;
}

/** Resolves with the first match of `re` in what `proc` prints, or rejects when it exits or `maxMs` passes. */
function waitForLine(proc: ChildProcess, re: RegExp, what: string, text: () => string, maxMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`timed out after ${maxMs} ms waiting for ${what}; output so far:\n${text()}`)), maxMs);
    const check = () => {
      const m = re.exec(text());
      if (m) finish(undefined, m);
    };
    const onExit = (code: number | null) => finish(new Error(`${what}: the process exited (code ${code}) first; its output:\n${text()}`));
    const finish = (e: Error | undefined, m?: RegExpExecArray) => {
      clearTimeout(timer);
      proc.stdout?.off('data', check);
      proc.stderr?.off('data', check);
      proc.off('exit', onExit);
      if (e) reject(e);
      else resolve(m as RegExpExecArray);
    };
    proc.stdout?.on('data', check);
    proc.stderr?.on('data', check);
    proc.on('exit', onExit);
    check();
  });
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
async function stop(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Start the emulator and one real-engine worker of `concurrency` sequences; `cli` is the command
 * that runs qbench (the built bin under node, or tsx on the sources).
 */
export async function startRealEngine(o: { cli: readonly string[]; concurrency: number; key: string }): Promise<RealEngine> {
  const procs: ChildProcess[] = [];
  const run = (args: string[]) => {
    const [cmd, ...pre] = o.cli;
    const p = spawn(cmd as string, [...pre, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, QBENCH_API_KEY: o.key } });
    procs.push(p);
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.stderr.on('data', (d: Buffer) => (text += d.toString()));
    return { p, text: () => text };
  };
  const closeAll = async () => {
    // The worker first: it stops taking jobs, frees the engine and removes its model file.
    for (const p of procs.slice().reverse()) await stop(p, 10_000);
  };
  try {
    const em = run(['emulate', '--external-workers', '--port', '0', '--host', '127.0.0.1', '--endpoint', ENGINE_ENDPOINT, '--time-scale', '1']);
    const url = (await waitForLine(em.p, /ready on (\S+)/, 'the emulator', em.text, 30_000))[1] as string;
    const w = run(['worker', '--llama', 'tiny', '--target', url, '--endpoint', ENGINE_ENDPOINT, '--worker-id', 'llama-1', '--concurrency', String(o.concurrency), '--api-key-env', 'QBENCH_API_KEY']);
    await waitForLine(w.p, /taking jobs from/, 'the real-engine worker', w.text, 60_000);
    const modelPath = (/wrote the tiny model \([^)]*\) to (\S+)/.exec(w.text()) ?? [])[1] ?? '';
    return { target: `${url}/v2/${ENGINE_ENDPOINT}`, concurrency: o.concurrency, key: o.key, modelPath, workerOutput: w.text, close: closeAll };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

const io = (key: string): CliIo & { text: () => string } => {
  let text = '';
  return { stdout: (t) => void (text += t), stderr: (t) => void (text += t), isTty: false, env: { QBENCH_API_KEY: key }, signal: new AbortController().signal, text: () => text };
};

/** `qbench llm` against the engine; its runs (one per path), the exit code and what it printed. */
export async function measureLlm(engine: RealEngine, dir: string, name: string, args: readonly string[]): Promise<{ code: number; runs: LlmRun[]; output: string }> {
  const c = io(engine.key);
  const out = path.join(dir, name);
  const code = await main(['llm', '--target', engine.target, '--out', out, '--duration', '60s', '--timeout', '60s', ...args], c);
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')) as QbenchResult;
  return { code, runs: result.llm?.runs ?? [], output: c.text() };
}

/**
 * The LLM probe's shape and the engine's scheduling, given to calibrate: TTFT at prompt lengths
 * spanning the comparison points' (each prompt within one batch), the token gap at 1, 2, 4 and
 * 8 streams, those the worker runs at once, twice (not the points' 3 and 6; two rounds, as one
 * batch's gap moves by 10-20% on this shared host), and node-llama-cpp's way of batching, which the probe
 * cannot tell: every sequence's pending tokens evaluated together in batches of
 * LLAMA_BATCH_TOKENS, shared out evenly (the parallel scheduler).
 */
export function engineProbeFlags(workerConcurrency: number): string[] {
  const streams = [1, 2, 4, 8].filter((n) => n <= workerConcurrency).join(',');
  return ['--llm-prompt-tokens', '32,128,384', '--llm-streams', `${streams},${streams}`, '--llm-scheduler', 'parallel', '--llm-batch-tokens', String(LLAMA_BATCH_TOKENS)];
}

/** `qbench calibrate --llm` against the engine (one warm native job, then the LLM probe); the twin written. */
export async function calibrateLlm(engine: RealEngine, dir: string): Promise<{ code: number; twin: EmulatorConfig | undefined; output: string }> {
  const input = path.join(dir, 'warm-input.json');
  await writeFile(input, JSON.stringify({ input: { prompt: 'the cat sat', sampling_params: { max_tokens: 1 } } }));
  const out = path.join(dir, 'twin');
  const c = io(engine.key);
  const flags = [...engineProbeFlags(engine.concurrency), '--input', input, '--warm-jobs', '1', '--cold-starts', '0', '--burst-jobs', '0', '--stream-jobs', '0', '--workers-min', '1', '--workers-max', '1', '--gpu-type', 'L4', '--yes'];
  const code = await main(['calibrate', '--target', engine.target, '--llm', ...flags, '--out', out], c);
  const fitted = code === EXIT.OK ? await loadTwin(path.join(out, 'emulator.json')) : undefined;
  return { code, twin: fitted, output: c.text() };
}

/**
 * The workload of a comparison point: prompt tokens, output tokens (a length form of qbench llm
 * --output-tokens), and requests per point (per stream in flight). Output lengths vary so that the
 * closed loop's requests do not stay in step: with one fixed length every request of a round ends
 * within a step or two of the others, the next round arrives together, and TTFT p50 flips between
 * "each prompt alone" and "prompts sharing a step" on delays of a few ms, in the engine and in the
 * twin alike (at 3 streams the same engine read 105, 201 and 289 ms).
 */
export const POINT_WORKLOAD = { promptTokens: 256, outputTokens: 'uniform:32-64', requestsPerStream: 8 } as const;

/** One figure of a comparison point, predicted and measured. */
export interface Figure {
  readonly name: string;
  readonly predicted: number;
  /** The median of the repeated measurements. */
  readonly measured: number;
  /** |predicted - measured| / measured. */
  readonly error: number;
  /** The noise floor: (largest - smallest) / median of the repeated measurements (0 with one). */
  readonly spread: number;
  /** Each repeated measurement. */
  readonly runs: readonly number[];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const figure = (name: string, predicted: number, runs: readonly number[]): Figure => {
  const measured = median(runs);
  return { name, predicted, measured, error: Math.abs(predicted - measured) / measured, spread: (Math.max(...runs) - Math.min(...runs)) / measured, runs };
};

/** TTFT p50 and tokens/s per stream (1000 / TPOT p50) of one measurement or prediction. */
interface PointFigures {
  readonly ttftP50Ms: number;
  readonly tokensPerSec: number;
}

const pointArgs = (concurrency: number): string[] => {
  const w = POINT_WORKLOAD;
  return ['--path', 'openai', '--vus', String(concurrency), '--max-requests', String(w.requestsPerStream * concurrency), '--prompt-tokens', String(w.promptTokens), '--output-tokens', w.outputTokens];
};

/** `qbench llm --vus concurrency` of POINT_WORKLOAD on the engine (closed loop, the chat route). */
export async function measurePoint(engine: RealEngine, dir: string, concurrency: number, name: string): Promise<PointFigures & { code: number; output: string }> {
  const m = await measureLlm(engine, dir, name, pointArgs(concurrency));
  const run = m.runs[0];
  if (run === undefined) throw new Error(`qbench llm gave no run at concurrency ${concurrency}:\n${m.output}`);
  return { ttftP50Ms: run.ttft.percentiles.p50, tokensPerSec: 1_000 / run.tpot.percentiles.p50, code: m.code, output: m.output };
}

/** The twin's closed-loop simulation of the same requests on one worker of the engine's concurrency (every request counts, as in the measurement). */
export function predictPoint(twin: EmulatorConfig, workerConcurrency: number, concurrency: number): PointFigures {
  const w = POINT_WORKLOAD;
  const requests = w.requestsPerStream * concurrency;
  const sim = simulateLlmClosedLoop({
    twin,
    jobsPerWorker: workerConcurrency,
    seed: 1,
    traffic: { concurrency, requests, warmupRequests: 0, promptTokens: w.promptTokens, outputTokens: 1, outputLength: parseLengthDist('--output-tokens', w.outputTokens), path: 'chat' },
  });
  const ttfts = sim.requests.flatMap((r) => (r.ttftMs === undefined ? [] : [r.ttftMs]));
  const tpots = sim.requests.flatMap((r) => (r.tpotMs === undefined ? [] : [r.tpotMs]));
  return { ttftP50Ms: median(ttfts), tokensPerSec: 1_000 / median(tpots) };
}

/**
 * At `concurrency` streams in flight: TTFT p50 and tokens/s per stream measured `repeats` times
 * by `qbench llm --vus` (the median kept, the spread reported), against the twin's prediction.
 */
export async function comparePoint(engine: RealEngine, twin: EmulatorConfig, dir: string, concurrency: number, repeats = 1): Promise<{ figures: Figure[]; command: string; codes: number[]; output: string }> {
  const runs: (PointFigures & { code: number; output: string })[] = [];
  for (let r = 0; r < repeats; r += 1) runs.push(await measurePoint(engine, dir, concurrency, `point-${concurrency}-${r}`));
  const p = predictPoint(twin, engine.concurrency, concurrency);
  return {
    figures: [figure('TTFT p50, ms', p.ttftP50Ms, runs.map((m) => m.ttftP50Ms)), figure('tokens/s per stream (1000 / TPOT p50)', p.tokensPerSec, runs.map((m) => m.tokensPerSec))],
    command: `qbench llm --target <url> ${pointArgs(concurrency).join(' ')}`,
    codes: runs.map((m) => m.code),
    output: runs.map((m) => m.output).join('\n'),
  };
}

/** A temporary directory for reports, and its removal. */
export async function tempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
