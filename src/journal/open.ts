// Opening a run's journal: the file in the run's output directory, its first line the run's
// identity and options (the command line with its secrets redacted, the target without key).
import { randomBytes } from 'node:crypto';
import { collectMachineInfo, redactArgv, redactTarget } from '../result/machine.js';
import type { TargetInfo } from '../result/model.js';
import { VERSION } from '../version.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type RunRecord } from './records.js';
import { JournalWriter } from './writer.js';

/** The environment variable that names a run (shards of one run share it in live metrics). */
export const RUN_ID_ENV = 'QBENCH_RUN_ID';

/** The run's id: QBENCH_RUN_ID when set, else its start time and 6 random hex digits. */
export function runIdFrom(env: Readonly<Record<string, string | undefined>>, now = new Date()): string {
  const given = env[RUN_ID_ENV]?.trim();
  if (given) return given;
  return `${now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '')}-${randomBytes(3).toString('hex')}`;
}

export interface OpenJournalInput {
  readonly dir: string;
  readonly runId: string;
  readonly command: RunRecord['command'];
  readonly argv: readonly string[];
  readonly options: Readonly<Record<string, unknown>>;
  readonly target: TargetInfo;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly onError?: ((message: string) => void) | undefined;
  /** Size cap past which the journal is rewritten from its checkpoint. */
  readonly maxBytes?: number | undefined;
}

export async function openJournal(i: OpenJournalInput): Promise<JournalWriter> {
  const w = await JournalWriter.create(i.dir, { ...(i.onError ? { onError: i.onError } : {}), ...(i.maxBytes !== undefined ? { maxBytes: i.maxBytes } : {}) });
  const now = new Date();
  w.append({
    type: 'run',
    format: JOURNAL_FORMAT,
    version: JOURNAL_VERSION,
    atMs: now.getTime(),
    runId: i.runId,
    command: i.command,
    argv: redactArgv(i.argv),
    options: JSON.parse(JSON.stringify(i.options)) as Record<string, unknown>,
    target: redactTarget(i.target),
    machine: collectMachineInfo(),
    ...(i.labels ? { labels: { ...i.labels } } : {}),
    qbenchVersion: VERSION,
  });
  return w;
}
