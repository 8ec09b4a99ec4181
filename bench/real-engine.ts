// A real inference engine measured by qbench, and its twin's prediction: `qbench emulate
// --external-workers` with one `qbench worker --llama tiny --concurrency 8` attached (llama.cpp
// on the CPU, one thread; the tiny model written by the worker, nothing downloaded), all on
// loopback. Prints: TTFT against prompt length (one request at a time) and tokens/s per stream
// against streams in flight, both by `qbench llm`; `qbench calibrate --llm` on the endpoint
// (engineProbeFlags: node-llama-cpp's parallel batches of 512 tokens given, TTFT probed at 32,
// 128 and 384 prompt tokens, the token gap at 1, 2, 4 and 8 streams, twice); then at 3 and 6 streams in
// flight, which the probe did not use, the twin's closed-loop prediction of TTFT p50 and tokens/s
// per stream against `qbench llm --vus`, measured --repeats times in a row at each point: the
// median, its error, and the spread of the repeats (the host's noise floor). The load average
// before and after. Exit code 1 when a predicted figure is more than --tolerance (default 0.15) off.
// Run: npx tsx bench/real-engine.ts [--tolerance 0.15] [--concurrency 3,6] [--repeats 3] [--twin-only (skip the two curves)]
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { calibrateLlm, comparePoint, engineProbeFlags, measureLlm, POINT_WORKLOAD, startRealEngine, tempDir, type Figure } from '../test/integration/workers/llama-harness.js';

const { values } = parseArgs({ options: { tolerance: { type: 'string', default: '0.15' }, concurrency: { type: 'string', default: '3,6' }, repeats: { type: 'string', default: '3' }, 'twin-only': { type: 'boolean', default: false } } });
const tolerance = Number(values.tolerance);
const repeats = Number(values.repeats);
if (!Number.isInteger(repeats) || repeats < 1 || repeats > 20) throw new Error('--repeats must be a whole number from 1 to 20');
if (!(tolerance > 0)) throw new Error('--tolerance must be a number above 0 (0.15: 15%)');
const points = values.concurrency.split(',').map(Number);
if (points.some((n) => !Number.isInteger(n) || n < 1 || n > 8)) throw new Error('--concurrency must list whole numbers from 1 to 8, e.g. 3,6');

const cli = [process.execPath, '--import', 'tsx', 'src/cli/bin.ts'];
const tmp = await tempDir('qbench-real-engine-');
const engine = await startRealEngine({ cli, concurrency: 8, key: 'real-engine-bench-key' });
const pad = (s: string, n: number) => s.padEnd(n);
const num = (x: number, d = 1) => x.toFixed(d);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const loadBefore = load();
try {
  console.log(`load average (1, 5, 15 min) ${loadBefore}`);
  console.log(`real engine: ${engine.workerOutput().trim().split('\n').join('\n  ')}\n`);

  if (!values['twin-only']) {
  console.log('TTFT against prompt length, one request at a time (qbench llm --vus 1 --path openai,stream --output-tokens 16 --max-requests 5 --prompt-tokens P):');
  console.log(`  ${pad('prompt tokens', 14)} ${pad('openai TTFT p50 ms', 19)} ${pad('stream TTFT p50 ms', 19)} ${pad('openai ITL p50 ms', 18)}`);
  for (const p of [16, 256, 1024]) {
    const m = await measureLlm(engine, tmp.dir, `prompt-${p}`, ['--path', 'openai,stream', '--vus', '1', '--max-requests', '5', '--prompt-tokens', String(p), '--output-tokens', '16']);
    const [o, s] = m.runs;
    if (!o || !s) throw new Error(`qbench llm gave no runs:\n${m.output}`);
    console.log(`  ${pad(String(p), 14)} ${pad(num(o.ttft.percentiles.p50), 19)} ${pad(num(s.ttft.percentiles.p50), 19)} ${pad(num(o.itl.percentiles.p50, 2), 18)}`);
  }

  console.log('\ntokens/s per stream against streams in flight (qbench llm --vus N --max-requests 2N --prompt-tokens 16 --output-tokens 64):');
  console.log(`  ${pad('streams', 8)} ${pad('ITL p50 ms', 11)} ${pad('tokens/s per stream', 20)} ${pad('tokens/s in all', 16)}`);
  for (const n of [1, 2, 4, 8]) {
    const m = await measureLlm(engine, tmp.dir, `streams-${n}`, ['--path', 'openai', '--vus', String(n), '--max-requests', String(2 * n), '--prompt-tokens', '16', '--output-tokens', '64']);
    const [o] = m.runs;
    if (!o) throw new Error(`qbench llm gave no run:\n${m.output}`);
    console.log(`  ${pad(String(n), 8)} ${pad(num(o.itl.percentiles.p50, 2), 11)} ${pad(num(1_000 / o.tpot.percentiles.p50), 20)} ${pad(num(o.throughput.outputTokensPerSec), 16)}`);
  }

  }
  const t0 = performance.now();
  const cal = await calibrateLlm(engine, tmp.dir);
  if (cal.twin === undefined) throw new Error(`qbench calibrate --llm wrote no twin (exit ${cal.code}):\n${cal.output}`);
  const e = cal.twin.deployments['llm']?.engine;
  console.log(`\nqbench calibrate --target <url>/v2/llm --llm ${engineProbeFlags(engine.concurrency).join(' ')} --input warm-input.json --warm-jobs 1 --cold-starts 0 --burst-jobs 0 --stream-jobs 0 --workers-min 1 --workers-max 1 --gpu-type L4 --yes (${num((performance.now() - t0) / 1000)} s):`);
  console.log(`  engine fitted: prefill ${num(e?.prefillBaseMs ?? NaN)} ms + ${num(e?.prefillTokensPerSec ?? NaN, 0)} tokens/s, decode ${num(e?.decodeTokensPerSec ?? NaN)} tokens/s, contention ${num(e?.decodeContention ?? NaN, 3)} per extra stream, +${num((e?.decodeMsPerContextToken ?? NaN) * 1_000, 2)} ms a step per 1,000 context tokens of a stream, scheduler ${e?.scheduler ?? "?"} of ${e?.maxBatchedTokens ?? NaN} tokens`);

  console.log(`  queue timing fitted from the warm job: ${JSON.stringify(cal.twin.deployments['llm']?.timing ?? {})}`);
  if (process.env['QBENCH_BENCH_TWIN_OUT'] !== undefined) await writeFile(process.env['QBENCH_BENCH_TWIN_OUT'], JSON.stringify({ twin: cal.twin }));
  const w = POINT_WORKLOAD;
  console.log(`\ntwin's prediction (closed-loop simulation of the calibrated twin) against qbench llm, prompt ${w.promptTokens} tokens, output ${w.outputTokens} tokens, ${w.requestsPerStream} requests per stream, chat route (SSE); measured ${repeats} time(s), the median:`);
  console.log(`  ${pad('streams', 8)} ${pad('figure', 40)} ${pad('predicted', 10)} ${pad('measured', 10)} ${pad('error', 8)} ${pad('noise', 8)} repeats`);
  const all: Figure[] = [];
  const compared = [];
  for (const n of points) compared.push({ n, c: await comparePoint(engine, cal.twin, tmp.dir, n, repeats) });
  for (const { n, c } of compared) {
    for (const f of c.figures) {
      all.push(f);
      console.log(`  ${pad(String(n), 8)} ${pad(f.name, 40)} ${pad(num(f.predicted), 10)} ${pad(num(f.measured), 10)} ${pad(`${num(f.error * 100)}%`, 8)} ${pad(`${num(f.spread * 100)}%`, 8)} ${f.runs.map((x) => num(x)).join(', ')}${f.error > tolerance ? '  OVER' : ''}`);
    }
    console.log(`  ${pad('', 8)} (${c.command})`);
  }
  console.log(`\nload average (1, 5, 15 min) before ${loadBefore}, after ${load()}`);
  process.exitCode = all.some((f) => f.error > tolerance) ? 1 : 0;
  console.log(`\nlargest error ${num(Math.max(...all.map((f) => f.error)) * 100)}% (tolerance ${num(tolerance * 100)}%)`);
} finally {
  await engine.close();
  await tmp.remove();
}
