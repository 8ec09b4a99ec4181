// Assertions over probe answers shared by every check: exact status, JSON shape by the
// spec's zod schemas (every problem named), and 429-tolerant sends for checks that are not
// about rate limits (§7: clients back off and retry).
import { z } from 'zod';
import { fail, inconclusive, HTTP_STATUS, type CheckContext, type ProbeRequest, type ProbeResponse } from 'qbench/suite';

/** Attempts a non-rate-limit check makes when the target answers 429. */
const MAX_429_ATTEMPTS = 8;
const BACKOFF_BASE_REAL_MS = 100;
/** Attempts after a network error (no HTTP answer) before the check judges it. */
const MAX_NETWORK_ATTEMPTS = 3;
const NETWORK_RETRY_REAL_MS = 100;

export function describe(res: ProbeResponse): string {
  if (res.status === 0) return `no answer (${res.exchange.error ?? 'network error'})`;
  const body = res.text.length > 300 ? `${res.text.slice(0, 300)}...` : res.text;
  return `HTTP ${res.status} ${body}`;
}

/** Requests sent again after a fault of the path, per check run (reported as the measure `pathRetries`). */
const pathRetries = new WeakMap<CheckContext, number>();

/**
 * Send, and again after a fault of the network path (no HTTP answer: a reset, a refused connect, a
 * stall past the timeout), at most MAX_NETWORK_ATTEMPTS times: a reused keep-alive socket the
 * server had just closed, or a path that drops a few connections. Each lost attempt stays in the
 * check's log; the answer is the last attempt's.
 */
export async function sendRetryingPath(ctx: CheckContext, req: ProbeRequest): Promise<ProbeResponse> {
  let res = await ctx.http.send({ ...req, signal: ctx.signal });
  for (let attempt = 1; res.status === 0 && res.released !== true && attempt < MAX_NETWORK_ATTEMPTS; attempt++) {
    const retries = (pathRetries.get(ctx) ?? 0) + 1;
    pathRetries.set(ctx, retries);
    ctx.measure('pathRetries', retries);
    await ctx.time.sleepReal(NETWORK_RETRY_REAL_MS * attempt, ctx.signal);
    res = await ctx.http.send({ ...req, signal: ctx.signal });
  }
  return res;
}

/** Send, retrying path faults, and backing off exponentially on 429 (the check is not about rate limits). */
export async function send(ctx: CheckContext, req: ProbeRequest): Promise<ProbeResponse> {
  let res = await sendRetryingPath(ctx, req);
  for (let attempt = 1; res.status === HTTP_STATUS.tooManyRequests && attempt < MAX_429_ATTEMPTS; attempt++) {
    await ctx.time.sleepReal(BACKOFF_BASE_REAL_MS * 2 ** (attempt - 1), ctx.signal);
    res = await sendRetryingPath(ctx, req);
  }
  return res;
}

export function expectStatus(res: ProbeResponse, expected: number | readonly number[], what: string): void {
  const list = typeof expected === 'number' ? [expected] : expected;
  if (!list.includes(res.status)) fail(`${what}: HTTP ${list.join(' or ')}`, describe(res), res);
}

/**
 * The status of a setup request (a job the check needs, not the rule it judges). A 429 that
 * outlasted every backed-off attempt means other traffic holds the window: inconclusive.
 */
export function expectSetupStatus(res: ProbeResponse, expected: number, what: string): void {
  if (res.status === HTTP_STATUS.tooManyRequests) inconclusive(`${what}: still 429 after ${MAX_429_ATTEMPTS} backed-off attempts (other traffic holds the rate window)`, res);
  expectStatus(res, expected, what);
}

/** A refusal the spec leaves unnamed: some 4xx that is not 401, 404 or 429 (those mean other things in §7). */
export function expectRefusal(res: ProbeResponse, what: string): void {
  if (res.status < 400 || res.status >= 500 || res.status === HTTP_STATUS.unauthorized || res.status === HTTP_STATUS.tooManyRequests) {
    fail(`${what}: refused with a 4xx (400 per §7)`, describe(res), res);
  }
}

export function expectShape<S extends z.ZodType>(res: ProbeResponse, schema: S, what: string): z.output<S> {
  if (res.json === undefined) fail(`${what}: a JSON body`, describe(res), res);
  const r = schema.safeParse(res.json);
  if (!r.success) fail(`${what} matching the spec`, `${z.prettifyError(r.error).replace(/\n/g, '; ')} in ${describe(res)}`, res);
  return r.data;
}

export function field(json: unknown, key: string): unknown {
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>)[key] : undefined;
}
