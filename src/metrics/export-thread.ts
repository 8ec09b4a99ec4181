// The exporter thread of live metrics: it receives the raw snapshots the generator's thread
// copies once a second, buckets, encodes (protobuf + snappy, OTLP) and sends them, so none of
// that work runs on the thread that keeps the schedule. See src/metrics/live.ts for its other side.
import { parentPort, workerData } from 'node:worker_threads';
import { MetricsSinks } from './sinks.js';
import type { ExportThreadInit, FromExportThread, ToExportThread } from './live.js';

const port = parentPort;
if (!port) throw new Error('export-thread must run in a worker thread');
const init = workerData as ExportThreadInit;
const sinks = new MetricsSinks(init.endpoints, init.run, init.timeoutMs);
const post = (m: FromExportThread): void => port.postMessage(m);
port.on('message', (m: ToExportThread) => {
  if (m.type === 'snapshot') sinks.offer(m.raw, m.final);
  else if (m.type === 'close') {
    void sinks.close().then(
      (lines) => post({ type: 'closed', lines }),
      (e: unknown) => post({ type: 'closed', lines: [`metrics: closing the exporters failed: ${e instanceof Error ? e.message : String(e)}`] }),
    ).finally(() => port.close());
  }
});
post({ type: 'ready' });
