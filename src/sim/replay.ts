// Reading traffic from files: a profile (JSON) and the arrival times it replays. CSV or JSONL
// timestamps (seconds or ISO times) become times from 0; a qbench load result holds no
// per-request start times, only each second's offered rate, so its replay is that rate over time
// (a Poisson process within each second). Every bad line or field is named with its place.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { configError, usageError } from '../errors.js';
import { MAX_ARRIVALS, REPLAY_FORMATS, parseTrafficProfile, type Arrivals, type ReplayFormat, type TrafficProfile } from './traffic.js';

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw usageError(`${what} ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? String(e))})`, { file });
  }
}

/** Seconds from a timestamp: a number of seconds, or an ISO time; undefined when it is neither. */
function secondsOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (t === '') return undefined;
  const n = Number(t);
  if (Number.isFinite(n)) return n;
  // An ISO time has a date part: plain words (a header) must not parse as one.
  if (!/^\d{4}-\d{2}-\d{2}/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms / 1_000;
}

const TIME_FIELDS = ['at', 't', 'time', 'timestamp'] as const;

/** Timestamps of a CSV file: the first column of each line; a first line that is not a time is a header. */
export function parseCsvTimes(text: string, source: string): number[] {
  const out: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const first = (line.split(',')[0] as string).trim().replace(/^"(.*)"$/, '$1');
    const s = secondsOf(first);
    if (s === undefined) {
      if (out.length === 0 && i === lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'))) continue;
      throw configError(`${source} line ${i + 1}: "${first.slice(0, 60)}" is not a timestamp (seconds, or an ISO time such as 2026-11-25T09:00:00Z)`, { source, line: i + 1 });
    }
    out.push(s);
  }
  return out;
}

/** Timestamps of a JSONL file: each line a number of seconds, an ISO time, or an object with one in `at`, `t`, `time` or `timestamp`. */
export function parseJsonlTimes(text: string, source: string): number[] {
  const out: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw configError(`${source} line ${i + 1}: not JSON`, { source, line: i + 1 });
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const key = TIME_FIELDS.find((k) => o[k] !== undefined);
      v = key === undefined ? undefined : o[key];
    }
    const s = secondsOf(v);
    if (s === undefined) throw configError(`${source} line ${i + 1}: expected a timestamp (seconds, an ISO time, or an object with one in ${TIME_FIELDS.join('/')})`, { source, line: i + 1 });
    out.push(s);
  }
  return out;
}

/** Times from the first, ascending, in seconds. */
export function relativeTimes(times: readonly number[], source: string): number[] {
  if (times.length === 0) throw configError(`${source}: no arrival times in it`, { source });
  if (times.length > MAX_ARRIVALS) throw configError(`${source}: ${times.length} arrival times; at most ${MAX_ARRIVALS}`, { source });
  const sorted = Float64Array.from(times).sort();
  const first = sorted[0] as number;
  return Array.from(sorted, (t) => t - first);
}

/** The fields of a qbench load result that its replay reads (the full model is src/report/model.ts). */
const LoadResultRates = z.object({
  kind: z.literal('qbench-result', { error: 'not a qbench result ("kind" must be "qbench-result")' }),
  load: z.object(
    {
      scenarios: z
        .array(
          z.object({
            name: z.string(),
            startedAt: z.string(),
            series: z.array(z.object({ step: z.string(), points: z.array(z.object({ tSec: z.number().nonnegative(), offeredPerSec: z.number().nonnegative() })) })),
          }),
        )
        .min(1, { error: 'the load result has no scenario' }),
    },
    { error: 'the result has no load section (replay reads the load scenarios)' },
  ),
});

/** Steps that submit a job: a load result's other steps (status polls, streams) bring no arrival. */
const SUBMIT_STEPS = new Set(['run', 'runsync']);

/** A load result's offered rate of run/runsync requests, second by second, every scenario at its own start. */
export function loadResultRates(value: unknown, source: string): Extract<Arrivals, { kind: 'steps' }> {
  const r = LoadResultRates.safeParse(value);
  if (!r.success) throw configError(`${source}: cannot replay it:\n${z.prettifyError(r.error)}`, { source });
  const scenarios = r.data.load.scenarios;
  const starts = scenarios.map((s) => Date.parse(s.startedAt));
  if (starts.some(Number.isNaN)) throw configError(`${source}: a scenario's startedAt is not an ISO time`, { source });
  const origin = Math.min(...starts);
  const rates: number[] = [];
  let seen = false;
  scenarios.forEach((s, i) => {
    const offsetS = Math.round(((starts[i] as number) - origin) / 1_000);
    for (const series of s.series) {
      if (!SUBMIT_STEPS.has(series.step)) continue;
      seen = true;
      for (const p of series.points) {
        const at = offsetS + Math.floor(p.tSec);
        while (rates.length <= at) rates.push(0);
        rates[at] = (rates[at] as number) + p.offeredPerSec;
      }
    }
  });
  if (!seen || rates.length === 0) throw configError(`${source}: no run or runsync step in its series: nothing to replay`, { source });
  return { kind: 'steps', stepS: 1, ratePerSec: rates, source: `the offered rate of ${source} (a load result keeps no per-request start times)` };
}

function formatOf(file: string, given: ReplayFormat | undefined): ReplayFormat {
  if (given !== undefined) return given;
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.json') return 'load-result';
  throw configError(`arrivals.file ${file}: cannot tell its format from the extension; set arrivals.format to one of ${REPLAY_FORMATS.join(', ')}`, { file });
}

/** The replayed arrivals of `file` (relative to `baseDir`) in `format`. */
export async function readReplay(file: string, format: ReplayFormat | undefined, baseDir: string): Promise<Arrivals> {
  const full = path.resolve(baseDir, file);
  const f = formatOf(file, format);
  const text = await readText(full, 'arrivals.file');
  if (f === 'load-result') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw configError(`arrivals.file ${file}: not JSON (${e instanceof Error ? e.message : String(e)})`, { file });
    }
    return loadResultRates(value, file);
  }
  const times = f === 'csv' ? parseCsvTimes(text, file) : parseJsonlTimes(text, file);
  return { kind: 'replay', timesS: relativeTimes(times, file), source: file };
}

/** Read, validate and resolve a traffic profile file (JSON): a replayed file is read now, relative to the profile. */
export async function loadTrafficProfile(file: string): Promise<TrafficProfile> {
  const text = await readText(file, 'traffic profile');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw configError(`traffic profile ${file}: not JSON (${e instanceof Error ? e.message : String(e)})`, { file });
  }
  const p = parseTrafficProfile(value, `traffic profile ${file}`);
  const a = p.arrivals;
  if (a.kind !== 'replay' || a.file === undefined) return p;
  const arrivals = await readReplay(a.file, a.format, path.dirname(file));
  const durationS = p.durationS ?? (arrivals.kind === 'steps' ? arrivals.ratePerSec.length * arrivals.stepS : undefined);
  return parseTrafficProfile({ ...p, arrivals, ...(durationS === undefined ? {} : { durationS }) }, `traffic profile ${file}`);
}
