// The response parser of the load generator's HTTP/1.1 client (src/load/h1-pool.ts): it reads
// answers straight from a connection's socket buffers (status line, the framing headers only:
// content-length, chunked, close-delimited, 1xx, no-body statuses) and hands each complete one
// to its connection. It keeps the header block raw (parseHeaderBlock reads it on demand), so an
// answer costs no header object. A malformed answer is an H1ParseError naming what was wrong.

/** A complete answer. The header block is kept raw and parsed only when read. */
export interface H1Response {
  readonly status: number;
  /** The bytes between the status line and the blank line (header lines, CRLF separated). */
  readonly headerBlock: Buffer;
  /** Body bytes: null (empty), one Buffer or several. */
  readonly body: Buffer | Buffer[] | null;
  readonly bytes: number;
}

/** An error of the HTTP/1.1 client, with the network-style code its requests fail with. */
export class H1Error extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What was wrong with an answer's head (status line and framing headers). */
export type H1HeadFailure = 'head-too-large' | 'status-line' | 'status-code' | 'content-length' | 'upgrade' | 'unsolicited';
/** What was wrong with a chunked body's framing. */
export type H1ChunkFailure = 'chunk-line-too-long' | 'chunk-data-end' | 'chunk-size';

/** A malformed answer: its requests fail with code HPE_INVALID. */
export abstract class H1ParseError extends H1Error {
  abstract readonly failure: H1HeadFailure | H1ChunkFailure;
  constructor(reason: string) {
    super('HPE_INVALID', `invalid HTTP response: ${reason}`);
  }
}

export class H1HeadError extends H1ParseError {
  constructor(
    readonly failure: H1HeadFailure,
    reason: string,
  ) {
    super(reason);
    this.name = 'H1HeadError';
  }
}

export class H1ChunkError extends H1ParseError {
  constructor(
    readonly failure: H1ChunkFailure,
    reason: string,
  ) {
    super(reason);
    this.name = 'H1ChunkError';
  }
}

/** What the parser needs of its connection. */
export interface H1AnswerSink {
  /** True once the connection is closed: the parser reads no further. */
  readonly closed: boolean;
  /** True while the server's keep-alive hint is still wanted (servers send the same one on every answer). */
  readonly wantsKeepAliveHint: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms. */
  keepAliveHint(ms: number): void;
  /** Whether the oldest unanswered request is a HEAD request; undefined when none waits. */
  pendingIsHead(): boolean | undefined;
  /** One complete answer; `closeAfter`: the server closes the connection after it. */
  answer(res: H1Response, closeAfter: boolean): void;
  /** The answer is malformed: the connection is to be closed. */
  parseError(e: H1ParseError): void;
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const STATUS_PREFIX = Buffer.from('HTTP/1.', 'latin1');
/** A response head larger than this is refused (undici's default is 16 KiB too). */
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size or trailer line longer than this is refused. */
const MAX_CHUNK_LINE_BYTES = 4096;

type BodyMode = 0 | 1 | 2 | 3; // none, length, chunked, until close
const NONE: BodyMode = 0;
const LENGTH: BodyMode = 1;
const CHUNKED: BodyMode = 2;
const UNTIL_CLOSE: BodyMode = 3;

// Chunked decoding states.
const C_SIZE = 0;
const C_DATA = 1;
const C_DATA_END = 2;
const C_TRAILER = 3;

const EMPTY = Buffer.alloc(0);

/** Parse the header block into lower-case names; repeated headers become arrays. */
export function parseHeaderBlock(block: Buffer): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const text = block.toString('latin1');
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out;
}

/** ASCII case-insensitive compare of buf[start, start+name.length) with a lower-case name. */
function nameIs(buf: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) {
    const c = buf[start + i]!;
    if ((c >= 0x41 && c <= 0x5a ? c + 32 : c) !== name.charCodeAt(i)) return false;
  }
  return true;
}

function trimmedValue(buf: Buffer, start: number, end: number): string {
  while (start < end && (buf[start] === 0x20 || buf[start] === 0x09)) start++;
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x09)) end--;
  return buf.toString('latin1', start, end);
}

/** The answers of one connection, parsed as its bytes arrive. */
export class H1ResponseParser {
  private head: Buffer | null = null;
  private inBody = false;
  private mode: BodyMode = NONE;
  private remaining = 0;
  private status = 0;
  private headerBlock: Buffer = EMPTY;
  private body: Buffer | Buffer[] | null = null;
  private bytes = 0;
  private chunkState = C_SIZE;
  private line: Buffer | null = null;
  /** The server asked to close after the current answer (Connection: close or HTTP/1.0). */
  private closeAfter = false;

  constructor(private readonly sink: H1AnswerSink) {}

  /** Read the bytes of `chunk`: every answer they complete goes to the sink. */
  feed(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length && !this.sink.closed) {
      if (!this.inBody) {
        const used = this.parseHead(chunk, pos);
        if (used < 0) return; // head incomplete: kept in this.head
        pos = used;
        continue;
      }
      pos = this.parseBody(chunk, pos);
    }
  }

  /**
   * The server ended the stream: a close-delimited body is complete (true); anything else
   * was cut off (false).
   */
  end(): boolean {
    if (!(this.inBody && this.mode === UNTIL_CLOSE)) return false;
    this.closeAfter = true;
    this.complete();
    return true;
  }

  /** Parse a response head starting at chunk[pos]; the index after it, or -1 if incomplete. */
  private parseHead(chunk: Buffer, pos: number): number {
    let buf: Buffer;
    let base: number;
    if (this.head === null) {
      buf = chunk;
      base = pos;
    } else {
      buf = Buffer.concat([this.head, chunk.subarray(pos)]);
      base = 0;
    }
    const end = buf.indexOf(HEAD_END, base);
    if (end < 0) {
      if (buf.length - base > MAX_HEAD_BYTES) return this.fail(new H1HeadError('head-too-large', 'the response head is larger than 64 KiB'));
      this.head = buf === chunk ? Buffer.from(chunk.subarray(pos)) : buf;
      return -1;
    }
    const consumedFromChunk = this.head === null ? end + 4 : end + 4 - this.head.length + pos;
    this.head = null;
    // Status line: HTTP/1.x SSS reason (exactly three digits, then a space or the line's end)
    if (end - base < 12 || STATUS_PREFIX.compare(buf, base, base + 7) !== 0 || buf[base + 8] !== 0x20) return this.fail(new H1HeadError('status-line', 'the response does not start with an HTTP/1.x status line'));
    if (buf[base + 12] !== 0x20 && buf[base + 12] !== 0x0d) return this.fail(new H1HeadError('status-code', 'the status code is not three digits'));
    const minor = buf[base + 7]!;
    const s0 = buf[base + 9]! - 48;
    const s1 = buf[base + 10]! - 48;
    const s2 = buf[base + 11]! - 48;
    if (s0 < 0 || s0 > 9 || s1 < 0 || s1 > 9 || s2 < 0 || s2 > 9) return this.fail(new H1HeadError('status-code', 'the status code is not three digits'));
    const status = s0 * 100 + s1 * 10 + s2;
    const blockStart = buf.indexOf('\r\n', base, 'latin1') + 2;
    let length = -1;
    let chunked = false;
    let close = minor === 0x30; // HTTP/1.0 closes unless it says keep-alive
    // Scan the header lines for the framing headers only.
    let ls = blockStart;
    while (ls < end) {
      let le = buf.indexOf('\r\n', ls, 'latin1');
      if (le < 0 || le > end) le = end;
      const colon = buf.indexOf(0x3a, ls);
      if (colon > ls && colon < le) {
        const first = buf[ls]! | 0x20;
        if (first === 0x63) {
          if (nameIs(buf, ls, colon, 'content-length')) {
            const v = Number(trimmedValue(buf, colon + 1, le));
            if (!Number.isInteger(v) || v < 0) return this.fail(new H1HeadError('content-length', 'the content-length header is not a non-negative integer'));
            length = v;
          } else if (nameIs(buf, ls, colon, 'connection')) {
            const v = trimmedValue(buf, colon + 1, le).toLowerCase();
            if (v.includes('close')) close = true;
            else if (v.includes('keep-alive')) close = false;
          }
        } else if (first === 0x74 && nameIs(buf, ls, colon, 'transfer-encoding')) {
          if (trimmedValue(buf, colon + 1, le).toLowerCase().endsWith('chunked')) chunked = true;
        } else if (first === 0x6b && this.sink.wantsKeepAliveHint && nameIs(buf, ls, colon, 'keep-alive')) {
          const m = /timeout\s*=\s*(\d+)/i.exec(trimmedValue(buf, colon + 1, le));
          if (m) this.sink.keepAliveHint(Number(m[1]) * 1000);
        }
      }
      ls = le + 2;
    }
    // Interim answers (100 Continue, 103 Early Hints): skip, the real one follows.
    if (status >= 100 && status < 200 && status !== 101) return consumedFromChunk;
    if (status === 101) return this.fail(new H1HeadError('upgrade', 'unexpected protocol upgrade (101)'));
    const isHead = this.sink.pendingIsHead();
    if (isHead === undefined) return this.fail(new H1HeadError('unsolicited', 'an answer arrived with no request waiting for it'));
    this.status = status;
    this.headerBlock = blockStart < end ? Buffer.from(buf.subarray(blockStart, end)) : EMPTY;
    this.body = null;
    this.bytes = 0;
    this.closeAfter = close;
    if (isHead || status === 204 || status === 304) this.mode = NONE;
    else if (chunked) {
      this.mode = CHUNKED;
      this.chunkState = C_SIZE;
      this.line = null;
    } else if (length >= 0) {
      this.mode = length === 0 ? NONE : LENGTH;
      this.remaining = length;
    } else this.mode = UNTIL_CLOSE;
    if (this.mode === NONE) this.complete();
    else this.inBody = true;
    return consumedFromChunk;
  }

  private addBody(part: Buffer): void {
    this.bytes += part.length;
    const b = this.body;
    if (b === null) this.body = part;
    else if (Buffer.isBuffer(b)) this.body = [b, part];
    else b.push(part);
  }

  /** Consume body bytes from chunk[pos]; the index after what was used. */
  private parseBody(chunk: Buffer, pos: number): number {
    if (this.mode === LENGTH) {
      const take = Math.min(this.remaining, chunk.length - pos);
      this.addBody(chunk.subarray(pos, pos + take));
      this.remaining -= take;
      if (this.remaining === 0) this.complete();
      return pos + take;
    }
    if (this.mode === UNTIL_CLOSE) {
      this.addBody(chunk.subarray(pos));
      return chunk.length;
    }
    // Chunked.
    while (pos < chunk.length && this.inBody) {
      if (this.chunkState === C_DATA) {
        const take = Math.min(this.remaining, chunk.length - pos);
        this.addBody(chunk.subarray(pos, pos + take));
        this.remaining -= take;
        pos += take;
        if (this.remaining === 0) {
          this.chunkState = C_DATA_END;
          this.line = null;
        }
        continue;
      }
      // A line: chunk size, the CRLF after data, or a trailer line.
      const nl = chunk.indexOf(0x0a, pos);
      const upTo = nl < 0 ? chunk.length : nl + 1;
      const piece = chunk.subarray(pos, upTo);
      this.line = this.line === null ? piece : Buffer.concat([this.line, piece]);
      pos = upTo;
      if (nl < 0) {
        if (this.line.length > MAX_CHUNK_LINE_BYTES) {
          this.fail(new H1ChunkError('chunk-line-too-long', 'a chunk-size or trailer line is longer than 4 KiB'));
          return chunk.length;
        }
        continue;
      }
      const text = this.line.toString('latin1').trim();
      this.line = null;
      if (this.chunkState === C_DATA_END) {
        if (text !== '') {
          this.fail(new H1ChunkError('chunk-data-end', 'chunk data is not followed by CRLF'));
          return chunk.length;
        }
        this.chunkState = C_SIZE;
      } else if (this.chunkState === C_SIZE) {
        const hex = text.split(';')[0]!.trim();
        const size = /^[0-9a-fA-F]{1,12}$/.test(hex) ? parseInt(hex, 16) : NaN;
        if (!Number.isFinite(size)) {
          this.fail(new H1ChunkError('chunk-size', 'a chunk size is not hexadecimal'));
          return chunk.length;
        }
        if (size === 0) this.chunkState = C_TRAILER;
        else {
          this.chunkState = C_DATA;
          this.remaining = size;
        }
      } else if (text === '') this.complete(); // end of trailers
    }
    return pos;
  }

  private complete(): void {
    this.inBody = false;
    const res: H1Response = { status: this.status, headerBlock: this.headerBlock, body: this.body, bytes: this.bytes };
    this.body = null;
    this.headerBlock = EMPTY;
    this.sink.answer(res, this.closeAfter);
  }

  /** Hand the error to the sink; an index past any chunk, so that the read ends. */
  private fail(e: H1ParseError): number {
    this.sink.parseError(e);
    return Number.MAX_SAFE_INTEGER;
  }
}
