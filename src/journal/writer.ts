// Appends journal records to <out>/journal.ndjson as the run measures: one JSON line per
// record, written through the file descriptor as soon as it is queued (one write in flight,
// the lines queued meanwhile go in the next), so a kill at any instant leaves every complete
// line valid and at most the line being written torn. A heartbeat line every second when
// nothing else was written dates the process's last sign of life.
import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { JOURNAL_FILE, type JournalRecord } from './records.js';

/** A line at least this often: the recovered "process ended" time is within it of the truth. */
export const HEARTBEAT_MS = 1000;

export interface JournalWriterOptions {
  /** Told once when a write fails; the journal stops there and the run goes on. */
  readonly onError?: (message: string) => void;
  /** Past this size the file is rewritten from its checkpoint (src/journal/compaction.ts). */
  readonly maxBytes?: number;
}

/** The default size cap: QBENCH_JOURNAL_MAX_MB, else 256 MiB. */
export function journalMaxBytes(env: Readonly<Record<string, string | undefined>>): number {
  const mb = Number(env['QBENCH_JOURNAL_MAX_MB']);
  return (Number.isFinite(mb) && mb > 0 ? mb : 256) * 1024 * 1024;
}

/** Records a checkpoint stands in for; the writer keeps every other record to rewrite it. */
const FOLDED_TYPES: ReadonlySet<JournalRecord['type']> = new Set(['bucket', 'alive', 'checkpoint']);

export class JournalWriter {
  private queue: string[] = [];
  private writing: Promise<void> | undefined;
  private failed = false;
  private closed = false;
  private lastQueuedMs = 0;
  private readonly heartbeat: NodeJS.Timeout;
  /** Bytes handed to the file so far. */
  bytesWritten = 0;
  /** Times the file was rewritten from its checkpoint. */
  rewrites = 0;
  private segmentBytes = 0;
  private checkpointBytes = 0;
  private kept: string[] = [];
  private checkpoint: ((atMs: number) => JournalRecord[]) | undefined;

  private constructor(
    private fh: FileHandle,
    readonly file: string,
    private readonly options: JournalWriterOptions,
  ) {
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastQueuedMs >= HEARTBEAT_MS * 0.9) this.append({ type: 'alive', atMs: Date.now() });
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Create (or truncate: a journal belongs to one run) `<dir>/journal.ndjson`. */
  static async create(dir: string, options: JournalWriterOptions = {}): Promise<JournalWriter> {
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, JOURNAL_FILE);
    return new JournalWriter(await open(file, 'w'), file, options);
  }

  /** What stands for the folded records when the file is rewritten (the scenario in progress's buckets). */
  onRewrite(checkpoint: (atMs: number) => JournalRecord[]): void {
    this.checkpoint = checkpoint;
  }

  append(record: JournalRecord): void {
    if (this.failed || this.closed) return;
    this.lastQueuedMs = Date.now();
    const line = `${JSON.stringify(record)}\n`;
    if (!FOLDED_TYPES.has(record.type)) this.kept.push(line);
    this.queue.push(line);
    this.writing ??= this.pump();
  }

  /**
   * Rewrite the file as its kept records and the checkpoint, in a new file renamed over the old
   * one (a kill leaves one or the other whole). Everything queued is in the checkpoint.
   */
  private async rewrite(): Promise<void> {
    const lines = Buffer.from([...this.kept, ...(this.checkpoint?.(Date.now()) ?? []).map((r) => `${JSON.stringify(r)}\n`)].join(''));
    this.queue = [];
    const next = await open(`${this.file}.next`, 'w');
    for (let off = 0; off < lines.length; ) off += (await next.write(lines, off, lines.length - off, null)).bytesWritten;
    await rename(`${this.file}.next`, this.file);
    await this.fh.close();
    this.fh = next;
    this.segmentBytes = lines.length;
    this.checkpointBytes = lines.length;
    this.rewrites += 1;
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.failed) {
        const buf = Buffer.from(this.queue.join(''));
        this.queue = [];
        // A write may take part of the buffer: the rest follows before any later line.
        for (let off = 0; off < buf.length; ) {
          const { bytesWritten } = await this.fh.write(buf, off, buf.length - off, null);
          off += bytesWritten;
        }
        this.bytesWritten += buf.length;
        this.segmentBytes += buf.length;
        // Twice the checkpoint at least: a checkpoint near the cap is not rewritten at every line.
        const cap = this.options.maxBytes;
        if (cap !== undefined && this.checkpoint && this.segmentBytes > Math.max(cap, 2 * this.checkpointBytes)) await this.rewrite();
      }
    } catch (e) {
      this.failed = true;
      this.queue = [];
      this.options.onError?.(`journal ${this.file}: write failed (${e instanceof Error ? e.message : String(e)}); the run goes on without it`);
    } finally {
      this.writing = undefined;
    }
  }

  /** Everything queued so far is in the file. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.heartbeat);
    await this.flush();
    this.closed = true;
    await this.fh.close();
  }
}
