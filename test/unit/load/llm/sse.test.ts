// The incremental SSE parser (src/load/llm/sse.ts) against the WHATWG event-stream rules: fixed
// examples of each rule, every split position of a stream, and generated streams (mixed line ends,
// comments, multi-line data, multi-byte characters) read whole and in random chunkings, which must
// all give the events the generator meant. The seed is printed; QBENCH_TEST_SEED replays a run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser, parseSse, type SseEvent } from '../../../../src/load/llm/sse.js';

const SEED = Number(process.env['QBENCH_TEST_SEED'] ?? Date.now() % 1_000_000);
const params = { seed: SEED, numRuns: 300 };
const enc = new TextEncoder();

/** Feed `bytes` cut at `cuts` (sorted byte offsets), collecting every event and the end. */
function feedChunked(bytes: Uint8Array, cuts: readonly number[]): { events: SseEvent[]; truncated: boolean } {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(from, cut)));
    from = cut;
  }
  const end = parser.end();
  return { events: [...events, ...end.events], truncated: end.truncated };
}

const msg = (data: string, extra: Partial<SseEvent> = {}): SseEvent => ({ event: 'message', data, id: '', ...extra });
const whole = (text: string) => parseSse(enc.encode(text));

describe('WHATWG rules, one by one', () => {
  it('takes `data:` with and without the space, and strips only one space', () => {
    expect(whole('data: a\n\ndata:b\n\ndata:  c\n\n').events).toEqual([msg('a'), msg('b'), msg(' c')]);
  });

  it('joins multi-line data with \\n and dispatches only on a blank line', () => {
    expect(whole('data: one\ndata: two\ndata\n\n').events).toEqual([msg('one\ntwo\n')]);
  });

  it('ignores comments, unknown fields and blank lines with no data', () => {
    expect(whole(': keep-alive\n\n:another\nfoo: bar\nretry: 10\n\n\n\ndata: x\n\n').events).toEqual([msg('x')]);
  });

  it('ends lines at LF, CR and CRLF alike', () => {
    expect(whole('data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n').events).toEqual([msg('a'), msg('b'), msg('c'), msg('d')]);
  });

  it('carries event type per event and the last id across events', () => {
    expect(whole('event: delta\nid: 7\ndata: a\n\ndata: b\n\n').events).toEqual([msg('a', { event: 'delta', id: '7' }), msg('b', { id: '7' })]);
  });

  it('drops one leading BOM and keeps multi-byte characters', () => {
    expect(whole('\uFEFFdata: h\u00e9llo \u4e16\u754c \u{1F600}\n\n').events).toEqual([msg('h\u00e9llo \u4e16\u754c \u{1F600}')]);
  });

  it('gives several events of one read in order, and marks [DONE]', () => {
    const parser = new SseParser();
    const events = parser.push(enc.encode('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n'));
    expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"a":2}', '[DONE]']);
    expect(parser.done).toBe(true);
  });

  it('discards an event the stream ended inside, and says so', () => {
    expect(whole('data: a\n\ndata: b').events).toEqual([msg('a')]);
    expect(whole('data: a\n\ndata: b').truncated).toBe(true);
    expect(whole('data: a\n\ndata: b\n').truncated).toBe(true);
    expect(whole('data: a\n\n').truncated).toBe(false);
  });
});

describe('events split across reads', () => {
  // Multi-byte characters (2, 3 and 4 bytes), CRLF, a comment and [DONE]: a split at any byte,
  // including inside a character and between CR and LF, must lose and change nothing.
  const text = ': hi\r\ndata: {"t":"\u00e9\u4e16\u{1F600}"}\r\n\r\ndata:x\r\ndata: y\rdata: z\r\rdata: [DONE]\r\n\r\n';
  const bytes = enc.encode(text);
  const expected = [msg('{"t":"\u00e9\u4e16\u{1F600}"}'), msg('x\ny\nz'), msg('[DONE]')];

  it('whole', () => {
    expect(parseSse(bytes)).toEqual({ events: expected, truncated: false });
  });

  it('cut at every byte, and at every pair of bytes', () => {
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) expect(feedChunked(bytes, [a, b]), `cut at bytes ${a} and ${b}`).toEqual({ events: expected, truncated: false });
    }
  });

  it('one byte per read', () => {
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(feedChunked(bytes, cuts)).toEqual({ events: expected, truncated: false });
  });
});

// A generated stream: events of data lines (some none), comments and `event:` lines among them,
// each line ended by LF, CR or CRLF chosen per line.
const lineEnd = fc.constantFrom('\n', '\r', '\r\n');
const value = fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const line = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('data' as const), value, space: fc.boolean(), end: lineEnd }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('comment' as const), value, space: fc.boolean(), end: lineEnd }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('event' as const), value: fc.constantFrom('delta', 'error', ''), space: fc.boolean(), end: lineEnd }) },
);
const streamModel = fc.record({
  bom: fc.boolean(),
  events: fc.array(fc.record({ lines: fc.array(line, { maxLength: 4 }), blankEnd: lineEnd }), { maxLength: 8 }),
});
type StreamModel = typeof streamModel extends fc.Arbitrary<infer T> ? T : never;

function encodeModel(model: StreamModel): { bytes: Uint8Array; expected: SseEvent[] } {
  let text = model.bom ? '\uFEFF' : '';
  let prevEnd = '';
  const expected: SseEvent[] = [];
  // A blank line ended by LF right after a CR would read as one CRLF: such a blank line ends in CRLF.
  const endOf = (content: string, end: string) => (content === '' && prevEnd === '\r' && end === '\n' ? '\r\n' : end);
  for (const ev of model.events) {
    const data: string[] = [];
    let type = '';
    for (const l of ev.lines) {
      // Without the separator space, a value that starts with a space would lose it: such a value keeps the space.
      const sep = l.space || l.value.startsWith(' ') ? ': ' : ':';
      const content = l.kind === 'comment' ? `:${l.value}` : `${l.kind}${sep}${l.value}`;
      const end = endOf(content, l.end);
      text += content + end;
      prevEnd = end;
      if (l.kind === 'data') data.push(l.value);
      if (l.kind === 'event') type = l.value;
    }
    const end = endOf('', ev.blankEnd);
    text += end;
    prevEnd = end;
    if (data.length > 0) expected.push(msg(data.join('\n'), type === '' ? {} : { event: type }));
  }
  return { bytes: enc.encode(text), expected };
}

const withCuts = streamModel.chain((model) => {
  const encoded = encodeModel(model);
  return fc.record({
    encoded: fc.constant(encoded),
    cuts: fc.uniqueArray(fc.integer({ min: 0, max: encoded.bytes.length }), { maxLength: 40 }).map((c) => c.sort((a, b) => a - b)),
  });
});

describe(`generated streams (seed ${SEED})`, () => {
  it('read whole, they give the events the generator meant', () => {
    fc.assert(
      fc.property(streamModel, (model) => {
        const { bytes, expected } = encodeModel(model);
        expect(parseSse(bytes)).toEqual({ events: expected, truncated: false });
      }),
      params,
    );
  });

  it('read in any chunking, they give what the whole read gives', () => {
    fc.assert(
      fc.property(withCuts, ({ encoded, cuts }) => {
        expect(feedChunked(encoded.bytes, cuts)).toEqual(parseSse(encoded.bytes));
      }),
      params,
    );
  });
});
