// The live-metrics copy the generator's thread takes: a histogram rebuilt from its copy equals
// the original (encoding, percentiles, min, max, mean and the fixed-bound buckets), for
// histograms drawn from the whole trackable range, empty included; the copy's buffers transfer
// to another thread. <1 s.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistogram, encodeHistogram, recordMs } from '../../../src/load/histogram.js';
import { copyHistogram, restoreHistogram } from '../../../src/metrics/histogram-copy.js';
import { histogramSnapshot, rawSnapshotBuffers, snapshotOf, takeRawSnapshot } from '../../../src/metrics/snapshot.js';
import type { LiveTotals } from '../../../src/load/observer.js';
import type { StepHistograms } from '../../../src/load/wire.js';

const durationsMs = fc.array(fc.double({ min: 0, max: 3_600_000, noNaN: true }), { maxLength: 200 });

describe('a histogram copy', () => {
  it('rebuilds into a histogram equal to the original', () => {
    fc.assert(
      fc.property(durationsMs, (values) => {
        const h = createHistogram();
        for (const ms of values) recordMs(h, ms);
        const back = restoreHistogram(copyHistogram(h));
        expect(encodeHistogram(back).encoded).toBe(encodeHistogram(h).encoded);
        expect([back.totalCount, back.minNonZeroValue, back.maxValue, back.mean]).toEqual([h.totalCount, h.minNonZeroValue, h.maxValue, h.mean]);
        expect(histogramSnapshot(back)).toEqual(histogramSnapshot(h));
      }),
      { numRuns: 50 },
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
