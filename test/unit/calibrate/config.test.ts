// calibrate takes from the config file only what the queue interface cannot show (the worker
// maximum, the GPU): from the emulator section's deployment of the endpoint being calibrated,
// named by --endpoint or by the target URL; a flag on the command line wins.
import { describe, expect, it } from 'vitest';
import { applyConfig, QbenchConfig } from '../../../src/config/index.js';

const loaded = {
  file: '/p/qbench.config.json',
  dir: '/p',
  config: QbenchConfig.parse({
    targets: { staging: { url: 'https://api.example/v2/ep-1' } },
    emulator: { deployments: { 'ep-1': { workersMax: 7, gpuTypeId: 'L4', gpuCount: 2, idleTimeoutS: 30, scalerValue: 2 } } },
  }),
};

describe('qbench calibrate and the config file', () => {
  it('fills workers-max, gpu-type and gpu-count of the named target\'s endpoint, nothing it measures', () => {
    const argv: Record<string, unknown> = { target: 'staging' };
    applyConfig('calibrate', argv, ['calibrate', '--target', 'staging'], loaded);
    expect(argv).toMatchObject({ target: 'https://api.example/v2/ep-1', 'workers-max': 7, 'gpu-type': 'L4', 'gpu-count': 2 });
    expect(argv['idle-timeout']).toBeUndefined();
    expect(argv['scaler-value']).toBeUndefined();
  });

  it('a flag wins; another endpoint takes nothing', () => {
    const argv: Record<string, unknown> = { target: 'https://api.example', endpoint: 'ep-1', 'workers-max': 3 };
    applyConfig('calibrate', argv, ['calibrate', '--target', 'https://api.example', '--endpoint', 'ep-1', '--workers-max', '3'], loaded);
    expect(argv['workers-max']).toBe(3);
    expect(argv['gpu-type']).toBe('L4');
    const other: Record<string, unknown> = { target: 'https://api.example/v2/ep-2' };
    applyConfig('calibrate', other, [], loaded);
    expect(other['gpu-type']).toBeUndefined();
  });
});
