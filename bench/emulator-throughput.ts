// Macro benchmark (issue 3 "Speed and scale"): /status and /run throughput of the emulator
// with limits off, as ratios against a bare node:http server answering fixed JSON, both in
// child processes, both driven by autocannon in this process in the same run.
// Bar: /status >= 0.6x, /run >= 0.4x.   Run: npx tsx bench/emulator-throughput.ts [seconds]
import autocannon from 'autocannon';
import { startChild } from './emulator-child.js';

const KEY = 'bench-key-0000';
const durationSec = Number(process.argv[2] ?? 10);
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
const rounds = Number(process.argv[3] ?? 3);

interface Round {
  bareStatus: number;
  bareRun: number;
  emStatus: number;
  emRun: number;
}

// Rounds alternate bare and emulator so that load from elsewhere on the machine hits both.
const results: Round[] = [];
for (let i = 0; i < rounds; i++) {
  const bare = await startChild('bare');
  const bareStatus = await drive(`${bare.url}/v2/demo/status/x`, 'GET');
  const bareRun = await drive(`${bare.url}/v2/demo/run`, 'POST', runBody);
  await bare.stop();
  const em = await startChild('emulator');
  const res = await fetch(`${em.url}/v2/demo/run`, { method: 'POST', headers: { authorization: KEY }, body: runBody });
  const { id } = (await res.json()) as { id: string };
  const emStatus = await drive(`${em.url}/v2/demo/status/${id}`, 'GET');
  const emRun = await drive(`${em.url}/v2/demo/run`, 'POST', runBody);
  await em.stop();
  results.push({ bareStatus, bareRun, emStatus, emRun });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const statusRatios = results.map((r) => r.emStatus / r.bareStatus);
const runRatios = results.map((r) => r.emRun / r.bareRun);
console.log(`autocannon, ${connections} connections, ${durationSec} s per measurement after 1 s warm-up, ${rounds} rounds, limits off, node ${process.version}`);
console.table(
  results.map((r, i) => ({
    round: i + 1,
    'bare /status': Math.round(r.bareStatus),
    'emulator /status': Math.round(r.emStatus),
    'status ratio': (statusRatios[i] as number).toFixed(2),
    'bare /run': Math.round(r.bareRun),
    'emulator /run': Math.round(r.emRun),
    'run ratio': (runRatios[i] as number).toFixed(2),
  })),
);
const rows = [
  { op: 'GET /status', medianRatio: median(statusRatios), bar: 0.6 },
  { op: 'POST /run', medianRatio: median(runRatios), bar: 0.4 },
];
console.table(rows.map((r) => ({ ...r, medianRatio: r.medianRatio.toFixed(2), pass: r.medianRatio >= r.bar })));
process.exitCode = rows.every((r) => r.medianRatio >= r.bar) ? 0 : 1;
