// The verdict rule proven both ways on targets nobody chose, by URL with the built CLI (npm run
// build first). A correct target must give no failure: (busy-60) `qbench emulate` at time scale 60,
// one shared endpoint whose every worker another client keeps busy; (busy-1) the same at time
// scale 1 behind a latency proxy hiding /_qbench; (path-60) a correct target behind a TCP proxy
// that resets 1.5% of the answer pieces halfway and stalls 1.5% for 3 s. Each scenario runs
// --runs times with a fresh seed (printed; --seed replays). Prints a table of verdicts per run.
// Run: npx tsx bench/verdict-proof.ts [--runs 3] [--only busy-60,busy-1,path-60] [--seed N]
import { startEmulate, stopEmulate } from '../test/integration/conformance/border-emulate.js';
import { runCheckCli } from '../test/integration/conformance/check-cli.js';
import { startProxy } from '../test/integration/conformance/border-proxy.js';
import { startFaultProxy } from '../test/integration/conformance/fault-proxy.js';
import { otherClient } from '../test/integration/conformance/other-client.js';

const KEY = 'qbench-verdict-proof-key';
const KEY_ENV = 'QBENCH_VERDICT_PROOF_KEY';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const RUNS = Number(arg('runs') ?? 3);
const ONLY = (arg('only') ?? 'busy-60,busy-1,path-60').split(',');
const BASE_SEED = Number(arg('seed') ?? Date.now() % 1_000_000);

interface Verdicts { pass: number; fail: number; error: number; inconclusive: number; skip: number; failed: string[]; seconds: number }

async function check(url: string, extra: readonly string[]): Promise<Verdicts> {
  const t0 = performance.now();
  const r = await runCheckCli({ url, endpoint: 'demo', apiKey: KEY, keyEnv: KEY_ENV, args: extra });
  const v: Verdicts = { pass: 0, fail: 0, error: 0, inconclusive: 0, skip: 0, failed: [], seconds: 0 };
  for (const c of r.checks) {
    const s = c.verdict.status as 'pass' | 'fail' | 'error' | 'inconclusive' | 'skip';
    v[s] += 1;
    if (s === 'fail' || s === 'error') v.failed.push(`${c.id}: ${(c.verdict.observed ?? c.verdict.message ?? '').slice(0, 200)}`);
  }
  v.seconds = Math.round((performance.now() - t0) / 1000);
  return v;
}

async function busy(timeScale: number): Promise<Verdicts> {
  const emu = await startEmulate(KEY, ['--endpoint', 'demo', '--time-scale', String(timeScale)]);
  const proxy = timeScale === 1 ? await startProxy({ upstream: emu.url, delayMs: 15, jitterMs: 10, opaque: true }) : undefined;
  // More lanes than workers: every worker runs another client's job at every moment.
  const other = otherClient(emu.url, KEY, 8, timeScale === 1 ? 2 : 60, 20_000);
  try {
    return await check(proxy?.url ?? emu.url, []);
  } finally {
    await other.stop();
    await proxy?.close();
    await stopEmulate(emu);
  }
}

async function faultyPath(seed: number): Promise<Verdicts & { resets: number; stalls: number }> {
  const spares = Array.from({ length: 64 }, (_, i) => `spare-${i + 1}`);
  const emu = await startEmulate(KEY, ['--time-scale', '60', '--endpoint', 'demo', ...spares.flatMap((e) => ['--endpoint', e])]);
  const up = new URL(emu.url);
  const proxy = await startFaultProxy({ upstream: { host: up.hostname, port: Number(up.port) }, resetRate: 0.015, stallRate: 0.015, stallMs: 3_000, resetFirst: true, seed });
  try {
    const v = await check(proxy.url, spares.flatMap((e) => ['--spare-endpoint', e]));
    return { ...v, resets: proxy.resets(), stalls: proxy.stalls() };
  } finally {
    await proxy.close();
    await stopEmulate(emu);
  }
}

console.log(`verdict proof: ${RUNS} run(s) of ${ONLY.join(', ')}; base seed ${BASE_SEED}`);
console.log('| scenario | run | seed | pass | fail | error | inconclusive | skip | s | path faults |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
let failures = 0;
for (let run = 1; run <= RUNS; run++) {
  const seed = BASE_SEED + run;
  for (const scenario of ONLY) {
    const v: Verdicts & { resets?: number; stalls?: number } = scenario === 'busy-60' ? await busy(60) : scenario === 'busy-1' ? await busy(1) : await faultyPath(seed);
    const faults = v.resets !== undefined ? `${v.resets} resets, ${v.stalls ?? 0} stalls` : '-';
    console.log(`| ${scenario} | ${run} | ${scenario === 'path-60' ? seed : '-'} | ${v.pass} | ${v.fail} | ${v.error} | ${v.inconclusive} | ${v.skip} | ${v.seconds} | ${faults} |`);
    for (const f of v.failed) console.log(`    FAILED ${f}`);
    failures += v.fail + v.error;
  }
}
console.log(failures === 0 ? '\nno failure on a correct target' : `\n${failures} failures on a correct target`);
process.exitCode = failures === 0 ? 0 : 1;
