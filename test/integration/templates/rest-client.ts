// A minimal fetch wrapper for the template tests: sends JSON with Bearer auth by default and
// returns status, content-type and the parsed body (null for an empty one).
import { TEST_API_KEY } from './mount.js';

export interface RestAnswer {
  status: number;
  contentType: string | null;
  allow: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer whose shape the tests assert with expect()
  body: any;
}

export interface RestOptions {
  /** The whole authorization header; null sends none. Default: `Bearer <TEST_API_KEY>`. */
  authorization?: string | null;
  /** Sent as is instead of JSON.stringify(body). */
  rawBody?: string;
}

export async function rest(baseUrl: string, method: string, path: string, body?: unknown, options: RestOptions = {}): Promise<RestAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const authorization = options.authorization === undefined ? `Bearer ${TEST_API_KEY}` : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (body !== undefined) payload = JSON.stringify(body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    allow: res.headers.get('allow'),
    body: text === '' ? null : JSON.parse(text),
  };
}
