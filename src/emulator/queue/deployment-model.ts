// One endpoint's deployment model at run time: its resolved settings, the timing sampler, the
// billing meter, the timed run of modelled jobs and the LLM engine. The worker pool and the
// endpoint hold one each; a reset re-seeds the sampler and clears the meter, so a reset emulator
// replays the same run.
import { BillingMeter, TimingSampler, type EndpointDeployment } from '../../deployment/index.js';
import { TimedExecution } from './handlers/timed-handler.js';
import { EngineExecution } from './handlers/engine-run.js';

export class DeploymentModel {
  readonly timing: TimingSampler;
  readonly meter: BillingMeter;
  /** The run of jobs whose timings the model gives (undefined: the endpoint's handler times every job). */
  readonly timed: TimedExecution | undefined;
  /** The LLM engine of the endpoint's workers (undefined: the deployment has none). */
  readonly engine: EngineExecution | undefined;
  constructor(readonly deployment: EndpointDeployment) {
    this.timing = new TimingSampler(deployment.timing, deployment.seed);
    this.meter = new BillingMeter(deployment.gpuTypeId, deployment.gpuCount, deployment.price, deployment.priceSource);
    this.timed = this.timing.modelsExecution ? new TimedExecution(this.timing, (n) => this.meter.addTokens(n)) : undefined;
    this.engine = deployment.engine === undefined ? undefined : new EngineExecution(deployment.engine, (n) => this.meter.addTokens(n));
  }

  reset(): void {
    this.timing.reset();
    this.meter.reset();
    this.engine?.reset();
  }
}
