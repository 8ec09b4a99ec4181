// Live metrics of a load run (`--metrics prometheus=<remote-write URL>`, `--metrics otlp=<URL>`):
// once a second, and once more as each scenario ends, a snapshot of the run totals goes to every
// endpoint. One send per endpoint at a time: while it is in flight the next snapshots are dropped
// and counted (the counters are cumulative, so the next one sent carries them), never queued and
// never awaited by the schedule. Only a scenario's last snapshot waits, within the send timeout.
import type { LiveTotals, LoadObserver } from '../load/observer.js';
import { redactUrl } from '../result/machine.js';
import type { MetricsEndpoint } from './endpoints.js';
import type { RunLabels } from './labels.js';
import { OtlpSink } from './otlp.js';
import { remoteWrite } from './prometheus.js';
import { sampleCount, takeSnapshot, type Snapshot } from './snapshot.js';

export interface LiveMetricsOptions {
  readonly intervalMs?: number;
  /** Longest one send may take before it counts as failed. */
  readonly timeoutMs?: number;
}

interface SinkState {
  readonly endpoint: MetricsEndpoint;
  readonly send: (s: Snapshot) => Promise<void>;
  readonly close: () => Promise<void>;
  inFlight: Promise<void> | undefined;
  /** A scenario's last snapshot waiting for the send in flight. */
  final: Snapshot | undefined;
  sentSnapshots: number;
  sentSamples: number;
  droppedSamples: number;
  lastError: string | undefined;
}

export class LiveMetrics {
  private readonly sinks: SinkState[];
  private timer: NodeJS.Timeout | undefined;
  private current: { name: string; startMs: number; totals: LiveTotals } | undefined;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  constructor(endpoints: readonly MetricsEndpoint[], private readonly run: RunLabels, options: LiveMetricsOptions = {}) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.sinks = endpoints.map((endpoint) => {
      const otlp = endpoint.kind === 'otlp' ? new OtlpSink(endpoint.url, this.timeoutMs) : undefined;
      return {
        endpoint,
        send: (s: Snapshot) => (otlp ? otlp.send(s, this.run) : remoteWrite(endpoint.url, s, this.run, this.timeoutMs)),
        close: () => otlp?.shutdown() ?? Promise.resolve(),
        inFlight: undefined,
        final: undefined,
        sentSnapshots: 0,
        sentSamples: 0,
        droppedSamples: 0,
        lastError: undefined,
      };
    });
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
    if (!c) return;
    const snap = takeSnapshot(c.name, c.startMs, c.totals);
    for (const sink of this.sinks) {
      if (sink.inFlight === undefined) this.dispatch(sink, snap);
      else if (final) {
        if (sink.final) sink.droppedSamples += sampleCount(sink.final);
        sink.final = snap;
      } else sink.droppedSamples += sampleCount(snap);
    }
  }

  private dispatch(sink: SinkState, snap: Snapshot): void {
    sink.inFlight = sink
      .send(snap)
      .then(
        () => {
          sink.sentSnapshots += 1;
          sink.sentSamples += sampleCount(snap);
        },
        (e: unknown) => {
          sink.droppedSamples += sampleCount(snap);
          sink.lastError = e instanceof Error ? e.message : String(e);
        },
      )
      .finally(() => {
        sink.inFlight = undefined;
        const next = sink.final;
        sink.final = undefined;
        if (next) this.dispatch(sink, next);
      });
  }

  /** Wait for the last snapshots (each send within its timeout) and say what was sent and dropped. */
  async close(): Promise<string[]> {
    clearInterval(this.timer);
    for (const sink of this.sinks) while (sink.inFlight) await sink.inFlight;
    await Promise.all(this.sinks.map((s) => s.close().catch(() => undefined)));
    return this.sinks.map((s) => {
      const where = `${s.endpoint.kind} ${redactUrl(s.endpoint.url)}`;
      const dropped = s.droppedSamples > 0 ? `, ${s.droppedSamples} samples dropped (endpoint slow or failing${s.lastError ? `: ${redactUrl(s.lastError)}` : ''})` : '';
      return `metrics ${where}: ${s.sentSnapshots} snapshots sent (${s.sentSamples} samples)${dropped}`;
    });
  }
}
