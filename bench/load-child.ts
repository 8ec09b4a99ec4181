// Child process of bench/load.bench.ts (pinned with taskset by the parent): runs one load
// generator against a URL and prints one JSON line with its figures. Modes:
//   autocannon <url> <sec> <connections>      the peer, bare autocannon
//   max-throughput <url> <sec> <connections>  qbench's max-throughput executor (its own engine)
//   max-throughput-autocannon <url> <sec> <connections>  the same executor on engine 'autocannon'
//   open-loop <url> <sec> <ratePerSec> <connections>
import autocannon from 'autocannon';
import type { LoadTarget } from '../src/load/context.js';
import type * as Engine from '../src/load/engine.js';
import type * as ScenarioModule from '../src/load/scenario.js';

// The parent points QBENCH_LOAD_DIST at the compiled engine (dist/src/load, what the CLI
// runs): under tsx the sources carry esbuild's name-keeping wrappers, which cost the hot
// path measurably (max-throughput 0.85x vs 0.97-1.19x compiled, same machine and hour).
const base = process.env['QBENCH_LOAD_DIST'] ?? new URL('../src/load/', import.meta.url).href;
const { runScenario } = (await import(new URL('engine.js', base).href)) as typeof Engine;
const { parseScenario } = (await import(new URL('scenario.js', base).href)) as typeof ScenarioModule;

const [mode, url = '', secText = '10', a = '50', b = '200'] = process.argv.slice(2);
const sec = Number(secText);
const target: LoadTarget = { kind: 'remote', queueUrl: url, endpointId: 'bench', timeScale: 1 };

async function main(): Promise<unknown> {
  switch (mode) {
    case 'autocannon': {
      const r = await autocannon({ url: `${url}/v2/bench/health`, connections: Number(a), duration: sec });
      return { reqPerSec: r.requests.total / sec, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors };
    }
    case 'max-throughput':
    case 'max-throughput-autocannon': {
      const engine = mode === 'max-throughput' ? 'qbench' : 'autocannon';
      const s = parseScenario({ name: 'max', executor: 'max-throughput', engine, connections: Number(a), durationMs: sec * 1000, steps: [{ kind: 'health' }] });
      const r = await runScenario(s, { target });
      const st = r.steps[0]!;
      const total = Object.values(st.counts).reduce((x, y) => x + y, 0);
      return { reqPerSec: total / sec, requests: total, runMs: r.durationMs, p99Ms: st.latency.percentiles.p99 };
    }
    case 'open-loop': {
      const rate = Number(a);
      const s = parseScenario({
        name: 'open',
        executor: 'constant-arrival-rate',
        ratePerSec: rate,
        durationMs: sec * 1000,
        connections: Number(b),
        maxInFlight: 100_000,
        steps: [{ kind: 'health' }],
        validity: { maxSendLatenessP99Ms: 2 },
      });
      const r = await runScenario(s, { target });
      const st = r.steps[0]!;
      return {
        targetRatePerSec: rate,
        achievedRatePerSec: r.validity.achievedRatePerSec,
        achievedRatio: r.validity.achievedRatePerSec / rate,
        sendLatenessP99Ms: r.validity.sendLateness.percentiles.p99,
        correctedP99Ms: st.latency.percentiles.p99,
        serviceP99Ms: st.serviceTime.percentiles.p99,
        valid: r.validity.valid,
        reasons: r.validity.reasons,
        cpuPercent: r.validity.generatorCpuPercent,
        warmup: r.validity.warmup,
        counts: st.counts,
      };
    }
    default:
      throw new Error(`unknown mode ${String(mode)}`);
  }
}

main().then(
  (r) => {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    process.exit(0);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
