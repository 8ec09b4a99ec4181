// The one target model: the --target grammar, --endpoint agreeing with the URL, the key
// variable's default (QBENCH_API_KEY, RUNPOD_API_KEY when only that is set), and every
// command that talks to a service declaring the flags with the same help.
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { apiKeyEnvName, parseTarget, requireEndpoint, API_KEY_ENV_HELP } from '../../../src/target/index.js';

describe('--target grammar', () => {
  it('"emulator", with or without --endpoint', () => {
    expect(parseTarget('emulator')).toEqual({ kind: 'emulator', endpointId: undefined });
    expect(parseTarget('emulator', 'e1')).toEqual({ kind: 'emulator', endpointId: 'e1' });
  });

  it('a base URL, with a prefix, or naming the endpoint', () => {
    expect(parseTarget('https://api.example.com', 'e1')).toEqual({ kind: 'url', queueUrl: 'https://api.example.com', endpointId: 'e1' });
    expect(parseTarget('http://127.0.0.1:8000/')).toEqual({ kind: 'url', queueUrl: 'http://127.0.0.1:8000', endpointId: undefined });
    expect(parseTarget('http://h:1/v2/abc')).toEqual({ kind: 'url', queueUrl: 'http://h:1', endpointId: 'abc' });
    expect(parseTarget('http://h:1/gw/v2/a%20b/')).toEqual({ kind: 'url', queueUrl: 'http://h:1/gw', endpointId: 'a b' });
    expect(parseTarget('http://h:1/v2/abc', 'abc').endpointId).toBe('abc');
  });

  it('refuses what is neither, other schemes, queries, and an --endpoint that disagrees with the URL', () => {
    expect(() => parseTarget('emu')).toThrow(/--target "emu": "emulator" \(in-process\), a base URL/);
    expect(() => parseTarget('ftp://h/v2/x')).toThrow(/only http and https/);
    expect(() => parseTarget('http://h/v2/x?y=1')).toThrow(/no query/);
    expect(() => parseTarget('http://h/v2/x', 'y')).toThrow(/disagree/);
  });

  it('a URL target needs an endpoint from the URL or --endpoint', () => {
    const spec = parseTarget('http://h');
    if (spec.kind !== 'url') throw new Error('a URL');
    expect(() => requireEndpoint(spec)).toThrow(/--endpoint is required when --target names no endpoint/);
  });
});

describe('the API key variable', () => {
  it('the flag, else QBENCH_API_KEY, else RUNPOD_API_KEY when only that is set', () => {
    expect(apiKeyEnvName('MY_KEY', { QBENCH_API_KEY: 'a' })).toBe('MY_KEY');
    expect(apiKeyEnvName(undefined, {})).toBe('QBENCH_API_KEY');
    expect(apiKeyEnvName(undefined, { QBENCH_API_KEY: 'a', RUNPOD_API_KEY: 'b' })).toBe('QBENCH_API_KEY');
    expect(apiKeyEnvName(undefined, { RUNPOD_API_KEY: 'b' })).toBe('RUNPOD_API_KEY');
  });
});

async function help(command: string): Promise<string> {
  let out = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (out += t), isTty: false, env: {}, signal: new AbortController().signal };
  await main([command, '--help'], io);
  return out.replace(/\s+/g, ' ');
}

describe('every command that talks to a service names it the same way', () => {
  for (const command of ['check', 'load', 'fuzz', 'worker']) {
    it(`qbench ${command} --help: --target, --endpoint (alias --endpoint-id), --api-key-env with the one default`, async () => {
      const h = await help(command);
      expect(h).toMatch(/--target\b/);
      expect(h).toMatch(/--endpoint, --endpoint-id|--endpoint-id, --endpoint/);
      expect(h).toContain('--api-key-env');
      expect(h).toContain(API_KEY_ENV_HELP.replace(/\s+/g, ' ').slice(0, 60));
    });
  }
});
