// Reading JSON request bodies and writing JSON answers for the REST and GraphQL parts of
// the emulator (WIRE-COMPAT: every JSON answer carries content-type application/json).
// Bodies are read with a byte cap, checked against the declared content-length before a
// byte is read, so that a runaway client cannot exhaust memory; documents nested past the
// emulator's depth limit (json-limits.ts) are refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { depthError, depthViolation } from '../json-limits.js';

/** The REST and GraphQL bodies are small documents; the service states no cap, so this is the emulator's choice. */
export const MAX_DOCUMENT_BODY_BYTES = 1_000_000;

export type BodyRead =
  | { readonly kind: 'empty' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'invalid-json'; readonly reason: string }
  /** Valid JSON nested past MAX_JSON_DEPTH: `reason` names the path and the limit. */
  | { readonly kind: 'too-deep'; readonly reason: string }
  | { readonly kind: 'too-large'; readonly limitBytes: number }
  /** The client went away before the body ended: there is nobody to answer. */
  | { readonly kind: 'aborted' };

/**
 * Read the whole body; parse it as JSON whatever the content-type says (clients differ).
 * A declared content-length past `limitBytes` is refused before reading; a body that grows
 * past it while streaming is refused at once. Either way answer with `closeLingering` (http-io.ts):
 * the connection closes after the answer, without parsing the rest.
 */
export function readJsonBody(req: IncomingMessage, limitBytes = MAX_DOCUMENT_BODY_BYTES): Promise<BodyRead> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.resolve({ kind: 'too-large', limitBytes });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (r: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limitBytes) chunks.push(chunk);
      else {
        chunks.length = 0;
        settle({ kind: 'too-large', limitBytes });
      }
    };
    req.on('data', onData);
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
    req.once('end', () => {
      if (settled) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return settle({ kind: 'empty' });
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch (e) {
        return settle({ kind: 'invalid-json', reason: e instanceof Error ? e.message : String(e) });
      }
      const deep = depthViolation(value);
      settle(deep === undefined ? { kind: 'json', value } : { kind: 'too-deep', reason: depthError(deep) });
    });
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent || res.destroyed) return;
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
