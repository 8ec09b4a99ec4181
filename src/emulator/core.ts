// The emulator's state apart from HTTP: endpoints, the limits in force (changeable through
// the control routes), webhooks, the fault set and the sub-services (REST, GraphQL) with the
// EmulatorServices they are given. server.ts routes requests onto it.
import type { RateLimitedOperation } from '../spec/index.js';
import { hostNowMs, type Clock } from './clock.js';
import { endpointDeployment, type EmulatorConfig, type RateOverride } from './config.js';
import type { FaultName, FaultSet } from './faults.js';
import { DeploymentModel, QueueEndpoint, EndpointRateLimiter, rulesWithOverrides, WebhookDispatcher, mockWorkerHandler, RequestValidator } from './queue/index.js';
import type { EndpointObserver, Handler, PoolSettings, RuleInForce } from './queue/index.js';
import type { EmulatorServices, SubService, SubServiceFactory } from './sub-services.js';
import { SUB_SERVICES } from './sub-service-list.js';
import { Incidents } from './incidents.js';

/** Limits in force: the config's, until a control route changes them. */
export interface LimitsState {
  enabled: boolean;
  requestsPerWorker: number;
  scaleRateWindows: boolean;
  overrides: Partial<Record<RateLimitedOperation, RateOverride>>;
  rules: Record<RateLimitedOperation, RuleInForce>;
}

/** A change of the opt-in request hold (POST /_qbench/limits `hold`): real ms per operation, 0 clears. */
export interface HoldChange {
  /** One endpoint; every endpoint when absent. */
  endpoint?: string | undefined;
  realMs: Partial<Record<RateLimitedOperation, number>>;
}

export interface CoreOptions {
  /** Handler of simulated workers; the mock-worker contract by default. */
  handler?: Handler;
  /** Sub-service factories to mount; SUB_SERVICES by default. */
  subServices?: readonly SubServiceFactory[];
  /** Where internal-error lines go (stderr by default). */
  log?: (line: string) => void;
  /** Told of job starts and ends on every endpoint (the discrete-event mode's figures). */
  observer?: EndpointObserver;
  /** false: ended jobs are forgotten at once, no §2.2 retention (see EndpointDeps.retainEndedJobs). */
  retainEndedJobs?: boolean;
}

export class EmulatorCore {
  readonly endpoints = new Map<string, QueueEndpoint>();
  readonly faults: FaultSet;
  readonly limits: LimitsState;
  readonly webhooks: WebhookDispatcher;
  readonly subServices: SubService[];
  readonly validator: RequestValidator;
  readonly startedAtMs: number;
  /** Exceptions caught in requests, timers and webhooks (GET /_qbench/info `internalErrors`). */
  readonly incidents: Incidents;

  constructor(
    readonly config: EmulatorConfig,
    readonly clock: Clock,
    opts: CoreOptions = {},
  ) {
    this.faults = new Set<FaultName>(config.faults);
    this.incidents = new Incidents(opts.log);
    clock.onError = (e) => this.incidents.record('timer', e);
    this.startedAtMs = clock.now();
    this.limits = this.initialLimits();
    this.validator = new RequestValidator(this.faults);
    this.webhooks = new WebhookDispatcher({ clock, faults: this.faults, ...config.webhooks, onError: (e) => this.incidents.record('webhook', e) });
    const handler = opts.handler ?? mockWorkerHandler;
    const windowNow = () => (this.limits.scaleRateWindows ? clock.now() : hostNowMs());
    for (const id of config.endpoints) {
      const limiter = new EndpointRateLimiter({
        nowMs: windowNow,
        scale: () => (this.limits.scaleRateWindows ? clock.scale : 1),
        enabled: () => this.limits.enabled,
        requestsPerWorker: () => this.limits.requestsPerWorker,
        rules: () => this.limits.rules,
        late: this.faults.has('rate-limit-late'),
        noConcurrencyCap: this.faults.has('no-concurrency-cap'),
      });
      const ep = new QueueEndpoint({
        id,
        clock,
        faults: this.faults,
        webhooks: this.webhooks,
        handler,
        limiter,
        pool: this.poolSettings(id),
        model: new DeploymentModel(endpointDeployment(config, id)),
        streamChunkBytes: () => config.limits.streamChunkBytes,
        llm: config.llm,
        observer: opts.observer,
        retainEndedJobs: opts.retainEndedJobs,
      });
      ep.templateId = config.endpointTemplates[id];
      this.endpoints.set(id, ep);
    }
    const services: EmulatorServices = {
      clock,
      apiKey: config.apiKey,
      faults: this.faults,
      rollingRelease: (templateId, version) => this.rollingRelease(templateId, version),
      bindEndpoint: (endpointId, templateId, version) => this.bindEndpoint(endpointId, templateId, version),
      endpointTemplates: config.endpointTemplates,
    };
    this.subServices = (opts.subServices ?? SUB_SERVICES).map((f) => f(services));
  }

  private initialLimits(): LimitsState {
    const l = this.config.limits;
    return {
      enabled: l.enabled,
      requestsPerWorker: l.requestsPerWorker,
      scaleRateWindows: this.config.scaleRateWindows,
      overrides: { ...l.rates },
      rules: rulesWithOverrides(l.rates),
    };
  }

  /** The pool settings of endpoint `id`: its deployment over the workers section. */
  poolSettings(id: string): PoolSettings {
    const w = this.config.workers;
    const d = endpointDeployment(this.config, id);
    return {
      min: d.workersMin,
      max: d.workersMax,
      jobsPerWorker: d.jobsPerWorker,
      coldStartMs: w.coldStartMs,
      idleTimeoutMs: d.idleTimeoutMs,
      scaleUpQueueDepth: w.scaleUpQueueDepth,
      scaler: d.scaler,
      startOnArrival: d.startOnArrival,
      simulated: this.config.simulatedWorkers ?? !this.config.externalWorkers,
    };
  }

  /** The first configured endpoint (served for unknown ids under 'unknown-endpoint-ok'). */
  get defaultEndpoint(): QueueEndpoint {
    return this.endpoints.values().next().value as QueueEndpoint;
  }

  setLimits(change: { enabled?: boolean | undefined; requestsPerWorker?: number | undefined; scaleRateWindows?: boolean | undefined; rates?: Partial<Record<RateLimitedOperation, RateOverride>> | undefined; hold?: HoldChange | undefined }): void {
    if (change.hold) this.setHold(change.hold);
    if (change.enabled !== undefined) this.limits.enabled = change.enabled;
    if (change.requestsPerWorker !== undefined) this.limits.requestsPerWorker = change.requestsPerWorker;
    if (change.scaleRateWindows !== undefined && change.scaleRateWindows !== this.limits.scaleRateWindows) {
      this.limits.scaleRateWindows = change.scaleRateWindows;
      // Window timestamps of the other time base are meaningless now.
      for (const ep of this.endpoints.values()) ep.limiter.reset();
    }
    if (change.rates) {
      for (const [op, o] of Object.entries(change.rates) as [RateLimitedOperation, RateOverride][]) {
        this.limits.overrides[op] = { ...this.limits.overrides[op], ...o };
      }
      this.limits.rules = rulesWithOverrides(this.limits.overrides);
    }
  }

  /** Merge a hold change into the named endpoint's holds (every endpoint without one); 0 removes an operation's hold. */
  private setHold(change: HoldChange): void {
    const targets = change.endpoint === undefined ? [...this.endpoints.values()] : [this.endpoints.get(change.endpoint)];
    for (const ep of targets) {
      if (!ep) continue;
      const next = { ...ep.limiter.holdRealMs };
      for (const [op, ms] of Object.entries(change.realMs) as [RateLimitedOperation, number | undefined][]) {
        if (ms === undefined || ms === 0) delete next[op];
        else next[op] = ms;
      }
      ep.limiter.holdRealMs = Object.keys(next).length > 0 ? next : null;
    }
  }

  /** POST /_qbench/reset: jobs, counters, windows, workers, limits and sub-services back to the start. */
  reset(): void {
    Object.assign(this.limits, this.initialLimits());
    this.webhooks.reset();
    for (const ep of this.endpoints.values()) {
      ep.reset(this.poolSettings(ep.id));
      ep.limiter.holdRealMs = null;
    }
    for (const s of this.subServices) s.reset?.();
  }

  bindEndpoint(endpointId: string, templateId: string, version: number): boolean {
    const ep = this.endpoints.get(endpointId);
    if (!ep) return false;
    ep.templateId = templateId;
    ep.pool.version = version;
    for (const w of ep.pool.workers.values()) w.version = version;
    return true;
  }

  async rollingRelease(templateId: string, version: number): Promise<void> {
    const bound = [...this.endpoints.values()].filter((ep) => ep.templateId === templateId);
    await Promise.all(bound.map((ep) => ep.pool.roll(version)));
  }

  async close(): Promise<void> {
    for (const ep of this.endpoints.values()) ep.close();
    await Promise.all(this.subServices.map((s) => (s.close ? s.close() : Promise.resolve())));
    await this.webhooks.close();
    this.clock.dispose();
  }
}
