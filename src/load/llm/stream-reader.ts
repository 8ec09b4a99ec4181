// Reads one streamed OpenAI-compatible answer as its bytes arrive: SSE events out of the reads, each
// event's JSON into the token timer at the time of the read that completed it, `data: [DONE]` as the
// end. The time of a read is the caller's (performance.now() when undici handed over the bytes).
import { SseParser, isDoneEvent } from './sse.js';
import { TokenTimer, chunkOfSseData, type RequestTokenMetrics } from './token-metrics.js';

export interface StreamReadResult {
  readonly metrics: RequestTokenMetrics;
  /** `data: [DONE]` arrived. */
  readonly done: boolean;
  /** The body ended inside an event (that event is not counted). */
  readonly truncated: boolean;
  /** Events whose data was neither JSON nor `[DONE]`. */
  readonly unparsedEvents: number;
}

export class SseTokenReader {
  private readonly parser = new SseParser();
  private readonly timer: TokenTimer;
  private doneAtMs: number | undefined;
  private unparsed = 0;

  /** `onChunk` sees every parsed chunk as it is counted (the caller keeps its text, say). */
  constructor(
    startMs: number,
    private readonly onChunk?: (chunk: unknown) => void,
  ) {
    this.timer = new TokenTimer(startMs);
  }

  /** True once `[DONE]` arrived; later bytes are ignored. */
  get done(): boolean {
    return this.doneAtMs !== undefined;
  }

  /** The bytes of one read, received at `atMs`. */
  push(atMs: number, bytes: Uint8Array): void {
    if (this.doneAtMs !== undefined) return;
    for (const event of this.parser.push(bytes)) {
      if (isDoneEvent(event)) {
        this.doneAtMs = atMs;
        return;
      }
      this.count(atMs, event.data);
    }
  }

  private count(atMs: number, data: string): void {
    const chunk = chunkOfSseData(data);
    if (chunk === undefined) {
      this.unparsed += 1;
      return;
    }
    this.timer.observe(atMs, chunk);
    this.onChunk?.(chunk);
  }

  /** The body ended at `atMs`; the request ends at `[DONE]` when it came, else here. */
  end(atMs: number): StreamReadResult {
    const done = this.doneAtMs !== undefined;
    const last = done ? { events: [], truncated: false } : this.parser.end();
    for (const event of last.events) this.count(atMs, event.data);
    return { metrics: this.timer.finish(this.doneAtMs ?? atMs), done, truncated: last.truncated, unparsedEvents: this.unparsed };
  }
}
