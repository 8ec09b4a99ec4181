// From observations to a twin: what a job's timing fields mix is taken apart as documented
// (cold delay = reaction + cold start + dispatch; overhead = e2e - delay - execution - round trip),
// the scaler is read from its reactions, each setting says measured, given or default, and the
// input classes are told apart by a field.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferDeployment, inferScaler, type ScalerEvidence } from '../../../src/calibrate/infer.js';
import { findClassField, loadInputClasses } from '../../../src/calibrate/inputs.js';
import type { BurstObservation, JobSample, Observations } from '../../../src/calibrate/observations.js';
import { summarizeBurst } from '../../../src/calibrate/phases.js';

const job = (o: Partial<JobSample>): JobSample => ({
  phase: 'warm',
  classId: 'default',
  status: 'COMPLETED',
  sentAtMs: 0,
  answeredAtMs: 0,
  e2eMs: 0,
  delayMs: 0,
  executionMs: 0,
  poolBefore: 'warm',
  ...o,
});

function observations(jobs: JobSample[], extra: Partial<Observations> = {}): Observations {
  return { timeScale: 1, rttRealMs: 10, jobs, idleTimeoutSamplesMs: [], workerStartsMs: [], throttle: { starts: 0, throttled: 0, waitsMs: [] }, coldReactions: [], scaleUps: [], restWorkers: undefined, burst: undefined, streams: [], nonStreamingClasses: [], phases: [], notes: [], ...extra };
}

const burst = (o: Partial<BurstObservation>): BurstObservation => ({
  jobs: 20,
  workersBefore: 1,
  timeline: [],
  firstScaleUpMs: undefined,
  workersAtFirstScaleUp: undefined,
  peakWorkers: 1,
  peakAtMs: 0,
  maxJobsPerRunningWorker: 1,
  throttledSeen: 0,
  ...o,
});

describe('inferScaler', () => {
  const reactions = (ms: readonly number[], errorMs = 300) => ms.map((m) => ({ ms: m, errorMs }));
  const evidence = (o: Partial<ScalerEvidence>): ScalerEvidence => ({ coldReactions: [], scaleUps: [], cap: undefined, slackMs: 0, ...o });

  it('QUEUE_DELAY: reactions in (value, value + 1 s], read within their poll spans; one stray reading of eight is allowed', () => {
    const g = inferScaler(burst({ firstScaleUpMs: 4_300 }), evidence({ coldReactions: reactions([4_900, 4_300, 4_700, 4_450, 6_800, 4_200, 4_550, 4_800]) }));
    expect(g).toMatchObject({ type: 'QUEUE_DELAY', value: 4 });
    expect(g?.ambiguous).toBeUndefined();
  });

  it('QUEUE_DELAY: readings that fit two values say so and pick the one nearest their median less half a check', () => {
    const g = inferScaler(undefined, evidence({ coldReactions: reactions([3_100, 3_200, 3_150, 3_250], 400) }));
    expect(g).toMatchObject({ type: 'QUEUE_DELAY', value: 3, ambiguous: [2, 3] });
    expect(g?.detail).toMatch(/ambiguous between 2 and 3.*3 picked/);
  });

  it('QUEUE_DELAY that starts a worker at once for a job finding none: the burst says the delay', () => {
    const g = inferScaler(burst({ firstScaleUpMs: 4_600 }), evidence({ coldReactions: reactions([100, 250, 80]) }));
    expect(g).toMatchObject({ type: 'QUEUE_DELAY', value: 4 });
    expect(g?.detail).toMatch(/had one at once \(startOnArrival\), so the cold batches do not show the delay/);
  });

  it('REQUEST_COUNT: a burst answered at once; the one value that predicts every batch\'s workers', () => {
    const g = inferScaler(burst({ jobs: 20, firstScaleUpMs: 150, peakWorkers: 5 }), evidence({ scaleUps: [{ source: 'burst', jobs: 20, workersBefore: 0, workersAfter: 5 }, { source: 'cold batch', jobs: 4, workersBefore: 0, workersAfter: 1 }], cap: 8 }));
    expect(g).toMatchObject({ type: 'REQUEST_COUNT', value: 4 });
    expect(g?.ambiguous).toBeUndefined();
  });

  it('REQUEST_COUNT capped by workersMax: ambiguous, the least value picked and a batch size that would tell them apart named', () => {
    // 16 jobs on a cap of 3: every value up to 7 reaches the cap (ceil(16 / 7) = 3).
    const g = inferScaler(burst({ jobs: 16, firstScaleUpMs: 150, peakWorkers: 3 }), evidence({ scaleUps: [{ source: 'burst', jobs: 16, workersBefore: 0, workersAfter: 3 }], cap: 3 }));
    expect(g).toMatchObject({ type: 'REQUEST_COUNT', value: 1, ambiguous: [1, 2, 3, 4, 5, 6, 7] });
    expect(g?.detail).toMatch(/ambiguous between 1, 2, 3, 4, 5, 6 and 7 .*1 picked.*2 job\(s\) sent at once with no worker up would tell 1 from 2/);
  });

  it('nothing seen: undefined (the service default is used)', () => {
    expect(inferScaler(undefined, evidence({}))).toBeUndefined();
    // Workers at once for cold jobs (startOnArrival) and no burst reaction: the scaler is not shown.
    expect(inferScaler(undefined, evidence({ coldReactions: reactions([100, 250, 80]) }))).toBeUndefined();
  });
});

describe('summarizeBurst', () => {
  it('reads the first scale-up (between the polls around it), the peak and jobs per worker from the timeline', () => {
    const p = (tMs: number, idle: number, running: number, initializing: number, inProgress: number) => ({ tMs, idle, running, initializing, throttled: 0, unhealthy: 0, inQueue: 0, inProgress });
    const b = summarizeBurst(10, 1, [p(0, 0, 1, 0, 2), p(1_000, 0, 1, 0, 2), p(2_000, 0, 1, 3, 2), p(3_000, 0, 4, 0, 8)]);
    expect(b.firstScaleUpMs).toBe(1_500);
    expect(b.workersAtFirstScaleUp).toBe(4);
    expect(b.peakWorkers).toBe(4);
    expect(b.peakAtMs).toBe(2_000);
    expect(b.maxJobsPerRunningWorker).toBe(2);
  });
});

describe('inferDeployment', () => {
  const warm = Array.from({ length: 12 }, (_, i) => job({ delayMs: 50 + i, executionMs: 1_000 + 100 * i, e2eMs: 50 + i + 1_000 + 100 * i + 10 + 300 }));
  // Cold jobs: a 1.9 s reaction (read within 0.2 s), cold starts of 8 s and so on, a 55 ms dispatch.
  const starts = [8_000, 8_400, 7_800];
  const cold = starts.map((c) => job({ phase: 'cold', poolBefore: 'cold', delayMs: 1_900 + c + 55, executionMs: 1_500 }));
  const coldReactions = starts.map(() => ({ ms: 1_900, errorMs: 200 }));

  it('takes the timing fields apart: dispatch from warm delays, overhead net of the round trip, the cold start and the reaction from /health and /status', () => {
    const r = inferDeployment(observations([...warm, ...cold], { idleTimeoutSamplesMs: [30_200, 29_900, 30_400], workerStartsMs: starts, coldReactions, restWorkers: 0 }), { given: {}, classField: undefined, classIds: ['default'], seed: 7 });
    const samples = (part: string) => r.fits.find((f) => f.part === part)?.samplesMs;
    expect(samples('dispatch')).toEqual(warm.map((j) => j.delayMs));
    expect(samples('overhead')?.every((o) => Math.abs(o - 300) < 1e-9)).toBe(true);
    expect(samples('coldStart')).toEqual([8_000, 8_400, 7_800]);
    expect(r.deployment).toMatchObject({ idleTimeoutS: 30, workersMin: 0, seed: 7 });
    expect(r.deployment.timing?.execution).toBeDefined();
    const src = Object.fromEntries(r.settings.map((s) => [s.name, s.source]));
    expect(src).toMatchObject({ idleTimeoutS: 'measured', workersMin: 'measured', workersMax: 'service default', scalerType: 'measured', gpuCount: 'service default' });
    // The scaler's reaction (delayTime before the worker's first sight): 1.9 s, a QUEUE_DELAY of 1 s (+ the check).
    expect(r.deployment).toMatchObject({ scalerType: 'QUEUE_DELAY', scalerValue: 1 });
  });

  it("startOnArrival: false from reactions after the scaler's check, true from workers at once (the scaler then unmeasured), unmeasured with none", () => {
    const run = (extra: Partial<Observations>) => inferDeployment(observations([...warm, ...cold], { workerStartsMs: starts, restWorkers: 0, ...extra }), { given: {}, classField: undefined, classIds: ['default'], seed: 7 });
    const setting = (r: ReturnType<typeof run>) => r.settings.find((s) => s.name === 'startOnArrival');
    const checked = run({ coldReactions });
    expect(setting(checked)).toMatchObject({ value: false, source: 'measured' });
    expect(checked.deployment.startOnArrival).toBe(false);
    // The emulator's own default: a worker at once for a job finding none, no burst to show the delay.
    const atOnce = run({ coldReactions: starts.map(() => ({ ms: 120, errorMs: 150 })) });
    expect(setting(atOnce)).toMatchObject({ value: true, source: 'measured' });
    expect(atOnce.deployment.startOnArrival).toBe(true);
    expect(atOnce.settings.find((s) => s.name === 'scalerType')).toMatchObject({ source: 'service default' });
    const none = run({ coldReactions: [] });
    expect(setting(none)).toMatchObject({ value: false, source: 'service default' });
    expect(none.notes.join('\n')).toMatch(/startOnArrival: not measured \(no cold batch was read\): the twin waits for the scaler.*--cold-starts > 0/);
  });

  it('notes each fit its samples place loosely, naming the flag that adds samples and how many for ±5%', () => {
    const r = inferDeployment(observations([...warm, ...cold], { idleTimeoutSamplesMs: [30_200], workerStartsMs: starts, coldReactions, restWorkers: 0 }), { given: {}, classField: undefined, classIds: ['default'], seed: 7 });
    // Execution spreads 1.0-2.1 s over 15 jobs: its median is known to about ±18%.
    const exec = r.fits.find((f) => f.part === 'execution');
    expect(exec?.precision.medianRelative).toBeGreaterThan(0.05);
    expect(r.notes.find((n) => n.startsWith('execution:'))).toMatch(/known to ±\d+\.\d% \(95%\) from 15 samples.*about \d+ samples \(--warm-jobs/);
    // Dispatch spreads 50-61 ms: known to about ±3%, no note.
    expect(r.fits.find((f) => f.part === 'dispatch')?.precision.medianRelative).toBeLessThan(0.05);
    expect(r.notes.some((n) => n.startsWith('dispatch:'))).toBe(false);
  });

  it('at a time scale over 1 the overhead fit is said to be an upper bound; at 1, nothing is said', () => {
    const scaled = inferDeployment(observations(warm, { timeScale: 60 }), { given: {}, classField: undefined, classIds: ['default'], seed: 1 });
    expect(scaled.notes.some((n) => /^overhead: at time scale 60 .*upper bound/.test(n))).toBe(true);
    const real = inferDeployment(observations(warm), { given: {}, classField: undefined, classIds: ['default'], seed: 1 });
    expect(real.notes.some((n) => n.startsWith('overhead: at time scale'))).toBe(false);
  });

  it('a given value wins and the report keeps what was measured beside it', () => {
    const r = inferDeployment(observations(warm, { idleTimeoutSamplesMs: [12_000] }), { given: { idleTimeoutS: 10, workersMax: 7, gpuTypeId: 'L4' }, classField: undefined, classIds: ['default'], seed: 1 });
    const idle = r.settings.find((s) => s.name === 'idleTimeoutS');
    expect(idle).toMatchObject({ value: 10, source: 'given' });
    expect(idle?.detail).toMatch(/measured 12/);
    expect(r.deployment).toMatchObject({ idleTimeoutS: 10, workersMax: 7, gpuTypeId: 'L4' });
    expect(r.notes.join(' ')).toMatch(/coldStart: not measured/);
  });

  it('execution by class: one fit per class under the class field, and a default from all', () => {
    const jobs = [...warm.map((j) => ({ ...j, classId: 'small' })), ...warm.map((j) => ({ ...j, classId: 'large', executionMs: (j.executionMs ?? 0) * 10 }))];
    const r = inferDeployment(observations(jobs), { given: {}, classField: 'size', classIds: ['small', 'large'], seed: 1 });
    const e = r.deployment.timing?.execution;
    expect(e && 'byInputField' in e ? Object.keys(e.classes) : []).toEqual(['small', 'large']);
    expect(e && 'byInputField' in e ? e.byInputField : undefined).toBe('size');
  });

  it('leaves out the timings of jobs that did not complete, and says so', () => {
    const r = inferDeployment(observations([...warm, job({ status: 'FAILED', executionMs: 99_999 })]), { given: {}, classField: undefined, classIds: ['default'], seed: 1 });
    expect(r.fits.find((f) => f.part === 'execution')?.samplesMs).not.toContain(99_999);
    expect(r.notes.join(' ')).toMatch(/1 job\(s\) did not complete \(FAILED\)/);
  });
});

describe('input classes', () => {
  it('finds the one field whose values tell the bodies apart', () => {
    expect(findClassField([{ input: { model: 'x', size: 's' } }, { input: { model: 'x', size: 'l' } }])).toBe('size');
    expect(findClassField([{ input: { a: 1 } }, { input: { a: 1 } }])).toBeUndefined();
  });

  it('loads --input files as classes, and refuses files that no field tells apart (naming --class-field)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'qbench-inputs-'));
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    await writeFile(a, JSON.stringify({ input: { size: 'small', prompt: 'hi' } }));
    await writeFile(b, JSON.stringify({ input: { size: 'large', prompt: 'hi' }, policy: { executionTimeout: 60_000 } }));
    const c = await loadInputClasses([a, b], undefined);
    expect(c.classField).toBe('size');
    expect(c.classes.map((x) => x.id)).toEqual(['small', 'large']);
    await writeFile(b, JSON.stringify({ input: { size: 'small', prompt: 'hi' } }));
    await expect(loadInputClasses([a, b], undefined)).rejects.toThrow(/--class-field/);
    await writeFile(b, JSON.stringify({ prompt: 'no input' }));
    await expect(loadInputClasses([b], undefined)).rejects.toThrow(/--input .*b\.json: not a job body/);
  });
});
