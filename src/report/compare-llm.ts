// `qbench compare` of two `llm` sections (`qbench llm`): the runs matched by path and load level,
// and per level the change in TTFT, ITL, TPOT and e2e percentiles (bootstrap intervals from the
// runs' HDR histograms), output tokens/s, goodput (an interval from the share of requests that met
// every SLO) and the error rate. A level one run lacks is listed, never judged.
import type { CompareMetric, LlmLevelComparison } from '../result/compare-model.js';
import { decodeHistogram } from '../result/histogram.js';
import type { LlmLoad, LlmRun, LlmSection } from '../result/model.js';
import { SECOND_MS } from '../spec/index.js';
import { histogramMetric, onceMetric, rateMetric, shareRateMetric, type Ctx } from './compare-stats.js';

/** The token metrics and the percentiles of each that are compared, named `<metric>_p<percentile>`. */
const TOKEN_METRICS = ['ttft', 'itl', 'tpot', 'e2e'] as const;
const PERCENTILES = [50, 90, 99] as const;

/** A load level in words, the key runs are matched by: "rate 4/s", "concurrency 8". */
export function levelOf(load: LlmLoad): string {
  return load.kind === 'rate' ? `rate ${load.ratePerSec}/s` : `concurrency ${load.concurrency}`;
}

/** A section's runs by "<path> <level>"; a level a run repeats (a sweep's serial and saturating runs at one concurrency) is told apart by its role. */
function byLevel(section: LlmSection | undefined): Map<string, { run: LlmRun; level: string }> {
  const out = new Map<string, { run: LlmRun; level: string }>();
  const runs = section?.runs ?? [];
  for (const run of runs) {
    const plain = levelOf(run.load);
    const repeated = runs.filter((r) => r.path === run.path && levelOf(r.load) === plain).length > 1;
    const level = repeated ? `${plain} (${run.role})` : plain;
    out.set(`${run.path} ${level}`, { run, level });
  }
  return out;
}

const sent = (r: LlmRun): number => r.requests.completed + r.requests.failed;

function compareLevel(b: LlmRun, c: LlmRun, where: string, ctx: Ctx): LlmLevelComparison['metrics'] {
  const hist = (r: LlmRun, m: (typeof TOKEN_METRICS)[number], side: string) => decodeHistogram(r[m].histogram, `${side} llm ${where} ${m}`);
  const share = (r: LlmRun) => ({ good: r.goodRequests, n: sent(r), perSec: sent(r) / (Math.max(1, r.wallMs) / SECOND_MS) });
  return [
    ...TOKEN_METRICS.flatMap((m) => {
      const [hb, hc] = [hist(b, m, 'baseline'), hist(c, m, 'candidate')];
      return PERCENTILES.map((p) => histogramMetric(`${m}_p${p}` as CompareMetric, { percentile: p }, hb, hc, ctx));
    }),
    onceMetric('tokens_per_sec', b.throughput.outputTokensPerSec, c.throughput.outputTokensPerSec, ctx),
    shareRateMetric('goodput', share(b), share(c), ctx),
    rateMetric('error_rate', b.requests.failed, sent(b), c.requests.failed, sent(c), ctx),
  ];
}

/** Every level of either section, baseline order first; undefined when neither result has an llm section. */
export function compareLlmSections(baseline: LlmSection | undefined, candidate: LlmSection | undefined, ctx: Ctx): LlmLevelComparison[] | undefined {
  if (baseline === undefined && candidate === undefined) return undefined;
  const bs = byLevel(baseline);
  const cs = byLevel(candidate);
  const keys = [...new Set([...bs.keys(), ...cs.keys()])];
  return keys.map((key) => {
    const b = bs.get(key);
    const c = cs.get(key);
    const one = (b ?? c)!;
    const where = `${one.run.path} ${one.level}`;
    const invalid = [
      ...(b && !b.run.validity.valid ? [`llm ${where}: the baseline measurement is invalid (${b.run.validity.reasons.join('; ')})`] : []),
      ...(c && !c.run.validity.valid ? [`llm ${where}: the candidate measurement is invalid (${c.run.validity.reasons.join('; ')})`] : []),
    ];
    return {
      path: one.run.path,
      level: one.level,
      load: one.run.load,
      presence: b && c ? 'both' : b ? 'baseline-only' : 'candidate-only',
      baselineCount: b ? sent(b.run) : 0,
      candidateCount: c ? sent(c.run) : 0,
      metrics: b && c ? compareLevel(b.run, c.run, where, ctx) : [],
      invalid,
    };
  });
}
