// The live-metrics endpoints' side (run in the exporter thread, src/metrics/export-thread.ts):
// one send per endpoint at a time; while it is in flight the next snapshots are dropped and
// counted (the counters are cumulative, so the next one sent carries them), never queued. Only a
// scenario's last snapshot waits for the send in flight, within the send timeout. A snapshot is
// bucketed and encoded here, once, and only when some endpoint is free to send it.
import { redactUrl } from '../result/machine.js';
import type { MetricsEndpoint } from './endpoints.js';
import type { RunLabels } from './labels.js';
import { OtlpSink } from './otlp.js';
import { remoteWrite } from './prometheus.js';
import { sampleCount, snapshotOf, type RawSnapshot, type Snapshot } from './snapshot.js';

/** A raw snapshot bucketed at most once, however many endpoints send it. */
class Pending {
  private bucketed: Snapshot | undefined;
  constructor(readonly raw: RawSnapshot) {}
  get snapshot(): Snapshot {
    this.bucketed ??= snapshotOf(this.raw);
    return this.bucketed;
  }
}

interface SinkState {
  readonly endpoint: MetricsEndpoint;
  readonly send: (s: Snapshot) => Promise<void>;
  readonly close: () => Promise<void>;
  inFlight: Promise<void> | undefined;
  /** A scenario's last snapshot waiting for the send in flight. */
  final: Pending | undefined;
  sentSnapshots: number;
  sentSamples: number;
  droppedSamples: number;
  lastError: string | undefined;
}

export class MetricsSinks {
  private readonly sinks: SinkState[];

  constructor(endpoints: readonly MetricsEndpoint[], private readonly run: RunLabels, timeoutMs: number) {
    this.sinks = endpoints.map((endpoint) => {
      const otlp = endpoint.kind === 'otlp' ? new OtlpSink(endpoint.url, timeoutMs) : undefined;
      return {
        endpoint,
        send: (s: Snapshot) => (otlp ? otlp.send(s, this.run) : remoteWrite(endpoint.url, s, this.run, timeoutMs)),
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

  /** Send a snapshot to every endpoint that is free; a busy one drops it (or, the scenario's last, keeps it for later). */
  offer(raw: RawSnapshot, final: boolean): void {
    const pending = new Pending(raw);
    for (const sink of this.sinks) {
      if (sink.inFlight === undefined) this.dispatch(sink, pending);
      else if (final) {
        if (sink.final) sink.droppedSamples += sampleCount(sink.final.raw);
        sink.final = pending;
      } else sink.droppedSamples += sampleCount(raw);
    }
  }

  private dispatch(sink: SinkState, pending: Pending): void {
    const samples = sampleCount(pending.raw);
    sink.inFlight = Promise.resolve()
      .then(() => sink.send(pending.snapshot))
      .then(
        () => {
          sink.sentSnapshots += 1;
          sink.sentSamples += samples;
        },
        (e: unknown) => {
          sink.droppedSamples += samples;
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
    for (const sink of this.sinks) while (sink.inFlight) await sink.inFlight;
    await Promise.all(this.sinks.map((s) => s.close().catch(() => undefined)));
    return this.sinks.map((s) => {
      const where = `${s.endpoint.kind} ${redactUrl(s.endpoint.url)}`;
      const dropped = s.droppedSamples > 0 ? `, ${s.droppedSamples} samples dropped (endpoint slow or failing${s.lastError ? `: ${redactUrl(s.lastError)}` : ''})` : '';
      return `metrics ${where}: ${s.sentSnapshots} snapshots sent (${s.sentSamples} samples)${dropped}`;
    });
  }
}
