// Reading a journal back: every complete line must parse as a record (the writer guarantees
// it); a last line without its newline is the one a kill tore, and is left out and counted.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { QbenchError } from '../errors.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, JournalRecord, type RunRecord } from './records.js';

export interface ReadJournal {
  readonly file: string;
  readonly run: RunRecord;
  /** Every record after the run's, in order. */
  readonly records: readonly JournalRecord[];
  /** Bytes of a torn last line left out (0 when the file ends with a newline). */
  readonly tornBytes: number;
  /** The time of the last complete line. */
  readonly lastAtMs: number;
}

export async function readJournal(file: string): Promise<ReadJournal> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new QbenchError('QB_ERR_USAGE', `${file}: cannot read the journal (${code === 'ENOENT' ? 'no such file' : (code ?? String(e))})`, { file });
  }
  const end = text.lastIndexOf('\n') + 1;
  const tornBytes = Buffer.byteLength(text.slice(end));
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  const records: JournalRecord[] = [];
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new QbenchError('QB_ERR_CONFIG', `${file}:${i + 1}: not a JSON line (${e instanceof Error ? e.message : String(e)}); a journal's complete lines are whole records`, { file });
    }
    if (i === 0) checkHeader(file, value);
    const r = JournalRecord.safeParse(value);
    if (!r.success) throw new QbenchError('QB_ERR_CONFIG', `${file}:${i + 1}: not a journal record:\n${z.prettifyError(r.error)}`, { file });
    records.push(r.data);
  });
  const first = records[0];
  if (!first || first.type !== 'run') throw new QbenchError('QB_ERR_CONFIG', `${file}: the journal holds no complete first line (the run's identity): the process ended before it wrote one`, { file });
  const last = records[records.length - 1] ?? first;
  return { file, run: first, records: records.slice(1), tornBytes, lastAtMs: last.atMs };
}

function checkHeader(file: string, value: unknown): void {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || v['format'] !== JOURNAL_FORMAT) {
    throw new QbenchError('QB_ERR_CONFIG', `${file}: not a qbench journal (its first line has no "format": "${JOURNAL_FORMAT}")`, { file });
  }
  if (v['version'] !== JOURNAL_VERSION) {
    throw new QbenchError('QB_ERR_CONFIG', `${file}: journal version ${JSON.stringify(v['version'])}; this qbench reads version ${JOURNAL_VERSION}`, { file });
  }
}
