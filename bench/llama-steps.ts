// How llama.cpp, through node-llama-cpp, schedules several sequences of one context, step by
// step: the tiny model in a context built as the real-engine worker builds it (one thread by
// default, batches of LLAMA_BATCH_TOKENS), sequences driven as its handler drives them (greedy
// evaluate, one token at a time), and every evaluation step (one llama_decode of a batch) recorded
// with its tokens, its sequences and its time, by wrapping the context's native batch calls.
// Prints: a decode step's time against the sequences in it; a prefill step's time against its
// prompt tokens; what the steps hold while a prompt arrives beside decoding sequences; the fitted
// step-cost line (fixed ms + ms per prompt token + ms per decoding sequence); and the gap
// between steps (sampling and JavaScript between two llama_decode calls).
// Run: npx tsx bench/llama-steps.ts [--threads 1] [--repeats 3]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fitLine } from '../src/calibrate/llm-fit.js';
import { LLAMA_BATCH_TOKENS } from '../src/worker/llama-engine/llama-handler.js';
import { writeTinyModel } from '../src/worker/llama-engine/tiny-model.js';

const { values } = parseArgs({ options: { threads: { type: 'string', default: '1' }, repeats: { type: 'string', default: '3' } } });
const threads = Number(values.threads);
const repeats = Number(values.repeats);
if (!Number.isInteger(threads) || threads < 1) throw new Error('--threads must be a whole number from 1');
if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats must be a whole number from 1');

interface Step {
  readonly startMs: number;
  readonly ms: number;
  /** Tokens each sequence put in the batch. */
  readonly items: readonly number[];
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const spread = (xs: readonly number[]) => (xs.length < 2 ? 0 : (Math.max(...xs) - Math.min(...xs)) / median(xs));

const dir = await mkdtemp(path.join(tmpdir(), 'qbench-llama-steps-'));
const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
try {
  const file = path.join(dir, 'tiny.gguf');
  await writeTinyModel(file);
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 4096 * 8, sequences: 8, threads, flashAttention: true, batchSize: LLAMA_BATCH_TOKENS });
  // The native context's batch calls (addToBatch once per sequence, then decodeBatch), seen
  // through a proxy in the context's place.
  const holder = context as unknown as { _ctx: object };
  const native = holder._ctx as Record<string, unknown>;
  const steps: Step[] = [];
  let items: number[] = [];
  holder._ctx = new Proxy(native, {
    get(target, key) {
      const v = Reflect.get(target, key) as unknown;
      if (typeof v !== 'function') return v;
      const f = v as (...a: unknown[]) => unknown;
      if (key === 'addToBatch')
        return (...a: unknown[]) => {
          items.push((a[2] as Uint32Array).length);
          return f.apply(target, a);
        };
      if (key === 'decodeBatch')
        return async () => {
          const startMs = performance.now();
          const these = items;
          items = [];
          await f.apply(target, []);
          steps.push({ startMs, ms: performance.now() - startMs, items: these });
        };
      return f.bind(target);
    },
  });
  const seqs = Array.from({ length: 8 }, () => context.getSequence());
  const text = (tokens: number) => model.tokenize('x'.repeat(4 * tokens));

  /** One sequence's request: `prompt` tokens, `output` tokens; when its first token came and when its last did. */
  async function request(seqIndex: number, prompt: number, output: number): Promise<{ sentMs: number; firstMs: number; lastMs: number }> {
    const seq = seqs[seqIndex] as (typeof seqs)[number];
    const sentMs = performance.now();
    let firstMs = NaN;
    let n = 0;
    for await (const _t of seq.evaluate(text(prompt), { temperature: 0 })) {
      n += 1;
      if (n === 1) firstMs = performance.now();
      if (n >= output) break;
    }
    const lastMs = performance.now();
    await seq.clearHistory();
    return { sentMs, firstMs, lastMs };
  }
  const collect = async (run: () => Promise<unknown>): Promise<Step[]> => {
    steps.length = 0;
    await run();
    return steps.slice();
  };
  await request(0, 16, 8); // warm-up

  console.log(`tiny model, ${threads} thread(s), batch ${LLAMA_BATCH_TOKENS}; medians of ${repeats} repeats, spread = (max - min) / median of the repeats\n`);
  console.log('decode steps while n sequences decode together (prompt 16, 64 tokens each): how many sequences each step holds, and its time by that count');
  console.log('  n  steps  sequences per step (share of steps)         step ms by sequences in it          gap ms  tokens/s per sequence (spread)');
  const bySeqs = new Map<number, number[]>();
  for (const n of [1, 2, 4, 8]) {
    const gapMs: number[] = [];
    const rate: number[] = [];
    const counts = new Map<number, number>();
    let total = 0;
    const ms = new Map<number, number[]>();
    for (let r = 0; r < repeats; r += 1) {
      let answers: { sentMs: number; firstMs: number; lastMs: number }[] = [];
      const s = await collect(async () => (answers = await Promise.all(Array.from({ length: n }, (_, i) => request(i, 16, 64)))));
      const decodes = s.filter((x) => x.items.every((t) => t === 1));
      for (const x of decodes) {
        const k = x.items.length;
        counts.set(k, (counts.get(k) ?? 0) + 1);
        total += 1;
        ms.set(k, [...(ms.get(k) ?? []), x.ms]);
        bySeqs.set(k, [...(bySeqs.get(k) ?? []), x.ms]);
      }
      const gaps: number[] = [];
      for (let i = 1; i < s.length; i += 1) gaps.push((s[i] as Step).startMs - ((s[i - 1] as Step).startMs + (s[i - 1] as Step).ms));
      gapMs.push(median(gaps));
      rate.push(median(answers.map((a) => 63_000 / (a.lastMs - a.firstMs))));
    }
    const keys = [...counts.keys()].sort((x, y) => x - y);
    const share = keys.map((k) => `${k}:${(((counts.get(k) ?? 0) / total) * 100).toFixed(0)}%`).join(' ');
    const times = keys.map((k) => `${k}:${median(ms.get(k) ?? []).toFixed(2)}`).join(' ');
    console.log(`  ${String(n).padEnd(2)} ${String(total / repeats).padEnd(6)} ${share.padEnd(44)} ${times.padEnd(35)} ${median(gapMs).toFixed(2).padEnd(7)} ${median(rate).toFixed(1)} (${(spread(rate) * 100).toFixed(0)}%)`);
  }
  const decodePoints = [...bySeqs.entries()].filter(([, v]) => v.length >= 5).map(([k, v]) => ({ x: k, y: median(v) }));
  console.log('\nprefill step against prompt tokens (one sequence alone, one output token):');
  console.log('  tokens  step ms  spread  TTFT ms');
  const prefillPoints: { x: number; y: number }[] = [];
  for (const p of [16, 64, 256, 510]) {
    const stepMs: number[] = [];
    const ttft: number[] = [];
    for (let r = 0; r < repeats; r += 1) {
      let a = { sentMs: 0, firstMs: 0, lastMs: 0 };
      const s = await collect(async () => (a = await request(0, p, 1)));
      stepMs.push(s.reduce((t, x) => t + x.ms, 0));
      ttft.push(a.firstMs - a.sentMs);
    }
    prefillPoints.push({ x: p, y: median(stepMs) });
    console.log(`  ${String(p).padEnd(7)} ${median(stepMs).toFixed(2).padEnd(8)} ${(spread(stepMs) * 100).toFixed(0).padStart(4)}%   ${median(ttft).toFixed(2)}`);
  }

  console.log('\na 256-token prompt arriving while k sequences decode (each step: tokens per sequence, ms):');
  const mixed: { x: number; p: number; d: number; y: number }[] = [];
  for (const k of [1, 3, 5]) {
    for (let r = 0; r < repeats; r += 1) {
      const s = await collect(async () => {
        const decoding = Array.from({ length: k }, (_, i) => request(i + 1, 16, 48));
        // The prompt comes once the decoders are past their own prefill.
        await new Promise((resolve) => setTimeout(resolve, 50));
        await request(0, 256, 4);
        await Promise.all(decoding);
      });
      const i = s.findIndex((x) => x.items.some((t) => t > 100));
      const around = s.slice(Math.max(0, i - 1), i + 4);
      if (r === 0) console.log(`  k=${k}: ${around.map((x) => `[${x.items.join(',')}] ${x.ms.toFixed(1)}`).join('  ')}`);
      for (const x of s) {
        const p = x.items.filter((t) => t > 1).reduce((a, b) => a + b, 0);
        const d = x.items.filter((t) => t === 1).length;
        mixed.push({ x: 0, p, d, y: x.ms });
      }
    }
  }
  // Step cost: fixed + per prompt token + per decoding sequence, fitted on the pure steps.
  const perToken = fitLine(prefillPoints).b;
  const perSeq = fitLine(decodePoints).b;
  const fixed = fitLine(decodePoints).a;
  console.log(`\nfitted step cost: ${fixed.toFixed(2)} ms + ${perSeq.toFixed(3)} ms per decoding sequence + ${perToken.toFixed(4)} ms per prompt token (prefill line: ${fitLine(prefillPoints).a.toFixed(2)} ms at 0 tokens)`);
  const errs = mixed.filter((m) => m.p > 0 && m.d > 0).map((m) => (fixed + perSeq * m.d + perToken * m.p - m.y) / m.y);
  console.log(`mixed steps (prompt tokens beside decoding sequences): ${errs.length}, median error of that line ${(median(errs) * 100).toFixed(1)}%`);
  await context.dispose();
  await model.dispose();
} finally {
  await llama.dispose();
  await rm(dir, { recursive: true, force: true });
}
