// The SLO grammar of `qbench plan --slo`: latency quantiles of e2e or delay below a duration,
// the cold-start share below a percentage; every malformed form refused with a message that
// shows the accepted ones; the figure each SLO judges and the strict/inclusive comparison.
import { describe, expect, it } from 'vitest';
import { meetsSlo, parseSlo, sloFigure, SloList } from '../../../src/plan/slo.js';
import { figures } from './figures.js';

describe('parseSlo', () => {
  it('reads a latency quantile of e2e or delay below a duration, in canonical form', () => {
    expect(parseSlo('p99(e2e)<8s')).toEqual({ kind: 'latency', metric: 'e2e', percentile: 99, thresholdMs: 8_000, inclusive: false, text: 'p99(e2e)<8s' });
    expect(parseSlo(' P90 ( delay ) <= 1500ms ')).toEqual({ kind: 'latency', metric: 'delay', percentile: 90, thresholdMs: 1_500, inclusive: true, text: 'p90(delay)<=1500ms' });
    expect(parseSlo('p50(e2e)<1m30s')).toMatchObject({ thresholdMs: 90_000, text: 'p50(e2e)<90s' });
  });

  it('reads the cold-start share as a percentage', () => {
    expect(parseSlo('cold(share)<5%')).toEqual({ kind: 'cold-share', maxShare: 0.05, inclusive: false, text: 'cold(share)<5%' });
    expect(parseSlo('cold(share)<=0.5%')).toMatchObject({ maxShare: 0.005, inclusive: true });
  });

  it.each([
    ['p95(e2e)<8s', /p95 is not measured by a simulation; use p50, p90, p99/],
    ['p99(e2e)<8', /"8" is not a positive duration/],
    ['p99(e2e)<0s', /not a positive duration/],
    ['p99(total)<8s', /"p99\(total\)<8s" is not an SLO/],
    ['p99(e2e)>8s', /is not an SLO/],
    ['cold(share)<0%', /above 0% and at most 100%/],
    ['cold(share)<120%', /above 0% and at most 100%/],
    ['cold<5%', /is not an SLO/],
  ])('refuses %s', (text, message) => {
    const r = parseSlo(text);
    expect(typeof r).toBe('string');
    expect(r).toMatch(message);
  });

  it('a list needs one SLO at least and no repeats; every problem is named', () => {
    expect(SloList.safeParse([]).success).toBe(false);
    expect(SloList.safeParse(['p99(e2e)<8s', 'p99(e2e) < 8000ms']).error?.issues[0]?.message).toMatch(/same SLO twice/);
    const bad = SloList.safeParse(['p95(e2e)<8s', 'cold(share)<5%', 'x']);
    expect(bad.error?.issues.map((i) => i.path[0])).toEqual([0, 2]);
    expect(bad.error?.issues[1]?.message).toMatch(/"x" is not an SLO; accepted: p<N>\(e2e\)<duration, p<N>\(delay\)<duration or cold\(share\)<N%/);
  });
});

describe('judging an SLO', () => {
  const f = figures({ e2eP99Ms: 8_000, delayP99Ms: 300, coldStartJobShare: 0.05 });
  it('picks the figure it names', () => {
    expect(sloFigure(parseSlo('p99(e2e)<8s') as never, f)).toBe(8_000);
    expect(sloFigure(parseSlo('p90(delay)<8s') as never, f)).toBe(150);
    expect(sloFigure(parseSlo('cold(share)<5%') as never, f)).toBe(0.05);
  });
  it('"<" is strict, "<=" is not; no figure never meets', () => {
    expect(meetsSlo(parseSlo('p99(e2e)<8s') as never, 8_000)).toBe(false);
    expect(meetsSlo(parseSlo('p99(e2e)<=8s') as never, 8_000)).toBe(true);
    expect(meetsSlo(parseSlo('cold(share)<5%') as never, 0.0499)).toBe(true);
    expect(meetsSlo(parseSlo('p99(e2e)<8s') as never, null)).toBe(false);
  });
});
