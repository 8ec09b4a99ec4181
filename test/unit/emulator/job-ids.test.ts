// Job ids (src/emulator/queue/job-ids.ts): §2.2 forms, RFC 9562 version-4 UUIDs, no repeats.
import { describe, expect, it } from 'vitest';
import { randomJobId } from '../../../src/emulator/queue/job-ids.js';

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

describe('randomJobId', () => {
  it('writes a version-4 UUID with the /run suffix, the /runsync prefix, or neither', () => {
    expect(randomJobId('', '-e1')).toMatch(new RegExp(`^${UUID_V4}-e1$`));
    expect(randomJobId('sync-', '')).toMatch(new RegExp(`^sync-${UUID_V4}$`));
    expect(randomJobId('', '')).toMatch(new RegExp(`^${UUID_V4}$`));
  });

  it('gives 20,000 distinct ids across several refills of its random batch, every variant nibble occurring', () => {
    const ids = new Set<string>();
    const variants = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = randomJobId('', '');
      expect(id).toMatch(new RegExp(`^${UUID_V4}$`));
      ids.add(id);
      variants.add(id.charAt(19));
    }
    expect(ids.size).toBe(20_000);
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});
