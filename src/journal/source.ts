// Where a saved run is read from: a result.json, or a run directory holding one, or (the
// process died before writing it) the directory's journal, from which the result is rebuilt.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { QbenchError } from '../errors.js';
import type { QbenchResult } from '../result/model.js';
import { RESULT_FILE, readResult } from '../result/read-result.js';
import { JOURNAL_FILE } from './records.js';
import { recoverResult } from './recover.js';

export interface RunSource {
  readonly result: QbenchResult;
  /** Set when the result was rebuilt from this journal file. */
  readonly journal?: string;
  /** The run directory, when a directory was named. */
  readonly dir?: string;
}

const exists = async (p: string): Promise<boolean> => (await stat(p).catch(() => undefined)) !== undefined;

/** Read a result file, a run directory, or a journal file. */
export async function readRunSource(p: string): Promise<RunSource> {
  const st = await stat(p).catch(() => undefined);
  if (st?.isDirectory()) {
    const json = path.join(p, RESULT_FILE);
    if (await exists(json)) return { result: await readResult(json), dir: p };
    const journal = path.join(p, JOURNAL_FILE);
    if (await exists(journal)) return { result: await recoverResult(journal), journal, dir: p };
    throw new QbenchError('QB_ERR_USAGE', `${p}: a directory with neither ${RESULT_FILE} nor ${JOURNAL_FILE} (name a run's report directory or a result file)`, { path: p });
  }
  if (st && path.basename(p) === JOURNAL_FILE) return { result: await recoverResult(p), journal: p };
  // A result file that was never written beside the journal of the run that died.
  if (!st && path.basename(p) === RESULT_FILE && (await exists(path.join(path.dirname(p), JOURNAL_FILE)))) {
    const journal = path.join(path.dirname(p), JOURNAL_FILE);
    return { result: await recoverResult(journal), journal, dir: path.dirname(p) };
  }
  return { result: await readResult(p) };
}
