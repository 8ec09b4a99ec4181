// calibrate takes from the config file only what the queue interface cannot show (the worker
// maximum, the GPU): from the emulator section's deployment of the endpoint being calibrated,
// named by --endpoint or by the target URL; a flag on the command line wins.
import { describe, expect, it } from 'vitest';
import { QbenchConfig } from '../../../src/config/index.js';
import { parseOptions } from '../../../src/cli/options.js';
import { calibrateCommand, givenSettings } from '../../../src/cli/commands/calibrate.js';
import { parseTarget, requireEndpoint } from '../../../src/target/index.js';

const loaded = {
  file: '/p/qbench.config.json',
  dir: '/p',
  config: QbenchConfig.parse({
    targets: { staging: { url: 'https://api.example/v2/ep-1' } },
    emulator: { deployments: { 'ep-1': { workersMax: 7, gpuTypeId: 'L4', gpuCount: 2, idleTimeoutS: 30, scalerValue: 2 } } },
  }),
};

function given(argv: Record<string, unknown>) {
  const f = parseOptions('calibrate', calibrateCommand.options, argv, loaded);
  const spec = parseTarget(f.target, f.endpoint);
  if (spec.kind !== 'url') throw new Error('a URL target');
  return { f, given: givenSettings(f, requireEndpoint(spec)) };
}

describe('qbench calibrate and the config file', () => {
  it("fills workers-max, gpu-type and gpu-count of the named target's endpoint, nothing it measures", () => {
    const { f, given: g } = given({ target: 'staging' });
    expect(f.target).toBe('https://api.example/v2/ep-1');
    expect(g).toMatchObject({ workersMax: 7, gpuTypeId: 'L4', gpuCount: 2 });
    expect(g.idleTimeoutS).toBeUndefined();
    expect(g.scalerValue).toBeUndefined();
  });

  it('a flag wins; another endpoint takes nothing', () => {
    const { given: g } = given({ target: 'https://api.example', endpoint: 'ep-1', 'workers-max': 3 });
    expect(g.workersMax).toBe(3);
    expect(g.gpuTypeId).toBe('L4');
    const { given: other } = given({ target: 'https://api.example/v2/ep-2' });
    expect(other.gpuTypeId).toBeUndefined();
    expect(other.workersMax).toBeUndefined();
  });
});
