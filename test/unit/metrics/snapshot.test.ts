// The live-metrics buckets and flags: cumulative counts on the fixed bounds equal the samples
// at or below each bound (samples drawn away from the bounds' HDR edges), OTLP per-bucket counts
// sum to the total, and a bad --metrics value is a usage error naming the flag. <1 s.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistogram, recordMs } from '../../../src/load/histogram.js';
import { histogramSnapshot, LATENCY_BOUNDS_S } from '../../../src/metrics/snapshot.js';
import { toResourceMetrics } from '../../../src/metrics/otlp.js';
import { toTimeseries } from '../../../src/metrics/prometheus.js';
import { parseMetricsFlags } from '../../../src/metrics/endpoints.js';

describe('live metrics buckets', () => {
  it('count the samples at or below each bound', () => {
    // Geometric midpoints between bounds: far (≥9%) from any bound, beyond HDR's 0.1% resolution.
    const mids = LATENCY_BOUNDS_S.slice(1).map((b, i) => Math.sqrt(b * (LATENCY_BOUNDS_S[i] ?? b)) * 1000);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: mids.length - 1 }), { maxLength: 300 }), (idx) => {
        const h = createHistogram();
        for (const i of idx) recordMs(h, mids[i] ?? 1);
        const snap = histogramSnapshot(h);
        LATENCY_BOUNDS_S.forEach((b, k) => expect(snap.cumulative[k]).toBe(idx.filter((i) => (mids[i] ?? 0) / 1000 <= b).length));
        expect(snap.count).toBe(idx.length);
      }),
      { numRuns: 25 },
    );
  });

  it('give OTLP per-bucket counts that add up, and Prometheus a +Inf bucket equal to the count', () => {
    const h = createHistogram();
    for (const ms of [0.1, 3, 3, 40, 900, 120_000]) recordMs(h, ms);
    const steps = [{ step: 'run', requests: { '2xx': 5, '429': 1, '4xx': 0, '5xx': 0, network_error: 0 }, latency: histogramSnapshot(h) }];
    const snap = { scenario: 's', startMs: 1, atMs: 2, steps, lateness: histogramSnapshot(createHistogram()), inFlight: 0, iterationsStarted: 6, iterationsDropped: 0 };
    const run = { runId: 'r', shard: '0/1', target: 'http://127.0.0.1:1/v2/demo' };
    const rm = toResourceMetrics(snap, run);
    const latency = rm.scopeMetrics[0]?.metrics.find((m) => m.descriptor.name === 'qbench.request.latency');
    const point = latency?.dataPoints[0]?.value as { buckets: { counts: number[] }; count: number };
    expect(point.buckets.counts.reduce((a, b) => a + b, 0)).toBe(6);
    expect(point.buckets.counts[point.buckets.counts.length - 1]).toBe(1);
    const inf = toTimeseries(snap, run).find((t) => t.labels.__name__ === 'qbench_request_latency_seconds_bucket' && t.labels['le'] === '+Inf');
    expect(inf?.samples[0]?.value).toBe(6);
  });
});

describe('--metrics', () => {
  it('takes prometheus=URL and otlp=URL, and names the problem otherwise', () => {
    expect(parseMetricsFlags(['prometheus=http://127.0.0.1:9090/api/v1/write', 'otlp=https://otel.example/v1/metrics'])).toEqual([
      { kind: 'prometheus', url: 'http://127.0.0.1:9090/api/v1/write' },
      { kind: 'otlp', url: 'https://otel.example/v1/metrics' },
    ]);
    expect(() => parseMetricsFlags(['graphite=http://x'])).toThrow(/--metrics "graphite=http:\/\/x": write prometheus=<remote-write URL> or otlp=/);
    expect(() => parseMetricsFlags(['prometheus=not a url'])).toThrow(/--metrics prometheus=: "not a url" is not a URL/);
    expect(() => parseMetricsFlags(['otlp=ftp://h/x'])).toThrow(/an http or https URL, got ftp:/);
  });
});
