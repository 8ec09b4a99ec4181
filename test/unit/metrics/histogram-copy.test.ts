// The live-metrics copy the generator's thread takes and the one-pass bucketing of it: the
// fixed-bound buckets, sum, min and max equal those of HDR's recorded-values iteration (the
// reference) for histograms drawn from the whole trackable range, empty included; the copy
// holds no counts past the highest value, and its buffers transfer to another thread. ~1 s.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistogram, recordMs, type Histogram } from '../../../src/load/histogram.js';
import { copyHistogram } from '../../../src/metrics/histogram-copy.js';
import { copySnapshot, histogramSnapshot, LATENCY_BOUNDS_S, rawSnapshotBuffers, snapshotOf, takeRawSnapshot, type HistogramSnapshot } from '../../../src/metrics/snapshot.js';
import { bucketsOf } from '../../../src/result/histogram.js';
import type { LiveTotals } from '../../../src/load/observer.js';
import type { StepHistograms } from '../../../src/load/wire.js';

const durationsMs = fc.array(fc.double({ min: 0, max: 3_600_000, noNaN: true }), { maxLength: 200 });

/** The fixed-bound buckets as HDR's recorded-values iteration and mean give them (the reference). */
function iterated(h: Histogram): HistogramSnapshot {
  const cumulative = new Array<number>(LATENCY_BOUNDS_S.length).fill(0);
  let i = 0;
  let below = 0;
  for (const b of bucketsOf(h)) {
    while (i < LATENCY_BOUNDS_S.length && b.valueUs > (LATENCY_BOUNDS_S[i] ?? 0) * 1e6) cumulative[i++] = below;
    below += b.count;
  }
  while (i < LATENCY_BOUNDS_S.length) cumulative[i++] = below;
  const count = h.totalCount;
  return { cumulative, count, sumS: count > 0 ? (h.mean * count) / 1e6 : 0, minS: count > 0 ? h.minNonZeroValue / 1e6 : 0, maxS: count > 0 ? h.maxValue / 1e6 : 0 };
}

describe('a histogram copy', () => {
  it("buckets exactly as HDR's recorded-values iteration does, over the whole trackable range", () => {
    fc.assert(
      fc.property(durationsMs, (values) => {
        const h = createHistogram();
        for (const ms of values) recordMs(h, ms);
        expect(copySnapshot(copyHistogram(h))).toEqual(iterated(h));
      }),
      { numRuns: 100 },
    );
  });

  it('copies only the counts up to the highest recorded value', () => {
    const h = createHistogram();
    expect(copyHistogram(h).counts.length).toBe(0);
    recordMs(h, 1);
    const small = copyHistogram(h).counts.length;
    recordMs(h, 60_000);
    expect(copyHistogram(h).counts.length).toBeGreaterThan(small);
  });
});

describe('a raw snapshot', () => {
  it('transfers to another thread and buckets there as the totals would', () => {
    const latency = createHistogram();
    const lateness = createHistogram();
    for (const ms of [0.3, 2, 2, 15, 700]) recordMs(latency, ms);
    recordMs(lateness, 0.2);
    const step = { counts: { '2xx': 4, '429': 1, '4xx': 0, '5xx': 0, network_error: 0 }, latency } as unknown as StepHistograms;
    const totals = { steps: new Map([['run', step]]), lateness, startedIterations: 5, dropped: 0, inFlight: () => 2 } as unknown as LiveTotals;
    const raw = takeRawSnapshot('s', 1000, totals, 2000);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(raw, rawSnapshotBuffers(raw));
    const received = receiveMessageOnPort(port2)?.message as typeof raw;
    port1.close();
    expect(raw.lateness.counts.byteLength).toBe(0);
    const snap = snapshotOf(received);
    expect(snap).toEqual({
      scenario: 's',
      startMs: 1000,
      atMs: 2000,
      steps: [{ step: 'run', requests: step.counts, latency: histogramSnapshot(latency) }],
      lateness: histogramSnapshot(lateness),
      inFlight: 2,
      iterationsStarted: 5,
      iterationsDropped: 0,
    });
  });
});
