// The emulator config of a twin: the one endpoint calibrated, with its deployment (every setting
// written out, so that none falls back to the emulator's own pool defaults) under
// `deployments.<endpoint>`. `qbench emulate --emulator-config` serves it as is; the same object
// is the `emulator` section of a qbench config file. No key is written: the emulator reads it
// from QBENCH_API_KEY (or --api-key-env) when it starts.
import type { DeploymentSettings } from '../deployment/index.js';

export function twinEmulatorConfig(endpointId: string, deployment: DeploymentSettings): Record<string, unknown> {
  return { endpoints: [endpointId], deployments: { [endpointId]: deployment } };
}
