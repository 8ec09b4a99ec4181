// The budget holds by construction: whatever the phases ask for, the deployment receives at most
// --max-jobs submissions (a fake deployment counts them), the plan refuses more jobs than the
// budget before anything is sent, and the CLI refuses to start without --yes when stdin is not
// a terminal (exit 2, nothing sent: the target does not even listen).
import { describe, expect, it } from 'vitest';
import { JobBudget, BudgetExhaustedError } from '../../../src/calibrate/budget.js';
import { estimateCost, planCalibration, type CalibrationPlan } from '../../../src/calibrate/plan.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { EXIT } from '../../../src/exit-codes.js';
import { calibrateFake as calibrate, fakeDeployment } from './fake-deployment.js';

const plan = (p: Partial<CalibrationPlan>): CalibrationPlan => ({ classes: 1, warmJobs: 0, coldStarts: 0, coldBatch: 1, burstJobs: 0, streamJobs: 0, maxJobs: 10, maxDurationMs: 20_000, totalJobs: 0, ...p });

describe('the job budget', () => {
  it('JobBudget.take counts up to the budget and then throws without counting', () => {
    const b = new JobBudget(2);
    b.take();
    b.take();
    expect(() => b.take()).toThrow(BudgetExhaustedError);
    expect(b.sent).toBe(2);
    expect(b.left).toBe(0);
  });

  it('phases that ask for 20 warm, 5 cold, 30 burst and 4 stream jobs send exactly the 7 the budget allows', async () => {
    const d = fakeDeployment();
    // A plan past its budget (planCalibration would refuse it): the runtime guard alone holds.
    const r = await calibrate(d, plan({ warmJobs: 20, coldStarts: 5, burstJobs: 30, streamJobs: 4, maxJobs: 7 }));
    expect(d.submitted()).toBe(7);
    expect(r.budget.jobsSent).toBe(7);
    expect(r.phases.find((p) => p.phase === 'warm')).toMatchObject({ status: 'partial', jobs: 7 });
    expect(r.phases.find((p) => p.phase === 'warm')?.reason).toMatch(/job budget of 7 is spent/);
    for (const p of r.phases.filter((x) => x.phase !== 'warm')) expect(p.jobs).toBe(0);
  });

  it('a burst larger than what is left sends only what is left, all at once', async () => {
    const d = fakeDeployment();
    const r = await calibrate(d, plan({ warmJobs: 3, burstJobs: 30, maxJobs: 10 }));
    expect(d.submitted()).toBe(10);
    expect(r.phases.find((p) => p.phase === 'burst')).toMatchObject({ status: 'partial', jobs: 7 });
  });

  it('a plan within its budget runs every phase and sends the planned count', async () => {
    const d = fakeDeployment();
    const r = await calibrate(d, plan({ warmJobs: 4, coldStarts: 2, burstJobs: 3, streamJobs: 2, maxJobs: 11 }));
    // The stream phase sends one job: it brings no chunk, so the handler does not stream.
    expect(d.submitted()).toBe(4 + 2 + 3 + 1);
    expect(r.phases.map((p) => `${p.phase}:${p.status}`)).toEqual(['warm:done', 'burst:done', 'cold:done', 'stream:done']);
    expect(r.notes.join(' ')).toMatch(/does not stream/);
    // The burst's one worker ran it with none starting: the cold batch asks a scaler that waits
    // for twice that (2 jobs) and the fake starts one, which shows workersMax. The idle gap after
    // the burst and the wait after that batch: two idle-timeout samples.
    expect(r.idleTimeoutSamplesMs.length).toBe(2);
  });

  it('cold jobs in batches: a batch of 3 that starts one worker narrows the next gaps to 1; every worker seen starting is a sample, never a job more', async () => {
    const d = fakeDeployment();
    const r = await calibrate(d, plan({ warmJobs: 1, coldStarts: 5, coldBatch: 3, maxJobs: 6 }));
    expect(d.submitted()).toBe(6);
    expect(r.phases.find((p) => p.phase === 'cold')).toMatchObject({ status: 'done', jobs: 5 });
    expect(r.jobs.byPhase['cold']).toBe(5);
    // The fake runs one worker: 3 jobs in the first gap, then one a gap: three gaps, a start each.
    expect(r.fits.find((f) => f.part === 'coldStart')?.n).toBe(3);
    // Each gap's wait and the one after the last batch.
    expect(r.idleTimeoutSamplesMs.length).toBe(4);
    expect(r.notes.join(' ')).toMatch(/a cold batch of 3 jobs started only 1 worker\(s\) at once.*later idle gaps sent 1 at a time/);
  });

  it('the deadline stops the run: an endpoint whose workers never stop ends the cold phase at --max-duration', async () => {
    const d = fakeDeployment(Infinity);
    // Given no active worker: the worker up at the start is not the count at rest, so the cold phase waits for it to stop.
    const r = await calibrate(d, plan({ warmJobs: 1, coldStarts: 3, maxJobs: 10, maxDurationMs: 1_000 }), { workersMin: 0 });
    expect(d.submitted()).toBe(1);
    expect(r.phases.find((p) => p.phase === 'cold')).toMatchObject({ status: 'partial', jobs: 0 });
    expect(r.phases.find((p) => p.phase === 'cold')?.reason).toMatch(/--max-duration of 1 s reached/);
  });
});

describe('the plan', () => {
  it('refuses more jobs than --max-jobs, naming the flags', () => {
    expect(() => planCalibration({ classes: 2, warmJobs: 10, coldStarts: 5, coldBatch: 1, burstJobs: 20, streamJobs: 3, maxJobs: 40, maxDurationMs: 60_000 })).toThrow(/needs 51 jobs.*--max-jobs 40.*--warm-jobs/);
    expect(planCalibration({ classes: 2, warmJobs: 10, coldStarts: 5, coldBatch: 1, burstJobs: 20, streamJobs: 3, maxJobs: 51, maxDurationMs: 60_000 }).totalJobs).toBe(51);
  });

  it('bounds worker-seconds by every worker up for the whole run and an idle timeout, and prices them from the table', () => {
    const p = planCalibration({ classes: 1, warmJobs: 1, coldStarts: 0, coldBatch: 1, burstJobs: 0, streamJobs: 0, maxJobs: 1, maxDurationMs: 600_000 });
    const c = estimateCost(p, { workersMax: { value: 3, source: 'given' }, idleTimeoutS: { value: 60, source: 'given' }, gpuTypeId: '4090 PRO', gpuCount: 2, pricePerS: undefined });
    // (3 + 2 spike workers) x (600 + 60) s
    expect(c.workerSecondsAtMost).toBe(3_300);
    expect(c.pricePerS).toBe(0.00031);
    expect(c.dollarsAtMost).toBeCloseTo(3_300 * 0.00031 * 2, 9);
    expect(estimateCost(p, { workersMax: { value: 3, source: 'given' }, idleTimeoutS: { value: 5, source: 'given' }, gpuTypeId: 'unknown-gpu', gpuCount: 1, pricePerS: undefined }).dollarsAtMost).toBeUndefined();
  });
});

describe('qbench calibrate without --yes', () => {
  it('refuses on a non-terminal stdin with exit 2 naming --yes, after printing the plan, before any request', async () => {
    let out = '';
    let err = '';
    const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), isTty: false, env: { QBENCH_API_KEY: 'calibrate-key' }, signal: new AbortController().signal };
    // Port 9 (discard): nothing listens; a request would fail with exit 5, not 2.
    const code = await main(['calibrate', '--target', 'http://127.0.0.1:9', '--endpoint', 'ep'], io);
    expect(code).toBe(EXIT.USAGE);
    expect(err).toMatch(/--yes/);
    expect(out).toMatch(/45 jobs planned, never more than 100 \(--max-jobs, a second burst included\)/);
    expect(out).toMatch(/at most \d+ worker-seconds/);
  });

  it('asks on a terminal, and a "no" sends nothing and exits 0', async () => {
    let out = '';
    let asked = '';
    const io: CliIo = { stdout: (t) => void (out += t), stderr: () => undefined, isTty: true, env: { QBENCH_API_KEY: 'calibrate-key' }, signal: new AbortController().signal, ask: (q) => ((asked = q), Promise.resolve('n')) };
    expect(await main(['calibrate', '--target', 'http://127.0.0.1:9/v2/ep', '--gpu-type', 'L4'], io)).toBe(EXIT.OK);
    expect(asked).toMatch(/Send these jobs\?/);
    expect(out).toMatch(/at most \$\d+\.\d\d at \$0\.00019 per GPU-second/);
    expect(out).toMatch(/nothing was sent/);
  });

  it('names the flag and its range for a bad value (exit 2)', async () => {
    let err = '';
    const io: CliIo = { stdout: () => undefined, stderr: (t) => void (err += t), isTty: false, env: { QBENCH_API_KEY: 'calibrate-key' }, signal: new AbortController().signal };
    expect(await main(['calibrate', '--target', 'http://127.0.0.1:9/v2/ep', '--idle-timeout', '0', '--yes'], io)).toBe(EXIT.USAGE);
    expect(err).toMatch(/--idle-timeout must be 1 to 3600 s/);
  });
});
