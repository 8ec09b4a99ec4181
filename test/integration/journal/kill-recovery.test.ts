// A load run killed with SIGKILL at random instants, several times, by the built CLI against a
// separate `qbench emulate` process: `qbench report <dir>` rebuilds the result from the journal,
// marked incomplete; its request counts are what the journal's 1 s buckets hold (their histograms
// merge into exactly the rebuilt one), and what the emulator counted is the requests sent in the
// recorded seconds plus the schedule's starts after them, before the kill.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../global-setup.js';
import { QbenchResult, type LoadScenarioResult } from '../../../src/result/model.js';
import { bucketsOf, createHistogram, decodeHistogram } from '../../../src/result/histogram.js';
import { JournalRecord } from '../../../src/journal/records.js';
import { main } from '../../../src/cli/main.js';
import { readRunSource } from '../../../src/journal/source.js';
import type { CliIo } from '../../../src/cli/command.js';

const KEY = 'kill-recovery-key-5521';
const RATE = 80;
const KILLS = 4;
/** Send lateness (p99, ms) up to which the generator counts as on time. */
const LATE_MS = 25;
/** Starts that lateness up to LATE_MS can move across the kill instant, and one at each boundary. */
const TAIL_TOLERANCE = 2 + Math.ceil((RATE * LATE_MS) / 1000);
/** The fields of an encoded histogram besides its text (the one configuration, src/result/histogram.ts). */
const ENCODED = { unit: 'us', lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 } as const;

let dir = '';
let url = '';
const live: ChildProcess[] = [];

function startProc(args: string[], env: NodeJS.ProcessEnv = {}): { proc: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, [BUILT_BIN, ...args], { env: { ...process.env, QBENCH_API_KEY: KEY, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.push(proc);
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, out: () => out, exited };
}

async function until(pred: () => boolean | Promise<boolean>, what: string, maxMs: number): Promise<void> {
  const t0 = Date.now();
  while (!(await pred())) {
    if (Date.now() - t0 > maxMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const auth = { authorization: KEY };
/** Every /run request the emulator saw (admitted or refused). */
async function targetRunCount(): Promise<number> {
  const c = (await (await fetch(`${url}/_qbench/counters`, { headers: auth })).json()) as { endpoints: Record<string, { requests: Record<string, { admitted: number; rejectedRate: number; rejectedConcurrency: number }> }> };
  const run = c.endpoints['demo']?.requests['run'];
  return run ? run.admitted + run.rejectedRate + run.rejectedConcurrency : 0;
}

async function journalRecords(file: string): Promise<JournalRecord[]> {
  const text = await readFile(file, 'utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').slice(0, -1).map((l) => JournalRecord.parse(JSON.parse(l)));
}

const hasSchedule = async (file: string): Promise<boolean> => (await readFile(file, 'utf8').catch(() => '')).includes('"type":"schedule"');
const totalOf = (s: LoadScenarioResult): number => s.steps.reduce((a, st) => a + Object.values(st.counts).reduce((x, y) => x + y, 0), 0);
/** Uniform starts i/RATE s with offset in [fromMs, toMs). */
const startsBetween = (fromMs: number, toMs: number): number => Math.max(0, Math.ceil((toMs * RATE) / 1000) - Math.ceil((fromMs * RATE) / 1000));

async function kill(proc: ChildProcess, exited: Promise<number | null>): Promise<number> {
  const at = Date.now();
  proc.kill('SIGKILL');
  await exited;
  return at;
}

/** `qbench report <dir>` (in-process: the run under test is the killed CLI, not this one). */
async function report(runDir: string): Promise<QbenchResult> {
  const out: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => out.push(t), isTty: false, env: {}, signal: new AbortController().signal };
  expect(await main(['report', runDir], io), out.join('')).toBe(0);
  expect(out.join('')).toMatch(/rebuilt from .*journal\.ndjson: incomplete, the process ended at \S+ \(its last journal line\); the last [\d.]+ s were not recorded/);
  return QbenchResult.parse(JSON.parse(await readFile(path.join(runDir, 'result.json'), 'utf8')));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-kill-'));
  await writeFile(
    path.join(dir, 'probe.mjs'),
    `export default { name: 'kill-probe', executor: 'constant-arrival-rate', ratePerSec: ${RATE}, durationMs: 6000, steps: [{ kind: 'run', input: { prompt: 'x' } }] };\n`,
  );
  const emu = startProc(['emulate', '--port', '0', '--host', '127.0.0.1', '--time-scale', '60', '--no-limits']);
  await until(() => /ready on \S+/.test(emu.out()), 'the emulator', 50_000);
  url = (/ready on (\S+)/.exec(emu.out()) ?? [])[1] ?? '';
}, 60_000);
afterAll(async () => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('a load run killed with SIGKILL', () => {
  it(`is rebuilt from its journal after ${KILLS} kills at random instants`, { timeout: 120_000 }, async () => {
    for (let k = 0; k < KILLS; k++) {
      await fetch(`${url}/_qbench/reset`, { method: 'POST', headers: auth });
      const runDir = path.join(dir, `run-${k}`);
      const journal = path.join(runDir, 'journal.ndjson');
      const run = startProc(['load', path.join(dir, 'probe.mjs'), '--target', url, '--endpoint', 'demo', '--out', runDir]);
      // The first kill falls at a random instant before the schedule starts (loading, warm-up).
      if (k === 0) await until(async () => (await stat(journal).catch(() => undefined)) !== undefined, 'the journal', 30_000);
      else await until(() => hasSchedule(journal), 'the schedule to start', 30_000);
      await new Promise((r) => setTimeout(r, k === 0 ? Math.random() * 150 : 300 + Math.random() * 2200));
      const killedAt = await kill(run.proc, run.exited);
      const counted = await targetRunCount();
      if (!(await hasSchedule(journal))) {
        // Killed before its schedule: nothing reached the target and nothing was measured.
        const r = await report(runDir);
        expect(counted).toBe(0);
        expect((r.load?.scenarios ?? []).reduce((a, s) => a + totalOf(s), 0)).toBe(0);
        // Once planned, the scenario is named: partial (started, nothing recorded) or not run.
        const planned = (await journalRecords(journal)).some((x) => x.type === 'plan');
        expect([...(r.incomplete?.partial ?? []), ...(r.incomplete?.notRun ?? [])]).toEqual(planned ? ['kill-probe'] : []);
        continue;
      }
      const r = await report(runDir);
      expect(r.overall.status).toBe('error');
      expect(r.incomplete?.partial).toEqual(['kill-probe']);
      const s = r.load?.scenarios[0];
      if (!s?.incomplete) throw new Error('no partial scenario');
      expect(s.verdict.status).toBe('info');
      expect(s.thresholds).toEqual([]);

      // The rebuilt counts and histograms are the journal's buckets, exactly.
      const records = await journalRecords(journal);
      const buckets = records.flatMap((x) => (x.type === 'bucket' ? [x.bucket] : []));
      const fromJournal = buckets.reduce((a, b) => a + Object.values(b.steps).reduce((x, st) => x + Object.values(st.counts).reduce((p, q) => p + q, 0), 0), 0);
      expect(totalOf(s)).toBe(fromJournal);
      const merged = createHistogram();
      for (const b of buckets) for (const st of Object.values(b.steps)) merged.add(decodeHistogram({ ...ENCODED, encoded: st.latency }));
      // Killed within the schedule's first second, no bucket was due yet: nothing was recorded.
      expect(s.steps.map((st) => st.step)).toEqual(fromJournal > 0 ? ['run'] : []);
      for (const step of s.steps) {
        expect(bucketsOf(decodeHistogram(step.latency.histogram))).toEqual(bucketsOf(merged));
        expect(step.counts['2xx']).toBe(totalOf(s));
      }

      // Only the last second(s) before the kill are missing, and the target saw the rest.
      const t0 = records.find((x) => x.type === 'schedule');
      if (t0?.type !== 'schedule') throw new Error('no schedule line');
      const killOffsetMs = killedAt - t0.t0EpochMs;
      const recordedMs = s.incomplete.recordedMs;
      expect(killOffsetMs - recordedMs, `killed ${killOffsetMs} ms into the schedule, recorded ${recordedMs} ms`).toBeLessThan(2500);
      // Requests sent in the recorded seconds (answered or still in flight at their end) all
      // reached the target; after them come the schedule's starts up to the kill.
      const sent = s.series.reduce((a, st) => a + st.points.reduce((x, p) => x + p.offeredPerSec, 0), 0);
      expect(totalOf(s)).toBeLessThanOrEqual(sent);
      expect(sent).toBeLessThanOrEqual(counted);
      // Nothing reached the target before its scheduled start (one start of slack at the instant).
      const why = `target ${counted}, sent in the recorded seconds ${sent} (${totalOf(s)} answered), killed ${killOffsetMs} ms into the schedule, recorded ${recordedMs} ms`;
      expect(counted, why).toBeLessThanOrEqual(startsBetween(0, killOffsetMs) + 1);
      // A generator on time sent exactly the schedule's starts after the recorded seconds; one
      // that fell behind (a loaded host) sent its backlog then too, bounded above.
      // (Lateness is known for the recorded seconds only: with none recorded, only the bounds hold.)
      if (sent > 0 && s.validity.sendLateness.percentiles.p99 <= LATE_MS) expect(Math.abs(counted - sent - startsBetween(recordedMs, killOffsetMs)), why).toBeLessThanOrEqual(TAIL_TOLERANCE);
    }
  });

  it('leaves a shard that qbench merge names partial and merges exactly', { timeout: 60_000 }, async () => {
    await fetch(`${url}/_qbench/reset`, { method: 'POST', headers: auth });
    const dirs = [0, 1].map((i) => path.join(dir, `shard-${i}`));
    // No shared start instant: on a loaded machine a process may take seconds to start, and each
    // shard's schedule then starts when it is ready (merge aligns them).
    const shards = dirs.map((d, i) => startProc(['load', path.join(dir, 'probe.mjs'), '--target', url, '--endpoint', 'demo', '--duration', '3s', '--shard', `${i}/2`, '--out', d]));
    const [done, dying] = shards;
    if (!done || !dying) throw new Error('two shards');
    await until(() => hasSchedule(path.join(dirs[1] ?? '', 'journal.ndjson')), 'shard 1 to start its schedule', 30_000);
    await new Promise((r) => setTimeout(r, 200 + Math.random() * 2500));
    await kill(dying.proc, dying.exited);
    expect(await done.exited, done.out()).toBe(0);

    const out: string[] = [];
    const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => out.push(t), isTty: false, env: {}, signal: new AbortController().signal };
    const mergedFile = path.join(dir, 'merged.json');
    // The dead shard is named by its result file, which was never written: its journal stands in.
    const code = await main(['merge', path.join(dirs[0] ?? '', 'result.json'), path.join(dirs[1] ?? '', 'result.json'), '-o', mergedFile], io);
    const text = out.join('');
    expect(code, text).toBe(130);
    expect(text).toMatch(/shard-1[/\\]result\.json: no result\.json, rebuilt from .*journal\.ndjson \(partial: the process ended at/);
    const merged = QbenchResult.parse(JSON.parse(await readFile(mergedFile, 'utf8')));
    expect(merged.incomplete?.partialSources).toEqual([expect.stringMatching(/^1\/2 \(.*shard-1/)]);
    expect(merged.overall.reasons[0]).toMatch(/^1\/2 \(.*\) is partial: the process ended at/);
    const m = merged.load?.scenarios[0];
    expect(m?.shards).toBe(2);
    expect(m?.incomplete?.note).toMatch(/1\/2 is partial/);

    const parts = await Promise.all(dirs.map(async (d) => (await readRunSource(d)).result));
    expect(parts.map((p) => p.incomplete !== undefined)).toEqual([false, true]);
    const whole = createHistogram();
    let total = 0;
    for (const p of parts) {
      const st = p.load?.scenarios[0]?.steps.find((x) => x.step === 'run');
      if (st) whole.add(decodeHistogram(st.latency.histogram));
      total += p.load?.scenarios[0] ? totalOf(p.load.scenarios[0]) : 0;
    }
    const mergedStep = m?.steps.find((x) => x.step === 'run');
    if (!m || !mergedStep) throw new Error('no merged step');
    expect(totalOf(m)).toBe(total);
    expect(bucketsOf(decodeHistogram(mergedStep.latency.histogram))).toEqual(bucketsOf(whole));
    expect(total).toBeLessThanOrEqual(await targetRunCount());
  });
});
