// resolveTargetFlag, the one reading of `--target` every command calls: what it decides before
// any request (the emulator, a URL's endpoint, a required key). Reading a URL's facts is
// src/target/target-facts.ts's, tested with emulator-info.test.ts.
import { describe, expect, it } from 'vitest';
import { usageError } from '../../../src/errors.js';
import { resolveTargetFlag } from '../../../src/target/index.js';

describe('resolveTargetFlag', () => {
  it('answers "emulator" with the endpoint asked for, reading nothing', async () => {
    await expect(resolveTargetFlag({ target: 'emulator', endpointId: 'ep', unreachable: 'error' })).resolves.toEqual({ kind: 'emulator', endpointId: 'ep' });
  });

  it('refuses a URL without an endpoint before any request', async () => {
    await expect(resolveTargetFlag({ target: 'http://127.0.0.1:9', unreachable: 'remote' })).rejects.toMatchObject({ code: 'QB_ERR_USAGE' });
  });

  it("throws the command's own error for a URL without a key, before the endpoint", async () => {
    const missingKey = () => usageError('no key here');
    await expect(resolveTargetFlag({ target: 'http://127.0.0.1:9', apiKey: '', missingKey, unreachable: 'remote' })).rejects.toThrow('no key here');
  });

  it('refuses what is neither "emulator" nor a URL', async () => {
    await expect(resolveTargetFlag({ target: 'ftp://host', endpointId: 'ep', unreachable: 'remote' })).rejects.toMatchObject({ code: 'QB_ERR_USAGE' });
  });
});
