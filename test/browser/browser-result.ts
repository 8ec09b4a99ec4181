// The result the browser test renders: a short real run against the in-process emulator (open-loop
// /run at a fixed rate, each followed by one /status, latencies recorded into HDR histograms from
// the intended start and from the actual send), merged into the synthetic sample for the sections
// this run does not produce (conformance, fuzz, the GPU scenario's charts).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { startEmulator } from '../../src/emulator/index.js';
import { createHistogram, percentilesOf, recordMs, summarize, type Histogram } from '../../src/report/histogram.js';
import { buildMeta } from '../../src/report/machine.js';
import { QbenchResult, type IntervalPoint, type LoadScenarioResult, type OutcomeClass, type OutcomeCounts, type StepResult } from '../../src/report/model.js';
import { computeOverall } from '../../src/report/overall.js';
import { evaluateThresholds } from '../../src/report/thresholds.js';
import { RATE_LIMITS, RATE_WINDOW_MS, SECOND_MS } from '../../src/spec/index.js';
import { sampleResult } from '../unit/report/sample-result.js';

const API_KEY = 'browser-test-key';
const RATE_PER_SEC = 80;
const DURATION_SEC = 3;

const zero = (): OutcomeCounts => ({ '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 });
const classOf = (status: number): OutcomeClass => (status >= 200 && status < 300 ? '2xx' : status === 429 ? '429' : status >= 500 ? '5xx' : '4xx');

interface StepRec {
  latency: Histogram;
  service: Histogram;
  counts: OutcomeCounts;
  codes: Record<string, number>;
  perSec: Array<{ counts: OutcomeCounts; lat: Histogram; svc: Histogram; offered: number }>;
}

function newStep(): StepRec {
  return { latency: createHistogram(), service: createHistogram(), counts: zero(), codes: {}, perSec: [] };
}

function record(s: StepRec, sec: number, status: number | null, latencyMs: number, serviceMs: number): void {
  const cls: OutcomeClass = status === null ? 'network_error' : classOf(status);
  s.counts[cls]++;
  if (status !== null) s.codes[String(status)] = (s.codes[String(status)] ?? 0) + 1;
  recordMs(s.latency, latencyMs);
  recordMs(s.service, serviceMs);
  const slot = (s.perSec[sec] ??= { counts: zero(), lat: createHistogram(), svc: createHistogram(), offered: 0 });
  slot.counts[cls]++;
  recordMs(slot.lat, latencyMs);
  recordMs(slot.svc, serviceMs);
}

function stepResult(name: string, s: StepRec): StepResult {
  return { step: name, counts: s.counts, latency: summarize(s.latency), serviceTime: summarize(s.service), statusCodes: s.codes };
}

function series(s: StepRec): IntervalPoint[] {
  return s.perSec.map((slot, tSec) => {
    const p = percentilesOf(slot.lat);
    return {
      tSec,
      counts: slot.counts,
      p50Ms: p.p50,
      p90Ms: p.p90,
      p99Ms: p.p99,
      maxMs: p.max,
      serviceP99Ms: percentilesOf(slot.svc).p99,
      offeredPerSec: slot.offered,
      goodputPerSec: slot.counts['2xx'],
    };
  });
}

/** Drive the emulator open-loop for a few seconds and build a LoadScenarioResult from what was measured. */
async function realScenario(url: string, endpointId: string): Promise<{ scenario: LoadScenarioResult; startedAt: Date; endedAt: Date }> {
  const pool = new Pool(url, { connections: 32 });
  const run = newStep();
  const status = newStep();
  const lateness = createHistogram();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const startedAt = new Date();
  const t0 = performance.now();
  const total = RATE_PER_SEC * DURATION_SEC;
  const inFlight: Promise<void>[] = [];
  const headers = { authorization: API_KEY, 'content-type': 'application/json' };
  for (let i = 0; i < total; i++) {
    const intended = t0 + (i * SECOND_MS) / RATE_PER_SEC;
    const wait = intended - performance.now();
    if (wait > 1) await sleep(wait);
    const sent = performance.now();
    recordMs(lateness, Math.max(0, sent - intended));
    const sec = Math.floor((intended - t0) / SECOND_MS);
    const slot = (run.perSec[sec] ??= { counts: zero(), lat: createHistogram(), svc: createHistogram(), offered: 0 });
    slot.offered++;
    inFlight.push(
      (async () => {
        let id: string | undefined;
        try {
          const res = await pool.request({ method: 'POST', path: `/v2/${endpointId}/run`, headers, body: JSON.stringify({ input: { mock_return: `job ${i}` } }) });
          const body = (await res.body.json()) as { id?: string };
          id = body.id;
          const done = performance.now();
          record(run, sec, res.statusCode, done - intended, done - sent);
        } catch {
          const done = performance.now();
          record(run, sec, null, done - intended, done - sent);
        }
        if (!id) return;
        const sSent = performance.now();
        try {
          const res = await pool.request({ method: 'GET', path: `/v2/${endpointId}/status/${id}`, headers: { authorization: API_KEY } });
          await res.body.dump();
          const done = performance.now();
          record(status, sec, res.statusCode, done - sSent, done - sSent);
        } catch {
          const done = performance.now();
          record(status, sec, null, done - sSent, done - sSent);
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  const endedAt = new Date();
  loop.disable();
  await pool.close();
  for (const slot of status.perSec) if (slot) slot.offered = slot.counts['2xx'] + slot.counts['429'] + slot.counts['4xx'] + slot.counts['5xx'] + slot.counts.network_error;
  const durationMs = endedAt.getTime() - startedAt.getTime();
  const achieved = total / (durationMs / SECOND_MS);
  const ev = (ns: number) => ns / 1e6;
  const limitPerSec = RATE_LIMITS.run.requestsPerWindow / (RATE_WINDOW_MS / SECOND_MS);
  const scenario: LoadScenarioResult = {
    name: 'emulator-run-status',
    description: `A real run against the in-process emulator: ${RATE_PER_SEC} /run per second for ${DURATION_SEC} s, each followed by one /status`,
    executor: 'constant-arrival-rate',
    config: { ratePerSec: RATE_PER_SEC, durationSec: DURATION_SEC, steps: ['run', 'status'] },
    startedAt: startedAt.toISOString(),
    durationMs,
    steps: [stepResult('run', run), stepResult('status', status)],
    series: [
      { step: 'run', points: series(run) },
      { step: 'status', points: series(status) },
    ],
    validity: {
      valid: true,
      reasons: [],
      targetRatePerSec: RATE_PER_SEC,
      achievedRatePerSec: achieved,
      droppedIterations: 0,
      sendLateness: summarize(lateness),
      eventLoopDelayMs: {
        count: loop.count,
        min: ev(loop.min),
        mean: ev(loop.mean),
        stddev: Number.isFinite(loop.stddev) ? ev(loop.stddev) : 0,
        p50: ev(loop.percentile(50)),
        p90: ev(loop.percentile(90)),
        p95: ev(loop.percentile(95)),
        p99: ev(loop.percentile(99)),
        p999: ev(loop.percentile(99.9)),
        max: ev(loop.max),
      },
      generatorCpuPercent: 0,
      threads: 1,
    },
    thresholds: [],
    charts: [
      {
        id: 'accepted-per-second',
        title: 'Accepted /run per second vs the documented limit',
        xLabel: 'time since start (s)',
        yLabel: 'requests per second',
        xKind: 'time',
        series: [{ name: 'accepted /run', points: run.perSec.map((s, t) => [t, s.counts['2xx']] as [number, number]) }],
        referenceLines: [{ label: '§8 /run limit per second', y: limitPerSec }],
      },
    ],
    verdict: { status: 'pass', summary: '', findings: [] },
  };
  scenario.thresholds = evaluateThresholds(scenario, [
    { metric: 'run.latency', expression: 'p(99)<2000' },
    { metric: 'run.errors.rate', expression: 'rate<0.01' },
  ]);
  const failed = scenario.thresholds.filter((t) => !t.passed).length;
  scenario.verdict = {
    status: failed > 0 ? 'fail' : 'pass',
    summary: failed > 0 ? `${failed} thresholds failed` : 'all thresholds passed',
    findings: [{ label: 'no 429 below the documented /run rate', clause: '§8', expected: '0 answers 429', observed: `${run.counts['429']} answers 429`, passed: run.counts['429'] === 0 }],
  };
  return { scenario, startedAt, endedAt };
}

/** A result with a real emulator run in its load section (plus synthetic conformance, fuzz and GPU sections). */
export async function browserTestResult(): Promise<QbenchResult> {
  const emulator = await startEmulator({ apiKey: API_KEY, endpoints: ['demo'] });
  try {
    const { scenario, startedAt, endedAt } = await realScenario(emulator.url, 'demo');
    const sample = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 2_000 });
    const gpu = sample.load!.scenarios.find((s) => s.name === 'gpu-stream')!;
    const partial: Omit<QbenchResult, 'overall'> = {
      ...sample,
      meta: buildMeta({
        command: ['qbench', 'test', '--api-key', API_KEY],
        startedAt,
        endedAt,
        target: { kind: 'emulator', queueUrl: emulator.url, endpointId: 'demo', timeScale: emulator.config.timeScale },
      }),
      load: { scenarios: [scenario, gpu] },
    };
    return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
  } finally {
    await emulator.close();
  }
}
