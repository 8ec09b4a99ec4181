// One endpoint's deployment model at run time: its resolved settings, the timing sampler, the
// billing meter and the handler of modelled jobs. The worker pool and the endpoint hold one each;
// a reset re-seeds the sampler and clears the meter, so a reset emulator replays the same run.
import { BillingMeter } from './billing.js';
import type { EndpointDeployment } from './resolve.js';
import { TimingSampler } from './timing.js';
import { timedHandler } from './timed-handler.js';
import type { Handler } from '../queue/handlers/types.js';

export class DeploymentModel {
  readonly timing: TimingSampler;
  readonly meter: BillingMeter;
  /** The handler of jobs whose timings the model gives (undefined: the endpoint's handler times every job). */
  readonly handler: Handler | undefined;
  constructor(readonly deployment: EndpointDeployment) {
    this.timing = new TimingSampler(deployment.timing, deployment.seed);
    this.meter = new BillingMeter(deployment.gpuTypeId, deployment.gpuCount, deployment.price, deployment.priceSource);
    this.handler = this.timing.modelsExecution ? timedHandler(this.timing, (n) => this.meter.addTokens(n)) : undefined;
  }

  reset(): void {
    this.timing.reset();
    this.meter.reset();
  }
}
