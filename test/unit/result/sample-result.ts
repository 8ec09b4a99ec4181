// A realistic synthetic QbenchResult built through the model, with real encoded HDR histograms
// from seeded log-normal samples: used by the report unit tests and the browser test.
import { RATE_LIMITS, RATE_WINDOW_MS, SECOND_MS } from '../../../src/spec/index.js';
import { histogramFromMs, summarize } from '../../../src/result/histogram.js';
import { computeOverall } from '../../../src/result/overall.js';
import { logNormal, seededRng, type Rng } from '../../../src/report/random.js';
import {
  QbenchResult,
  SCHEMA_VERSION,
  type CheckResult,
  type IntervalPoint,
  type LoadScenarioResult,
  type OutcomeCounts,
  type StepResult,
} from '../../../src/result/model.js';

export interface SampleOptions {
  seed?: number;
  /** Requests per step. */
  samples?: number;
  /** Multiply every latency sample by this. */
  scale?: number;
  /** Multiply samples above the 98th percentile of the generating distribution by this (tail regression). */
  tailFactor?: number;
  withConformanceFailure?: boolean;
  withFuzzFailure?: boolean;
  /** Mark the generator invalid (it could not keep up). */
  invalid?: boolean;
  /** Shard label: changes only the meta labels. */
  shard?: string;
  startedAt?: string;
}

const MEDIAN_MS = 40;
const SIGMA = 0.45;
/** 98th percentile of the log-normal(MEDIAN_MS, SIGMA): z(0.98) = 2.054. */
const P98_MS = MEDIAN_MS * Math.exp(SIGMA * 2.054);

/** Draw latency samples (ms) from the sample distribution. */
export function drawLatencies(rng: Rng, n: number, scale = 1, tailFactor = 1): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    let v = logNormal(rng, MEDIAN_MS, SIGMA);
    if (v > P98_MS) v *= tailFactor;
    out.push(v * scale);
  }
  return out;
}

const zeroCounts = (): OutcomeCounts => ({ '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 });

function step(rng: Rng, name: string, n: number, opts: SampleOptions): { step: StepResult; samples: number[] } {
  const samples = drawLatencies(rng, n, opts.scale ?? 1, opts.tailFactor ?? 1);
  const service = samples.map((v) => v * 0.8);
  const n429 = Math.floor(n * 0.02);
  const n5xx = Math.floor(n * 0.002);
  const counts = { ...zeroCounts(), '2xx': n - n429 - n5xx, '429': n429, '5xx': n5xx };
  return {
    samples,
    step: {
      step: name,
      counts,
      latency: summarize(histogramFromMs(samples)),
      serviceTime: summarize(histogramFromMs(service)),
      byOutcome: { '2xx': summarize(histogramFromMs(samples.slice(0, counts['2xx']))) },
      statusCodes: { '200': counts['2xx'], '429': n429, '500': n5xx },
    },
  };
}

function series(samples: number[], durationSec: number): IntervalPoint[] {
  const per = Math.max(1, Math.floor(samples.length / durationSec));
  const points: IntervalPoint[] = [];
  for (let t = 0; t < durationSec; t++) {
    const chunk = samples.slice(t * per, (t + 1) * per).sort((a, b) => a - b);
    const q = (p: number) => chunk[Math.min(chunk.length - 1, Math.floor(p * chunk.length))] ?? 0;
    const n429 = Math.floor(chunk.length * 0.02);
    points.push({
      tSec: t,
      counts: { ...zeroCounts(), '2xx': chunk.length - n429, '429': n429 },
      p50Ms: q(0.5),
      p90Ms: q(0.9),
      p99Ms: q(0.99),
      maxMs: chunk[chunk.length - 1] ?? 0,
      serviceP99Ms: q(0.99) * 0.8,
      offeredPerSec: chunk.length,
      goodputPerSec: chunk.length - n429,
    });
  }
  return points;
}

function scenario(rng: Rng, name: string, gpu: boolean, opts: SampleOptions): LoadScenarioResult {
  const n = opts.samples ?? 4000;
  const durationSec = 20;
  const steps = gpu ? ['runsync'] : ['run', 'status'];
  const built = steps.map((s) => step(rng, s, n, opts));
  const lateness = drawLatencies(rng, n, 0.01);
  const limitPerWindow = RATE_LIMITS.run.requestsPerWindow;
  const windows = Math.floor((durationSec * SECOND_MS) / RATE_WINDOW_MS);
  const charts: LoadScenarioResult['charts'] = gpu
    ? [
        {
          id: 'ttft',
          title: 'Time to first token',
          xLabel: 's',
          yLabel: 'ms',
          xKind: 'time',
          series: [{ name: 'TTFT p50', points: Array.from({ length: durationSec }, (_, t) => [t, 180 + 40 * Math.sin(t / 3)] as [number, number]) }],
        },
        {
          id: 'tokens-per-sec',
          title: 'Generated tokens per second',
          xLabel: 's',
          yLabel: 'tokens/s',
          xKind: 'time',
          series: [{ name: 'tokens/s', points: Array.from({ length: durationSec }, (_, t) => [t, 900 + 15 * t] as [number, number]) }],
        },
        {
          id: 'kv-cache',
          title: 'GPU KV-cache usage',
          xLabel: 's',
          yLabel: 'fraction',
          xKind: 'time',
          series: [{ name: 'gpu_kv_cache_usage', points: Array.from({ length: durationSec }, (_, t) => [t, Math.min(0.95, 0.1 + t * 0.045)] as [number, number]) }],
          referenceLines: [{ label: 'full', y: 1 }],
        },
      ]
    : [
        {
          id: 'accepted-per-window',
          title: 'Accepted /run requests per 10 s window vs the documented limit',
          xLabel: 'window',
          yLabel: 'requests',
          xKind: 'category',
          categories: Array.from({ length: windows }, (_, i) => `w${i + 1}`),
          series: [{ name: 'accepted', points: Array.from({ length: windows }, (_, i) => [i, limitPerWindow - 3 * i] as [number, number]) }],
          referenceLines: [{ label: '§8 /run limit', y: limitPerWindow }],
        },
      ];
  const valid = !opts.invalid;
  return {
    name,
    description: gpu ? 'Streaming text generation on an emulated GPU worker' : 'Constant arrival rate on /run, polling /status',
    executor: 'constant-arrival-rate',
    config: { name, executor: 'constant-arrival-rate', ratePerSec: n / durationSec, durationSec },
    startedAt: opts.startedAt ?? '2026-11-22T10:00:00.000Z',
    durationMs: durationSec * SECOND_MS,
    steps: built.map((b) => b.step),
    series: built.map((b) => ({ step: b.step.step, points: series(b.samples, durationSec) })),
    validity: {
      valid,
      reasons: valid ? [] : ['the generator sent 38% of requests more than 10 ms late'],
      targetRatePerSec: n / durationSec,
      achievedRatePerSec: valid ? n / durationSec : (n / durationSec) * 0.7,
      droppedIterations: valid ? 0 : 120,
      sendLateness: summarize(histogramFromMs(lateness)),
      eventLoopDelayMs: { count: 100, min: 0.01, mean: 0.4, stddev: 0.2, p50: 0.3, p90: 0.7, p95: 0.9, p99: 1.6, p999: 2.5, max: 3.1 },
      generatorCpuPercent: 35,
      threads: 1,
    },
    thresholds: [
      { metric: `${steps[0] ?? 'run'}.latency`, expression: 'p(99)<2000', observed: built[0]?.step.latency.percentiles.p99 ?? 0, passed: true, abortOnFail: false },
      { metric: `${steps[0] ?? 'run'}.errors.rate`, expression: 'rate<0.05', observed: 0.022, passed: true, abortOnFail: false },
    ],
    charts,
    verdict: {
      status: valid ? 'pass' : 'invalid',
      summary: valid ? 'all thresholds passed' : 'the generator could not keep up',
      findings: gpu
        ? []
        : [{ label: 'accepted per 10 s window', clause: '§8', expected: `<= ${limitPerWindow}`, observed: `${limitPerWindow}`, passed: true }],
    },
  };
}

function check(id: string, section: string, status: 'pass' | 'fail' | 'skip', kind: 'spec' | 'compat' = 'spec'): CheckResult {
  const base = {
    id,
    title: `${id.replace(/-/g, ' ')}`,
    clause: { section, quote: `Rule quoted from ${section} for ${id}` },
    interface: 'queue' as const,
    tags: ['quick'],
    kind,
    durationMs: 12,
  };
  if (status === 'pass') return { ...base, verdict: { status: 'pass', observed: '200 with IN_QUEUE' } };
  if (status === 'skip') return { ...base, verdict: { status: 'skip', reason: 'needs a handler that streams' } };
  return {
    ...base,
    verdict: {
      status: 'fail',
      expected: '400 for executionTimeout below 5 s',
      observed: '200 with status IN_QUEUE',
      exchanges: [
        {
          request: {
            method: 'POST',
            url: 'http://127.0.0.1:8080/v2/ep/run',
            headers: { 'content-type': 'application/json', authorization: '[REDACTED]' },
            body: '{"input":{},"policy":{"executionTimeout":4999}}',
            bodyBytes: 46,
          },
          response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"id":"abc","status":"IN_QUEUE"}', bodyBytes: 32, durationMs: 3.2 },
        },
      ],
      curl: `curl -sS -X POST 'http://127.0.0.1:8080/v2/ep/run' -H 'authorization: $API_KEY' -d '{"input":{},"policy":{"executionTimeout":4999}}'`,
    },
  };
}

/** Build a validated sample result. */
export function sampleResult(opts: SampleOptions = {}): QbenchResult {
  const rng = seededRng(opts.seed ?? 1);
  const checks = [
    check('run-returns-in-queue', '§4.1', 'pass'),
    check('runsync-returns-output', '§4.1', 'pass'),
    check('execution-timeout-min', '§2.1', opts.withConformanceFailure ? 'fail' : 'pass'),
    check('ttl-min', '§2.1', 'pass'),
    check('retry-only-from-failed', '§3.1', 'pass'),
    check('stream-chunk-size', '§2.3', 'skip'),
    check('rate-limit-run', '§8', 'pass'),
    check('status-200-exactly', 'WIRE-COMPAT', 'pass', 'compat'),
  ];
  const summary = {
    pass: checks.filter((c) => c.verdict.status === 'pass').length,
    fail: checks.filter((c) => c.verdict.status === 'fail').length,
    skip: checks.filter((c) => c.verdict.status === 'skip').length,
    error: 0,
    expectedFailures: 0,
    unexpectedPasses: 0,
  };
  const startedAt = opts.startedAt ?? '2026-11-22T10:00:00.000Z';
  const partial: Omit<QbenchResult, 'overall'> = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'qbench-result',
    meta: {
      qbenchVersion: '0.1.0',
      command: ['qbench', 'check', '--profile', 'quick'],
      startedAt,
      endedAt: new Date(Date.parse(startedAt) + 45_000).toISOString(),
      durationMs: 45_000,
      target: { kind: 'emulator', queueUrl: 'http://127.0.0.1:8080', endpointId: 'ep', timeScale: 1 },
      machine: { hostname: 'ci-1', platform: 'linux', arch: 'x64', cpus: 2, cpuModel: 'test cpu', memoryBytes: 4e9, nodeVersion: 'v20.19.0' },
      ...(opts.shard ? { labels: { shard: opts.shard } } : {}),
    },
    conformance: {
      profile: 'quick',
      checks,
      coverage: [
        { section: '§2.1', clause: 'policy.executionTimeout bounds', checkIds: ['execution-timeout-min'] },
        { section: '§6', clause: 'webhook retries', checkIds: [], uncoveredReason: 'needs a webhook receiver' },
      ],
      summary,
    },
    load: { scenarios: [scenario(rng, 'steady-run', false, opts), scenario(rng, 'gpu-stream', true, opts)] },
    fuzz: {
      seed: 42,
      numRuns: 200,
      durationMs: 5_000,
      properties: [
        { name: 'run rejects invalid policy', clause: { section: '§2.1', quote: 'min 5 seconds' }, kind: 'validation', status: 'pass', runs: 200, durationMs: 2_000 },
        opts.withFuzzFailure
          ? {
              name: 'job state machine',
              clause: { section: '§3.1', quote: 'Retry is accepted only from FAILED or TIMED_OUT.' },
              kind: 'state-machine',
              status: 'fail',
              runs: 37,
              durationMs: 1_500,
              finding: {
                seed: 42,
                path: '36:1:0',
                counterexample: '[run(), cancel(), retry()]',
                expected: 'retry of a CANCELLED job is refused (4xx)',
                observed: '200 IN_QUEUE',
                curl: "curl -sS -X POST 'http://127.0.0.1:8080/v2/ep/retry/abc' -H 'authorization: $API_KEY'",
                exchanges: [],
              },
            }
          : { name: 'job state machine', clause: { section: '§3.1', quote: 'Retry is accepted only from FAILED or TIMED_OUT.' }, kind: 'state-machine', status: 'pass', runs: 200, durationMs: 1_500 },
      ],
    },
  };
  return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
}
