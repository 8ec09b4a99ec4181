// Macro benchmark: CPU per POST /run of the emulator (limits off) against a bare node:http server
// answering fixed JSON, each in its own child process, driven through in-memory connections
// (no sockets, no kernel, no scheduling between a load generator and the server), rounds
// alternated. On a loaded machine, where bench/emulator-throughput.ts mostly measures who got
// the cores, this isolates what the server itself spends per request.
// Run: npx tsx bench/emulator-cpu.ts [seconds=3] [rounds=5]
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 5);

interface Child {
  proc: ChildProcess;
  lines: Interface;
  /** CPU µs per request of one round of `seconds`. */
  round(seconds: number): Promise<number>;
}

function startChild(kind: 'bare' | 'emulator'): Promise<Child> {
  const script = fileURLToPath(new URL('./emulator-cpu-child.ts', import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', script, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const next = (): Promise<string> => new Promise((resolve) => lines.once('line', resolve));
  const child: Child = {
    proc,
    lines,
    round: async (secs) => {
      proc.stdin?.write(`${secs}\n`);
      return Number(await next());
    },
  };
  return next().then(() => child);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const bare = await startChild('bare');
const emulator = await startChild('emulator');
// One warm-up second each (JIT) before anything is counted.
await bare.round(1);
await emulator.round(1);
const rows: { round: number; bareUs: string; emulatorUs: string; ratio: string }[] = [];
const bareUs: number[] = [];
const emulatorUs: number[] = [];
for (let i = 0; i < rounds; i++) {
  const b = await bare.round(seconds);
  const e = await emulator.round(seconds);
  bareUs.push(b);
  emulatorUs.push(e);
  rows.push({ round: i + 1, bareUs: b.toFixed(1), emulatorUs: e.toFixed(1), ratio: (b / e).toFixed(2) });
}
for (const c of [bare, emulator]) c.proc.kill('SIGTERM');

console.log(`POST /run through in-memory connections, ${seconds} s per round after 1 s warm-up, ${rounds} rounds alternated, CPU µs per request (user+system), node ${process.version}`);
console.table(rows);
const ratio = median(bareUs) / median(emulatorUs);
console.log(`median: bare ${median(bareUs).toFixed(1)} µs, emulator ${median(emulatorUs).toFixed(1)} µs; emulator throughput per CPU = ${ratio.toFixed(2)}x bare node:http`);
