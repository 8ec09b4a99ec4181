// The one threshold grammar: parse -> format -> parse is the identity for every expression
// the grammar accepts (aggregations, operators, numbers with exponents), and the canonical
// text is a fixed point of format . parse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatThresholdExpression, parseThresholdExpression } from '../../../src/result/thresholds.js';

const aggregation = fc.oneof(
  fc.constantFrom('avg', 'min', 'max', 'med', 'count', 'rate', 'AVG', 'Rate'),
  fc.integer({ min: 1, max: 100_000 }).map((n) => `p(${n / 1000})`),
  fc.integer({ min: 1, max: 100 }).map((n) => `p( ${n} )`),
);
const operator = fc.constantFrom('<', '<=', '>', '>=', '==', '!=');
const value = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)).map(String),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -30, max: 30 })).map(([m, e]) => `${m}e${e >= 0 ? '+' : ''}${e}`),
  fc.integer({ min: 0, max: 10 ** 6 }).map((n) => `${n}.${n % 97}`),
);
const expression = fc.tuple(aggregation, fc.constantFrom('', ' '), operator, fc.constantFrom('', ' '), value).map(([a, s1, o, s2, v]) => `${a}${s1}${o}${s2}${v}`);

describe('threshold grammar', () => {
  it('parse -> format -> parse is the identity', () => {
    fc.assert(
      fc.property(expression, (text) => {
        const once = parseThresholdExpression(text);
        const canonical = formatThresholdExpression(once);
        const twice = parseThresholdExpression(canonical);
        expect({ ...twice, expression: undefined }).toEqual({ ...once, expression: undefined });
        expect(formatThresholdExpression(twice)).toBe(canonical);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts exponents, refuses what is not the grammar', () => {
    expect(parseThresholdExpression('avg>=1e3')).toMatchObject({ aggregation: { kind: 'avg' }, operator: '>=', value: 1000 });
    for (const bad of ['p99<1', 'p(0)<1', 'p(101)<1', 'avg<', 'avg<<1', 'mean<1', 'avg<1ms']) expect(() => parseThresholdExpression(bad)).toThrow(/threshold/);
  });
});
