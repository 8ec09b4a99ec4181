// Prometheus remote write (protobuf + snappy through the prometheus-remote-write package): each
// snapshot becomes cumulative counters (`_total`), classic histograms (`_bucket{le}`, `_count`,
// `_sum`) and gauges, timestamped with the snapshot's time.
import { pushTimeseries } from 'prometheus-remote-write';
import { boundedRequest } from '../client/bounded-request.js';
import { VERSION } from '../version.js';
import type { RunLabels } from './labels.js';
import { LATENCY_BOUNDS_S, type HistogramSnapshot, type Snapshot } from './snapshot.js';

interface Timeseries {
  labels: { __name__: string; [key: string]: string };
  samples: { value: number; timestamp: number }[];
}

/** A bound as a Prometheus `le` label. */
const le = (s: number): string => String(s);

function histogram(out: Timeseries[], name: string, labels: Record<string, string>, h: HistogramSnapshot, at: number): void {
  LATENCY_BOUNDS_S.forEach((b, i) => out.push({ labels: { __name__: `${name}_bucket`, ...labels, le: le(b) }, samples: [{ value: h.cumulative[i] ?? 0, timestamp: at }] }));
  out.push({ labels: { __name__: `${name}_bucket`, ...labels, le: '+Inf' }, samples: [{ value: h.count, timestamp: at }] });
  out.push({ labels: { __name__: `${name}_count`, ...labels }, samples: [{ value: h.count, timestamp: at }] });
  out.push({ labels: { __name__: `${name}_sum`, ...labels }, samples: [{ value: h.sumS, timestamp: at }] });
}

/** The remote-write series of one snapshot. */
export function toTimeseries(s: Snapshot, run: RunLabels): Timeseries[] {
  const at = s.atMs;
  const base = { run_id: run.runId, scenario: s.scenario, shard: run.shard, target: run.target };
  const out: Timeseries[] = [];
  for (const st of s.steps) {
    for (const [status, n] of Object.entries(st.requests)) out.push({ labels: { __name__: 'qbench_requests_total', ...base, step: st.step, status }, samples: [{ value: n, timestamp: at }] });
    histogram(out, 'qbench_request_latency_seconds', { ...base, step: st.step }, st.latency, at);
  }
  histogram(out, 'qbench_send_lateness_seconds', base, s.lateness, at);
  out.push({ labels: { __name__: 'qbench_in_flight', ...base }, samples: [{ value: s.inFlight, timestamp: at }] });
  out.push({ labels: { __name__: 'qbench_iterations_started_total', ...base }, samples: [{ value: s.iterationsStarted, timestamp: at }] });
  out.push({ labels: { __name__: 'qbench_iterations_dropped_total', ...base }, samples: [{ value: s.iterationsDropped, timestamp: at }] });
  return out;
}

/** Send one snapshot; resolves when the endpoint answered 2xx, rejects otherwise (within `timeoutMs`). */
export async function remoteWrite(url: string, s: Snapshot, run: RunLabels, timeoutMs: number): Promise<void> {
  const r = await pushTimeseries(toTimeseries(s, run), {
    url,
    headers: { 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0', 'User-Agent': `qbench/${VERSION}` },
    fetch: async (u, init) => {
      const res = await boundedRequest(u, { method: 'POST', headers: init?.headers ?? {}, body: Buffer.from(init?.body ?? new ArrayBuffer(0)), timeoutMs });
      return { status: res.status, statusText: String(res.status), text: () => Promise.resolve(res.text) };
    },
  });
  if (r.status < 200 || r.status >= 300) throw new Error(`remote write answered ${r.status}${r.errorMessage ? `: ${r.errorMessage.trim().slice(0, 200)}` : ''}`);
}
