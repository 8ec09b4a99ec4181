// The helpers of the request+record layer under the conformance probe and the fuzzer: answer
// JSON parsing and the key scrub of curl lines (sending: test/integration/client/exchange-http.test.ts).
import { describe, expect, it } from 'vitest';
import { parseAnswerJson, scrubKey } from '../../../src/client/exchange-http.js';

const KEY = 'exchange-http-secret-key-7890';

describe('helpers', () => {
  it('parseAnswerJson: JSON, or undefined for empty and non-JSON text', () => {
    expect(parseAnswerJson('{"a":[1]}')).toEqual({ a: [1] });
    expect(parseAnswerJson('')).toBeUndefined();
    expect(parseAnswerJson('<html>')).toBeUndefined();
  });

  it('scrubKey replaces the raw key and leaves the variable reference', () => {
    expect(scrubKey(`curl -H 'authorization: Bearer '"$MY_KEY" -d '{"k":"${KEY}"}'`, KEY)).toBe(`curl -H 'authorization: Bearer '"$MY_KEY" -d '{"k":"[REDACTED]"}'`);
    expect(scrubKey('curl x', '')).toBe('curl x');
  });
});
