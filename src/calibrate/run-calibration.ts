// One calibration from start to end: the round trip first (/health, no job), then the phases in
// order (warm, burst, a second burst when active workers took the first whole, cold, stream)
// within the job budget and the deadline, unfinished jobs cancelled when it stops early, then
// the fits and settings, the report and the emulator config.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QueueClient } from '../client/index.js';
import { VERSION } from '../version.js';
import { LlmEngine, seededRng, type StreamBatch } from '../deployment/index.js';
import { Deadline, JobBudget } from './budget.js';
import { burstCameAtOnce, burstJobsPerWorker, burstReactionMs, coldBatchSize, inferDeployment, secondBurstSize, waitingCapShown, warmJobMs, withPeaks, type GivenSettings } from './infer.js';
import type { InputClass, Observations, PhaseOutcome, ScaleUp } from './observations.js';
import { POLL_JITTER, type PhaseContext } from './phase-context.js';
import { burstPhase, coldPhase, streamPhase, warmPhase, type ColdOptions } from './phases.js';
import { precisionNeed, splitBudget } from './precision-target.js';
import type { CalibrationPlan, CostEstimate } from './plan.js';
import { CALIBRATION_SCHEMA_VERSION, fitEntry, jobCounts, type CalibrationReport } from './report.js';
import { renderCalibrationHtml } from './report-html.js';
import { CalibrationTarget, queuePort, REAL_CLOCK, workersUp, type DeploymentPort, type RealClock } from './target.js';
import { twinEmulatorConfig } from './twin-config.js';
import { parseEmulatorConfig } from '../emulator/config.js';
import { simulateLlmClosedLoop } from '../sim/llm-simulate.js';
import type { DeploymentSettings } from '../deployment/index.js';
import { openAiProbePort, probeLlm, type LlmProbePort, type StreamedAnswer } from './llm-probe.js';
import type { FittedRates } from './llm-fit.js';
import type { LlmCalibration } from './report.js';

export interface CalibrationOptions {
  readonly queueUrl: string;
  readonly endpointId: string;
  readonly apiKey: string;
  readonly classes: readonly InputClass[];
  readonly classField: string | undefined;
  readonly plan: CalibrationPlan;
  readonly cost: CostEstimate;
  readonly given: GivenSettings;
  readonly timeScale: { readonly value: number; readonly source: 'given' | 'default' };
  /** Real ms between /health polls while watching the pool. */
  readonly healthPollMs: number;
  /** Seed written into the twin's config. */
  readonly seed: number;
  readonly command: readonly string[];
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  /** Tests: a fake deployment and clock instead of HTTP and real time. */
  readonly port?: DeploymentPort;
  /** Tests: the LLM probe's endpoint instead of the OpenAI route by HTTP (with plan.llmRequests > 0). */
  readonly llmPort?: LlmProbePort | undefined;
  /** The engine's scheduling, given (the probe measures rates, not how the engine schedules); the schema's default when absent. */
  readonly llmScheduling?: Partial<Pick<LlmEngine, 'scheduler' | 'maxBatchedTokens'>> | undefined;
  readonly clock?: RealClock;
}

/** /health round trips taken before any job: the network's share of every answer. */
const RTT_PROBES = 5;
/** The least real ms a cold phase waits for the workers to stop, whatever the idle timeout. */
const MIN_IDLE_WAIT_MS = 60_000;

/** The 10th percentile (nearest rank below): a floor that one slow answer does not move. */
const floorOf = (v: readonly number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor((s.length - 1) / 10)] as number);
};

export async function runCalibration(o: CalibrationOptions): Promise<CalibrationReport> {
  const startedAt = new Date().toISOString();
  const clock = o.clock ?? REAL_CLOCK;
  const client = o.port === undefined ? new QueueClient({ baseUrl: o.queueUrl, endpointId: o.endpointId, apiKey: o.apiKey }) : undefined;
  const port = o.port ?? queuePort(client as QueueClient);
  const budget = new JobBudget(o.plan.maxJobs);
  const deadline = new Deadline(o.plan.maxDurationMs, () => clock.now(), o.signal);
  const target = new CalibrationTarget(port, budget, clock, o.healthPollMs);
  let cancelledAtEnd: number;
  let llm: LlmCalibration | undefined;
  const obs: Observations = {
    timeScale: o.timeScale.value,
    rttRealMs: 0,
    pollRealMs: o.healthPollMs,
    pollJitter: POLL_JITTER,
    jobs: [],
    idleTimeoutSamplesMs: [],
    workerStartsMs: [],
    throttle: { starts: 0, throttled: 0, waitsMs: [] },
    coldReactions: [],
    scaleUps: [],
    restWorkers: undefined,
    burst: undefined,
    streams: [],
    nonStreamingClasses: [],
    phases: [],
    notes: [],
  };
  try {
    let first;
    for (let i = 0; i < RTT_PROBES; i += 1) {
      const h = await target.health();
      first ??= h.health;
    }
    obs.rttRealMs = floorOf(target.healthRttsMs);
    const busyAtStart = first !== undefined && (first.jobs.inQueue > 0 || first.jobs.inProgress > 0);
    if (first !== undefined && busyAtStart) {
      obs.notes.push(`the endpoint held ${first.jobs.inQueue} queued and ${first.jobs.inProgress} running jobs of others when calibration began: their traffic shares the workers measured here`);
    }
    // Workers up before any job of ours, on an endpoint with no job: the count at rest (active
    // workers), what every idle gap waits for the pool to fall back to.
    const atRest = o.given.workersMin ?? (first === undefined || busyAtStart ? 0 : workersUp(first));
    const gaps = seededRng(o.seed);
    const pollGapMs = () => o.healthPollMs * (1 - POLL_JITTER + 2 * POLL_JITTER * gaps.next());
    const pollPhase = () => gaps.next();
    const ctx: PhaseContext = { target, deadline, timeScale: o.timeScale.value, originMs: deadline.startedAtMs, healthPollMs: o.healthPollMs, pollGapMs, pollPhase, obs, log: o.log };
    const p = o.plan;
    const idleS = o.given.idleTimeoutS;
    const maxIdleWaitMs = Math.max(MIN_IDLE_WAIT_MS, idleS === undefined ? 0 : (3 * idleS * 1000) / o.timeScale.value);
    // The burst before the cold batches: the workers it reached, the jobs one worker took and
    // whether workers came at once size the batches (past the idle active workers, within the
    // cap, telling the scaler's candidates apart), and its end is a scale-down to read the idle
    // timeout from.
    if (p.warmJobs > 0) await warmPhase(ctx, o.classes, p.warmJobs);
    if (p.burstJobs > 0 && !deadline.signal.aborted) await burstPhase(ctx, o.classes, p.burstJobs);
    // The workers up took the whole burst before the scaler acted (active workers faster than its
    // reaction): nothing said workersMax, the scaler or the idle timeout. A second burst, large
    // enough to keep their slots taken past the longest plausible reaction, does (unless every
    // one of them was given).
    const firstBurst = obs.burst;
    const allGiven = o.given.workersMax !== undefined && o.given.scalerType !== undefined && o.given.scalerValue !== undefined && o.given.idleTimeoutS !== undefined;
    if (firstBurst !== undefined && !allGiven && atRest > 0 && firstBurst.workersBefore <= atRest && firstBurst.peakWorkers <= firstBurst.workersBefore && !(o.given.workersMax !== undefined && o.given.workersMax <= firstBurst.workersBefore) && !deadline.signal.aborted) {
      const jpw = o.given.jobsPerWorker ?? Math.max(1, Math.round(firstBurst.maxJobsPerRunningWorker));
      const burstJobs = obs.jobs.filter((j) => j.phase === 'burst' && j.status === 'COMPLETED');
      // How long a slot holds a job: a warm job's dispatch and execution; with no warm job, the burst's executions.
      const execMs = burstJobs.map((j) => j.executionMs ?? 0).sort((a, b) => a - b);
      const jobMs = warmJobMs(obs) > 0 ? warmJobMs(obs) : (execMs[execMs.length >> 1] ?? 0);
      const second = secondBurstSize({
        slots: firstBurst.workersBefore * jpw,
        jobMs,
        longestWaitMs: Math.max(0, ...burstJobs.map((j) => j.delayMs ?? 0)),
        waitingJobs: p.burstJobs,
        affordable: budget.left - p.streamJobs * o.classes.length,
      });
      const why =
        `the burst of ${firstBurst.jobs} jobs was taken whole by the ${firstBurst.workersBefore} worker(s) up (${firstBurst.workersBefore * jpw} slot(s) at ${Math.round(jobMs)} ms a job) with no worker starting`;
      if (second.jobs > firstBurst.jobs) {
        obs.absorbedBurst = firstBurst;
        obs.notes.push(
          `${why}: a second burst of ${second.jobs} jobs was sent, ${second.capped ? `all the budget (--max-jobs) spared, short of what keeps those slots taken past the longest plausible scaler reaction (${(second.reactionMs / 1_000).toFixed(0)} s): it covers ${(second.coversMs / 1_000).toFixed(1)} s` : `enough to keep those slots taken for ${(second.coversMs / 1_000).toFixed(1)} s, past the longest plausible scaler reaction (${(second.reactionMs / 1_000).toFixed(0)} s: QUEUE_DELAY's 6 s and its check, or twice the longest wait seen without a start), and the plan's ${p.burstJobs} more to wait for the scaler`}, so that a scale-up shows workersMax and the scaler and its end the idle timeout (its workers' starts are cold-start samples)`,
        );
        await burstPhase(ctx, o.classes, second.jobs, { timeStartsWithinMs: maxIdleWaitMs });
      } else obs.notes.push(`${why}; the budget (--max-jobs) spares ${Math.max(0, second.jobs)} job(s), no more than that burst: no second burst was sent (raise --max-jobs to let one outlast the scaler's reaction)`);
    }
    // Jobs kept for the phases after the cold ones (a second burst may have spent the rest).
    const reserved = p.streamJobs * o.classes.length + (p.llmRequests ?? 0);
    let coldOptions: ColdOptions | undefined;
    if (p.coldStarts > 0 && !deadline.signal.aborted) {
      const b = obs.burst;
      const sizing = {
        restWorkers: atRest,
        jobsPerWorker: o.given.jobsPerWorker ?? burstJobsPerWorker(obs) ?? 1,
        cap: o.given.workersMax ?? b?.peakWorkers ?? atRest + 1,
        startsPerGap: p.coldBatch,
        atOnce: burstCameAtOnce(obs),
        jobMs: warmJobMs(obs),
        queueDelayMs: burstReactionMs(obs),
        // The workers up ran the burst before the scaler started any: its peak is not workersMax.
        capUnseen: o.given.workersMax === undefined && b !== undefined && b.peakWorkers <= b.workersBefore,
      };
      const burstUp: ScaleUp[] = [obs.absorbedBurst, b].flatMap((x): ScaleUp[] => (x === undefined ? [] : [{ source: 'burst', jobs: x.jobs, workersBefore: x.workersBefore, workersAfter: x.peakWorkers }]));
      // With no burst, nothing sizes the batches: --cold-batch, narrowed to what one gap started.
      const batchFor = b === undefined ? undefined : (ups: readonly ScaleUp[]) => coldBatchSize([...burstUp, ...withPeaks(ups, obs)], sizing);
      // The stream phase's jobs are kept back (a second burst may have spent the rest): with none
      // left, the phase still waits for the scale-down (the idle timeout, the workers at rest).
      const coldJobs = Math.min(p.coldStarts, budget.left - reserved);
      coldOptions = { floorWorkers: atRest, maxIdleWaitMs, batch: p.coldBatch, batchFor, outlastsActive: b !== undefined && !sizing.atOnce };
      await coldPhase(ctx, o.classes[0] as InputClass, coldJobs, coldOptions);
      const most = Math.max(0, ...obs.scaleUps.map((u) => u.workersAfter));
      if (b !== undefined && sizing.capUnseen && !sizing.atOnce && most > b.peakWorkers && waitingCapShown(obs.scaleUps, sizing) === undefined) {
        obs.notes.push(
          `workersMax: at least ${most}: the ${b.workersBefore} worker(s) up ran the burst before the scaler started any, and every cold batch got each worker its waiting jobs asked for (up to ${most}); the twin uses ${most}; measuring it takes cold batches that ask for more workers than it (--cold-starts within --max-jobs, ${sizing.jobsPerWorker} job(s) a worker), or give --workers-max`,
        );
      }
    }
    if (p.streamJobs > 0 && !deadline.signal.aborted) await streamPhase(ctx, o.classes, p.streamJobs);
    // Last of the queue phases (what it spends is kept from none of them); the LLM probe's jobs are kept back.
    if (p.precision !== undefined && !deadline.signal.aborted) await precisionPhase(o, ctx, budget, p.llmRequests ?? 0, coldOptions);
    if ((p.llmRequests ?? 0) > 0) llm = await llmPhase(o, budget, deadline, obs, clock);
  } finally {
    cancelledAtEnd = await target.cancelOpen();
    deadline.close();
    await client?.close();
  }
  const realMs = clock.now() - deadline.startedAtMs;
  obs.rttRealMs = floorOf(target.healthRttsMs);
  const inferred = inferDeployment(obs, { given: o.given, classField: o.classField, classIds: o.classes.map((c) => c.id), seed: o.seed });
  if (llm !== undefined) llm = withoutQueueMs(llm, twinQueueMs(o.endpointId, inferred.deployment));
  return {
    schemaVersion: CALIBRATION_SCHEMA_VERSION,
    kind: 'qbench-calibration',
    qbenchVersion: VERSION,
    startedAt,
    finishedAt: new Date().toISOString(),
    command: o.command,
    target: { queueUrl: o.queueUrl, endpointId: o.endpointId },
    timeScale: o.timeScale,
    budget: { plan: o.plan, cost: o.cost, jobsSent: budget.sent, realMs, cancelledAtEnd },
    rttRealMs: obs.rttRealMs,
    phases: obs.phases,
    jobs: jobCounts(obs),
    settings: inferred.settings,
    fits: inferred.fits.map(fitEntry),
    ...(inferred.throttle !== undefined ? { throttle: inferred.throttle } : {}),
    idleTimeoutSamplesMs: obs.idleTimeoutSamplesMs,
    burst: obs.burst,
    ...(obs.absorbedBurst !== undefined ? { absorbedBurst: obs.absorbedBurst } : {}),
    notes: [...obs.notes, ...inferred.notes, ...(obs.nonStreamingClasses.length > 0 ? [`no chunk came from /stream for class(es) ${obs.nonStreamingClasses.join(', ')}: the handler does not stream them`] : [])],
    ...(llm !== undefined ? { llm } : {}),
    emulatorConfig: twinEmulatorConfig(o.endpointId, llm === undefined ? inferred.deployment : { ...inferred.deployment, engine: LlmEngine.parse(llm.engine) }),
  };
}

/** Rounds of the precision phase: each re-reads the fits (their spread moves the need) and sends what is still short. */
const PRECISION_ROUNDS = 3;

/**
 * After the planned queue phases, what --max-jobs leaves (less the LLM probe's jobs) spent where
 * the fits fall short of --precision (precision-target.ts): warm jobs, then cold batches (the
 * latter only when the cold phase timed worker starts), in rounds, each re-reading the fits.
 */
async function precisionPhase(o: CalibrationOptions, ctx: PhaseContext, budget: JobBudget, reserved: number, cold: ColdOptions | undefined): Promise<void> {
  const target = o.plan.precision as number;
  const infer = () => inferDeployment(ctx.obs, { given: o.given, classField: o.classField, classIds: o.classes.map((c) => c.id), seed: o.seed });
  const coldJobsOf = () => ctx.obs.jobs.filter((j) => j.phase === 'cold').length;
  let sentWarm = 0;
  let sentCold = 0;
  for (let round = 0; round < PRECISION_ROUNDS && !ctx.deadline.signal.aborted; round += 1) {
    const inferred = infer();
    const need = precisionNeed(inferred.fits, inferred.throttle, target, o.classes.length);
    const starts = inferred.fits.find((f) => f.part === 'coldStart')?.samplesMs.length ?? 0;
    // A start's cost in jobs: the cold jobs sent per start watched so far.
    const canCold = cold !== undefined && starts > 0;
    const warmJobs = need.warmJobsPerClass * o.classes.length;
    const coldJobs = canCold ? Math.ceil((need.coldStarts * coldJobsOf()) / starts) : 0;
    const split = splitBudget(budget.left - reserved, warmJobs, coldJobs);
    const perClass = Math.floor(split.warm / o.classes.length);
    if (perClass === 0 && split.cold === 0) break;
    o.log(`precision: ${need.short.join('; ')}; sending ${perClass * o.classes.length} warm and ${split.cold} cold job(s)`);
    const phasesBefore = ctx.obs.phases.length;
    if (perClass > 0) {
      await warmPhase(ctx, o.classes, perClass);
      sentWarm += perClass * o.classes.length;
    }
    if (split.cold > 0 && cold !== undefined && !ctx.deadline.signal.aborted) {
      const before = coldJobsOf();
      await coldPhase(ctx, o.classes[0] as InputClass, split.cold, cold);
      sentCold += coldJobsOf() - before;
    }
    // The report's phase table says which warm and cold phases --precision added.
    for (let i = phasesBefore; i < ctx.obs.phases.length; i += 1) {
      const ph = ctx.obs.phases[i] as PhaseOutcome;
      ctx.obs.phases[i] = { ...ph, reason: `--precision ${(target * 100).toFixed(0)}%, round ${round + 1}${ph.reason !== undefined ? `; ${ph.reason}` : ''}` };
    }
  }
  const now = infer();
  const after = precisionNeed(now.fits, now.throttle, target, o.classes.length);
  const pctOf = `±${(target * 100).toFixed(0)}%`;
  const sent = sentWarm + sentCold > 0 ? `${sentWarm} warm and ${sentCold} cold job(s) beyond the plan were sent` : 'no job beyond the plan was sent';
  const targets = `medians of dispatch, execution, overhead and a one-part cold start ${pctOf}, shares of fast and throttled starts ±${(2 * target * 100).toFixed(0)} points, at 95%`;
  if (after.short.length === 0) ctx.obs.notes.push(`precision ${pctOf} (--precision): ${sent}; every part it targets reached it (${targets})`);
  else {
    const startsSeen = now.fits.find((f) => f.part === 'coldStart')?.samplesMs.length ?? 0;
    const noCold =
      after.coldStarts === 0 ? '' : cold === undefined ? '; no cold batch could be sent: the cold phase did not run (--cold-starts 0, or its idle gaps were skipped)' : startsSeen === 0 ? '; no cold batch could be sent: the cold phase timed no worker start' : '';
    ctx.obs.notes.push(`precision ${pctOf} (--precision): ${sent}; short of it (${targets}): ${after.short.join('; ')}${noCold}; raise --max-jobs (and --max-duration) or give the settings you know`);
  }
}

/** Lone requests the twin's queue latency is the median of (its timing may be a distribution). */
const QUEUE_SAMPLES = 21;

/**
 * Ms the twin adds to a lone request's TTFT outside its engine (submission, dispatch, the
 * worker's overhead, by the timing fitted from the warm jobs): the median TTFT of lone one-token
 * requests on the twin with an engine that takes no time.
 */
export function twinQueueMs(endpointId: string, deployment: DeploymentSettings): number {
  const instant = LlmEngine.parse({ prefillBaseMs: 0, prefillTokensPerSec: 10_000_000, decodeTokensPerSec: 100_000, decodeContention: 0 });
  const twin = parseEmulatorConfig({ ...twinEmulatorConfig(endpointId, { ...deployment, engine: instant }), apiKey: 'twin-queue-latency' });
  const sim = simulateLlmClosedLoop({ twin, endpointId, jobsPerWorker: 1, seed: 1, traffic: { concurrency: 1, requests: QUEUE_SAMPLES, warmupRequests: 0, promptTokens: 1, outputTokens: 1, path: 'chat' } });
  const ttfts = sim.requests.flatMap((r) => (r.ttftMs === undefined ? [] : [r.ttftMs])).sort((a, b) => a - b);
  return ttfts[Math.floor(ttfts.length / 2)] ?? 0;
}

/**
 * The probe's lone TTFTs hold the queue's latency, which the twin adds by its timing: the fitted
 * prefillBaseMs (the TTFT line at no prompt) keeps only what is left of it, at least 0.
 */
export function withoutQueueMs(llm: LlmCalibration, queueMs: number): LlmCalibration {
  const base = fourDigits(Math.max(0, llm.engine.prefillBaseMs - queueMs));
  return { ...llm, queueMs: fourDigits(queueMs), engine: { ...llm.engine, prefillBaseMs: base } };
}

/** A fitted rate kept to 4 significant digits: the twin's file stays readable, the probe's noise is larger. */
const fourDigits = (x: number): number => Number(x.toPrecision(4));

/**
 * Tokens per batch of one stream: the tokens of the chunks that arrived together (one read: on the
 * OpenAI route a batch is several events in one write), in order.
 */
export function arrivalBatches(chunks: StreamedAnswer['chunks']): number[] {
  const out: number[] = [];
  let lastAt: number | undefined;
  for (const c of chunks) {
    if (c.atMs === lastAt && out.length > 0) out[out.length - 1] = (out[out.length - 1] as number) + c.tokens;
    else out.push(c.tokens);
    lastAt = c.atMs;
  }
  return out;
}

/** A token a chunk when at least this share of the batches held one token (two tokens of a stream read together when the host was late are not batching). */
const SINGLE_TOKEN_SHARE = 0.9;

/**
 * The chunk batching the probe's streams showed (worker-vllm's: a first chunk of `min` tokens,
 * each next one `growthFactor` times the last, up to `max`), read from the stream with the most
 * chunks: a token a chunk when nearly every batch held one. `max` is the largest batch seen, below
 * the worker's own when the streams ended first.
 */
export function streamBatchOf(streams: readonly (readonly number[])[]): StreamBatch {
  const longest = streams.reduce<readonly number[]>((a, b) => (b.length > a.length ? b : a), []);
  const all = streams.flat();
  const max = Math.max(1, ...all);
  if (max === 1 || all.filter((n) => n === 1).length >= SINGLE_TOKEN_SHARE * all.length) return { min: 1, max: 1, growthFactor: 1 };
  const min = Math.max(1, longest[0] ?? 1);
  const growthFactor = Math.max(1, fourDigits((longest[1] ?? min) / min));
  return { min: Math.min(min, max), max, growthFactor };
}

/**
 * The LLM probe after the queue phases: every request leaves through the job budget and not past
 * the deadline; times read in the target's ms (real ms x time scale). A probe that stops (budget,
 * deadline, an HTTP error) leaves a note and no engine.
 */
async function llmPhase(o: CalibrationOptions, budget: JobBudget, deadline: Deadline, obs: Observations, clock: RealClock): Promise<LlmCalibration | undefined> {
  if (deadline.signal.aborted) {
    obs.notes.push('the LLM probe did not run: the --max-duration was reached first; no engine fitted');
    return undefined;
  }
  const scale = o.timeScale.value;
  const inner = o.llmPort ?? openAiProbePort(o.queueUrl, o.endpointId, o.apiKey, () => clock.now() * scale);
  const chunkTokens: number[][] = [];
  const port: LlmProbePort = {
    async complete(promptTokens, maxTokens) {
      deadline.signal.throwIfAborted();
      budget.take();
      const a = await inner.complete(promptTokens, maxTokens);
      if (maxTokens > 1) chunkTokens.push(arrivalBatches(a.chunks));
      return a;
    },
  };
  o.log(`llm: probing ${o.plan.llmRequests ?? 0} request(s) over the OpenAI route`);
  try {
    const r = await probeLlm({ port, maxRequests: o.plan.llmRequests, promptLengths: o.plan.llmProbe?.promptLengths, concurrency: o.plan.llmProbe?.concurrency, scheduler: o.llmScheduling?.scheduler });
    const f = r.fit.rates;
    const rates: FittedRates = { prefillBaseMs: fourDigits(f.prefillBaseMs), prefillTokensPerSec: fourDigits(f.prefillTokensPerSec), decodeTokensPerSec: fourDigits(f.decodeTokensPerSec), decodeContention: fourDigits(f.decodeContention), ...(f.decodeMsPerContextToken !== undefined ? { decodeMsPerContextToken: fourDigits(f.decodeMsPerContextToken) } : {}) };
    const engine = { ...rates, ...o.llmScheduling, streamBatch: streamBatchOf(chunkTokens) };
    obs.notes.push(...r.fit.notes.map((n) => `LLM probe: ${n}`));
    return { requestsSent: r.requestsSent, ttft: r.ttft, decode: r.decode, context: r.context, fit: r.fit, engine };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    obs.notes.push(`the LLM probe stopped: ${deadline.signal.aborted ? String((deadline.signal.reason as Error | undefined)?.message ?? why) : why}; no engine fitted`);
    return undefined;
  }
}

export interface WrittenCalibration {
  readonly emulatorConfig: string;
  readonly json: string;
  readonly html: string;
}

/** Write emulator.json, calibration.json and calibration.html into `outDir`. */
export async function writeCalibration(r: CalibrationReport, outDir: string): Promise<WrittenCalibration> {
  await mkdir(outDir, { recursive: true });
  const files = { emulatorConfig: path.join(outDir, 'emulator.json'), json: path.join(outDir, 'calibration.json'), html: path.join(outDir, 'calibration.html') };
  await writeFile(files.emulatorConfig, `${JSON.stringify(r.emulatorConfig, null, 2)}\n`);
  await writeFile(files.json, `${JSON.stringify(r, null, 2)}\n`);
  await writeFile(files.html, renderCalibrationHtml(r));
  return files;
}
