// The shared exchange record: secrets are redacted before a body is cut, so a key straddling
// the cut never leaves a recognisable piece behind; headers are flattened and redacted.
import { describe, expect, it } from 'vitest';
import { registerSecret } from '../../../src/errors.js';
import { EXCHANGE_BODY_LIMIT_CHARS, recordBody, recordHeaders } from '../../../src/client/exchange-record.js';

const KEY = 'exchange-record-secret-key-123456';
registerSecret(KEY);

describe('exchange record', () => {
  it('a key straddling the cut leaves nothing of itself', () => {
    const body = `${'x'.repeat(EXCHANGE_BODY_LIMIT_CHARS - 10)}${KEY}${'y'.repeat(100)}`;
    const kept = recordBody(body);
    expect(kept).not.toContain(KEY.slice(0, 10));
    expect(kept).toMatch(/\.\.\. \[\d+ more characters\]$/);
    expect(recordBody('short')).toBe('short');
  });

  it('headers: one string per name, secrets redacted', () => {
    expect(recordHeaders({ authorization: `Bearer ${KEY}`, 'set-cookie': ['a=1', 'b=2'], gone: undefined })).toEqual({
      authorization: expect.not.stringContaining(KEY) as unknown,
      'set-cookie': 'a=1, b=2',
    });
  });
});
