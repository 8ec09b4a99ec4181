// An incremental server-sent-events parser: bytes in as they arrive, whole events out, per the
// WHATWG "event stream interpretation" rules that the OpenAI-compatible route follows
// (WIRE-COMPAT "LLM workers": `data: <chunk JSON>\n\n` ending with `data: [DONE]`). A read may end
// anywhere, inside a UTF-8 character or between the `\r` and `\n` of a line end, so nothing here
// assumes that a read holds whole lines; fed chunk by chunk it gives the events fed all at once gives.

/** One dispatched event. `event` is 'message' unless an `event:` field named it; `id` is the last event id seen. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string;
}

/** The payload that ends an OpenAI-compatible stream. */
export const SSE_DONE_DATA = '[DONE]';

export function isDoneEvent(e: SseEvent): boolean {
  return e.data === SSE_DONE_DATA;
}

/** What `end()` found left over: `truncated` when the stream stopped inside an event (its fields are discarded, as WHATWG says). */
export interface SseEnd {
  readonly events: readonly SseEvent[];
  readonly truncated: boolean;
}

const LINE_END = /[\r\n]/g;

export class SseParser {
  // The decoder keeps the bytes of a character split across reads; it drops one leading BOM, as WHATWG asks.
  private readonly decoder = new TextDecoder('utf-8');
  /** The text of the line not yet ended by CR, LF or CRLF. */
  private line = '';
  /** The previous text ended with a CR: an LF that starts the next read belongs to that line end. */
  private afterCr = false;
  private data: string[] = [];
  private eventType = '';
  private lastEventId = '';
  /** A field was seen since the last dispatch (for telling a truncated stream from a clean end). */
  private pendingFields = false;
  private doneSeen = false;

  /** True once a `data: [DONE]` event has been dispatched. */
  get done(): boolean {
    return this.doneSeen;
  }

  /** Feed the bytes of one read; returns the events that it completed, in order. */
  push(bytes: Uint8Array): SseEvent[] {
    const out: SseEvent[] = [];
    this.feedText(this.decoder.decode(bytes, { stream: true }), out);
    return out;
  }

  /** The stream ended: flush the decoder and report an event left without its blank line. */
  end(): SseEnd {
    const out: SseEvent[] = [];
    this.feedText(this.decoder.decode(), out);
    const truncated = this.line.length > 0 || this.pendingFields;
    this.line = '';
    this.resetEvent();
    return { events: out, truncated };
  }

  private feedText(text: string, out: SseEvent[]): void {
    let start = 0;
    if (this.afterCr && text.length > 0) {
      if (text.charCodeAt(0) === 0x0a) start = 1;
      this.afterCr = false;
    }
    LINE_END.lastIndex = start;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      const at = m.index;
      const piece = text.slice(start, at);
      const line = this.line.length > 0 ? this.line + piece : piece;
      this.line = '';
      this.processLine(line, out);
      start = at + 1;
      if (text.charCodeAt(at) === 0x0d) {
        if (start < text.length) {
          if (text.charCodeAt(start) === 0x0a) start += 1;
        } else {
          this.afterCr = true;
        }
      }
      LINE_END.lastIndex = start;
    }
    if (start < text.length) this.line += text.slice(start);
  }

  private processLine(line: string, out: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // a comment (`: keep-alive`)
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'data':
        this.data.push(value);
        this.pendingFields = true;
        break;
      case 'event':
        this.eventType = value;
        this.pendingFields = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      default:
        // `retry` sets a reconnection delay that a one-shot request never uses; other fields are ignored.
        break;
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (this.data.length === 0) {
      this.resetEvent();
      return;
    }
    const event: SseEvent = { event: this.eventType === '' ? 'message' : this.eventType, data: this.data.join('\n'), id: this.lastEventId };
    this.resetEvent();
    if (isDoneEvent(event)) this.doneSeen = true;
    out.push(event);
  }

  private resetEvent(): void {
    this.data = [];
    this.eventType = '';
    this.pendingFields = false;
  }
}

/** Parse a whole body at once (tests and recorded streams); the same events as any chunking of it. */
export function parseSse(bytes: Uint8Array): SseEnd {
  const parser = new SseParser();
  const events = parser.push(bytes);
  const last = parser.end();
  return { events: [...events, ...last.events], truncated: last.truncated };
}
