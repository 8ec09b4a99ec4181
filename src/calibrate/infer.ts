// From observations to a deployment: each setting measured, given (a flag or the config file)
// or the service's default, said which; each timing part fitted from the samples that show it.
// What a job's timing fields mix is taken apart here (DEPLOYMENT-FACTS.md "Timing fields"):
//  - a warm job's delayTime is the dispatch to an idle worker;
//  - a cold job's delayTime is the scaler's reaction (seen on /health) + the cold start + the dispatch;
//  - end to end less delayTime, executionTime and the /health round trip is the service's overhead.
import { SERVICE_DEFAULTS, seededRng, type DeploymentSettings, type Distribution, type ExecutionTiming, type ScalerType, type TimingModel } from '../deployment/index.js';
import { SECOND_MS } from '../spec/index.js';
import { fitLognormal, fitSamples, precisionOf, readingError, readingNoiseMs2, type ReadingError } from './fit.js';
import { repairStarts } from './start-pairing.js';
import type { BurstObservation, ColdReaction, JobSample, JobSpan, Observations, ScaleUp } from './observations.js';
import { throttleEstimate, throttleNote, type ThrottleEstimate } from './throttle.js';
import type { PartFit, TimingPart } from './part-fit.js';

export type { PartFit, TimingPart } from './part-fit.js';

export type SettingSource = 'measured' | 'given' | 'service default';

export interface SettingValue {
  readonly name: keyof DeploymentSettings;
  readonly value: number | string | boolean;
  readonly source: SettingSource;
  /** How it was measured, or what the measurement said beside a given value. */
  readonly detail: string;
}

/** What the user knows and calibration cannot (or need not) observe. */
export interface GivenSettings {
  readonly workersMin?: number | undefined;
  readonly workersMax?: number | undefined;
  readonly idleTimeoutS?: number | undefined;
  readonly scalerType?: ScalerType | undefined;
  readonly scalerValue?: number | undefined;
  readonly startOnArrival?: boolean | undefined;
  readonly jobsPerWorker?: number | undefined;
  readonly gpuTypeId?: string | undefined;
  readonly gpuCount?: number | undefined;
}


export interface Inferred {
  readonly settings: readonly SettingValue[];
  readonly fits: readonly PartFit[];
  /** Undefined: no worker start was watched where /health counts throttled workers. */
  readonly throttle: ThrottleEstimate | undefined;
  readonly deployment: DeploymentSettings;
  readonly notes: readonly string[];
}

/** The QUEUE_DELAY scaler looks at the queue on a periodic check; the emulator's runs each second. */
export const QUEUE_DELAY_CHECK_MS = 1_000;
/** A first scale-up sooner than this cannot be QUEUE_DELAY (its least value is 1 s). */
export const IMMEDIATE_MS = 700;

const median = (v: readonly number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const completed = (j: JobSample): boolean => j.status === 'COMPLETED' && j.delayMs !== undefined && j.executionMs !== undefined;

/**
 * A cold reaction that must lie below this came at once: the least a QUEUE_DELAY scaler can take
 * is more than its least value (1 s), and REQUEST_COUNT acts on the arrival itself.
 */
export const AT_ONCE_BELOW_MS = 1_000;
/** A cold reaction that must lie above this waited for the scaler: half the least QUEUE_DELAY reaction. */
export const WAITED_ABOVE_MS = 500;

export interface StartOnArrivalGuess {
  readonly value: boolean;
  readonly detail: string;
  /** Both readings predict every count alike: the batches do not tell them apart. */
  readonly tied?: boolean;
}

/**
 * Whether a job that finds no worker up starts one at once (startOnArrival), from the cold
 * batches' reactions (from the earliest job joining the queue to /health first showing a worker,
 * within ± its error and `slackMs`): a reading whose whole range lies below AT_ONCE_BELOW_MS came
 * at once, one whose whole range lies above WAITED_ABOVE_MS waited for the scaler, any other
 * (poll spans too wide) says neither. The larger of the two counts decides; a tie or no reading
 * at all leaves it unmeasured (undefined).
 */
export function inferStartOnArrival(reactions: readonly ColdReaction[], slackMs: number): StartOnArrivalGuess | undefined {
  const atOnce = reactions.filter((r) => r.ms + r.errorMs + slackMs < AT_ONCE_BELOW_MS).length;
  const waited = reactions.filter((r) => r.ms - r.errorMs - slackMs > WAITED_ABOVE_MS).length;
  if (atOnce === waited) return undefined;
  const readings = [...reactions].sort((a, b) => a.ms - b.ms).map((r) => `${Math.round(r.ms)}±${Math.round(r.errorMs)}`).join(', ');
  const unclear = reactions.length - atOnce - waited;
  const tail = `${unclear > 0 ? `; ${unclear} reading(s) too wide to tell` : ''}`;
  return atOnce > waited
    ? { value: true, detail: `a worker came within ${AT_ONCE_BELOW_MS} ms of the first job of ${atOnce} of ${reactions.length} cold batch(es) joining the queue (${readings} ms), sooner than any scaler check${tail}` }
    : { value: false, detail: `the first worker came only after the scaler's reaction (over ${WAITED_ABOVE_MS} ms) in ${waited} of ${reactions.length} cold batch(es) (${readings} ms)${tail}` };
}

export interface ScalerGuess {
  readonly type: ScalerType;
  readonly value: number;
  readonly detail: string;
  /**
   * Values the evidence could not tell apart (the picked one among them), ascending; undefined
   * when it left one. A last entry of REQUEST_COUNT stands for itself and every larger value.
   */
  readonly ambiguous?: readonly number[];
}

/**
 * Reaction readings may stray beyond their poll spans by the target's own timer lateness: real ms
 * per reading (the emulator's timers fire 1-10 ms late on a busy host; at a time scale each is
 * multiplied).
 */
export const REACTION_SLACK_REAL_MS = 3;

export interface Candidates {
  /** The values the readings allow, ascending (at least one). */
  readonly values: readonly number[];
  /** The pick: the only value, or the one the rule prefers among several. */
  readonly value: number;
}

/**
 * QUEUE_DELAY's value from its reactions: each lies in (value, value + check] s, read within
 * ± its error and `slackMs`. A value is allowed when at most a quarter of the readings (rounded
 * down) fall outside its range; with none allowed, those with the fewest outside. Among several,
 * the nearest to the readings' median less half a check (the middle of the range) is picked.
 */
export function queueDelayCandidates(reactions: readonly ColdReaction[], checkMs: number, slackMs: number): Candidates {
  const top = Math.max(1, ...reactions.map((r) => Math.ceil((r.ms + r.errorMs + slackMs) / 1_000)));
  const outside = (v: number) => reactions.filter((r) => r.ms + r.errorMs + slackMs <= v * 1_000 || r.ms - r.errorMs - slackMs > v * 1_000 + checkMs).length;
  const counts = Array.from({ length: top }, (_, i) => ({ v: i + 1, out: outside(i + 1) }));
  const allowed = reactions.length >> 2;
  let values = counts.filter((c) => c.out <= allowed).map((c) => c.v);
  if (values.length === 0) {
    const fewest = Math.min(...counts.map((c) => c.out));
    values = counts.filter((c) => c.out === fewest).map((c) => c.v);
  }
  const estimate = (median(reactions.map((r) => r.ms)) - checkMs / 2) / 1_000;
  const value = values.reduce((best, v) => (Math.abs(v - estimate) < Math.abs(best - estimate) ? v : best));
  return { values, value };
}

/** Workers a REQUEST_COUNT scaler of `value` keeps up for `scaleUp`'s jobs under a cap. */
export const requestCountWorkers = (value: number, up: Pick<ScaleUp, 'jobs' | 'workersBefore'>, cap: number): number => Math.min(cap, Math.max(up.workersBefore, Math.ceil(up.jobs / value)));

/** A batch as a REQUEST_COUNT scaler counted it at most: its likeliest peak of requests queued and in progress, else every job sent. */
const likeliest = (u: ScaleUp): Pick<ScaleUp, 'jobs' | 'workersBefore'> => ({ jobs: u.peak?.point ?? u.jobs, workersBefore: u.workersBefore });

/**
 * Whether a REQUEST_COUNT scaler of `value` explains the workers `up` ended with: those it keeps
 * up for the batch's most requests at once (queued and in progress: `peak`, a range, when the jobs'
 * records place them; else every job sent), under a cap.
 */
export function requestCountFits(value: number, up: ScaleUp, cap: number): boolean {
  return explains(up, (c) => requestCountWorkers(value, c, cap));
}

/** Draws of the jobs' ends within their spans whose peaks' median is a batch's likeliest peak. */
const PEAK_DRAWS = 65;

/** The most of `intervals` ([from, to), ms) open at once. */
function mostOpen(intervals: readonly (readonly [number, number])[]): number {
  const events = intervals
    .filter(([a, b]) => b > a)
    .flatMap(([a, b]) => [{ t: a, d: 1 }, { t: b, d: -1 }])
    .sort((x, y) => x.t - y.t || x.d - y.d);
  let open = 0;
  let top = 0;
  for (const e of events) top = Math.max(top, (open += e.d));
  return top;
}

/**
 * The most requests of a batch queued and in progress at once (what a REQUEST_COUNT scaler
 * counts: a job its worker's dispatch holds is in progress), from its jobs' records: each joined
 * the queue its delayTime before its start (its end less its executionTime) and left it at its
 * end. A job whose end is placed within a span (`endWithin`) shifts as a whole within it: `low`
 * counts it only where it was present wherever in the span its end lay, `high` wherever it may
 * have been (each span widened by `slackMs`), and `point` is the median peak over draws of every
 * end uniform in its span, seeded by the batch's size (the same records, the same reading), not
 * the peak with every end at its span's middle: a maximum over placements each off by up to half
 * a span tends to find overlaps that were not there. A job without one ends `pointShiftMs` before
 * its answer (half a poll) for `point`, and `low` and `high` narrow and widen its span by
 * `marginMs` (the answer's timing).
 */
export function requestPeak(spans: readonly JobSpan[], marginMs: number, pointShiftMs: number, slackMs = 0): { readonly low: number; readonly high: number; readonly point: number } {
  const bounded = (bound: 'low' | 'high') =>
    mostOpen(
      spans.map((j): readonly [number, number] => {
        const lengthMs = j.executionMs + j.delayMs;
        const w = j.endWithin;
        if (w === undefined) {
          const widenMs = bound === 'low' ? -marginMs : marginMs;
          return [j.endMs - pointShiftMs - lengthMs - widenMs, j.endMs - pointShiftMs + widenMs];
        }
        const [from, to] = [w.fromMs - slackMs, w.toMs + slackMs];
        return bound === 'low' ? [to - lengthMs, from] : [from - lengthMs, to];
      }),
    );
  const rng = seededRng(spans.length);
  const draws = Array.from({ length: spans.some((j) => j.endWithin !== undefined) ? PEAK_DRAWS : 1 }, () =>
    mostOpen(
      spans.map((j): readonly [number, number] => {
        const w = j.endWithin;
        const endMs = w === undefined ? j.endMs - pointShiftMs : w.fromMs + rng.next() * (w.toMs - w.fromMs);
        return [endMs - j.executionMs - j.delayMs, endMs];
      }),
    ),
  );
  return { low: bounded('low'), high: bounded('high'), point: median(draws) };
}

/**
 * REQUEST_COUNT's value from jobs sent at once: a value is allowed when it predicts the workers
 * each batch ended with (ceil(jobs / value), within the cap and never below the workers already
 * up). An unknown cap is taken to be the most workers seen: a batch that reached it may have
 * been capped. Values from the largest batch's size up predict one worker for every batch and
 * are one candidate, that size standing for them all. When no value fits every batch (a worker
 * lost to throttling, a late start), those that fit the most are kept. Among several, the least
 * is picked: the scaler that starts the most workers.
 */
export function requestCountCandidates(scaleUps: readonly ScaleUp[], cap: number | undefined): Candidates {
  const capOf = cap ?? Math.max(1, ...scaleUps.map((u) => u.workersAfter));
  const top = Math.max(1, ...scaleUps.map((u) => u.jobs));
  const misses = Array.from({ length: top }, (_, i) => ({ v: i + 1, miss: scaleUps.filter((u) => !requestCountFits(i + 1, u, capOf)).length }));
  const fewest = Math.min(...misses.map((m) => m.miss));
  const values = misses.filter((m) => m.miss === fewest).map((m) => m.v);
  // Among those, the one that predicts the most batches from their likeliest counts, then the least.
  const pointMisses = (v: number) => scaleUps.filter((u) => requestCountWorkers(v, likeliest(u), capOf) !== u.workersAfter).length;
  const value = values.reduce((best, v) => (pointMisses(v) < pointMisses(best) ? v : best));
  return { values, value };
}

/**
 * Each cold batch with its jobs' records given its most requests at once (requestPeak): a margin
 * of a round trip and a poll for an end placed by its answer alone, half a round trip beyond an
 * end placed within its polls.
 */
export function withPeaks(scaleUps: readonly ScaleUp[], obs: Pick<Observations, 'rttRealMs' | 'pollRealMs' | 'timeScale'>): ScaleUp[] {
  const rttTargetMs = obs.rttRealMs * obs.timeScale;
  const pollTargetMs = (obs.pollRealMs ?? 0) * obs.timeScale;
  return scaleUps.map((u) => (u.spans === undefined ? u : { ...u, peak: requestPeak(u.spans, rttTargetMs + pollTargetMs, pollTargetMs / 2, rttTargetMs / 2) }));
}

/** Whether `predict` (monotone in the jobs counted) explains the workers `up` ended with: within what its peak's range allows, else for the jobs sent. */
function explains(up: ScaleUp, predict: (counted: Pick<ScaleUp, 'jobs' | 'workersBefore'>) => number): boolean {
  if (up.peak === undefined) return predict(up) === up.workersAfter;
  return predict({ jobs: up.peak.low, workersBefore: up.workersBefore }) <= up.workersAfter && up.workersAfter <= predict({ jobs: up.peak.high, workersBefore: up.workersBefore });
}

/** Workers a pool that starts one for each job beyond the free slots (startOnArrival) ends with after `up`'s jobs, under a cap. */
export const arrivalWorkers = (up: Pick<ScaleUp, 'jobs' | 'workersBefore'>, cap: number, jobsPerWorker: number): number =>
  Math.min(cap, up.workersBefore + Math.ceil(Math.max(0, up.jobs - up.workersBefore * jobsPerWorker) / jobsPerWorker));

/**
 * startOnArrival beside a REQUEST_COUNT scaler, from the workers each batch ended with: with it,
 * at least a worker for every job beyond the free slots (arrivalWorkers); without it,
 * ceil(jobs / value) alone; each for the jobs its peak places at once, within its range (as
 * requestCountFits). The one that predicts more batches for some value wins; a tie (the
 * counts are the same either way: the pool behaves the same) is the scaler alone.
 */
export function startOnArrivalFromCounts(scaleUps: readonly ScaleUp[], cap: number, jobsPerWorker: number): (StartOnArrivalGuess & { readonly values: readonly number[] }) | undefined {
  if (scaleUps.length === 0) return undefined;
  const top = Math.max(1, ...scaleUps.map((u) => u.jobs));
  const misses = (atOnce: boolean) =>
    Array.from({ length: top }, (_, i) => ({
      v: i + 1,
      miss: scaleUps.filter((u) => !explains(u, (c) => Math.max(requestCountWorkers(i + 1, c, cap), atOnce ? arrivalWorkers(c, cap, jobsPerWorker) : 0))).length,
    }));
  const fewest = (m: readonly { miss: number }[]) => Math.min(...m.map((x) => x.miss));
  const [mWith, mWithout] = [misses(true), misses(false)];
  const [withIt, without] = [fewest(mWith), fewest(mWithout)];
  const seen = scaleUps.map((u) => `${u.jobs} job(s) with ${u.workersBefore} up ended with ${u.workersAfter}`).join('; ');
  const values = (withIt < without ? mWith : mWithout).filter((x) => x.miss === Math.min(withIt, without)).map((x) => x.v);
  return withIt < without
    ? { value: true, values, detail: `workers came at once, and a worker for every job beyond the free slots (${jobsPerWorker} per worker) predicts ${scaleUps.length - withIt} of ${scaleUps.length} batches where REQUEST_COUNT alone predicts at most ${scaleUps.length - without} (${seen})` }
    : { value: false, values, ...(withIt === without ? { tied: true } : {}), detail: `workers came at once, and REQUEST_COUNT alone predicts ${scaleUps.length - without} of ${scaleUps.length} batches${withIt === without ? ' (a worker for every job beyond the free slots predicts the same counts: these batches do not tell the two apart)' : ''} (${seen})` };
}

/** Which batch size would tell `a` from `b` apart (with no worker up), under `cap`; undefined: none up to 100. */
export function separatingBatch(a: number, b: number, cap: number): number | undefined {
  for (let n = 1; n <= 100; n += 1) if (requestCountWorkers(a, { jobs: n, workersBefore: 0 }, cap) !== requestCountWorkers(b, { jobs: n, workersBefore: 0 }, cap)) return n;
  return undefined;
}

const listOf = (v: readonly number[], orMore = false): string => (v.length === 1 ? `${v[0]}${orMore ? ' or more' : ''}` : `${v.slice(0, -1).join(', ')} and ${v.at(-1)}${orMore ? ' or more' : ''}`);

export interface ScalerEvidence {
  /** Cold batches' reactions (QUEUE_DELAY's value). */
  readonly coldReactions: readonly ColdReaction[];
  /** Jobs sent at once and the workers they ended with (REQUEST_COUNT's value), the burst's included. */
  readonly scaleUps: readonly ScaleUp[];
  /** workersMax when given; else the most workers seen stands for it. */
  readonly cap: number | undefined;
  /** Allowance beyond the poll spans, target ms (REACTION_SLACK_REAL_MS at the time scale). */
  readonly slackMs: number;
  /** How far the burst's reaction may be off: one /health poll and a round trip, target ms. */
  readonly burstErrorMs?: number | undefined;
}

/**
 * The scaler from its reactions: REQUEST_COUNT answers a burst at once (workers for
 * ceil(jobs / value)); QUEUE_DELAY only after a job has waited `value` s, on its next periodic
 * check, so each reaction lies in (value, value + check].
 */
export function inferScaler(burst: BurstObservation | undefined, e: ScalerEvidence): ScalerGuess | undefined {
  const burstReaction = burst?.firstScaleUpMs;
  if (burst !== undefined && burstReaction !== undefined && burstReaction < IMMEDIATE_MS) {
    const c = requestCountCandidates(e.scaleUps, e.cap);
    const top = Math.max(1, ...e.scaleUps.map((u) => u.jobs));
    const orMore = c.values.at(-1) === top;
    const seen = e.scaleUps.map((u) => `${u.jobs} job(s) sent at once${u.peak === undefined ? '' : ` (${u.peak.low === u.peak.high ? u.peak.low : `${u.peak.low}-${u.peak.high}`} queued or running at most, by their records)`} with ${u.workersBefore} worker(s) up ended with ${u.workersAfter} (${u.source})`).join('; ');
    const capWords = e.cap === undefined ? 'the most workers seen standing for workersMax' : `workersMax ${e.cap}`;
    const base = `workers came at once (${Math.round(burstReaction)} ms after a burst), ceil(jobs / value) of them within ${capWords}: ${seen}`;
    if (c.values.length === 1 && !orMore) return { type: 'REQUEST_COUNT', value: c.value, detail: `${base}: only ${c.value} predicts every count` };
    const capOf = e.cap ?? Math.max(1, ...e.scaleUps.map((u) => u.workersAfter));
    const [a, b] = c.values.length > 1 ? [c.values[0] as number, c.values[1] as number] : [top, top + 1];
    const tell = separatingBatch(a, b, capOf);
    return {
      type: 'REQUEST_COUNT',
      value: c.value,
      ambiguous: c.values,
      detail:
        `${base}: ambiguous between ${c.values.length > 1 ? listOf(c.values, orMore) : `${top} and any larger value`} (each predicts the same counts${e.scaleUps.some((u) => u.peak !== undefined) ? ' within what the records place' : ''}); ${c.value} picked, ${c.value === c.values[0] ? 'the least (the most workers)' : 'the one the likeliest counts by the records predict best'}` +
        (tell === undefined ? '' : `; ${tell} job(s) sent at once with no worker up would tell ${a} from ${b} (--cold-batch ${tell})`),
    };
  }
  const cold = e.coldReactions;
  // A service that starts a worker at once for a job finding none (startOnArrival) shows its
  // scaler only beyond that: the burst (with a worker up) says the delay, the cold batches do not.
  const coldAtOnce = inferStartOnArrival(cold, e.slackMs)?.value === true;
  if (cold.length > 0 && !coldAtOnce) {
    const c = queueDelayCandidates(cold, QUEUE_DELAY_CHECK_MS, e.slackMs);
    const readings = [...cold].sort((a, b) => a.ms - b.ms).map((r) => `${(r.ms / 1_000).toFixed(1)}±${(r.errorMs / 1_000).toFixed(1)}`).join(', ');
    const base = `workers came ${readings} s after the first job of a cold batch joined the queue (within the /health and /status poll spans); a delay of v s and a ${QUEUE_DELAY_CHECK_MS / 1_000} s periodic check put each in (v, v + ${QUEUE_DELAY_CHECK_MS / 1_000}]`;
    if (c.values.length === 1) return { type: 'QUEUE_DELAY', value: c.value, detail: `${base}: only ${c.value} fits (a quarter of the readings may stray)` };
    return {
      type: 'QUEUE_DELAY',
      value: c.value,
      ambiguous: c.values,
      detail: `${base}: ambiguous between ${listOf(c.values)} (each fits the readings); ${c.value} picked, nearest their median less half a check; more cold batches (--cold-starts) or a shorter --health-poll-ms narrow it`,
    };
  }
  if (burstReaction === undefined) return undefined;
  const value = Math.max(1, Math.floor(burstReaction / 1_000));
  // One reaction lies in (value, value + check], read within the burst's poll span and the slack:
  // every whole value whose range holds it within that error fits.
  const errMs = (e.burstErrorMs ?? 0) + e.slackMs;
  const fits = Array.from({ length: value + 1 }, (_, i) => i + 1).filter((v) => burstReaction + errMs > v * 1_000 && burstReaction - errMs <= v * 1_000 + QUEUE_DELAY_CHECK_MS);
  const why = `a burst of ${burst?.jobs ?? 0} jobs waited ${(burstReaction / 1_000).toFixed(1)} s for more workers (a delay of v s and a ${QUEUE_DELAY_CHECK_MS / 1_000} s periodic check put it in (v, v + ${QUEUE_DELAY_CHECK_MS / 1_000}]${errMs > 0 ? `, read within ±${(errMs / 1_000).toFixed(1)} s` : ''})${coldAtOnce ? '; a job finding no worker up had one at once (startOnArrival), so the cold batches do not show the delay' : ''}`;
  if (fits.length <= 1) return { type: 'QUEUE_DELAY', value, detail: `${why}: ${value} s` };
  return { type: 'QUEUE_DELAY', value, ambiguous: fits, detail: `${why}: ambiguous between ${listOf(fits)} s; ${value} picked, the whole seconds it waited; cold batches that wait on the scaler (--cold-starts) or a shorter --health-poll-ms narrow it` };
}

function pick<T extends number | string | boolean>(name: keyof DeploymentSettings, given: T | undefined, measured: { value: T; detail: string } | undefined, fallback: T): SettingValue {
  if (given !== undefined) return { name, value: given, source: 'given', detail: measured === undefined ? 'not measured' : `measured ${measured.value}: ${measured.detail}` };
  if (measured !== undefined) return { name, value: measured.value, source: 'measured', detail: measured.detail };
  return { name, value: fallback, source: 'service default', detail: 'not measured, not given' };
}

function partFit(part: TimingPart, samplesMs: number[], derivation: string, mixture = false, classId?: string, resolutionMs?: number, error?: (durationMs: number) => ReadingError): PartFit | undefined {
  if (samplesMs.length === 0) return undefined;
  const fit = fitSamples(samplesMs, { mixture, ...(resolutionMs !== undefined ? { resolutionMs } : {}), ...(error !== undefined ? { readingError: error } : {}) });
  const out = new Set(fit.outliersMs);
  return { part, samplesMs, fit, precision: precisionOf(fit.dist, samplesMs.filter((x) => !out.has(x))), derivation, ...(classId !== undefined ? { classId } : {}) };
}

/** The plan flag whose count adds samples to a part. */
const MORE_SAMPLES_FLAG: Readonly<Record<TimingPart, string>> = {
  dispatch: '--warm-jobs',
  overhead: '--warm-jobs',
  execution: '--warm-jobs (every finished job is a sample)',
  coldStart: '--cold-starts',
  throttle: '--cold-starts (each start that waits for capacity is a sample)',
  firstChunk: '--stream-jobs',
  chunkGap: '--stream-jobs',
};

/** What a part's error does to the twin's figures, in words. */
const CONSEQUENCE: Readonly<Record<TimingPart, string>> = {
  dispatch: 'a queue near capacity multiplies that error in delayTime',
  execution: 'a queue near capacity multiplies that error in delayTime',
  overhead: "every job's end to end carries it",
  coldStart: 'every job that waits for a starting worker carries it',
  throttle: 'every job that waits for a worker waiting for capacity carries it',
  firstChunk: "every streamed job's time to first chunk carries it",
  chunkGap: "every streamed job's chunk rate carries it",
};

/** Beyond these, a fit's sampling error is large enough for the twin's figures to show it. */
const PRECISION_NOTE_MEDIAN = 0.05;
const PRECISION_NOTE_SHARE = 0.1;

/** A note for each fit whose median (or, for a mixture, share) its samples place only loosely. */
export function precisionNotes(fits: readonly PartFit[]): string[] {
  const notes: string[] = [];
  for (const f of fits) {
    const pr = f.precision;
    const name = `${f.part}${f.classId !== undefined ? ` (class ${f.classId})` : ''}`;
    const n = f.samplesMs.length - f.fit.outliersMs.length;
    if (pr.share !== undefined && Math.max(pr.share.p - pr.share.low, pr.share.high - pr.share.p) > PRECISION_NOTE_SHARE) {
      notes.push(
        `${name}: the fast share ${(pr.share.p * 100).toFixed(0)}% is known only within ${(pr.share.low * 100).toFixed(0)}-${(pr.share.high * 100).toFixed(0)}% (95%) from ${n} samples; ` +
          `each start the twin draws fast instead of full moves every job behind it, so about ${pr.share.samplesForTenPoints} samples (${MORE_SAMPLES_FLAG[f.part]}) for ±10 points`,
      );
    }
    if (Number.isFinite(pr.medianRelative) && pr.medianRelative > PRECISION_NOTE_MEDIAN) {
      notes.push(
        `${name}: its median is known to ±${(pr.medianRelative * 100).toFixed(1)}% (95%) from ${n} samples; ${CONSEQUENCE[f.part]}, ` +
          `about ${pr.samplesFor5Percent} samples (${MORE_SAMPLES_FLAG[f.part]}) for ±5%`,
      );
    }
  }
  return notes;
}

/** The service's overhead of warm jobs (end to end less delayTime, executionTime and the round trip), target ms: their median. */
export function warmOverheadMs(obs: Observations): number {
  const rttTargetMs = obs.rttRealMs * obs.timeScale;
  const warm = obs.jobs.filter((j) => completed(j) && j.phase === 'warm' && j.poolBefore === 'warm');
  return warm.length === 0 ? 0 : median(warm.map((j) => Math.max(0, j.e2eMs - (j.delayMs as number) - (j.executionMs as number) - rttTargetMs)));
}

/**
 * A dispatch nearly every job's exceeds: the samples' log-normal fit, its median less three of
 * its log standard deviations (0.13% below it); 0 with under 5 samples.
 */
export function lowQuantileMs(samplesMs: readonly number[]): number {
  if (samplesMs.length < 5) return 0;
  const { dist } = fitLognormal(samplesMs);
  return dist.medianMs * Math.exp(-3 * dist.sigma);
}

/**
 * The median of the samples at or above their median. An idle-timeout sample read from the last
 * job before a gap to the fall to the count at rest falls short of the timeout when the last flex
 * worker to stop went idle before that job (an active worker ran it), never past it beyond the
 * polls' spans.
 */
export function upperHalfMedian(samples: readonly number[]): number {
  const m = median(samples);
  return median(samples.filter((x) => x >= m));
}

/** Fewer warm-phase jobs than this that found their worker idle, and the ones that met a start are read too. */
const MIN_WARM_DISPATCH = 5;

/**
 * The dispatch samples, target ms: the delayTime of warm-phase jobs that found an idle worker;
 * when fewer than MIN_WARM_DISPATCH did (a worker that stops during the overhead, an idle timeout
 * shorter than it), also those that met a worker's start, each from the instant /health showed
 * that worker ready to its start (its end less executionTime), within one poll.
 */
export function dispatchSamples(obs: Observations): { readonly samplesMs: readonly number[]; readonly warm: number; readonly afterStart: number } {
  const rttTargetMs = obs.rttRealMs * obs.timeScale;
  const jobs = obs.jobs.filter((j) => completed(j) && j.phase === 'warm');
  const warm = jobs.filter((j) => j.poolBefore === 'warm' && j.metStart !== true).map((j) => j.delayMs as number);
  if (warm.length >= MIN_WARM_DISPATCH) return { samplesMs: warm, warm: warm.length, afterStart: 0 };
  const afterStart = jobs.flatMap((j) =>
    j.metStart === true && j.workerReadyAtMs !== undefined
      ? [Math.min(j.delayMs as number, Math.max(0, j.answeredAtMs * obs.timeScale - rttTargetMs / 2 - (j.executionMs as number) - j.workerReadyAtMs * obs.timeScale))]
      : [],
  );
  return { samplesMs: [...warm, ...afterStart], warm: warm.length, afterStart: afterStart.length };
}

/** A warm job's dispatch and execution, target ms: their median; 0 with none. */
export function warmJobMs(obs: Observations): number {
  const d = dispatchSamples(obs).samplesMs;
  const exec = obs.jobs.filter((j) => completed(j) && j.phase === 'warm').map((j) => j.executionMs as number);
  return d.length === 0 || exec.length === 0 ? 0 : median(d) + median(exec);
}

/**
 * The burst's first scale-up from its jobs joining the queue, target ms: timed from the send, so
 * half a round trip and (in the model) the overhead later; undefined: no scale-up seen.
 */
export function burstReactionMs(obs: Observations): number | undefined {
  const first = obs.burst?.firstScaleUpMs;
  return first === undefined ? undefined : Math.max(0, first - (obs.rttRealMs * obs.timeScale) / 2 - warmOverheadMs(obs));
}

/** Whether the burst's workers came at once (REQUEST_COUNT, or startOnArrival), not after a QUEUE_DELAY wait. */
export function burstCameAtOnce(obs: Observations): boolean {
  const r = burstReactionMs(obs);
  return r !== undefined && r < IMMEDIATE_MS;
}

export interface ColdSizing {
  /** Workers up at rest (active workers). */
  readonly restWorkers: number;
  readonly jobsPerWorker: number;
  /** workersMax, given or the most seen. */
  readonly cap: number;
  /** Workers the plan wants started per idle gap (--cold-batch). */
  readonly startsPerGap: number;
  /** The burst's workers came at once: batches are sized to tell the REQUEST_COUNT candidates apart. */
  readonly atOnce: boolean;
  /** A warm job's dispatch and execution, target ms (the median): how long an idle active worker's slot stays taken. */
  readonly jobMs: number;
  /** The QUEUE_DELAY reaction the burst showed, target ms (undefined: none seen, the longest is assumed). */
  readonly queueDelayMs: number | undefined;
  /**
   * `cap` is only the most workers seen, not workersMax shown (the workers up ran the burst
   * before the scaler started any): a scaler that waits is asked for twice as many until a batch
   * comes back short (waitingCapShown).
   */
  readonly capUnseen?: boolean | undefined;
}

/** The longest QUEUE_DELAY reaction a batch must outlast when the burst showed none: a 6 s delay and its check. */
const LONGEST_DELAY_MS = 7_000;

/**
 * The jobs of the next cold batch: enough to fill the idle active workers (restWorkers x
 * jobsPerWorker, which take jobs at once and start nothing) and then start `startsPerGap` flex
 * workers within the cap; with a scaler that waits and active workers, enough to keep their
 * slots taken past its reaction. When workers come at once and the scale-ups so far leave
 * several REQUEST_COUNT values (each with or without startOnArrival; each peak read within its
 * range, as the inference reads it), the batch is the smallest size whose worker count tells
 * most of them apart at the peak it likely reaches (short of the jobs sent by the share the
 * batches so far fell short); once no size does, v jobs for each worker the batch should end
 * with.
 */
export function coldBatchSize(scaleUps: readonly ScaleUp[], s: ColdSizing): number {
  const flex = Math.max(1, Math.min(s.startsPerGap, s.cap - s.restWorkers)) * s.jobsPerWorker;
  const base = s.restWorkers * s.jobsPerWorker + flex;
  if (!s.atOnce) {
    // Until a batch shows workersMax, twice the most workers seen (at least one more): a low cap
    // costs one batch of few jobs, a high one few batches.
    if (s.capUnseen === true && waitingCapShown(scaleUps, s) === undefined) {
      const most = Math.max(s.cap, ...scaleUps.map((u) => u.workersAfter));
      return activeShareOf(s) + Math.max(1, Math.max(most + 1, 2 * most) - s.restWorkers) * s.jobsPerWorker;
    }
    return activeShareOf(s) + flex;
  }
  if (s.cap <= s.restWorkers) return base;
  // The (value, startOnArrival) pairs that explain every scale-up so far, as the inference reads
  // them (the fewest misses, each peak within its range).
  const predict = (v: number, atOnce: boolean, up: Pick<ScaleUp, 'jobs' | 'workersBefore'>) => Math.max(requestCountWorkers(v, up, s.cap), atOnce ? arrivalWorkers(up, s.cap, s.jobsPerWorker) : 0);
  const pairs = Array.from({ length: 16 }, (_, i) => ({ v: (i >> 1) + 1, atOnce: (i & 1) === 1 })).map((c) => ({ ...c, miss: scaleUps.filter((u) => !explains(u, (counted) => predict(c.v, c.atOnce, counted))).length }));
  const fewest = Math.min(...pairs.map((c) => c.miss));
  const left = pairs.filter((c) => c.miss === fewest);
  // A batch's jobs reach the queue over the service's overhead, and some end before the last
  // arrives: its peak falls short of the jobs sent, by the share the batches so far fell short
  // at their likeliest peaks (their median).
  const shares = scaleUps.flatMap((u) => (u.peak === undefined || u.jobs < 2 ? [] : [Math.max(0, u.jobs - u.peak.point) / u.jobs]));
  const short = shares.length === 0 ? 0 : median(shares);
  // The smallest batch whose worker count at that peak tells most of them apart (with the
  // workers at rest); a size sent twice already is not sent again (its peaks left these pairs:
  // one more says no more).
  const cold = scaleUps.filter((u) => u.source === 'cold batch');
  let best = { n: base, distinct: 1 };
  for (let n = 1; n <= s.cap * 8; n += 1) {
    if (cold.filter((u) => u.jobs === n).length >= 2) continue;
    const peak = Math.max(1, Math.round(n * (1 - short)));
    const distinct = new Set(left.map((c) => predict(c.v, c.atOnce, { jobs: peak, workersBefore: s.restWorkers }))).size;
    if (distinct > best.distinct) best = { n, distinct };
  }
  // The batch that starts the planned workers (value v jobs for each): sent when nothing tells
  // the pairs apart, and when the cold batches so far all went to the idle active workers and
  // started none (no cold-start or idle-timeout sample yet).
  const v = Math.min(...left.filter((c) => !c.atOnce).map((c) => c.v), Infinity);
  const starting = Number.isFinite(v) ? Math.max(base, v * Math.min(s.cap, s.restWorkers + s.startsPerGap)) : base;
  const noneStarted = s.restWorkers > 0 && cold.length > 0 && cold.every((u) => u.workersAfter <= u.workersBefore);
  return best.distinct > 1 && !noneStarted ? best.n : starting;
}

/**
 * The jobs of a cold batch the idle active workers' slots get through before a scaler that waits
 * reacts, the rest waiting for it: with active workers and a known job time, enough to keep their
 * slots taken past its reaction and a second's margin (each slot works through a job every jobMs);
 * else their slots once.
 */
function activeShareOf(s: ColdSizing): number {
  if (s.restWorkers === 0 || !(s.jobMs > 0)) return s.restWorkers * s.jobsPerWorker;
  const waitMs = (s.queueDelayMs ?? LONGEST_DELAY_MS) + SECOND_MS;
  return s.restWorkers * s.jobsPerWorker * Math.ceil(waitMs / s.jobMs);
}

/**
 * workersMax as the cold batches showed it to a scaler that waits, or undefined when none did: a
 * batch's jobs beyond the active workers' share (activeShareOf) all wait past the scaler's
 * reaction, and QUEUE_DELAY then starts a worker for each jobsPerWorker of them (within the cap:
 * DEPLOYMENT-FACTS.md); a batch that ended with fewer workers than that reached workersMax.
 */
export function waitingCapShown(scaleUps: readonly ScaleUp[], s: ColdSizing): number | undefined {
  const short = scaleUps.filter((u) => u.source === 'cold batch' && u.workersAfter - u.workersBefore < Math.ceil(Math.max(0, u.jobs - activeShareOf(s)) / s.jobsPerWorker));
  return short.length === 0 ? undefined : Math.max(...short.map((u) => u.workersAfter));
}

export interface SecondBurstSizing {
  /** Job slots of the workers up (workers x jobs per worker) that took the first burst whole. */
  readonly slots: number;
  /** How long a slot holds a job, target ms (a warm job's dispatch and execution). */
  readonly jobMs: number;
  /** The longest a first-burst job waited (its delayTime) with no worker starting, target ms. */
  readonly longestWaitMs: number;
  /** Jobs meant to wait for the scaler beyond what the slots get through (the plan's burst). */
  readonly waitingJobs: number;
  /** Jobs the budget can spare for it. */
  readonly affordable: number;
}

export interface SecondBurst {
  readonly jobs: number;
  /** The longest scaler reaction it was sized to outlast, target ms. */
  readonly reactionMs: number;
  /** How long its jobs keep the slots taken and the queue non-empty, target ms. */
  readonly coversMs: number;
  /** The budget cut it below what the reaction asks for. */
  readonly capped: boolean;
}

/**
 * A second burst for when the workers up took the first whole before the scaler acted: the
 * slots' own share (each works through a job every jobMs) over the longest plausible reaction
 * (QUEUE_DELAY's 6 s and its check, or twice the longest wait the first burst showed without a
 * start, and one check more), the slots' first jobs, and the plan's burst on top to wait for the
 * scaler (so that the workers it starts, up to workersMax, have jobs to start for); within what
 * the budget spares.
 */
export function secondBurstSize(s: SecondBurstSizing): SecondBurst {
  const reactionMs = Math.max(LONGEST_DELAY_MS, 2 * s.longestWaitMs) + QUEUE_DELAY_CHECK_MS;
  const jobMs = Math.max(1, s.jobMs);
  const wanted = s.slots * Math.ceil(reactionMs / jobMs) + s.slots + s.waitingJobs;
  const jobs = Math.max(0, Math.min(wanted, s.affordable));
  return { jobs, reactionMs, coversMs: jobs <= s.slots ? 0 : ((jobs - s.slots) / s.slots) * jobMs, capped: jobs < wanted };
}

/**
 * The most jobs one worker ran at once, from the records of jobs sent together (their workerId):
 * each job held a slot of its worker for its executionTime up to its end (its answer less half a
 * round trip) and, before it, for a dispatch at least `dispatchLowMs` (a low quantile of the
 * dispatch samples: a dispatch much longer than the execution keeps jobs side by side on one
 * worker although their runs never overlap). Jobs on one worker whose spans overlap by more than a
 * round trip, a poll (what an answer's time may be off by) and a quarter of a span held slots side
 * by side, when seen so at least twice; one after another never overlap (each waits for its
 * dispatch after the one before ends, and a dispatch under `dispatchLowMs` is rare).
 * Undefined: no record names its worker. /health's jobs in progress per running worker misses a
 * worker's jobs still in their dispatch (counted in the queue).
 */
export function jobsPerWorkerFromRecords(jobs: readonly JobSample[], timeScale: number, rttTargetMs: number, pollTargetMs = 0, dispatchLowMs = 0): number | undefined {
  const byWorker = new Map<string, { startMs: number; endMs: number }[]>();
  for (const j of jobs) {
    if (j.workerId === undefined || !completed(j)) continue;
    const endMs = j.answeredAtMs * timeScale - rttTargetMs / 2;
    const spans = byWorker.get(j.workerId) ?? [];
    // Shortened at each end by half a round trip and a poll (a job that outlasts its /runsync
    // wait is read on /status polls; a busy host answers late) and an eighth of its run: two
    // jobs count as side by side only when their runs overlap by more than that, which one
    // after the other never do, however late their answers were read.
    const m = (rttTargetMs + pollTargetMs) / 2 + ((j.executionMs as number) + dispatchLowMs) / 8;
    spans.push({ startMs: endMs - (j.executionMs as number) - dispatchLowMs + m, endMs: endMs - m });
    byWorker.set(j.workerId, spans);
  }
  if (byWorker.size === 0) return undefined;
  // How many times `open` reached each count (one late answer makes one false overlap, not two).
  const reached = new Map<number, number>();
  for (const spans of byWorker.values()) {
    // Sweep: +1 at each start, -1 at each end (an end before a start at the same instant).
    const events = spans.flatMap((x) => (x.endMs > x.startMs ? [{ t: x.startMs, d: 1 }, { t: x.endMs, d: -1 }] : [])).sort((a, b) => a.t - b.t || a.d - b.d);
    let open = 0;
    for (const e of events) {
      open += e.d;
      if (e.d > 0) reached.set(open, (reached.get(open) ?? 0) + 1);
    }
  }
  // The most jobs side by side seen at least twice.
  return Math.max(1, ...[...reached].filter(([, times]) => times >= 2).map(([k]) => k));
}

const fitOfPart = (fits: readonly PartFit[], part: TimingPart): number | undefined => {
  const f = fits.find((x) => x.part === part && x.classId === undefined) ?? fits.find((x) => x.part === part);
  return f === undefined ? undefined : median(f.samplesMs);
};

/**
 * Why the most workers the burst reached need not be the maximum, or undefined when the burst
 * showed the cap: the scaler was never shown a reason to start one more. QUEUE_DELAY starts a
 * worker for a job that waited past its delay (and a check); REQUEST_COUNT keeps
 * ceil(jobs / value) workers. With a worker started at once for a job that finds no slot, every
 * job beyond the slots would have had one: the cap shows when jobs outnumber the peak's slots.
 */
export function drainedBelowCap(settings: readonly SettingValue[], obs: Observations): string | undefined {
  const get = (n: keyof DeploymentSettings) => settings.find((s) => s.name === n);
  const b = obs.burst;
  const wmax = get('workersMax');
  if (b === undefined || wmax?.source !== 'measured' || (wmax.value as number) > b.peakWorkers) return undefined;
  const type = get('scalerType')?.value as ScalerType | undefined;
  const v = get('scalerValue')?.value as number | undefined;
  const jpw = (get('jobsPerWorker')?.value as number | undefined) ?? 1;
  if (type === undefined || v === undefined) return undefined;
  if (get('startOnArrival')?.value === true && b.jobs > b.peakWorkers * jpw) return undefined;
  if (type === 'REQUEST_COUNT') {
    const want = Math.ceil(b.jobs / v);
    return want <= b.peakWorkers ? `the burst of ${b.jobs} jobs asks REQUEST_COUNT ${v} for ${want} worker(s), no more than the ${b.peakWorkers} it reached` : undefined;
  }
  const delays = obs.jobs.filter((j) => j.phase === 'burst' && completed(j)).map((j) => j.delayMs as number);
  if (delays.length === 0) return undefined;
  const longest = Math.max(...delays);
  const boundMs = v * 1_000 + QUEUE_DELAY_CHECK_MS + (REACTION_SLACK_REAL_MS + (obs.pollRealMs ?? 0) + obs.rttRealMs) * obs.timeScale;
  return longest <= boundMs
    ? `no job of the burst of ${b.jobs} waited past QUEUE_DELAY's ${v} s and a check (the longest ${(longest / 1_000).toFixed(1)} s): the ${b.peakWorkers} worker(s) up drained it before the scaler had cause to start another`
    : undefined;
}

/**
 * A note for each scaling setting (and the cold start) the calibration could not measure: what
 * the twin uses instead, why it was not seen, and what measuring it would take. A setting that
 * cannot change anything on this deployment (an idle timeout or a cold start with workersMin =
 * workersMax: no worker above the active ones ever starts or stops) says so.
 */
export function unmeasuredNotes(settings: readonly SettingValue[], o: { readonly obs: Observations; readonly coldStarts: number; readonly executionMedianMs: number | undefined }): string[] {
  const notes: string[] = [];
  const get = (n: keyof DeploymentSettings) => settings.find((s) => s.name === n);
  const min = get('workersMin')?.value as number;
  const max = get('workersMax')?.value as number;
  const jpw = get('jobsPerWorker')?.value as number;
  const b = o.obs.burst;
  const wmax = get('workersMax');
  // workersMax only as a lower bound: no worker was seen starting for a burst or a batch.
  const maxAtLeast = wmax?.source === 'measured' && b !== undefined && (b.firstScaleUpMs === undefined || b.peakWorkers <= b.workersBefore) && o.obs.scaleUps.every((u) => u.workersAfter <= u.workersBefore);
  const noFlex = min >= max && get('workersMax')?.source !== 'service default' && !maxAtLeast;
  const scale = o.obs.timeScale;
  const idle = get('idleTimeoutS');
  if (idle?.source === 'service default') {
    notes.push(
      `idleTimeoutS: not measured (no worker above the ${min} up at rest was seen to stop after its last job); the twin uses ${String(idle.value)} s, the service default` +
        (noFlex
          ? `: with workersMin = workersMax (${max}) no worker ever stops, so it changes nothing here`
          : `; measuring it takes one idle gap after a scale-up (--cold-starts > 0, one job at least) and a --max-duration past the idle timeout (up to ${Math.round(3_600 / scale)} s of wall time at time scale ${scale} for the longest, 3600 s)`),
    );
  }
  if (o.coldStarts === 0) {
    notes.push(
      `coldStart: not measured (no worker was seen starting after an idle gap); the twin keeps the emulator's constant cold start (its workers section, 1 s by default)` +
        (noFlex ? `: with workersMin = workersMax (${max}) workers start only when the endpoint is deployed, so it changes nothing in steady traffic` : '; measuring it takes cold batches (--cold-starts > 0) and a --max-duration that allows the idle gaps'),
    );
  }
  const exec = o.executionMedianMs;
  if (maxAtLeast && b !== undefined) {
    // Jobs that keep the workers up busy for longer than the longest QUEUE_DELAY reaction (6 s and a check).
    const need = exec === undefined || exec <= 0 ? undefined : Math.ceil((Math.max(1, b.workersBefore) * jpw * 8_000) / exec);
    notes.push(
      `workersMax: at least ${String(wmax.value)}: no worker started during the burst of ${b.jobs} jobs or a cold batch (the ${b.workersBefore} up ran them before the scaler acted); the twin uses ${String(wmax.value)}; ` +
        `measuring it takes a burst whose jobs wait past the scaler's reaction${need === undefined ? '' : ` (about ${need} jobs: the workers up x ${jpw} job(s) each x 8 s of execution at ${Math.round(exec as number)} ms a job)`}, or give --workers-max`,
    );
  }
  const drained = maxAtLeast ? undefined : drainedBelowCap(settings, o.obs);
  if (drained !== undefined && wmax !== undefined) {
    notes.push(
      `workersMax: at least ${String(wmax.value)}: ${drained}; the twin uses ${String(wmax.value)}; measuring it takes a larger burst (--burst-jobs, within --max-jobs) whose jobs outlast the scaler's reaction on every worker it starts, or give --workers-max`,
    );
  }
  for (const n of ['workersMax', 'scalerType', 'scalerValue', 'jobsPerWorker'] as const) {
    const x = get(n);
    if (x?.source === 'service default') notes.push(`${n}: not measured (${n === 'jobsPerWorker' ? 'no burst was read' : 'no worker was seen starting for a burst or a cold batch'}); the twin uses ${String(x.value)}, the service default; measuring it takes a burst (--burst-jobs) whose jobs wait on the scaler, or give it (--${n === 'scalerType' ? 'scaler-type' : n === 'scalerValue' ? 'scaler-value' : n === 'workersMax' ? 'workers-max' : 'jobs-per-worker'})`);
  }
  return notes;
}

/**
 * Jobs per worker from how much work each worker got through while the burst kept it busy: the
 * jobs one worker ran, each holding a slot for its dispatch (the warm jobs' median) and its
 * executionTime, over the span from its first job's handing over to its last job's end. One job
 * at a time fills the span once; j at a time, j times. The worker with the most jobs (at least
 * 4) answers, rounded down when the span has idle stretches (the burst's tail): undefined when
 * no worker ran 4. Unlike the overlap of runs, it sees jobs side by side whose dispatch hides
 * their executions from each other.
 */
export function jobsPerWorkerFromLoad(jobs: readonly JobSample[], dispatchMs: number, timeScale: number, rttTargetMs: number): number | undefined {
  const byWorker = new Map<string, JobSample[]>();
  for (const j of jobs) if (j.workerId !== undefined && completed(j)) byWorker.set(j.workerId, [...(byWorker.get(j.workerId) ?? []), j]);
  const busiest = [...byWorker.values()].reduce<JobSample[]>((a, x) => (x.length > a.length ? x : a), []);
  if (busiest.length < 4) return undefined;
  const endOf = (j: JobSample) => j.answeredAtMs * timeScale - rttTargetMs / 2;
  const from = Math.min(...busiest.map((j) => endOf(j) - (j.executionMs as number) - dispatchMs));
  const to = Math.max(...busiest.map(endOf));
  const load = busiest.reduce((acc, j) => acc + (j.executionMs as number) + dispatchMs, 0);
  return to > from ? Math.max(1, Math.floor(load / (to - from) + 0.25)) : undefined;
}

/** Queue waits shorter than this many job slot times (a dispatch and an execution) in all say too little about the slots. */
const MIN_WAIT_SLOT_TIMES = 2;

/**
 * Jobs per worker from the slots the workers kept taken while jobs waited in the queue. The
 * queue hands a waiting job to a ready worker's free slot at once, so while one waits every ready
 * worker holds its jobs per worker (its jobs in their dispatch included, which /health counts as
 * queued). From each job's record: its start is its end (its answer less half a round trip) less
 * its executionTime; it joined the queue its delayTime before that start and was handed over a
 * dispatch before it. With `dispatchMs` (the dispatch samples), each job holds its slot from its
 * start less their mean to its end, and surely still waited until its start less their 95th
 * percentile. Over the union of those waits, within each worker's span from its first hand-over
 * to its last end, the jobs the workers held per worker-ms, rounded. Undefined: no record names
 * its worker, or the waits cover under MIN_WAIT_SLOT_TIMES job slot times.
 */
export function jobsPerWorkerFromQueueWait(jobs: readonly JobSample[], dispatchMs: readonly number[], timeScale: number, rttTargetMs: number): number | undefined {
  if (dispatchMs.length === 0) return undefined;
  const sorted = [...dispatchMs].sort((a, b) => a - b);
  const meanMs = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const highMs = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] as number;
  const spans = jobs.flatMap((j) => {
    if (j.workerId === undefined || !completed(j)) return [];
    const endMs = j.answeredAtMs * timeScale - rttTargetMs / 2;
    const startMs = endMs - (j.executionMs as number);
    return [{ worker: j.workerId, heldFromMs: startMs - meanMs, endMs, queuedMs: startMs - (j.delayMs as number), waitedToMs: startMs - highMs }];
  });
  if (spans.length === 0) return undefined;
  // The union of the waits, as sorted disjoint intervals.
  const waits: [number, number][] = [];
  for (const s of spans.filter((x) => x.waitedToMs > x.queuedMs).sort((a, b) => a.queuedMs - b.queuedMs)) {
    const last = waits.at(-1);
    if (last !== undefined && s.queuedMs <= last[1]) last[1] = Math.max(last[1], s.waitedToMs);
    else waits.push([s.queuedMs, s.waitedToMs]);
  }
  const overlap = (a: number, b: number) => waits.reduce((acc, [x, y]) => acc + Math.max(0, Math.min(b, y) - Math.max(a, x)), 0);
  let heldMs = 0;
  let workerMs = 0;
  for (const w of new Set(spans.map((s) => s.worker))) {
    const mine = spans.filter((s) => s.worker === w);
    workerMs += overlap(Math.min(...mine.map((s) => s.heldFromMs)), Math.max(...mine.map((s) => s.endMs)));
    heldMs += mine.reduce((acc, s) => acc + overlap(s.heldFromMs, s.endMs), 0);
  }
  const slotMs = median(spans.map((s) => s.endMs - s.heldFromMs));
  if (!(workerMs >= MIN_WAIT_SLOT_TIMES * slotMs) || workerMs <= 0) return undefined;
  return Math.max(1, Math.round(heldMs / workerMs));
}

/**
 * Jobs per worker as the burst shows it before the cold batches (what sizes them): the most jobs
 * in progress per running worker on /health, rounded, or the jobs the workers held while burst
 * jobs waited (jobsPerWorkerFromQueueWait), the larger; undefined: no burst job ran.
 */
export function burstJobsPerWorker(obs: Observations): number | undefined {
  const b = obs.burst;
  const health = b !== undefined && b.maxJobsPerRunningWorker > 0 ? Math.max(1, Math.round(b.maxJobsPerRunningWorker)) : undefined;
  const burstJobs = obs.jobs.filter((j) => j.phase === 'burst');
  const wait = jobsPerWorkerFromQueueWait(burstJobs, dispatchSamples(obs).samplesMs, obs.timeScale, obs.rttRealMs * obs.timeScale);
  return health === undefined && wait === undefined ? undefined : Math.max(health ?? 1, wait ?? 1);
}

export interface InferOptions {
  readonly given: GivenSettings;
  /** The input field whose value names a job's class (several --input files). */
  readonly classField: string | undefined;
  readonly classIds: readonly string[];
  readonly seed: number;
}

export function inferDeployment(obs: Observations, o: InferOptions): Inferred {
  const notes: string[] = [];
  const rttTargetMs = obs.rttRealMs * obs.timeScale;
  const done = obs.jobs.filter(completed);
  const fits: PartFit[] = [];
  const add = (f: PartFit | undefined) => {
    if (f) fits.push(f);
  };

  // Dispatch: warm jobs, sent one at a time to an idle worker.
  const warm = done.filter((j) => j.phase === 'warm' && j.poolBefore === 'warm');
  const ds = dispatchSamples(obs);
  const dispatch = partFit(
    'dispatch',
    [...ds.samplesMs],
    `delayTime of ${ds.warm} warm-phase jobs sent to an idle worker` +
      (ds.afterStart > 0 ? `, and of ${ds.afterStart} whose worker had stopped before they reached the queue, from its start seen ready on /health to the job's start (within one poll)` : ''),
  );
  add(dispatch);

  // Execution: every finished job, by class when there are several.
  const execOf = (jobs: readonly JobSample[]) => jobs.map((j) => j.executionMs as number);
  for (const id of o.classIds) {
    const mine = done.filter((j) => j.classId === id);
    add(partFit('execution', execOf(mine), `executionTime of ${mine.length} finished jobs of class ${id}`, false, o.classIds.length > 1 ? id : undefined));
  }
  const allExecution = o.classIds.length > 1 ? fitSamples(execOf(done)) : undefined;

  // Overhead: warm jobs, one at a time, so no wait on the client's side is counted.
  const overhead = warm.map((j) => Math.max(0, j.e2eMs - (j.delayMs as number) - (j.executionMs as number) - rttTargetMs));
  const overheadMedianMs = overhead.length > 0 ? median(overhead) : 0;
  add(partFit('overhead', overhead, `end to end less delayTime, executionTime and the /health round trip (${Math.round(rttTargetMs)} ms) of ${warm.length} warm jobs`));
  if (obs.timeScale > 1 && overhead.length > 0) {
    notes.push(
      `overhead: at time scale ${obs.timeScale} each real ms of this client's own path beyond the /health round trip's floor (its event loop, a late answer) is ${obs.timeScale} target ms of overhead: the fit is an upper bound (measured with qbench's own emulator at time scale 60: +25-50% of an 800 ms overhead, 1-2% of end to end)`,
    );
  }

  // Cold starts: workers started by cold batches (or a second burst), watched on /health (and
  // the jobs on /status) on the same polls. A worker's cold start is from its first sight
  // starting, or the end of its wait for capacity, to ready; the scaler's reaction is what
  // delayTime holds before the worker's first sight.
  // The polls that time a start: gaps of the poll (within ±pollJitter of it) and a round trip.
  const pollMs = (obs.pollRealMs ?? 0) * obs.timeScale;
  const jitter = obs.pollJitter ?? 0;
  const startNoise = readingNoiseMs2(rttTargetMs + pollMs * (1 - jitter), 2 * jitter * pollMs);
  const errors = new Map<number, ReadingError>();
  const startError = (ms: number): ReadingError => {
    const key = Math.round(ms);
    let e = errors.get(key);
    if (e === undefined) errors.set(key, (e = readingError(rttTargetMs + pollMs * (1 - jitter), 2 * jitter * pollMs, key)));
    return e;
  };
  const startsFit = (xs: readonly number[]) =>
    partFit('coldStart', [...xs], `${xs.length} workers started by cold batches or a second burst (${obs.coldReactions.length} idle gap(s) read): from /health first showing each worker starting (or, one that waited for capacity, leaving the throttled count) to it no longer starting`, true, undefined, pollMs + rttTargetMs, startError);
  // Starts that began over several polls are paired again as the fit of all of them makes likeliest, twice (each pairing moves the fit).
  let starts: readonly number[] = obs.workerStartsMs;
  let coldFit = startsFit(starts);
  let repaired = 0;
  for (let round = 0; round < 2 && coldFit !== undefined && (obs.staggeredStarts?.length ?? 0) > 0; round += 1) {
    const r = repairStarts(obs.workerStartsMs, obs.staggeredStarts ?? [], coldFit.fit.dist, startNoise);
    repaired = r.changed;
    if (r.starts.every((x, i) => x === starts[i])) break;
    starts = r.starts;
    coldFit = startsFit(starts);
  }
  if (repaired > 0) notes.push(`coldStart: in ${repaired} reading(s) whose workers began over several polls, a start that the fit finds likelier to have overtaken another was paired with the earlier ready worker (first in, first out would read the fast start long and the full one short)`);
  add(coldFit);
  // Throttling: starts seen throttled on /health waited for capacity before their cold start
  // (timed from the wait's end); the share of starts that did is the probability.
  const th = obs.throttle;
  const throttleFit = partFit('throttle', [...th.waitsMs], `${th.waitsMs.length} waits for GPU capacity read to their end, of ${th.throttled} worker start(s) seen throttled on /health (of ${th.starts} watched): from the sighting to the worker leaving the throttled count`);
  add(throttleFit);
  const throttle = throttleEstimate(th, throttleFit);
  notes.push(throttleNote(throttle));
  // The burst's first scale-up is timed from its send: the job reached the queue half a round
  // trip and (in the model) its overhead later.
  const queuedAfterMs = rttTargetMs / 2 + overheadMedianMs;
  const b = obs.burst;
  const burstReacted = b === undefined || b.firstScaleUpMs === undefined ? b : { ...b, firstScaleUpMs: Math.max(0, b.firstScaleUpMs - queuedAfterMs) };
  // Each cold batch's most requests at once from its records.
  const peaked = withPeaks(obs.scaleUps, obs);
  const scaleUps: ScaleUp[] = [...peaked, ...[obs.absorbedBurst, b].flatMap((x) => (x === undefined ? [] : [{ source: 'burst' as const, jobs: x.jobs, workersBefore: x.workersBefore, workersAfter: x.peakWorkers }]))];
  const scaler =
    o.given.scalerType !== undefined && o.given.scalerValue !== undefined
      ? undefined
      : inferScaler(burstReacted, { coldReactions: obs.coldReactions, scaleUps, cap: o.given.workersMax, slackMs: REACTION_SLACK_REAL_MS * obs.timeScale, burstErrorMs: ((obs.pollRealMs ?? 0) + obs.rttRealMs) * obs.timeScale });
  if (scaler?.ambiguous !== undefined) notes.push(`scalerValue: the evidence leaves it ambiguous between ${scaler.ambiguous.join(', ')}; ${scaler.value} was picked (see its detail): give --scaler-value if you know it`);

  // Streaming: the first chunk came after the job's start (seen on /status by the same client;
  // else: after the round trip, the overhead and delayTime); the last comes at the end of
  // execution, and the chunks between split the rest evenly (a job's mean gap).
  const streamed = obs.streams.filter((x) => x.job.status === 'COMPLETED' && x.job.delayMs !== undefined && x.job.executionMs !== undefined);
  const firstChunks = streamed.map((x) => Math.min(x.job.executionMs as number, x.startToFirstChunkMs ?? Math.max(0, x.firstArrivalMs - rttTargetMs - overheadMedianMs - (x.job.delayMs as number))));
  add(partFit('firstChunk', firstChunks, `${streamed.length} streamed jobs: from the job's start on /status to its first /stream chunk (or, unseen, the arrival less the round trip, the median overhead and delayTime)`));
  // The gaps from the chunks' arrivals, first to last: a handler may run on after its last chunk
  // (the twin's model waits out its execution time, under one more gap), which executionTime
  // would count as gaps. When one poll brought every chunk, the rest of executionTime it is.
  const gaps = streamed.map((x, i) =>
    x.chunks > 1 && x.firstToLastArrivalMs > 0 ? x.firstToLastArrivalMs / (x.chunks - 1) : ((x.job.executionMs as number) - (firstChunks[i] as number)) / Math.max(1, x.chunks - 1),
  );
  add(partFit('chunkGap', gaps, 'the time from the first chunk\'s arrival to the last one\'s over the gaps between them (each job its mean gap; the rest of executionTime when one poll brought them all)'));
  const tokens = obs.streams.flatMap((s) => (s.tokensPerChunk === undefined ? [] : [s.tokensPerChunk]));

  // Settings.
  const healthJpw = b !== undefined && b.maxJobsPerRunningWorker > 0 ? Math.max(1, Math.round(b.maxJobsPerRunningWorker)) : undefined;
  const recordsJpw = jobsPerWorkerFromRecords(done.filter((j) => j.phase === 'burst'), obs.timeScale, rttTargetMs, (obs.pollRealMs ?? 0) * obs.timeScale, lowQuantileMs(ds.samplesMs));
  const loadJpw = jobsPerWorkerFromLoad(done.filter((j) => j.phase === 'burst'), dispatch === undefined ? 0 : median(dispatch.samplesMs), obs.timeScale, rttTargetMs);
  const waitJpw = jobsPerWorkerFromQueueWait(done.filter((j) => j.phase === 'burst'), ds.samplesMs, obs.timeScale, rttTargetMs);
  const measuredJpw =
    healthJpw === undefined && recordsJpw === undefined && loadJpw === undefined && waitJpw === undefined
      ? undefined
      : {
          value: Math.max(healthJpw ?? 1, recordsJpw ?? 1, loadJpw ?? 1, waitJpw ?? 1),
          detail: `the largest of: the most jobs in progress per running worker on /health during the burst (${b?.maxJobsPerRunningWorker.toFixed(2) ?? 'none seen'}), the most burst jobs one worker ran at once by their records (${recordsJpw ?? 'no workerId'}), the busiest worker's dispatch and execution over its busy span (${loadJpw ?? 'under 4 jobs'}) and the jobs each worker held while burst jobs waited in the queue, by their records (${waitJpw ?? 'too short a wait'})`,
        };
  const jobsPerWorker = pick('jobsPerWorker', o.given.jobsPerWorker, measuredJpw, SERVICE_DEFAULTS.jobsPerWorker);
  const idle = obs.idleTimeoutSamplesMs;
  const measuredIdle =
    idle.length > 0
      ? {
          value: Math.min(3600, Math.max(1, Math.round(upperHalfMedian(idle) / 1_000))),
          detail: `workers stopped ${idle.map((s) => (s / 1_000).toFixed(1)).join(', ')} s after going idle (each worker from /health showing it go idle, after a burst or a cold batch, to its stop; where no stop was read so, from the last job before the first idle gap to the fall to the count at rest). The median of the upper half, whole seconds: a worker that went idle before the last job, beside an active one that ran it, stops sooner`,
        }
      : undefined;
  const measuredMin = obs.restWorkers !== undefined && Number.isFinite(obs.restWorkers) ? { value: obs.restWorkers, detail: `workers up at rest, after the idle timeout` } : undefined;
  // The most workers seen up: the burst's peak, or a cold batch's when one started more.
  const coldPeak = Math.max(0, ...obs.scaleUps.map((u) => u.workersAfter));
  const measuredMax =
    b !== undefined
      ? {
          value: Math.max(1, b.peakWorkers, coldPeak),
          detail:
            coldPeak > b.peakWorkers
              ? `the most workers up after a cold batch (${coldPeak}; the burst of ${b.jobs} jobs reached ${b.peakWorkers})`
              : `the most workers up during a burst of ${b.jobs} jobs${b.peakWorkers * (jobsPerWorker.value as number) >= b.jobs ? ' (every job had a worker: the real maximum may be higher, give --workers-max)' : ''}`,
        }
      : undefined;
  const settings: SettingValue[] = [
    pick('workersMin', o.given.workersMin, measuredMin, SERVICE_DEFAULTS.workersMin),
    pick('workersMax', o.given.workersMax, measuredMax, SERVICE_DEFAULTS.workersMax),
    pick('idleTimeoutS', o.given.idleTimeoutS, measuredIdle, SERVICE_DEFAULTS.idleTimeoutS),
    pick<ScalerType>('scalerType', o.given.scalerType, scaler === undefined ? undefined : { value: scaler.type, detail: scaler.detail }, SERVICE_DEFAULTS.scalerType),
    pick('scalerValue', o.given.scalerValue, scaler === undefined ? undefined : { value: scaler.value, detail: scaler.detail }, SERVICE_DEFAULTS.scalerValue),
    jobsPerWorker,
  ];
  // REQUEST_COUNT answers at once too: there, what tells a worker started for each job beyond the
  // free slots (startOnArrival) from the scaler alone is how many workers each batch ended with.
  const arrival: (StartOnArrivalGuess & { readonly values?: readonly number[] }) | undefined =
    scaler?.type === 'REQUEST_COUNT' && o.given.scalerType === undefined
      ? startOnArrivalFromCounts(scaleUps, o.given.workersMax ?? Math.max(1, ...scaleUps.map((u) => u.workersAfter)), jobsPerWorker.value as number)
      : inferStartOnArrival(obs.coldReactions, REACTION_SLACK_REAL_MS * obs.timeScale);
  if (arrival?.values !== undefined && arrival.value && o.given.scalerValue === undefined) {
    // The scaler's value as the counts allow it beside startOnArrival: the least (the most workers).
    const i = settings.findIndex((x) => x.name === 'scalerValue');
    const v = arrival.values[0] as number;
    settings[i] = { name: 'scalerValue', value: v, source: 'measured', detail: `${arrival.values.length > 1 ? `ambiguous between ${listOf(arrival.values)} beside startOnArrival (each predicts the same counts); ${v} picked, the least` : `only ${v} predicts every count beside startOnArrival`}: ${arrival.detail}` };
  }
  const startOnArrival = pick('startOnArrival', o.given.startOnArrival, arrival, false);
  if (o.given.startOnArrival === undefined && arrival?.tied === true) {
    notes.push(
      `startOnArrival: the batches seen do not tell a worker started at once for each job that finds no free slot from REQUEST_COUNT alone (from the workers a batch ends with, one is REQUEST_COUNT at the jobs per worker); the twin uses REQUEST_COUNT alone; give --start-on-arrival or --no-start-on-arrival if you know which`,
    );
    if (o.given.scalerType === undefined) {
      notes.push(
        `scalerType: workers came at once, which REQUEST_COUNT explains and so does a worker started at once beside either scaler (startOnArrival, above); the twin uses REQUEST_COUNT; give --scaler-type, or --start-on-arrival or --no-start-on-arrival, if you know them`,
      );
    }
  }
  if (startOnArrival.source === 'service default') {
    const why = obs.coldReactions.length === 0 ? 'no cold batch was read' : `the ${obs.coldReactions.length} cold batch reaction(s) were read too loosely to tell (each must lie wholly below ${AT_ONCE_BELOW_MS} ms or above ${WAITED_ABOVE_MS} ms)`;
    const detail = `not measured (${why}): the twin waits for the scaler, as the service documents QUEUE_DELAY; measuring it takes cold batches (--cold-starts > 0) with a /health poll short enough (--health-poll-ms) to place each reaction`;
    settings.push({ ...startOnArrival, detail });
    notes.push(`startOnArrival: ${detail}`);
  } else settings.push(startOnArrival);
  if (o.given.gpuTypeId !== undefined) settings.push({ name: 'gpuTypeId', value: o.given.gpuTypeId, source: 'given', detail: 'not observable through the queue interface' });
  settings.push(pick('gpuCount', o.given.gpuCount, undefined, SERVICE_DEFAULTS.gpuCount));
  const value = (n: keyof DeploymentSettings) => settings.find((s) => s.name === n)?.value;
  if ((value('workersMin') as number) > (value('workersMax') as number)) {
    notes.push(`workersMin ${value('workersMin')} exceeds workersMax ${value('workersMax')}: workersMax raised to match`);
    const i = settings.findIndex((s) => s.name === 'workersMax');
    settings[i] = { ...(settings[i] as SettingValue), value: value('workersMin') as number, detail: `${(settings[i] as SettingValue).detail}; raised to workersMin` };
  }
  notes.push(...unmeasuredNotes(settings, { obs, coldStarts: starts.length, executionMedianMs: fitOfPart(fits, 'execution') }));

  const fitOf = (part: TimingPart): Distribution | undefined => fits.find((f) => f.part === part && f.classId === undefined)?.fit.dist;
  let execution: ExecutionTiming | undefined = fitOf('execution');
  if (allExecution !== undefined && o.classField !== undefined) {
    execution = {
      byInputField: o.classField,
      classes: Object.fromEntries(fits.filter((f) => f.part === 'execution' && f.classId !== undefined).map((f) => [f.classId as string, f.fit.dist])),
      default: allExecution.dist,
    };
  }
  const firstChunk = fitOf('firstChunk');
  const chunkGap = fitOf('chunkGap');
  const timing: TimingModel = {
    ...(fitOf('coldStart') !== undefined ? { coldStart: fitOf('coldStart') } : {}),
    ...(throttle !== undefined && throttle.throttled > 0 && throttleFit !== undefined ? { throttle: { probability: throttle.probability, duration: throttleFit.fit.dist } } : {}),
    ...(fitOf('dispatch') !== undefined ? { dispatch: fitOf('dispatch') } : {}),
    ...(execution !== undefined ? { execution } : {}),
    ...(firstChunk !== undefined && chunkGap !== undefined ? { stream: { firstChunk, chunkGap, tokensPerChunk: Math.max(1, Math.round(tokens.length > 0 ? median(tokens) : 1)) } } : {}),
    ...(fitOf('overhead') !== undefined ? { overhead: fitOf('overhead') } : {}),
  };
  const deployment: DeploymentSettings = {
    workersMin: value('workersMin') as number,
    workersMax: value('workersMax') as number,
    idleTimeoutS: value('idleTimeoutS') as number,
    scalerType: value('scalerType') as ScalerType,
    scalerValue: value('scalerValue') as number,
    startOnArrival: value('startOnArrival') as boolean,
    jobsPerWorker: value('jobsPerWorker') as number,
    ...(o.given.gpuTypeId !== undefined ? { gpuTypeId: o.given.gpuTypeId } : {}),
    gpuCount: value('gpuCount') as number,
    seed: o.seed,
    timing,
  };
  notes.push(...precisionNotes(fits));
  const failed = obs.jobs.filter((j) => j.status !== 'COMPLETED');
  if (failed.length > 0) notes.push(`${failed.length} job(s) did not complete (${[...new Set(failed.map((j) => j.status))].join(', ')}): their timings are left out of the fits`);
  return { settings, fits, throttle, deployment, notes };
}
