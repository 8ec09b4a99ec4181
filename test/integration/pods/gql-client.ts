// A minimal GraphQL-over-HTTP client for the pod tests: `?api_key=` by default, or a Bearer
// header, or nothing; returns the HTTP status and the parsed JSON answer.
import { TEST_API_KEY } from '../templates/mount.js';

export interface GqlAnswer {
  status: number;
  contentType: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer whose shape the tests assert with expect()
  body: any;
}

export type GqlAuth = { kind: 'query'; key?: string } | { kind: 'bearer'; key?: string } | { kind: 'raw-header'; key?: string } | { kind: 'none' };

export async function gql(baseUrl: string, query: string, variables?: Record<string, unknown>, auth: GqlAuth = { kind: 'query' }, rawBody?: string): Promise<GqlAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let url = `${baseUrl}/graphql`;
  if (auth.kind === 'query') url += `?api_key=${encodeURIComponent(auth.key ?? TEST_API_KEY)}`;
  if (auth.kind === 'bearer') headers.authorization = `Bearer ${auth.key ?? TEST_API_KEY}`;
  if (auth.kind === 'raw-header') headers.authorization = auth.key ?? TEST_API_KEY;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: rawBody ?? JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), body: text === '' ? null : JSON.parse(text) };
}

/** The data of an answer that must have no errors. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see GqlAnswer.body
export async function gqlData(baseUrl: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await gql(baseUrl, query, variables);
  if (r.status !== 200 || r.body.errors) throw new Error(`GraphQL failed (${r.status}): ${JSON.stringify(r.body)}`);
  return r.body.data;
}
