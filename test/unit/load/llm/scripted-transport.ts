// A transport for the LLM request code on a virtual clock: each request is answered by a script
// of reads (bytes at given times), so every timing a test expects is exact.
import type { LlmHttpRequest, LlmTransport } from '../../../../src/load/llm/request.js';

export interface ScriptedAnswer {
  readonly status?: number;
  /** Each read: its arrival time and its bytes (text or JSON, encoded as UTF-8). */
  readonly reads: readonly { readonly atMs: number; readonly bytes: string | Uint8Array }[];
}

const enc = new TextEncoder();

/** Answers requests in order from `answers`, keyed by "METHOD path"; records what was sent. */
export function scriptedTransport(startMs: number, answers: Record<string, ScriptedAnswer[]>) {
  let now = startMs;
  const sent: (LlmHttpRequest & { atMs: number })[] = [];
  const transport: LlmTransport = {
    now: () => now,
    send(req, onData) {
      const key = `${req.method} ${req.path}`;
      const queue = answers[key];
      const answer = queue?.shift();
      if (answer === undefined) return Promise.reject(new Error(`no scripted answer for ${key}`));
      const sentAtMs = now;
      sent.push({ ...req, atMs: sentAtMs });
      for (const r of answer.reads) {
        if (r.atMs < now) return Promise.reject(new Error(`script goes back in time at ${key}: ${r.atMs} < ${now}`));
        now = r.atMs;
        // The reader said the answer is whole: the rest of the script is not waited for.
        if (onData(r.atMs, typeof r.bytes === 'string' ? enc.encode(r.bytes) : r.bytes) === true) break;
      }
      return Promise.resolve({ status: answer.status ?? 200, sentAtMs, endAtMs: now });
    },
  };
  const sleep = (ms: number): Promise<void> => {
    now += ms;
    return Promise.resolve();
  };
  return { transport, sleep, sent, at: (ms: number) => (now = ms) };
}

export const json = (v: unknown): string => JSON.stringify(v);
export const sseEvent = (v: unknown): string => `data: ${JSON.stringify(v)}\n\n`;
