// Traffic for the discrete-event mode: a profile (the `--rate/--duration` flags, or a JSON file:
// constant or Poisson rate, a daily curve, rate steps, bursts, a replay of arrival times, a mix of
// input classes) validated once with every problem named, and its seeded arrival schedule. The
// same profile and seed give the same arrivals; the schedule is plain typed arrays, so a profile
// crosses to worker threads as data.
import { z } from 'zod';
import { configError, usageError } from '../errors.js';
import { seededRng, streamSeed, type Rng } from '../deployment/index.js';

/** The most jobs one simulated second may bring, and one profile in all: a simulation holds them in memory. */
export const MAX_RATE_PER_SEC = 10_000;
export const MAX_ARRIVALS = 20_000_000;
/** The longest simulated traffic: one week. */
export const MAX_DURATION_S = 7 * 24 * 3_600;

const rate = (what: string) =>
  z
    .number({ error: `${what} must be a number of jobs per second` })
    .positive({ error: `${what} must be > 0 and at most ${MAX_RATE_PER_SEC} jobs/s` })
    .max(MAX_RATE_PER_SEC, { error: `${what} must be > 0 and at most ${MAX_RATE_PER_SEC} jobs/s` });
const rateOrZero = (what: string) =>
  z
    .number({ error: `${what} must be a number of jobs per second` })
    .nonnegative({ error: `${what} must be 0..${MAX_RATE_PER_SEC} jobs/s` })
    .max(MAX_RATE_PER_SEC, { error: `${what} must be 0..${MAX_RATE_PER_SEC} jobs/s` });
const seconds = (what: string) =>
  z
    .number({ error: `${what} must be a number of seconds` })
    .positive({ error: `${what} must be > 0 and at most ${MAX_DURATION_S} s (7 days)` })
    .max(MAX_DURATION_S, { error: `${what} must be > 0 and at most ${MAX_DURATION_S} s (7 days)` });
const offset = (what: string) =>
  z
    .number({ error: `${what} must be a number of seconds` })
    .nonnegative({ error: `${what} must be 0..${MAX_DURATION_S} s` })
    .max(MAX_DURATION_S, { error: `${what} must be 0..${MAX_DURATION_S} s` });

export const REPLAY_FORMATS = ['csv', 'jsonl', 'load-result'] as const;
export type ReplayFormat = (typeof REPLAY_FORMATS)[number];

/** The base arrival process (bursts come on top of it). */
export const Arrivals = z.discriminatedUnion('kind', [
  /** Evenly spaced: one job every 1/ratePerSec s. */
  z.strictObject({ kind: z.literal('constant'), ratePerSec: rate('arrivals.ratePerSec') }),
  /** A Poisson process: exponential gaps of mean 1/ratePerSec s. */
  z.strictObject({ kind: z.literal('poisson'), ratePerSec: rate('arrivals.ratePerSec') }),
  /** A Poisson process whose rate follows the hour of the day (a step per hour), from `startHour` at time 0. */
  z.strictObject({
    kind: z.literal('daily'),
    ratePerSecByHour: z
      .array(rateOrZero('arrivals.ratePerSecByHour[]'), { error: 'arrivals.ratePerSecByHour must be a list of 24 rates (jobs/s), hour 0 first' })
      .length(24, { error: 'arrivals.ratePerSecByHour must hold exactly 24 rates (jobs/s), hour 0 first' })
      .refine((r) => r.some((x) => x > 0), { error: 'arrivals.ratePerSecByHour: at least one hour must have a rate > 0' }),
    startHour: z.number({ error: 'arrivals.startHour must be a number' }).int({ error: 'arrivals.startHour must be a whole hour 0..23' }).min(0, { error: 'arrivals.startHour must be 0..23' }).max(23, { error: 'arrivals.startHour must be 0..23' }).default(0),
  }),
  /** A Poisson process whose rate is constant within each step of `stepS` s (a load result's replay resolves to this). */
  z.strictObject({
    kind: z.literal('steps'),
    /** Where the steps came from (a replayed load result), when read from a file. */
    source: z.string().optional(),
    stepS: seconds('arrivals.stepS'),
    ratePerSec: z.array(rateOrZero('arrivals.ratePerSec[]'), { error: 'arrivals.ratePerSec must be a list of rates (jobs/s), one per step' }).min(1, { error: 'arrivals.ratePerSec needs at least one step' }).max(1_000_000, { error: 'arrivals.ratePerSec holds at most 1000000 steps' }),
  }),
  /**
   * Arrival times replayed: from `file` (CSV or JSONL of timestamps, seconds or ISO; or a qbench
   * load result, whose rate over time is replayed) or given inline as `timesS`, seconds from 0.
   */
  z
    .strictObject({
      kind: z.literal('replay'),
      file: z.string().min(1, { error: 'arrivals.file must name a file' }).optional(),
      format: z.enum(REPLAY_FORMATS, { error: `arrivals.format must be one of ${REPLAY_FORMATS.join(', ')}` }).optional(),
      timesS: z.array(offset('arrivals.timesS[]')).max(MAX_ARRIVALS, { error: `arrivals.timesS holds at most ${MAX_ARRIVALS} times` }).optional(),
      /** Where read times came from (set by loadTrafficProfile). */
      source: z.string().optional(),
    })
    .refine((a) => (a.file === undefined) !== (a.timesS === undefined), { error: 'arrivals (replay) needs exactly one of "file" and "timesS"', path: ['file'] }),
]);
export type Arrivals = z.infer<typeof Arrivals>;

/** Extra jobs on top of the base arrivals: `count` at once at `atS`, or Poisson at `ratePerSec` for `durationS` from `atS`. */
export const Burst = z.union(
  [
    z.strictObject({
      atS: offset('bursts[].atS'),
      count: z.number({ error: 'bursts[].count must be a number' }).int({ error: 'bursts[].count must be a whole number' }).min(1, { error: 'bursts[].count must be 1..1000000' }).max(1_000_000, { error: 'bursts[].count must be 1..1000000' }),
    }),
    z.strictObject({ atS: offset('bursts[].atS'), ratePerSec: rate('bursts[].ratePerSec'), durationS: seconds('bursts[].durationS') }),
  ],
  { error: 'each burst is {atS, count} (jobs at once) or {atS, ratePerSec, durationS} (a Poisson stretch)' },
);
export type Burst = z.infer<typeof Burst>;

/** One class of job input and its share of arrivals (shares are relative: they need not sum to 1). */
export const InputClass = z.strictObject({
  name: z.string().min(1, { error: 'inputs[].name must not be empty' }).optional(),
  share: z.number({ error: 'inputs[].share must be a number' }).positive({ error: 'inputs[].share must be > 0' }).max(1_000_000, { error: 'inputs[].share must be at most 1000000' }),
  /** The job's `input` object; the twin's execution `byInputField` picks its timing from it. */
  input: z.record(z.string(), z.unknown(), { error: 'inputs[].input must be a JSON object (the job input)' }),
});
export type InputClass = z.infer<typeof InputClass>;

export const TrafficProfile = z
  .strictObject({
    /** Seconds of traffic; a replay defaults to the span of its times. */
    durationS: seconds('durationS').optional(),
    arrivals: Arrivals,
    bursts: z.array(Burst).max(10_000, { error: 'bursts holds at most 10000 bursts' }).default([]),
    /** Absent: every job has the empty input (the twin's default timing). */
    inputs: z.array(InputClass).min(1, { error: 'inputs needs at least one class' }).max(1_000, { error: 'inputs holds at most 1000 classes' }).optional(),
  })
  .superRefine((p, ctx) => {
    if (p.durationS === undefined && p.arrivals.kind !== 'replay') ctx.addIssue({ code: 'custom', message: `durationS is required (seconds, > 0 and at most ${MAX_DURATION_S}) unless arrivals replay times`, path: ['durationS'] });
    const d = p.durationS;
    if (d === undefined) return;
    p.bursts.forEach((b, i) => {
      if (b.atS >= d) ctx.addIssue({ code: 'custom', message: `bursts[${i}].atS (${b.atS}) must be before the end of the traffic (durationS ${d})`, path: ['bursts', i, 'atS'] });
    });
  });
export type TrafficProfile = z.infer<typeof TrafficProfile>;
export type TrafficProfileInput = z.input<typeof TrafficProfile>;

/** Validate a parsed profile; `source` names it in the error (every problem at once, exit 2). */
export function parseTrafficProfile(value: unknown, source = 'traffic profile'): TrafficProfile {
  const r = TrafficProfile.safeParse(value);
  if (!r.success) throw configError(`${source}: invalid traffic profile:\n${z.prettifyError(r.error)}`, { source });
  return r.data;
}

/** The `--rate <jobs/s> --duration <d>` profile: Poisson arrivals of the twin's default (empty) input. */
export function trafficFromFlags(o: { readonly ratePerSec: number; readonly durationMs: number }): TrafficProfile {
  if (!(o.ratePerSec > 0) || o.ratePerSec > MAX_RATE_PER_SEC) throw usageError(`--rate must be > 0 and at most ${MAX_RATE_PER_SEC} jobs/s, got ${o.ratePerSec}`, { flag: '--rate' });
  if (!(o.durationMs > 0) || o.durationMs > MAX_DURATION_S * 1_000) throw usageError(`--duration must be > 0 and at most 7 days (168h), got ${o.durationMs} ms`, { flag: '--duration' });
  return parseTrafficProfile({ durationS: o.durationMs / 1_000, arrivals: { kind: 'poisson', ratePerSec: o.ratePerSec } }, 'flags');
}

/** One simulation's arrivals: times (ms from 0, ascending) and each arrival's input class. */
export interface ArrivalSchedule {
  readonly timesMs: Float64Array;
  /** Index into `inputs` per arrival. */
  readonly classes: Uint16Array;
  /** The job inputs, one per class (the empty input when the profile names none). */
  readonly inputs: readonly Record<string, unknown>[];
  /** The traffic's span, ms. */
  readonly durationMs: number;
}

/** The profile's span in ms (a replay without durationS: up to its last time). */
export function trafficDurationMs(p: TrafficProfile): number {
  if (p.durationS !== undefined) return p.durationS * 1_000;
  if (p.arrivals.kind === 'replay') {
    const t = p.arrivals.timesS ?? [];
    let last = 0;
    for (const x of t) if (x > last) last = x;
    return last * 1_000;
  }
  return 0;
}

/** Grows a Float64Array of times (arrival counts are unknown until generated). */
class Times {
  data = new Float64Array(1_024);
  size = 0;
  push(t: number): void {
    if (this.size === this.data.length) {
      if (this.size >= MAX_ARRIVALS) throw configError(`traffic profile: more than ${MAX_ARRIVALS} arrivals; shorten durationS or lower the rates`);
      const next = new Float64Array(Math.min(MAX_ARRIVALS, this.size * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.size++] = t;
  }
}

/** Poisson arrivals at `ratePerSec` in [fromMs, toMs). */
function poisson(out: Times, rng: Rng, ratePerSec: number, fromMs: number, toMs: number): void {
  if (ratePerSec <= 0) return;
  const meanGapMs = 1_000 / ratePerSec;
  for (let t = fromMs; ; ) {
    t += -Math.log(1 - rng.next()) * meanGapMs;
    if (t >= toMs) return;
    out.push(t);
  }
}

function baseArrivals(out: Times, a: Arrivals, rng: Rng, durationMs: number): void {
  switch (a.kind) {
    case 'constant': {
      const gapMs = 1_000 / a.ratePerSec;
      for (let i = 0; i * gapMs < durationMs; i += 1) out.push(i * gapMs);
      return;
    }
    case 'poisson':
      poisson(out, rng, a.ratePerSec, 0, durationMs);
      return;
    case 'daily':
      for (let h = 0; h * 3_600_000 < durationMs; h += 1) {
        poisson(out, rng, a.ratePerSecByHour[(a.startHour + h) % 24] as number, h * 3_600_000, Math.min(durationMs, (h + 1) * 3_600_000));
      }
      return;
    case 'steps': {
      const stepMs = a.stepS * 1_000;
      for (let i = 0; i < a.ratePerSec.length && i * stepMs < durationMs; i += 1) poisson(out, rng, a.ratePerSec[i] as number, i * stepMs, Math.min(durationMs, (i + 1) * stepMs));
      return;
    }
    case 'replay': {
      if (a.timesS === undefined) throw usageError(`traffic profile: the replay of ${a.file ?? 'a file'} was not read; load the profile with loadTrafficProfile`);
      for (const s of a.timesS) if (s * 1_000 <= durationMs) out.push(s * 1_000);
      return;
    }
  }
}

/**
 * The seeded arrival schedule of `p`: the base process, then every burst, merged in time order;
 * each arrival's input class drawn by share. Each part draws from its own stream of `seed`.
 */
export function arrivalSchedule(p: TrafficProfile, seed: number): ArrivalSchedule {
  const durationMs = trafficDurationMs(p);
  const out = new Times();
  baseArrivals(out, p.arrivals, seededRng(streamSeed(seed, 'arrivals')), durationMs);
  const burstRng = seededRng(streamSeed(seed, 'bursts'));
  for (const b of p.bursts) {
    const atMs = b.atS * 1_000;
    if ('count' in b) for (let i = 0; i < b.count; i += 1) out.push(atMs);
    else poisson(out, burstRng, b.ratePerSec, atMs, Math.min(durationMs, atMs + b.durationS * 1_000));
  }
  const timesMs = out.data.slice(0, out.size);
  // Arrivals are generated per part in order; bursts (and an unsorted replay) need the merge.
  timesMs.sort();
  const classes = new Uint16Array(timesMs.length);
  const inputs = p.inputs ?? [{ share: 1, input: {} }];
  if (inputs.length > 1) {
    const total = inputs.reduce((s, c) => s + c.share, 0);
    const cumulative: number[] = [];
    let acc = 0;
    for (const c of inputs) cumulative.push((acc += c.share / total));
    const rng = seededRng(streamSeed(seed, 'inputs'));
    for (let i = 0; i < classes.length; i += 1) {
      const u = rng.next();
      let k = 0;
      while (k < cumulative.length - 1 && u >= (cumulative[k] as number)) k += 1;
      classes[i] = k;
    }
  }
  return { timesMs, classes, inputs: inputs.map((c) => c.input), durationMs };
}
