// Micro benchmarks (tinybench) of qbench's per-call costs, each side by side with a named peer in
// the same run, as a ratio of the cost per call (qbench / peer; the peer is the least any
// implementation could do, so the ratio is the price of what qbench does on top):
//  - histogram record: recordMs into the HDR histogram vs a push onto a plain array
//  - schedule tick: the next intended start of the open-loop schedule vs `i * intervalMs`
//  - request encode: serializeRequest of a /run vs one template string with no header checks
//  - request parse: the emulator's parseJson of a /run body (depth limit) vs bare JSON.parse
//  - JSON validation: the emulator's zod job-body check vs a hand-written check of the same rules
// Each task makes BATCH calls per sample, so that a call's cost is above the timer's resolution.
// Run: npx tsx bench/micro.bench.ts [ms per task, default 400] [rounds, default 2]
import { Bench } from 'tinybench';
import { RequestValidator } from '../src/emulator/queue/requests.js';
import { parseJson } from '../src/emulator/json-io.js';
import { schedule } from '../src/load/arrivals.js';
import { createHistogram, recordMs } from '../src/load/histogram.js';
import { serializeRequest } from '../src/load/http.js';
import { EXECUTION_TIMEOUT_MS, TTL_MS } from '../src/spec/index.js';

const timeMs = Number(process.argv[2] ?? 400);
const rounds = Number(process.argv[3] ?? 2);
const BATCH = 1_000;

/** One comparison: qbench's call and its peer's, each making BATCH calls. */
interface Pair {
  readonly name: string;
  readonly qbench: { readonly label: string; readonly fn: () => void };
  readonly peer: { readonly label: string; readonly fn: () => void };
}

// Latencies as a load run records them: 0.2 ms to ~2 s, spread over the histogram's buckets.
const SAMPLES_MS = Array.from({ length: BATCH }, (_, i) => 0.2 + ((i * 7919) % 2000) * (1 + (i % 13)) * 0.07);

const histogram = createHistogram();
let plain: number[] = [];

const RATE_PER_SEC = 20_000;
const segments = [{ durationMs: 24 * 3_600_000, fromRatePerSec: RATE_PER_SEC, toRatePerSec: RATE_PER_SEC }];
let ticks = schedule({ segments, arrivals: 'uniform', seed: 1, shardIndex: 0, shardCount: 1 });
let plainTick = 0;
let sink = 0;

const HEADER_LINES = 'host: 127.0.0.1:8000\r\naccept: application/json\r\nauthorization: Bearer bench-key-0000\r\n';
const RUN_PATH = '/v2/demo/run';
const RUN_BODY = { input: { prompt: 'hello', mock_return: 'Hello World!' } };
const RUN_BODY_BYTES = Buffer.from(JSON.stringify(RUN_BODY));
/** A body with every optional field, so the validation pair compares each rule. */
const FULL_BODY = {
  input: { prompt: 'hello', max_tokens: 64 },
  webhook: 'https://hooks.example.com/qbench',
  policy: { executionTimeout: 60_000, lowPriority: false, ttl: 3_600_000 },
  s3Config: { accessId: 'id', accessSecret: 'secret', bucketName: 'b', endpointUrl: 'https://s3.example.com' },
};

const validator = new RequestValidator(new Set());

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const intWithin = (v: unknown, b: { min: number; max: number }) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= b.min && v <= b.max);

/** The job body's rules (§2.1) written by hand: what the zod schema checks, with no error texts. */
function handCheck(body: unknown): boolean {
  if (!isObject(body) || !isObject(body['input'])) return false;
  const webhook = body['webhook'];
  if (webhook !== undefined) {
    if (typeof webhook !== 'string') return false;
    try {
      const u = new URL(webhook);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    } catch {
      return false;
    }
  }
  const policy = body['policy'];
  if (policy !== undefined) {
    if (!isObject(policy)) return false;
    if (!intWithin(policy['executionTimeout'], EXECUTION_TIMEOUT_MS) || !intWithin(policy['ttl'], TTL_MS)) return false;
    if (policy['lowPriority'] !== undefined && typeof policy['lowPriority'] !== 'boolean') return false;
  }
  const s3 = body['s3Config'];
  if (s3 !== undefined) {
    if (!isObject(s3)) return false;
    for (const k of ['accessId', 'accessSecret', 'bucketName', 'endpointUrl']) if (s3[k] !== undefined && typeof s3[k] !== 'string') return false;
  }
  return true;
}

function repeat(fn: () => void): () => void {
  return () => {
    for (let i = 0; i < BATCH; i++) fn();
  };
}

const PAIRS: readonly Pair[] = [
  {
    name: 'histogram record',
    qbench: { label: 'recordMs (HDR)', fn: () => { for (const ms of SAMPLES_MS) recordMs(histogram, ms); } },
    peer: {
      label: 'array push',
      fn: () => {
        if (plain.length >= 64 * BATCH) plain = [];
        for (const ms of SAMPLES_MS) plain.push(ms);
      },
    },
  },
  {
    name: 'schedule tick',
    qbench: {
      label: 'schedule().next()',
      fn: repeat(() => {
        const n = ticks.next();
        if (n.done === true) ticks = schedule({ segments, arrivals: 'uniform', seed: 1, shardIndex: 0, shardCount: 1 });
        else sink += n.value.offsetMs;
      }),
    },
    peer: { label: 'i * intervalMs', fn: repeat(() => { sink += plainTick++ * (1_000 / RATE_PER_SEC); }) },
  },
  {
    name: 'request encode',
    qbench: { label: 'serializeRequest', fn: repeat(() => { sink += serializeRequest('POST', RUN_PATH, HEADER_LINES, undefined, RUN_BODY).head.length; }) },
    peer: {
      label: 'template string',
      fn: repeat(() => {
        const t = JSON.stringify(RUN_BODY);
        sink += `POST ${RUN_PATH} HTTP/1.1\r\n${HEADER_LINES}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(t)}\r\n\r\n${t}`.length;
      }),
    },
  },
  {
    name: 'request parse',
    qbench: { label: 'parseJson (depth limit)', fn: repeat(() => { sink += parseJson(RUN_BODY_BYTES).ok ? 1 : 0; }) },
    peer: { label: 'JSON.parse', fn: repeat(() => { sink += JSON.parse(RUN_BODY_BYTES.toString('utf8')) === null ? 0 : 1; }) },
  },
  {
    name: 'JSON validation (/run body)',
    qbench: { label: 'zod jobBody', fn: repeat(() => { sink += validator.jobBody(RUN_BODY).ok ? 1 : 0; }) },
    peer: { label: 'hand check', fn: repeat(() => { sink += handCheck(RUN_BODY) ? 1 : 0; }) },
  },
  {
    name: 'JSON validation (every field)',
    qbench: { label: 'zod jobBody', fn: repeat(() => { sink += validator.jobBody(FULL_BODY).ok ? 1 : 0; }) },
    peer: { label: 'hand check', fn: repeat(() => { sink += handCheck(FULL_BODY) ? 1 : 0; }) },
  },
];

// Both sides must accept the bodies they are timed on, or the comparison is of different work.
for (const body of [RUN_BODY, FULL_BODY]) {
  if (!validator.jobBody(body).ok || !handCheck(body)) throw new Error(`the validation pair disagrees on ${JSON.stringify(body)}`);
}

/** ns per call of one task: its median sample (ms) over BATCH calls (a median, so that a GC pause or a neighbour's burst on a shared machine does not decide it). */
function nsPerCall(bench: Bench, name: string): number {
  const r = bench.getTask(name)?.result;
  if (r?.state !== 'completed') throw new Error(`${name}: ${r?.state === 'errored' ? r.error.message : (r?.state ?? 'not run')}`);
  return (r.latency.p50 * 1e6) / BATCH;
}

const perCall = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  const bench = new Bench({ time: timeMs, warmupTime: Math.min(200, timeMs) });
  // Pair by pair, so that whatever else the machine does hits both alike; which side goes
  // first alternates by round (the first of two runs warms up what both share).
  for (const p of PAIRS) {
    const sides = [p.peer, p.qbench];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) bench.add(`${p.name}: ${side.label}`, side.fn);
  }
  await bench.run();
  for (const t of bench.tasks) perCall.set(t.name, [...(perCall.get(t.name) ?? []), nsPerCall(bench, t.name)]);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

console.log(`per call (median sample), median of ${rounds} round(s) of ${timeMs} ms per task (${BATCH} calls a sample); ratio = qbench / peer`);
console.log(`${'cost'.padEnd(30)} ${'qbench'.padEnd(26)} ${'ns'.padStart(9)}   ${'peer'.padEnd(16)} ${'ns'.padStart(9)}   ratio`);
for (const p of PAIRS) {
  const q = median(perCall.get(`${p.name}: ${p.qbench.label}`) ?? []);
  const b = median(perCall.get(`${p.name}: ${p.peer.label}`) ?? []);
  console.log(`${p.name.padEnd(30)} ${p.qbench.label.padEnd(26)} ${q.toFixed(1).padStart(9)}   ${p.peer.label.padEnd(16)} ${b.toFixed(1).padStart(9)}   ${(q / b).toFixed(2)}x`);
}
if (sink === Number.MIN_VALUE) console.log(sink);
