// One simulation of LLM traffic on a twin with an engine (deployments.<id>.engine): the emulator's
// own endpoint and engine on a VirtualClock with a fixed number of warm workers, fed Poisson
// requests of a given prompt and output length, each request's token timing taken from the chunks
// its worker streams with the client's own arithmetic (src/load/llm TokenTimer: TTFT to the first
// token-carrying chunk, a chunk of k tokens after a gap g gives k gaps of g/k). Synchronous.
import { configError, internalError } from '../errors.js';
import { VirtualClock } from '../emulator/clock.js';
import { parseEmulatorConfig, type EmulatorConfig } from '../emulator/config.js';
import { EmulatorCore } from '../emulator/core.js';
import type { EndpointObserver, QueueEndpoint } from '../emulator/queue/index.js';
import type { Job } from '../emulator/queue/job.js';
import { seededRng, streamSeed, type Rng } from '../deployment/index.js';
import { TokenTimer, type RequestTokenMetrics } from '../load/llm/token-metrics.js';
import { drawLength, type LengthDist } from '../load/llm/workload.js';

/** Steady LLM traffic: Poisson arrivals of one request shape. */
export interface LlmTraffic {
  readonly ratePerSec: number;
  /** Arrivals come over this span. */
  readonly durationS: number;
  /** Requests arriving before this are not measured (the workers fill up meanwhile). */
  readonly warmupS: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** What the clients read: the native stream (`/run` + `/stream`) or OpenAI chat server-sent events. */
  readonly path: 'native' | 'chat';
}

export interface LlmSimulateOptions {
  readonly twin: EmulatorConfig;
  /** The twin's first endpoint by default. */
  readonly endpointId?: string | undefined;
  /** Workers kept up (warm) the whole time. */
  readonly workers: number;
  /** Requests one worker holds at once (worker-vllm's MAX_CONCURRENCY). */
  readonly jobsPerWorker: number;
  readonly traffic: LlmTraffic;
  readonly seed: number;
}

export interface LlmSimulation {
  readonly arrived: number;
  /** Requests that arrived after the warm-up. */
  readonly measured: number;
  /** The measured requests' token metrics, of those that completed. */
  readonly requests: readonly RequestTokenMetrics[];
  /** The span the measured requests arrived over, ms. */
  readonly measuredSpanMs: number;
  /** Output tokens of the measured requests per second of their arrival span. */
  readonly outputTokensPerSec: number;
  readonly simulatedMs: number;
  readonly events: number;
}

/** The job input of one request on `path`: a prompt of exactly `promptTokens` by the engine's chars / 4. */
export function llmJobInput(t: Pick<LlmTraffic | LlmClosedTraffic, 'promptTokens' | 'outputTokens' | 'path'>): Record<string, unknown> {
  const text = 'x'.repeat(4 * t.promptTokens);
  if (t.path === 'native') return { prompt: text, sampling_params: { max_tokens: t.outputTokens }, stream: true };
  return { openai_route: '/v1/chat/completions', openai_input: { messages: [{ role: 'user', content: text }], max_tokens: t.outputTokens, stream: true, stream_options: { include_usage: true } } };
}

/** The emulator config of one simulated point: the twin's endpoint with `workers` warm workers of `jobsPerWorker` each. */
export function llmSimulatedConfig(o: Pick<LlmSimulateOptions, 'twin' | 'workers' | 'jobsPerWorker' | 'seed'>, endpointId: string): EmulatorConfig {
  const own = o.twin.deployments[endpointId];
  if (own?.engine === undefined) throw configError(`the twin's endpoint "${endpointId}" has no engine (deployments.${endpointId}.engine): an LLM plan needs one`);
  // Warm workers the whole time: no cold start, no throttle wait.
  const { coldStart: _coldStart, throttle: _throttle, ...timing } = own.timing ?? {};
  return parseEmulatorConfig({
    ...o.twin,
    endpoints: [endpointId],
    endpointTemplates: {},
    externalWorkers: false,
    simulatedWorkers: true,
    workers: { ...o.twin.workers, coldStartMs: 0 },
    deployments: { [endpointId]: { ...own, workersMin: o.workers, workersMax: o.workers, jobsPerWorker: o.jobsPerWorker, timing, seed: o.seed | 0 } },
  });
}

/**
 * Closed-loop LLM traffic on one worker: `concurrency` requests in flight, each sent the instant
 * one ends (qbench llm --vus), `requests` in all, the first `warmupRequests` not measured.
 */
export interface LlmClosedTraffic {
  readonly concurrency: number;
  readonly requests: number;
  readonly warmupRequests: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** Each request's output length drawn from this (seeded by the simulation's seed), in place of outputTokens. */
  readonly outputLength?: LengthDist | undefined;
  readonly path: 'native' | 'chat';
}

/** Token timers of the measured jobs, fed by the endpoint's chunks. */
class TokenFigures implements EndpointObserver {
  readonly timers = new Map<Job, TokenTimer>();
  readonly done: RequestTokenMetrics[] = [];
  ended = 0;
  /** Called after each job's end (a closed loop sends the next). */
  onEnded: () => void = () => undefined;

  constructor(private readonly clock: VirtualClock) {}

  jobStarted(): void {
    // Token times start at submission (the timer's start), queueing included.
  }

  chunkEmitted(job: Job, output: unknown): void {
    this.timers.get(job)?.observe(this.clock.now(), output);
  }

  jobEnded(job: Job): void {
    this.ended += 1;
    const timer = this.timers.get(job);
    if (timer !== undefined) {
      this.timers.delete(job);
      if (job.status === 'COMPLETED') this.done.push(timer.finish(job.endedAtMs));
    }
    this.onEnded();
  }
}

/** Poisson arrivals, one pending timer at a time. */
class PoissonDriver {
  arrived = 0;
  measured = 0;
  private readonly rng: Rng;
  private readonly input: Record<string, unknown>;

  constructor(
    private readonly clock: VirtualClock,
    private readonly ep: QueueEndpoint,
    private readonly figures: TokenFigures,
    private readonly t: LlmTraffic,
    seed: number,
  ) {
    this.rng = seededRng(streamSeed(seed, 'llm-arrivals'));
    this.input = llmJobInput(t);
  }

  get endMs(): number {
    return this.t.durationS * 1_000;
  }

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    const gapMs = (-Math.log(1 - this.rng.next()) / this.t.ratePerSec) * 1_000;
    const at = this.clock.now() + gapMs;
    if (at < this.endMs) this.clock.setTimerFor(gapMs, this.arrive, this);
  }

  private readonly arrive = (): void => {
    const job = this.ep.submit('run', { input: this.input });
    this.arrived += 1;
    if (this.clock.now() >= this.t.warmupS * 1_000) {
      this.measured += 1;
      this.figures.timers.set(job, new TokenTimer(job.submittedAtMs));
    }
    this.schedule();
  };
}

/** Closed-loop arrivals: `concurrency` at once, then one as each request ends, until `requests` were sent. */
class ClosedDriver {
  arrived = 0;
  measured = 0;
  /** When the first measured request was sent. */
  measuredFromMs = 0;
  private readonly input: Record<string, unknown>;
  private readonly rng: Rng;

  constructor(
    private readonly clock: VirtualClock,
    private readonly ep: QueueEndpoint,
    private readonly figures: TokenFigures,
    private readonly t: LlmClosedTraffic,
    seed: number,
  ) {
    this.input = llmJobInput(t);
    this.rng = seededRng(streamSeed(seed, 'llm-output-lengths'));
    // The next request goes after the events of the end (a zero-delay timer), as a client's would.
    figures.onEnded = () => void this.clock.setTimerFor(0, (d: ClosedDriver) => d.send(), this);
  }

  start(): void {
    for (let i = 0; i < this.t.concurrency; i++) this.send();
  }

  private send(): void {
    if (this.arrived >= this.t.requests) return;
    const d = this.t.outputLength;
    const input = d === undefined ? this.input : llmJobInput({ ...this.t, outputTokens: drawLength(d, this.rng) });
    const job = this.ep.submit('run', { input });
    this.arrived += 1;
    if (this.arrived > this.t.warmupRequests) {
      if (this.measured === 0) this.measuredFromMs = this.clock.now();
      this.measured += 1;
      this.figures.timers.set(job, new TokenTimer(job.submittedAtMs));
    }
  }
}

interface Driver {
  readonly arrived: number;
  readonly measured: number;
  start(): void;
}

/** Run `driver`'s traffic on the twin's endpoint until every request ended (and `untilMs` passed). */
function runSimulation<D extends Driver>(o: Pick<LlmSimulateOptions, 'twin' | 'endpointId' | 'workers' | 'jobsPerWorker' | 'seed'>, makeDriver: (clock: VirtualClock, ep: QueueEndpoint, figures: TokenFigures) => D, untilMs: number) {
  const endpointId = o.endpointId ?? o.twin.endpoints[0];
  if (endpointId === undefined) throw configError('the twin serves no endpoint');
  const config = llmSimulatedConfig(o, endpointId);
  const clock = new VirtualClock(0);
  const figures = new TokenFigures(clock);
  const errors: string[] = [];
  const core = new EmulatorCore(config, clock, { subServices: [], observer: figures, retainEndedJobs: false, log: (line) => errors.push(line) });
  const ep = core.endpoints.get(endpointId) as QueueEndpoint;
  const driver = makeDriver(clock, ep, figures);
  driver.start();
  const drained = () => clock.now() >= untilMs && figures.ended >= driver.arrived;
  if (untilMs > 0) clock.setTimer(untilMs, () => undefined);
  clock.run(Infinity, drained);
  if (errors.length > 0) throw internalError(`the LLM simulation hit ${errors.length} internal error(s); the first: ${errors[0]?.trim() ?? ''}`);
  if (!drained()) throw internalError(`the LLM simulation stopped with ${driver.arrived - figures.ended} request(s) not ended and no timer pending`);
  /** The simulation's figures, measured over `measuredSpanMs`. */
  const summary = (measuredSpanMs: number): LlmSimulation => {
    let tokens = 0;
    for (const r of figures.done) tokens += r.outputTokens;
    return { arrived: driver.arrived, measured: driver.measured, requests: figures.done, measuredSpanMs, outputTokensPerSec: tokens / (measuredSpanMs / 1_000), simulatedMs: clock.now(), events: clock.events };
  };
  return { driver, clock, summary };
}

/** Simulate `o.traffic` on `o.workers` warm workers of the twin's engine: each measured request's token metrics. */
export function simulateLlm(o: LlmSimulateOptions): LlmSimulation {
  const endMs = o.traffic.durationS * 1_000;
  const { summary } = runSimulation(o, (clock, ep, figures) => new PoissonDriver(clock, ep, figures, o.traffic, o.seed), endMs);
  return summary(Math.max(1, endMs - o.traffic.warmupS * 1_000));
}

/** Simulate closed-loop traffic (`o.traffic.concurrency` in flight) on one warm worker of the twin's engine. */
export function simulateLlmClosedLoop(o: Omit<LlmSimulateOptions, 'traffic' | 'workers'> & { readonly traffic: LlmClosedTraffic }): LlmSimulation {
  const t = o.traffic;
  if (!Number.isInteger(t.concurrency) || t.concurrency < 1) throw configError(`concurrency must be a whole number from 1, got ${t.concurrency}`);
  if (!Number.isInteger(t.requests) || t.requests <= t.warmupRequests) throw configError(`requests (${t.requests}) must be a whole number above warmupRequests (${t.warmupRequests})`);
  const { driver, clock, summary } = runSimulation({ ...o, workers: 1 }, (clock, ep, figures) => new ClosedDriver(clock, ep, figures, t, o.seed), 0);
  return summary(Math.max(1, clock.now() - driver.measuredFromMs));
}
