// Live metrics of a load run (`--metrics prometheus=<remote-write URL>`, `--metrics otlp=<URL>`):
// once a second, and once more as each scenario ends, a snapshot of the run totals goes to every
// endpoint. The generator's thread only copies the totals (plain numbers and each histogram's
// counts array, a bounded memcpy) and transfers the copy to an exporter thread, which buckets,
// encodes and sends (src/metrics/sinks.ts: a slow endpoint drops samples, never the schedule).
// The copy's cost on the generator's thread is measured and reported as the run closes.
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { LiveTotals, LoadObserver } from '../load/observer.js';
import { threadEntry } from '../threads.js';
import type { MetricsEndpoint } from './endpoints.js';
import type { RunLabels } from './labels.js';
import { rawSnapshotBuffers, takeRawSnapshot, type RawSnapshot } from './snapshot.js';

export interface LiveMetricsOptions {
  readonly intervalMs?: number;
  /** Longest one send may take before it counts as failed. */
  readonly timeoutMs?: number;
}

export interface ExportThreadInit {
  readonly endpoints: readonly MetricsEndpoint[];
  readonly run: RunLabels;
  readonly timeoutMs: number;
}

export type ToExportThread = { type: 'snapshot'; raw: RawSnapshot; final: boolean } | { type: 'close' };
export type FromExportThread = { type: 'ready' } | { type: 'closed'; lines: string[] };

/** What taking the snapshots cost the generator's thread, microseconds. */
export interface SnapshotCost {
  readonly count: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;

export class LiveMetrics {
  private timer: NodeJS.Timeout | undefined;
  private current: { name: string; startMs: number; totals: LiveTotals } | undefined;
  private readonly intervalMs: number;
  private readonly costsUs: number[] = [];
  private failure: string | undefined;
  private closing: Promise<string[]> | undefined;
  private readonly closed: Promise<string[]>;

  private constructor(
    private readonly worker: Worker,
    options: LiveMetricsOptions,
  ) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.closed = new Promise((resolve) => {
      worker.on('message', (m: FromExportThread) => {
        if (m.type === 'closed') resolve(m.lines);
      });
      worker.on('error', (e) => (this.failure ??= e.message));
      worker.on('exit', () => resolve([`metrics: the exporter thread stopped${this.failure ? ` (${this.failure})` : ''}; the samples after it were lost`]));
    });
  }

  /** Start the exporter thread and wait until it has loaded (its SDKs load before the run, not during it). */
  static async open(endpoints: readonly MetricsEndpoint[], run: RunLabels, options: LiveMetricsOptions = {}): Promise<LiveMetrics> {
    const spec = threadEntry(import.meta.url, 'export-thread');
    const worker = new Worker(spec.entry, { ...spec.options, workerData: { endpoints, run, timeoutMs: options.timeoutMs ?? 2000 } satisfies ExportThreadInit });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromExportThread) => {
        if (m.type !== 'ready') return;
        worker.off('error', reject);
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    // The thread never holds the process open by itself; close() takes it back.
    worker.unref();
    return new LiveMetrics(worker, options);
  }

  readonly observer: LoadObserver = {
    scenarioStarted: (start, totals) => {
      this.current = { name: start.name, startMs: Date.parse(start.startedAt), totals };
      clearInterval(this.timer);
      this.timer = setInterval(() => this.sample(false), this.intervalMs);
      this.timer.unref();
    },
    scenarioDone: () => {
      clearInterval(this.timer);
      this.timer = undefined;
      this.sample(true);
      this.current = undefined;
    },
  };

  private sample(final: boolean): void {
    const c = this.current;
    if (!c || this.closing) return;
    const t0 = performance.now();
    const raw = takeRawSnapshot(c.name, c.startMs, c.totals);
    this.worker.postMessage({ type: 'snapshot', raw, final } satisfies ToExportThread, rawSnapshotBuffers(raw));
    this.costsUs.push((performance.now() - t0) * 1000);
  }

  /** What the snapshots cost the generator's thread so far (copy and post, per snapshot). */
  snapshotCost(): SnapshotCost {
    const sorted = [...this.costsUs].sort((a, b) => a - b);
    const round = (us: number) => Math.round(us * 10) / 10;
    return { count: sorted.length, p50Us: round(quantile(sorted, 0.5)), p99Us: round(quantile(sorted, 0.99)), maxUs: round(sorted[sorted.length - 1] ?? 0) };
  }

  /** Wait for the last snapshots (each send within its timeout) and say what was sent, dropped, and what taking them cost. */
  close(): Promise<string[]> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      this.worker.ref();
      this.worker.postMessage({ type: 'close' } satisfies ToExportThread);
      const lines = await this.closed;
      await this.worker.terminate();
      const c = this.snapshotCost();
      return [...lines, `metrics: ${c.count} snapshots taken on the generator's thread, ${c.p50Us} µs p50, ${c.p99Us} µs p99, ${c.maxUs} µs max each (bucketing, encoding and sending run in the exporter thread)`];
    })();
    return this.closing;
  }
}
