// Appends journal records to <out>/journal.ndjson as the run measures: one JSON line per
// record, written through the file descriptor as soon as it is queued (one write in flight,
// the lines queued meanwhile go in the next), so a kill at any instant leaves every complete
// line valid and at most the line being written torn. A heartbeat line every second when
// nothing else was written dates the process's last sign of life.
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { JOURNAL_FILE, type JournalRecord } from './records.js';

/** A line at least this often: the recovered "process ended" time is within it of the truth. */
export const HEARTBEAT_MS = 1000;

export interface JournalWriterOptions {
  /** Told once when a write fails; the journal stops there and the run goes on. */
  readonly onError?: (message: string) => void;
}

export class JournalWriter {
  private queue: string[] = [];
  private writing: Promise<void> | undefined;
  private failed = false;
  private closed = false;
  private lastQueuedMs = 0;
  private readonly heartbeat: NodeJS.Timeout;
  /** Bytes handed to the file so far. */
  bytesWritten = 0;

  private constructor(
    private readonly fh: FileHandle,
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

  append(record: JournalRecord): void {
    if (this.failed || this.closed) return;
    this.lastQueuedMs = Date.now();
    this.queue.push(`${JSON.stringify(record)}\n`);
    this.writing ??= this.pump();
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
