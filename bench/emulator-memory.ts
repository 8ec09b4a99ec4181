// Macro benchmark: hold 180,000 retained jobs (30 minutes of
// /run at its §8 maximum of 1000 per 10 s: 100/s x 1800 s) in the emulator and read its RSS.
// Bar: under 512 MB. The jobs go in over HTTP (autocannon, limits off) into a child process;
// the peer figure is the same child's RSS before any job.   Run: npx tsx bench/emulator-memory.ts
import autocannon from 'autocannon';
import { RATE_LIMITS, RATE_WINDOW_MS, RETENTION_MS } from '../src/spec/index.js';
import { startChild } from './emulator-child.js';

const KEY = 'bench-key-0000';
const jobs = (RATE_LIMITS.run.requestsPerWindow / RATE_WINDOW_MS) * RETENTION_MS.run;
const barBytes = 512 * 1024 * 1024;

interface Counters {
  memory: { rssBytes: number; heapUsedBytes: number };
  pendingTimers: number;
  endpoints: Record<string, { jobsHeld: number }>;
}

async function counters(url: string): Promise<Counters> {
  const r = await fetch(`${url}/_qbench/counters`, { headers: { authorization: KEY } });
  return (await r.json()) as Counters;
}

const em = await startChild('emulator');
const before = await counters(em.url);
const t0 = performance.now();
const r = await autocannon({
  url: `${em.url}/v2/demo/run`,
  method: 'POST',
  connections: 32,
  amount: jobs,
  headers: { authorization: KEY, 'content-type': 'application/json' },
  body: JSON.stringify({ input: { prompt: 'Summarise the quick brown fox.', max_tokens: 64 } }),
});
const seconds = (performance.now() - t0) / 1000;
const after = await counters(em.url);
await em.stop();

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const held = after.endpoints['demo']?.jobsHeld ?? 0;
console.log(`${jobs} POST /run in ${seconds.toFixed(1)} s (non-2xx ${r.non2xx}, errors ${r.errors})`);
console.table([
  { when: 'before', jobsHeld: before.endpoints['demo']?.jobsHeld, rss: mb(before.memory.rssBytes), heapUsed: mb(before.memory.heapUsedBytes), pendingTimers: before.pendingTimers },
  { when: 'after', jobsHeld: held, rss: mb(after.memory.rssBytes), heapUsed: mb(after.memory.heapUsedBytes), pendingTimers: after.pendingTimers },
]);
const ok = held >= jobs && after.memory.rssBytes < barBytes;
console.log(`RSS with ${held} retained jobs: ${mb(after.memory.rssBytes)} (bar ${mb(barBytes)}), ${((after.memory.rssBytes - before.memory.rssBytes) / held).toFixed(0)} bytes per job: ${ok ? 'PASS' : 'FAIL'}`);
process.exitCode = ok ? 0 : 1;
