// Options as data (src/cli/options.ts): a value comes from the flag, else the config file
// (a named target taken whole), else the default; a bad value names where it came from; the
// help shows each default; and one endpoint-id grammar and one duration grammar hold for the
// config file, the flags and the emulator alike.
import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../src/cli/commands/check.js';
import { fuzzCommand } from '../../../src/cli/commands/fuzz.js';
import { kubeCommand } from '../../../src/cli/commands/kube.js';
import { loadCommand } from '../../../src/cli/commands/load.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { parseOptions } from '../../../src/cli/options.js';
import { defineConfig, QbenchConfig, type LoadedConfig } from '../../../src/config/index.js';
import { parseEmulatorConfig } from '../../../src/emulator/index.js';
import { isQbenchError } from '../../../src/errors.js';
import { ENDPOINT_ID_MAX_CHARS } from '../../../src/spec/index.js';

function loaded(config: Parameters<typeof defineConfig>[0]): LoadedConfig {
  return { file: '/x/qbench.config.json', dir: '/x', config: QbenchConfig.parse(defineConfig(config)) };
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (isQbenchError(e)) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
}

const STAGING = loaded({
  targets: { staging: { url: 'https://api.example.com/v2/ep1', apiKeyEnv: 'STAGING_KEY', restUrl: 'https://rest.example.com', spareEndpoints: ['s1'] } },
  conformance: { only: ['queue.*'], expectations: 'known.json' },
  fuzz: { runs: 7, maxDuration: '2m' },
  reportDir: 'out',
});

describe('option values: flag, else config file, else default', () => {
  it('fills only what the flags left out, and takes a named target whole', () => {
    const fuzz = parseOptions('fuzz', fuzzCommand.options, { target: 'staging', 'max-duration': '45s' }, STAGING);
    expect(fuzz).toMatchObject({ target: 'https://api.example.com/v2/ep1', apiKeyEnv: 'STAGING_KEY', restUrl: 'https://rest.example.com', runs: 7, maxDurationMs: 45_000, modelRuns: 15, out: '/x/out' });
    const load = parseOptions('load', loadCommand.options, { target: 'staging', 'api-key-env': 'MINE' }, STAGING);
    expect(load).toMatchObject({ target: 'https://api.example.com/v2/ep1', apiKeyEnv: 'MINE' });
    // load reaches no template or pod interface: the target's restUrl is not its business.
    expect(Object.keys(load)).not.toContain('restUrl');
    const check = parseOptions('check', checkCommand.options, { target: 'staging', only: ['queue.run.answer'] }, STAGING);
    expect(check).toMatchObject({ only: ['queue.run.answer'], skip: [], expect: '/x/known.json', spareEndpoints: ['s1'], profile: 'quick', concurrency: 4 });
  });

  it('a target name the file does not define stays a --target value; no file, no fill', () => {
    expect(parseOptions('fuzz', fuzzCommand.options, { target: 'https://other.example.com/v2/e' }, STAGING)).toMatchObject({ target: 'https://other.example.com/v2/e', runs: 7 });
    expect(parseOptions('fuzz', fuzzCommand.options, { target: 'staging' })).toMatchObject({ target: 'staging', runs: 100, maxDurationMs: 45_000 });
  });

  it('names where a bad value came from: the flag, or the config key and file', () => {
    const fromFile = refusal(() => parseOptions('fuzz', fuzzCommand.options, {}, loaded({ fuzz: { runs: 1_000_000 } })));
    expect(fromFile).toContain('✖ fuzz.runs (qbench.config.json) must be a whole number from 1 to 100000');
    const fromFlags = refusal(() => parseOptions('fuzz', fuzzCommand.options, { runs: 0, 'rate-fraction': 2, 'max-duration': '45x' }));
    expect(fromFlags).toMatch(/--runs must be a whole number from 1 to 100000[\s\S]*--max-duration must be a duration such as 500ms, 30s, 2m, 1h, 1m30s[\s\S]*--rate-fraction must be a number above 0 and at most 1/);
  });

  it('the help shows each default from its declaration', async () => {
    let out = '';
    const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), isTty: false, env: {}, signal: new AbortController().signal };
    await main(['fuzz', '--help'], io);
    for (const d of ['[default: "emulator"]', '[default: 100]', '[default: 45s]', '[default: 0.5]']) expect(out.replace(/\s+/g, ' ')).toContain(d.replace('"emulator"', 'emulator'));
  });
});

describe('one endpoint-id grammar', () => {
  const longest = 'e'.repeat(ENDPOINT_ID_MAX_CHARS);
  const tooLong = `${longest}x`;

  it('the config file, the --endpoint flags and the emulator take the same ids', () => {
    expect(QbenchConfig.safeParse({ targets: { t: { url: 'emulator', endpoint: longest } } }).success).toBe(true);
    expect(parseOptions('check', checkCommand.options, { endpoint: longest }).endpoint).toBe(longest);
    expect(parseOptions('load', loadCommand.options, { target: 'emulator', endpoint: longest }).endpoint).toBe(longest);
    expect(parseEmulatorConfig({ apiKey: 'key-1234', endpoints: [longest] }).endpoints).toEqual([longest]);
  });

  it('and refuse the same ids, saying what one is', () => {
    const config = QbenchConfig.safeParse({ targets: { t: { url: 'emulator', endpoint: tooLong } }, emulator: { endpoints: ['-x'] } });
    expect(config.success).toBe(false);
    expect(config.error?.issues.map((i) => i.path.join('.'))).toEqual(['targets.t.endpoint', 'emulator.endpoints.0']);
    expect(refusal(() => parseOptions('check', checkCommand.options, { endpoint: tooLong }))).toContain(`--endpoint must be an endpoint id: 1-${ENDPOINT_ID_MAX_CHARS} letters, digits`);
    expect(refusal(() => parseOptions('fuzz', fuzzCommand.options, { 'model-endpoint': 'a/b' }))).toContain('--model-endpoint must be an endpoint id');
    expect(refusal(() => parseEmulatorConfig({ apiKey: 'key-1234', endpoints: [tooLong] }))).toContain('must be an endpoint id');
  });
});

describe('one duration grammar', () => {
  it('the config file and every duration flag read "1m30s" alike and refuse "90x"', () => {
    expect(parseOptions('fuzz', fuzzCommand.options, {}, loaded({ fuzz: { maxDuration: '1m30s' } })).maxDurationMs).toBe(90_000);
    expect(parseOptions('fuzz', fuzzCommand.options, { 'max-duration': '1m30s' }).maxDurationMs).toBe(90_000);
    expect(parseOptions('load', loadCommand.options, { target: 'emulator', duration: '1m30s' }).durationMs).toBe(90_000);
    expect(parseOptions('kube', kubeCommand.options, { action: 'render', scenario: 's.ts', shards: 2, target: 'http://h', 'merge-wait': '1m30s' }).mergeWaitMs).toBe(90_000);
    expect(QbenchConfig.safeParse({ fuzz: { maxDuration: '90x' } }).success).toBe(false);
    expect(refusal(() => parseOptions('load', loadCommand.options, { target: 'emulator', duration: '90x' }))).toContain('--duration must be a duration such as');
    expect(refusal(() => parseOptions('kube', kubeCommand.options, { action: 'render', scenario: 's.ts', shards: 2, target: 'http://h', 'start-in': '90x' }))).toContain('--start-in must be a duration such as');
  });
});
