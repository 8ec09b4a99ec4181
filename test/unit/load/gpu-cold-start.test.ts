// The part of a job's queue wait that was a worker cold start, from /health samples of
// workers.initializing (each reading holds until the next sample).
import { describe, expect, it } from 'vitest';
import { startingOverlapMs } from '../../../suites/load/gpu-throughput.js';

describe('startingOverlapMs', () => {
  const samples: [number, number][] = [[0, 0], [100, 1], [150, 2], [300, 0], [400, 1]];
  it('counts only the stretches with a worker starting, clipped to the wait', () => {
    expect(startingOverlapMs(samples, 0, 100)).toBe(0);
    expect(startingOverlapMs(samples, 0, 1000)).toBe(200 + 50);
    expect(startingOverlapMs(samples, 120, 200)).toBe(80);
    expect(startingOverlapMs(samples, 250, 420)).toBe(50 + 20);
  });
  it('no samples: nothing is known to be a cold start', () => {
    expect(startingOverlapMs([], 0, 1000)).toBe(0);
  });
});
