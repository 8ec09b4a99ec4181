// Macro benchmark: /status and /run throughput of the emulator
// with limits off, as ratios against a bare node:http server answering fixed JSON, both in
// child processes, both driven by autocannon in this process in the same run.
// Bar: /status >= 0.6x, /run >= 0.4x.   Run: npx tsx bench/emulator-throughput.ts [seconds=3] [rounds=5]
import autocannon from 'autocannon';
import { startChild } from './emulator-child.js';

const KEY = 'bench-key-0000';
const durationSec = Number(process.argv[2] ?? 3);
const connections = 64;

async function drive(url: string, method: 'GET' | 'POST', body?: string): Promise<number> {
  // One warm-up second (JIT, connection set-up) before the measured run.
  await autocannon({ url, method, connections, duration: 1, headers: { authorization: KEY }, ...(body === undefined ? {} : { body }) });
  const r = await autocannon({
    url,
    method,
    connections,
    pipelining: 1,
    duration: durationSec,
    headers: { authorization: KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) throw new Error(`${method} ${url}: ${bad} failed requests (non2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})`);
  return r.requests.average;
}

const runBody = JSON.stringify({ input: { prompt: 'hello', mock_return: 'Hello World!' } });
const rounds = Number(process.argv[3] ?? 5);

// Both servers stay up; each round measures bare then emulator back to back for each
// operation, so that load from elsewhere on the machine hits both alike. Ratios are of the
// summed request counts over all rounds.
const bare = await startChild('bare');
const em = await startChild('emulator');
const res = await fetch(`${em.url}/v2/demo/run`, { method: 'POST', headers: { authorization: KEY }, body: runBody });
const { id } = (await res.json()) as { id: string };
const targets = {
  status: { bare: `${bare.url}/v2/demo/status/${id}`, em: `${em.url}/v2/demo/status/${id}`, method: 'GET' as const, body: undefined },
  run: { bare: `${bare.url}/v2/demo/run`, em: `${em.url}/v2/demo/run`, method: 'POST' as const, body: runBody },
};
const sums = { status: { bare: 0, em: 0 }, run: { bare: 0, em: 0 } };
const perRound: Record<string, string | number>[] = [];
for (let i = 0; i < rounds; i++) {
  const row: Record<string, string | number> = { round: i + 1 };
  for (const op of ['status', 'run'] as const) {
    const t = targets[op];
    const b = await drive(t.bare, t.method, t.body);
    const e = await drive(t.em, t.method, t.body);
    sums[op].bare += b;
    sums[op].em += e;
    row[`bare /${op}`] = Math.round(b);
    row[`emulator /${op}`] = Math.round(e);
    row[`${op} ratio`] = (e / b).toFixed(2);
  }
  perRound.push(row);
}
await bare.stop();
await em.stop();

console.log(`autocannon, ${connections} connections, ${durationSec} s per measurement after 1 s warm-up, ${rounds} rounds, limits off, node ${process.version}`);
console.table(perRound);
const rows = [
  { op: 'GET /status', ratio: sums.status.em / sums.status.bare, bar: 0.6 },
  { op: 'POST /run', ratio: sums.run.em / sums.run.bare, bar: 0.4 },
];
console.table(rows.map((r) => ({ ...r, ratio: r.ratio.toFixed(2), pass: r.ratio >= r.bar })));
process.exitCode = rows.every((r) => r.ratio >= r.bar) ? 0 : 1;
