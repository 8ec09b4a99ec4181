// Reading JSON request bodies and writing JSON answers for the REST and GraphQL parts of
// the emulator (WIRE-COMPAT: every JSON answer carries content-type application/json).
// Bodies are read with a byte cap so that a runaway client cannot exhaust memory.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The REST and GraphQL bodies are small documents; the service states no cap, so this is the emulator's choice. */
export const MAX_DOCUMENT_BODY_BYTES = 1_000_000;

export type BodyRead =
  | { readonly kind: 'empty' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'invalid-json'; readonly reason: string }
  | { readonly kind: 'too-large'; readonly limitBytes: number };

/** Read the whole body; parse it as JSON whatever the content-type says (clients differ). */
export async function readJsonBody(req: IncomingMessage, limitBytes = MAX_DOCUMENT_BODY_BYTES): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) {
      // Drain the rest without keeping it, so the answer can still be written.
      req.resume();
      return { kind: 'too-large', limitBytes };
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (e) {
    return { kind: 'invalid-json', reason: e instanceof Error ? e.message : String(e) };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** 204: no body, but the content-type stays JSON as on every other answer. */
export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204, { 'content-type': 'application/json; charset=utf-8' });
  res.end();
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
