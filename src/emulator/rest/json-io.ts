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
  | { readonly kind: 'too-large'; readonly limitBytes: number }
  /** The client went away before the body ended: there is nobody to answer. */
  | { readonly kind: 'aborted' };

/**
 * Read the whole body; parse it as JSON whatever the content-type says (clients differ).
 * Past `limitBytes` the rest is read and discarded (not kept) so that the answer can still
 * be written on an intact connection.
 */
export function readJsonBody(req: IncomingMessage, limitBytes = MAX_DOCUMENT_BODY_BYTES): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limitBytes) chunks.push(chunk);
    });
    req.once('error', () => resolve({ kind: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) resolve({ kind: 'aborted' });
    });
    req.once('end', () => {
      if (total > limitBytes) return resolve({ kind: 'too-large', limitBytes });
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({ kind: 'empty' });
      try {
        resolve({ kind: 'json', value: JSON.parse(text) as unknown });
      } catch (e) {
        resolve({ kind: 'invalid-json', reason: e instanceof Error ? e.message : String(e) });
      }
    });
  });
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
