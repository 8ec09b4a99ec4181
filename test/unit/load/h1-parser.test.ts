// The load client's response parser on its own, fed bytes by hand (no socket): framing by
// content-length, chunked and close, answers split anywhere, interim answers skipped, and each
// malformed answer a typed H1ParseError naming what was wrong.
import { describe, expect, it } from 'vitest';
import { H1ChunkError, H1HeadError, H1ResponseParser, parseHeaderBlock, type H1AnswerSink, type H1ParseError, type H1Response } from '../../../src/load/h1-parser.js';

class Sink implements H1AnswerSink {
  closed = false;
  wantsKeepAliveHint = true;
  readonly answers: { res: H1Response; closeAfter: boolean }[] = [];
  readonly errors: H1ParseError[] = [];
  readonly hints: number[] = [];
  constructor(
    public pending: number,
    private readonly head = false,
  ) {}
  keepAliveHint(ms: number): void {
    this.hints.push(ms);
    this.wantsKeepAliveHint = false;
  }
  pendingIsHead(): boolean | undefined {
    return this.pending > 0 ? this.head : undefined;
  }
  answer(res: H1Response, closeAfter: boolean): void {
    this.pending--;
    this.answers.push({ res, closeAfter });
  }
  parseError(e: H1ParseError): void {
    this.closed = true;
    this.errors.push(e);
  }
}

const bodyText = (r: H1Response): string => (r.body === null ? '' : Buffer.concat(Buffer.isBuffer(r.body) ? [r.body] : r.body).toString());

function feedAll(parser: H1ResponseParser, text: string, pieceBytes = Infinity): void {
  const bytes = Buffer.from(text, 'latin1');
  for (let i = 0; i < bytes.length; i += pieceBytes) parser.feed(bytes.subarray(i, Math.min(bytes.length, i + pieceBytes)));
}

describe('H1ResponseParser', () => {
  const two = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nKeep-Alive: timeout=5\r\n\r\nhelloHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\n';

  it.each([Infinity, 1, 7])('reads pipelined answers split into pieces of %s bytes', (piece) => {
    const sink = new Sink(2);
    feedAll(new H1ResponseParser(sink), two, piece);
    expect(sink.errors).toEqual([]);
    expect(sink.answers.map((a) => [a.res.status, bodyText(a.res), a.res.bytes, a.closeAfter])).toEqual([
      [200, 'hello', 5, false],
      [201, 'abcde', 5, false],
    ]);
    expect(parseHeaderBlock(sink.answers[1]!.res.headerBlock)).toEqual({ 'transfer-encoding': 'chunked', 'x-a': '1' });
    expect(sink.hints).toEqual([5000]);
  });

  it('ends a close-delimited body at the end of the stream, and HTTP/1.0 closes after it', () => {
    const sink = new Sink(1);
    const parser = new H1ResponseParser(sink);
    feedAll(parser, 'HTTP/1.0 200 OK\r\n\r\npart one, part two');
    expect(sink.answers).toEqual([]);
    expect(parser.end()).toBe(true);
    expect(sink.answers.map((a) => [bodyText(a.res), a.closeAfter])).toEqual([['part one, part two', true]]);
    expect(parser.end()).toBe(false);
  });

  it('reads no body for a HEAD request, a 204 or a 304', () => {
    const sink = new Sink(1, true);
    feedAll(new H1ResponseParser(sink), 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n');
    expect(sink.answers.map((a) => [a.res.status, a.res.body, a.closeAfter])).toEqual([[200, null, true]]);
  });

  it.each([
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', H1HeadError, 'status-line'],
    ['two-digit status', 'HTTP/1.1 20 OK\r\n\r\n', H1HeadError, 'status-code'],
    ['bad content-length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', H1HeadError, 'content-length'],
    ['upgrade', 'HTTP/1.1 101 Switching\r\n\r\n', H1HeadError, 'upgrade'],
    ['bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', H1ChunkError, 'chunk-size'],
    ['no CRLF after chunk data', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n', H1ChunkError, 'chunk-data-end'],
  ] as const)('%s: an H1ParseError with code HPE_INVALID', (_name, text, kind, failure) => {
    const sink = new Sink(1);
    feedAll(new H1ResponseParser(sink), text);
    expect(sink.answers).toEqual([]);
    expect(sink.errors).toHaveLength(1);
    const e = sink.errors[0]!;
    expect(e).toBeInstanceOf(kind);
    expect(e.failure).toBe(failure);
    expect(e.code).toBe('HPE_INVALID');
    expect(e.message).toMatch(/^invalid HTTP response: /);
  });

  it('an answer with no request waiting is an error, and so is a head past 64 KiB', () => {
    const unsolicited = new Sink(0);
    feedAll(new H1ResponseParser(unsolicited), 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    expect(unsolicited.errors.map((e) => e.failure)).toEqual(['unsolicited']);
    const huge = new Sink(1);
    feedAll(new H1ResponseParser(huge), `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70 * 1024)}`);
    expect(huge.errors.map((e) => e.failure)).toEqual(['head-too-large']);
  });
});
