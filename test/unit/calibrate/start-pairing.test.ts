// Starts that began over several polls, paired with their ready spans the way the fitted
// durations make likeliest: a fast start that overtook a full one is read as fast, not as the
// full one's remainder; first in, first out where nothing was overtaken or the fit cannot tell.
import { describe, expect, it } from 'vitest';
import type { Distribution } from '../../../src/deployment/index.js';
import { gapMs, likeliestPairing, readingLogDensity, repairStarts } from '../../../src/calibrate/start-pairing.js';

const COLD: Distribution = { kind: 'mixture', p: 0.7, first: { kind: 'lognormal', medianMs: 500, sigma: 0.15 }, second: { kind: 'lognormal', medianMs: 7_000, sigma: 0.1 } };
const span = (fromMs: number) => ({ fromMs, toMs: fromMs + 360 });

describe('pairing staggered starts', () => {
  it('a fast start begun one poll after a full one and ready first is read fast, the full one whole', () => {
    const g = { begins: [span(0), span(360)], readies: [span(720), span(7_200)], at: 0 };
    // First in, first out: 720 and 6,840 (the full one short by the stagger, the fast one long).
    const fifo = [gapMs(g.begins[0]!, g.readies[0]!), gapMs(g.begins[1]!, g.readies[1]!)] as number[];
    expect(fifo).toEqual([720, 6_840]);
    const density = readingLogDensity(COLD, 0);
    expect(likeliestPairing(g, density!)).toEqual([7_200, 360]);
    const r = repairStarts([99, ...fifo], [{ ...g, at: 1 }], COLD, 0);
    expect(r).toEqual({ starts: [99, 7_200, 360], changed: 1 });
  });

  it('keeps first in, first out when nothing was overtaken, when a ready span would come before its start, and for fits with no density', () => {
    // The fast start began first (540 ms), the full one a poll later (7,020 ms): the other order reads 7,380 and 180.
    const g = { begins: [span(0), span(360)], readies: [span(540), span(7_380)], at: 0 };
    const fifo = [gapMs(g.begins[0]!, g.readies[0]!), gapMs(g.begins[1]!, g.readies[1]!)] as number[];
    expect(repairStarts(fifo, [g], COLD, 0)).toEqual({ starts: fifo, changed: 0 });
    // The second start was seen ready in the span it began in: never paired with a ready span before it.
    expect(gapMs(span(360), span(0))).toBeUndefined();
    expect(repairStarts([1, 2], [{ begins: [span(0), span(360)], readies: [span(720), span(7_200)], at: 0 }], { kind: 'constant', ms: 500 }, 0).changed).toBe(0);
  });
});
