// `qbench report <dir>` on a run whose process died: rebuild the whole result from the
// journal, marked incomplete ("the process ended at <time>; the last <n> s were not
// recorded"), with verdicts only for what finished and the rest listed as not run.
import { EXIT } from '../exit-codes.js';
import { buildMeta } from '../result/machine.js';
import { SCHEMA_VERSION, type QbenchResult, type RunIncomplete } from '../result/model.js';
import { computeOverall } from '../result/overall.js';
import { readJournal } from './read.js';
import { recoverLoad } from './recover-load.js';
import { recoverConformance, recoverFuzz } from './recover-units.js';
import { HEARTBEAT_MS } from './writer.js';

const fmtSec = (ms: number): string => (Math.round(ms / 100) / 10).toString();

/** The result the journal at `file` records; `incomplete` unless the run wrote its end. */
export async function recoverResult(file: string): Promise<QbenchResult> {
  const j = await readJournal(file);
  const load = recoverLoad(j.records, j.lastAtMs);
  const meta = buildMeta({
    command: j.run.argv,
    startedAt: new Date(j.run.atMs),
    endedAt: new Date(j.lastAtMs),
    target: j.run.target,
    machine: j.run.machine,
    labels: { ...j.run.labels, runId: j.run.runId },
  });
  const conformance = recoverConformance(j.records);
  const fuzz = recoverFuzz(j.records, j.lastAtMs - j.run.atMs);
  const partial = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'qbench-result' as const,
    meta,
    ...(conformance ? { conformance: conformance.section } : {}),
    ...(load ? { load: { scenarios: load.scenarios } } : {}),
    ...(fuzz ? { fuzz: fuzz.section } : {}),
  };
  const end = j.records.find((r) => r.type === 'end');
  // The run finished and only its report files are missing: its own verdict stands.
  if (end?.type === 'end') return { ...partial, overall: end.overall };

  const lastData = [...j.records].reverse().find((r) => r.type !== 'alive')?.atMs ?? j.run.atMs;
  const recordedUntilMs = load?.recordedUntilMs ?? lastData;
  // The process was alive at its last line and would have written another within a heartbeat.
  const unrecordedMs = Math.max(0, j.lastAtMs + HEARTBEAT_MS - recordedUntilMs);
  const note = `the process ended at ${new Date(j.lastAtMs).toISOString()} (its last journal line); the last ${fmtSec(unrecordedMs)} s were not recorded`;
  const incomplete: RunIncomplete = { note, processEndedAt: new Date(j.lastAtMs).toISOString(), unrecordedMs, partial: [...(load?.partial ?? [])], notRun: [...(conformance?.notRun ?? []), ...(load?.notRun ?? []), ...(fuzz?.notRun ?? [])] };
  const judged = computeOverall(partial, { interrupted: true });
  const reasons = [
    `incomplete run rebuilt from its journal: ${note}`,
    ...incomplete.partial.map((n) => `${n}: did not finish; its recorded data is shown without a verdict`),
    ...(incomplete.notRun.length > 0 ? [`not run: ${incomplete.notRun.join(', ')}`] : []),
    ...judged.reasons.filter((r) => r !== 'interrupted before the run finished'),
  ];
  return { ...partial, incomplete, overall: { ...judged, status: 'error', exitCode: EXIT.INTERRUPTED, reasons } };
}
