// OTLP/HTTP through the OpenTelemetry SDK's exporter: each snapshot becomes one ResourceMetrics
// with cumulative sums, explicit-bucket histograms on the same bounds as the Prometheus series,
// and gauges. The data points are built from the run's own totals (no SDK instruments: a
// histogram instrument would take every sample again, on the generator's thread).
import { ValueType, type HrTime } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { VERSION } from '../version.js';
import type { RunLabels } from './labels.js';
import { LATENCY_BOUNDS_S, type HistogramSnapshot, type Snapshot } from './snapshot.js';

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

function histogramPoint(h: HistogramSnapshot): { buckets: { boundaries: number[]; counts: number[] }; count: number; sum: number; min: number; max: number } {
  // OTLP counts per bucket (not cumulative), one more than the bounds (the overflow bucket).
  const counts = LATENCY_BOUNDS_S.map((_, i) => (h.cumulative[i] ?? 0) - (i > 0 ? (h.cumulative[i - 1] ?? 0) : 0));
  counts.push(h.count - (h.cumulative[h.cumulative.length - 1] ?? 0));
  return { buckets: { boundaries: [...LATENCY_BOUNDS_S], counts }, count: h.count, sum: h.sumS, min: h.minS, max: h.maxS };
}

export function toResourceMetrics(s: Snapshot, run: RunLabels): ResourceMetrics {
  const base = { 'qbench.run_id': run.runId, 'qbench.scenario': s.scenario, 'qbench.shard': run.shard, 'qbench.target': run.target };
  const startTime = hr(s.startMs);
  const endTime = hr(s.atMs);
  const cumulative = AggregationTemporality.CUMULATIVE;
  const metrics: MetricData[] = [
    {
      descriptor: { name: 'qbench.requests', description: 'Requests answered (or failed at the network) by outcome class', unit: '{request}', valueType: ValueType.INT },
      aggregationTemporality: cumulative,
      dataPointType: DataPointType.SUM,
      isMonotonic: true,
      dataPoints: s.steps.flatMap((st) => Object.entries(st.requests).map(([status, n]) => ({ startTime, endTime, attributes: { ...base, 'qbench.step': st.step, 'qbench.status': status }, value: n }))),
    },
    {
      descriptor: { name: 'qbench.request.latency', description: 'Latency from the intended start (coordinated omission corrected)', unit: 's', valueType: ValueType.DOUBLE },
      aggregationTemporality: cumulative,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: s.steps.map((st) => ({ startTime, endTime, attributes: { ...base, 'qbench.step': st.step }, value: histogramPoint(st.latency) })),
    },
    {
      descriptor: { name: 'qbench.send_lateness', description: 'How late iterations started against their schedule', unit: 's', valueType: ValueType.DOUBLE },
      aggregationTemporality: cumulative,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: [{ startTime, endTime, attributes: base, value: histogramPoint(s.lateness) }],
    },
    {
      descriptor: { name: 'qbench.in_flight', description: 'Iterations in flight', unit: '{iteration}', valueType: ValueType.INT },
      aggregationTemporality: cumulative,
      dataPointType: DataPointType.GAUGE,
      dataPoints: [{ startTime, endTime, attributes: base, value: s.inFlight }],
    },
    ...(['started', 'dropped'] as const).map(
      (k): MetricData => ({
        descriptor: { name: `qbench.iterations.${k}`, description: `Iterations ${k} (dropped: the in-flight cap was reached)`, unit: '{iteration}', valueType: ValueType.INT },
        aggregationTemporality: cumulative,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: [{ startTime, endTime, attributes: base, value: k === 'started' ? s.iterationsStarted : s.iterationsDropped }],
      }),
    ),
  ];
  return { resource: resourceFromAttributes({ 'service.name': 'qbench', 'service.version': VERSION }), scopeMetrics: [{ scope: { name: 'qbench', version: VERSION }, metrics }] };
}

export class OtlpSink {
  private readonly exporter: OTLPMetricExporter;
  constructor(url: string, timeoutMs: number) {
    this.exporter = new OTLPMetricExporter({ url, timeoutMillis: timeoutMs });
  }

  /** Resolves when the collector accepted the snapshot, rejects otherwise. */
  send(s: Snapshot, run: RunLabels): Promise<void> {
    return new Promise((resolve, reject) => {
      this.exporter.export(toResourceMetrics(s, run), (r) => (r.code === ExportResultCode.SUCCESS ? resolve() : reject(r.error ?? new Error('OTLP export failed'))));
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}
